// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <xfs/xfs.h>

#include "check.h"
#include "ktest.h"
#include "populate.h"

#define AG_DIRS 4

static const char *const labels[KT_NSAMPLES] = {
	[KT_ROOT] = "root directory",
	[KT_FILE] = "regular file",
	[KT_BTREE_FILE] = "file with a btree data fork",
	[KT_SHARED_FILE] = "reflinked file with a CoW fork",
	[KT_EMPTY_FILE] = "empty file",
	[KT_XATTR_SHORT] = "file with short-form xattrs",
	[KT_XATTR_LEAF] = "file with many xattrs",
	[KT_XATTR_REMOTE] = "file with a remote xattr value",
	[KT_BIG_DIR] = "node-format directory",
	[KT_SHORT_LINK] = "inline symlink",
	[KT_LONG_LINK] = "remote symlink",
};

static void path_of(char *buf, size_t len, const char *mnt, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void path_of(char *buf, size_t len, const char *mnt, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(buf, len, "%s/", mnt);

	va_start(ap, fmt);
	vsnprintf(buf + n, len - (size_t)n, fmt, ap);
	va_end(ap);
}

static void set_xattr(const char *path, const char *name, const void *value, size_t len)
{
	if (setxattr(path, name, value, len, 0))
		REQUIRE(false, "setxattr %s %s: %s", path, name, strerror(errno));
}

static void make_dir(const char *path)
{
	if (mkdir(path, 0755))
		REQUIRE(false, "mkdir %s: %s", path, strerror(errno));
}

/* Many one-block files, every other one deleted again, the rest cloned. */
static void fill_ag_dir(const char *mnt, int d, unsigned int n, struct kt_population *pop)
{
	char path[256], clone[256];

	path_of(path, sizeof(path), mnt, "d%d", d);
	make_dir(path);
	for (unsigned int i = 0; i < n; i++) {
		path_of(path, sizeof(path), mnt, "d%d/f%u", d, i);
		tl_write_file(path, 4096, (unsigned int)d * 100000 + i, false);
	}
	sync();
	for (unsigned int i = 0; i < n; i++) {
		path_of(path, sizeof(path), mnt, "d%d/f%u", d, i);
		if (i % 2) {
			if (unlink(path))
				REQUIRE(false, "unlink %s: %s", path, strerror(errno));
		} else {
			path_of(clone, sizeof(clone), mnt, "d%d/c%u", d, i);
			tl_reflink(path, clone);
			pop->files++;
		}
	}
	pop->files += (n + 1) / 2;
}

static void make_samples(const char *mnt, struct kt_population *pop)
{
	struct kt_sample *s = pop->sample;
	char buf[4096], name[64], target[1024];
	int fd;

	snprintf(s[KT_ROOT].path, sizeof(s[KT_ROOT].path), "%s", mnt);
	make_dir(strcat(strcpy(buf, mnt), "/samples"));
#define SAMPLE(id, fmt) path_of(s[id].path, sizeof(s[id].path), mnt, "samples/" fmt)
	SAMPLE(KT_FILE, "file");
	SAMPLE(KT_BTREE_FILE, "btree");
	SAMPLE(KT_SHARED_FILE, "shared");
	SAMPLE(KT_EMPTY_FILE, "empty");
	SAMPLE(KT_XATTR_SHORT, "xattr-short");
	SAMPLE(KT_XATTR_LEAF, "xattr-leaf");
	SAMPLE(KT_XATTR_REMOTE, "xattr-remote");
	SAMPLE(KT_BIG_DIR, "bigdir");
	SAMPLE(KT_SHORT_LINK, "link-short");
	SAMPLE(KT_LONG_LINK, "link-long");
#undef SAMPLE

	tl_write_file(s[KT_FILE].path, 64 * 1024, 11, true);

	/* 300 separate extents: more than the inode can hold inline. */
	fd = tl_open(s[KT_BTREE_FILE].path, O_WRONLY | O_CREAT);
	memset(buf, 0xb7, sizeof(buf));
	for (int i = 0; i < 300; i++)
		if (pwrite(fd, buf, sizeof(buf), (off_t)i * 8192) != sizeof(buf))
			REQUIRE(false, "pwrite: %s", strerror(errno));
	if (fsync(fd))
		REQUIRE(false, "fsync: %s", strerror(errno));
	close(fd);

	/* A clone written to after the fact keeps CoW staging blocks. */
	path_of(name, sizeof(name), mnt, "samples/shared-origin");
	tl_write_file(name, 256 * 1024, 12, true);
	tl_reflink(name, s[KT_SHARED_FILE].path);
	fd = tl_open(s[KT_SHARED_FILE].path, O_WRONLY);
	memset(buf, 0xc3, sizeof(buf));
	if (pwrite(fd, buf, sizeof(buf), 65536) != sizeof(buf) || fsync(fd))
		REQUIRE(false, "CoW write: %s", strerror(errno));
	close(fd);
	pop->files += 3;

	close(tl_open(s[KT_EMPTY_FILE].path, O_WRONLY | O_CREAT));

	tl_write_file(s[KT_XATTR_SHORT].path, 4096, 13, false);
	set_xattr(s[KT_XATTR_SHORT].path, "user.a", "1", 1);
	set_xattr(s[KT_XATTR_SHORT].path, "user.b", "22", 2);

	tl_write_file(s[KT_XATTR_LEAF].path, 4096, 14, false);
	memset(buf, 'v', 48);
	for (int i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "user.attribute-%03d", i);
		set_xattr(s[KT_XATTR_LEAF].path, name, buf, 48);
	}

	tl_write_file(s[KT_XATTR_REMOTE].path, 4096, 15, false);
	memset(buf, 'r', sizeof(buf));
	set_xattr(s[KT_XATTR_REMOTE].path, "user.big", buf, sizeof(buf));
	pop->files += 5;

	make_dir(s[KT_BIG_DIR].path);
	for (int i = 0; i < 600; i++) {
		char entry[512];

		snprintf(entry, sizeof(entry), "%s/a-directory-entry-with-a-long-name-%04d",
			 s[KT_BIG_DIR].path, i);
		close(tl_open(entry, O_WRONLY | O_CREAT));
	}
	pop->files += 600;

	if (symlink("samples/file", s[KT_SHORT_LINK].path))
		REQUIRE(false, "symlink: %s", strerror(errno));
	memset(target, 'x', sizeof(target) - 1);
	target[sizeof(target) - 1] = '\0';
	for (size_t i = 63; i < sizeof(target) - 1; i += 64)
		target[i] = '/';
	if (symlink(target, s[KT_LONG_LINK].path))
		REQUIRE(false, "symlink: %s", strerror(errno));
}

void kt_bulkstat_one(int fd, uint64_t ino, uint32_t *gen, mode_t *mode)
{
	struct {
		struct xfs_bulkstat_req req;
		struct xfs_bulkstat bs[1];
	} r;

	memset(&r, 0, sizeof(r));
	r.req.hdr.ino = ino;
	r.req.hdr.icount = 1;
	if (ioctl(fd, XFS_IOC_BULKSTAT, &r) || r.req.hdr.ocount != 1 || r.bs[0].bs_ino != ino)
		REQUIRE(false, "bulkstat of inode %llu: %s", (unsigned long long)ino, strerror(errno));
	*gen = r.bs[0].bs_gen;
	*mode = r.bs[0].bs_mode;
}

void kt_populate(const char *mnt, unsigned int files_per_dir, struct kt_population *pop)
{
	struct stat st;

	memset(pop, 0, sizeof(*pop));
	for (int d = 0; d < AG_DIRS; d++)
		fill_ag_dir(mnt, d, files_per_dir, pop);
	make_samples(mnt, pop);
	sync();

	int fd = tl_open(mnt, O_RDONLY | O_DIRECTORY);
	for (int i = 0; i < KT_NSAMPLES; i++) {
		struct kt_sample *s = &pop->sample[i];

		s->label = labels[i];
		if (lstat(s->path, &st))
			REQUIRE(false, "lstat %s: %s", s->path, strerror(errno));
		s->ino = st.st_ino;
		kt_bulkstat_one(fd, s->ino, &s->gen, &s->mode);
	}
	close(fd);
}
