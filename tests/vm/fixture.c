// SPDX-License-Identifier: GPL-2.0-or-later
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "testlib.h"

static char fx_dev[256];

void fx_setup(const char *dev, const char *mkfs_opts)
{
	snprintf(fx_dev, sizeof(fx_dev), "%s", dev);
	setenv("DM_DISABLE_UDEV", "1", 1);
	tl_must("dmsetup create dust --table \"0 $(blockdev --getsz %s) dust %s 0 4096\"", dev, dev);
	tl_mkfs(FX_DUST, "%s", mkfs_opts);
	fx_mount();
}

void fx_mount(void)
{
	tl_mount(FX_DUST, FX_MNT, NULL);
}

void fx_umount(void)
{
	tl_umount(FX_MNT);
}

void fx_add_bad_blocks(const uint64_t *blocks, int n)
{
	for (int i = 0; i < n; i++)
		tl_must("dmsetup message dust 0 addbadblock %llu", (unsigned long long)blocks[i]);
	tl_must("dmsetup message dust 0 enable");
}

int fx_repair_check(void)
{
	return tl_sh("xfs_repair -n " FX_DUST " >/tmp/repair.log 2>&1; rc=$?; "
		     "tail -n 25 /tmp/repair.log; exit $rc");
}

void fx_teardown(void)
{
	tl_sh("umount %s 2>/dev/null", FX_MNT);
	tl_sh("dmsetup remove dust");
}

/* ---- the tree ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void mkdirs(const char *rel)
{
	char path[4096];

	snprintf(path, sizeof(path), "mkdir -p '%s/%s'", FX_MNT, rel);
	REQUIRE(system(path) == 0, "%s", path);
}

static int open_rel(const char *rel, int flags)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", FX_MNT, rel);
	int fd = open(path, flags | O_CLOEXEC, 0644);
	REQUIRE(fd >= 0, "open %s: %s", path, strerror(errno));
	return fd;
}

static void write_file_at(int fd, uint64_t offset, uint64_t size)
{
	static uint64_t buf[16384];	/* 128 KiB */

	while (size > 0) {
		size_t n = size < sizeof(buf) ? size : sizeof(buf);

		for (size_t i = 0; i < sizeof(buf) / sizeof(buf[0]); i++)
			buf[i] = rng();
		REQUIRE(pwrite(fd, buf, n, (off_t)offset) == (ssize_t)n, "write: %s", strerror(errno));
		offset += n;
		size -= n;
	}
}

static void write_file(const char *rel, uint64_t size)
{
	int fd = open_rel(rel, O_WRONLY | O_CREAT | O_TRUNC);

	write_file_at(fd, 0, size);
	close(fd);
}

static void link_rel(const char *from, const char *to)
{
	char a[4096], b[4096];

	snprintf(a, sizeof(a), "%s/%s", FX_MNT, from);
	snprintf(b, sizeof(b), "%s/%s", FX_MNT, to);
	REQUIRE(link(a, b) == 0, "link %s %s: %s", a, b, strerror(errno));
}

void fx_build_tree(void)
{
	char rel[512];

	printf("building the tree\n");
	for (int d = 0; d < 20; d++) {
		for (int s = 0; s < 5; s++) {
			snprintf(rel, sizeof(rel), "tree/d%02d/s%d", d, s);
			mkdirs(rel);
			for (int f = 0; f < 21; f++) {
				snprintf(rel, sizeof(rel), "tree/d%02d/s%d/f%02d.dat", d, s, f);
				write_file(rel, 1024 + (uint64_t)((d * 7 + s * 3 + f) % 24) * 1024);
			}
		}
	}
	mkdirs("docs");
	mkdirs("public");
	write_file("docs/thesis.pdf", 256 * 1024);
	link_rel("docs/thesis.pdf", "tree/d03/thesis-link.pdf");
	link_rel("docs/thesis.pdf", "public/thesis.pdf");

	mkdirs("media");
	mkdirs("backup");
	write_file("media/film.mkv", 8 << 20);
	int src = open_rel("media/film.mkv", O_RDONLY);
	int dst = open_rel("backup/film-copy.mkv", O_WRONLY | O_CREAT | O_TRUNC);
	REQUIRE(ioctl(dst, FICLONE, src) == 0, "FICLONE: %s", strerror(errno));
	close(src);
	close(dst);

	int fd = open_rel("sparse.img", O_WRONLY | O_CREAT | O_TRUNC);
	write_file_at(fd, 0, 64 * 1024);
	write_file_at(fd, 100ULL << 20, 64 * 1024);
	close(fd);

	write_file("xattrs.dat", 4096);
	fd = open_rel("xattrs.dat", O_RDONLY);
	for (int i = 0; i < 300; i++) {
		char name[64], value[200];

		snprintf(name, sizeof(name), "user.attribute-number-%03d", i);
		memset(value, 'a' + i % 26, sizeof(value));
		REQUIRE(fsetxattr(fd, name, value, sizeof(value), 0) == 0, "setxattr: %s",
			strerror(errno));
	}
	close(fd);

	mkdirs("big");
	write_file("big/archive.tar", 50 << 20);

	mkdirs("odd");
	write_file("odd/name with spaces.txt", 8192);
	write_file("odd/new\nline.txt", 8192);
	write_file("odd/\xff\xfe-bytes.bin", 8192);

	mkdirs("bigdir");
	for (int i = 0; i < 500; i++) {
		snprintf(rel, sizeof(rel), "bigdir/entry-%04d-with-a-longer-name-than-usual", i);
		close(open_rel(rel, O_WRONLY | O_CREAT | O_TRUNC));
	}

	mkdirs("inodes");
	for (int i = 0; i < 48; i++) {
		snprintf(rel, sizeof(rel), "inodes/i%02d", i);
		write_file(rel, 4096);
	}
	sync();
}

/* ---- ground truth ---- */

/* @rel under the fixture's mount point, in @path. */
static void fx_path(char *path, size_t len, const char *rel)
{
	snprintf(path, len, "%s/%s", FX_MNT, rel);
}

uint64_t fx_file_physical(const char *rel, uint64_t offset)
{
	char path[4096];

	fx_path(path, sizeof(path), rel);
	return tl_file_physical(path, offset);
}

/* Device byte of byte @offset of a fork of @rel (GETBMAPX). */
static uint64_t fork_byte(const char *rel, uint64_t offset, bool attr_fork)
{
	char path[4096];

	fx_path(path, sizeof(path), rel);
	return tl_fork_physical(path, offset, attr_fork);
}

uint64_t fx_dir_first_block(const char *rel)
{
	return fork_byte(rel, 0, false);
}

uint64_t fx_dir_block(const char *rel, uint64_t offset)
{
	return fork_byte(rel, offset, false);
}

uint64_t fx_attr_first_block(const char *rel)
{
	return fork_byte(rel, 0, true);
}

uint64_t fx_attr_block(const char *rel, uint64_t offset)
{
	return fork_byte(rel, offset, true);
}

uint64_t fx_ino(const char *rel)
{
	char path[4096];

	fx_path(path, sizeof(path), rel);
	return tl_ino(path);
}

uint32_t fx_gen(const char *rel)
{
	char path[4096];
	uint64_t ino;
	uint32_t gen;

	fx_path(path, sizeof(path), rel);
	tl_ino_gen(path, &ino, &gen);
	return gen;
}

static uint64_t xfs_db_number(const char *cmds, const char *key)
{
	const char *out = tl_out("xfs_db -r %s %s 2>&1", cmds, FX_DUST);
	const char *p = key ? strstr(out, key) : out;
	char *end;

	REQUIRE(p, "xfs_db %s: no '%s' in: %s", cmds, key ? key : "", out);
	if (key)
		p += strlen(key);
	while (*p && (*p < '0' || *p > '9'))
		p++;
	unsigned long long v = strtoull(p, &end, 0);
	REQUIRE(end != p, "xfs_db %s: no number in: %s", cmds, out);
	return v;
}

uint64_t fx_inode_byte(uint64_t ino)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "-c 'convert inode %llu byte'", (unsigned long long)ino);
	return xfs_db_number(cmd, NULL);
}

uint32_t fx_ino_agno(uint64_t ino)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "-c 'convert inode %llu agno'", (unsigned long long)ino);
	return (uint32_t)xfs_db_number(cmd, NULL);
}

uint64_t fx_inobt_root_byte(uint32_t agno)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "-c 'agi %u' -c 'print root'", agno);
	uint64_t root = xfs_db_number(cmd, "root =");
	snprintf(cmd, sizeof(cmd), "-c 'convert agno %u agbno %llu byte'", agno,
		 (unsigned long long)root);
	return xfs_db_number(cmd, NULL);
}

static void walk_dir(const char *rel, void (*fn)(const char *, uint64_t, void *), void *arg)
{
	char path[4096];
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof(path), "%s%s%s", FX_MNT, rel[0] ? "/" : "", rel);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char child[4096];

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(child, sizeof(child), "%s%s%s", rel, rel[0] ? "/" : "", de->d_name);
		fn(child, de->d_ino, arg);
		if (de->d_type == DT_DIR)
			walk_dir(child, fn, arg);
	}
	closedir(d);
}

void fx_walk(void (*fn)(const char *rel, uint64_t ino, void *arg), void *arg)
{
	walk_dir("", fn, arg);
}
