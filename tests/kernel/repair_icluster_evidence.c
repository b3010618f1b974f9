// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What cannot be established from evidence stays damaged (issue 34, item 6;
 * both profiles).  The fixture of icluster.h (files 53..60 in the block that
 * becomes unreadable), reshaped before the damage:
 *
 *   f54: 4 KiB written, then `falloc -k 0 64m`: a KEEP_SIZE preallocation;
 *   f55: a directory of 43 entries (one directory block), moved into P, a
 *        directory outside the cluster whose only block becomes unreadable
 *        too: the salvage cannot search P, and nothing else names f55;
 *   f56: replaced by a symlink whose target is inline (the same inode);
 *   f57: 30 one-block extents, so its data fork is a btree: left for the
 *        bmap repair;
 *   f58: set on the AGI unlinked list with no links (xfs_db, unmounted): an
 *        open-unlinked inode that is not in memory (on 6.12 log recovery
 *        frees such inodes at mount, or clears their bucket when their
 *        cluster cannot be read, so no kernel path leaves one).  Its name in
 *        the root stays: it is never looked up before the check.
 *
 * REPAIR of f60, a plain file of the lost block, must succeed, and then:
 *
 *   - f55 is a directory (its own first block shows it): 43 entries, two
 *     links; not a regular file with its directory block as data;
 *   - f54 is left damaged: stat fails with EUCLEAN and INODE scrub says
 *     CORRUPT, instead of a 64 MiB size with zeros past its 4 KiB; a REPAIR
 *     of f54 itself then gives it 4096 bytes, its data unchanged;
 *   - f56 is left damaged (lstat EUCLEAN, INODE scrub CORRUPT), instead of a
 *     link to "?" that scrubs clean;
 *   - f57 has no size (it would read as zeros) and its BMBTD scrub says
 *     CORRUPT, after a remount too, until BMBTD REPAIR maps its 30 blocks;
 *   - f58 still has no link and heads its bucket (xfs_db, unmounted); it is
 *     then set back to one link off the list;
 *   - the other 4 files of the block are rebuilt as before, the 24 of the
 *     readable blocks are unchanged; at the end the cluster scrubs clean, all
 *     data but f57's (no size) reads back and xfs_repair -n is clean.
 *
 * What xfs_repair -n says about the damaged inodes is printed (not checked).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "badblock.h"
#include "check.h"
#include "icluster.h"
#include "ktest.h"
#include "vmtest.h"
#include "xfs_abi.h"

#define KEEPSIZE_FILE 54
#define DIR_FILE 55
#define SYMLINK_FILE 56
#define BTREE_FILE 57
#define UNLINKED_FILE 58
#define TARGET_FILE 60

#define P_DIR BB_MNT "/P"
#define P_ENTRIES 30
#define DIR_ENTRIES (IC_DIR_ENTRIES + 40)
#define BTREE_EXTENTS 30
#define SYMLINK_TARGET "entry0"

static struct ic_fs fs;

/* A name long enough that a few of them make a block directory. */
static void entry_path(char *buf, size_t size, const char *dir, int i)
{
	snprintf(buf, size, "%s/entry-with-a-longer-name-%02d", dir, i);
}

static void make_empty(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);

	REQUIRE(fd >= 0, "create %s: %s", path, strerror(errno));
	close(fd);
}

static unsigned int nextents(const char *path)
{
	struct fsxattr fsx;
	int fd = tl_open(path, O_RDONLY);

	REQUIRE(ioctl(fd, FS_IOC_FSGETXATTR, &fsx) == 0, "FSGETXATTR %s: %s", path,
		strerror(errno));
	close(fd);
	return fsx.fsx_nextents;
}

/* Remove the line of "./@name" from tl_checksums() output @sums. */
static void drop_sum(char *sums, const char *name)
{
	char needle[96];
	char *at, *end;

	snprintf(needle, sizeof(needle), "  ./%s\n", name);
	at = strstr(sums, needle);
	if (!at)
		return;
	end = at + strlen(needle);
	while (at > sums && at[-1] != '\n')
		at--;
	memmove(at, end, strlen(end) + 1);
}

/*
 * Reshape files 54..57 and make P; returns P's dm-dust block.  The symlink
 * first, so that it gets the inode f56 had (the only free one of its chunk).
 */
static uint64_t reshape(void)
{
	struct ic_file *sl = &fs.f[SYMLINK_FILE], *d = &fs.f[DIR_FILE];
	char path[160], cmd[4096];
	struct stat st;
	size_t len;

	REQUIRE(unlink(sl->path) == 0, "unlink %s: %s", sl->path, strerror(errno));
	tl_must("sync");	/* inactivation frees the inode */
	REQUIRE(symlink(SYMLINK_TARGET, sl->path) == 0, "symlink %s: %s", sl->path,
		strerror(errno));
	REQUIRE(lstat(sl->path, &st) == 0 && st.st_ino == sl->st.st_ino,
		"the symlink %s did not get inode %llu (got %llu)", sl->path,
		(unsigned long long)sl->st.st_ino, (unsigned long long)st.st_ino);
	sl->st = st;
	sl->size = 0;

	tl_must("xfs_io -c 'falloc -k 0 64m' -c fsync %s", fs.f[KEEPSIZE_FILE].path);

	/* Direct writes allocate exactly what they write: no preallocation
	 * past the end of the file fills the holes between the blocks. */
	len = (size_t)snprintf(cmd, sizeof(cmd), "xfs_io -d -c 'truncate 0'");
	for (int k = 0; k < BTREE_EXTENTS; k++)
		len += (size_t)snprintf(cmd + len, sizeof(cmd) - len, " -c 'pwrite -q -S 0x%x %d 4k'",
					0x40 + k, k * 8192);
	snprintf(cmd + len, sizeof(cmd) - len, " -c fsync %s", fs.f[BTREE_FILE].path);
	tl_must("%s", cmd);
	REQUIRE(nextents(fs.f[BTREE_FILE].path) == BTREE_EXTENTS, "%s has %u extents, want %d",
		fs.f[BTREE_FILE].path, nextents(fs.f[BTREE_FILE].path), BTREE_EXTENTS);

	REQUIRE(mkdir(P_DIR, 0755) == 0, "mkdir " P_DIR ": %s", strerror(errno));
	for (int i = 0; i < P_ENTRIES; i++) {
		entry_path(path, sizeof(path), P_DIR, i);
		make_empty(path);
	}
	for (int i = IC_DIR_ENTRIES; i < DIR_ENTRIES; i++) {
		entry_path(path, sizeof(path), d->path, i);
		make_empty(path);
	}
	REQUIRE(rename(d->path, P_DIR "/f55") == 0, "rename %s: %s", d->path, strerror(errno));
	snprintf(d->path, sizeof(d->path), P_DIR "/f55");
	tl_must("sync");
	return tl_fork_physical(P_DIR, 0, false) / IC_FS_BLOCK;
}

/*
 * xfs_db (unmounted): link count and next of inode @ino, the unlinked
 * bucket of AG 0 it hashes to (the cluster is in AG 0: agino == ino), after
 * the writes @inode_cmds and @agi_cmds (may be "").
 */
static const char *db_unlinked(uint64_t ino, const char *inode_cmds, const char *agi_cmds)
{
	return tl_out("xfs_db -x -c 'inode %llu' %s -c 'print core.nlinkv2 next_unlinked' "
		      "-c 'agi 0' %s -c 'print unlinked[%u]' %s 2>&1", (unsigned long long)ino,
		      inode_cmds, agi_cmds, (unsigned int)(ino % 64), BB_DEV);
}

/* Put inode @ino on the AGI unlinked list with no links, or back. */
static void set_unlinked(uint64_t ino, bool on)
{
	unsigned int bucket = (unsigned int)(ino % 64);
	char icmd[64], acmd[64], want[64];
	const char *out;

	/* NULLAGINO: xfs_db takes no negative value, and prints it as "". */
	snprintf(icmd, sizeof(icmd), "-c 'write core.nlinkv2 %d'", on ? 0 : 1);
	snprintf(acmd, sizeof(acmd), "-c 'write unlinked[%u] %llu'", bucket,
		 on ? (unsigned long long)ino : 0xffffffffULL);
	out = db_unlinked(ino, icmd, acmd);
	snprintf(want, sizeof(want), "unlinked[%u] = %llu", bucket, (unsigned long long)ino);
	REQUIRE(strstr(out, on ? "core.nlinkv2 = 0" : "core.nlinkv2 = 1") &&
			!strstr(out, "bad option") && (strstr(out, want) != NULL) == on,
		"xfs_db could not set inode %llu %s the unlinked list: %s",
		(unsigned long long)ino, on ? "on" : "off", out);
}

/* stat (lstat with @nofollow): 0 or -errno. */
static int stat_rc(const char *path, bool nofollow, struct stat *st)
{
	return (nofollow ? lstat(path, st) : stat(path, st)) == 0 ? 0 : -errno;
}

/* Left damaged: it does not load, and INODE scrub says so. */
static void check_damaged(const struct ic_file *f, bool nofollow, const char *what)
{
	uint32_t oflags;
	struct stat st;
	int rc = stat_rc(f->path, nofollow, &st);

	CHECK(rc == -EUCLEAN, "%s %s after the repair: %s (mode 0%o size %lld), expected it "
	      "left damaged (EUCLEAN)", what, f->path, rc ? strerror(-rc) : "loads",
	      rc ? 0 : st.st_mode, rc ? 0LL : (long long)st.st_size);
	rc = ic_scrub(XFS_SCRUB_TYPE_INODE, f->st.st_ino, 0, 0, &oflags);
	CHECK(rc == 0 && (oflags & XFS_SCRUB_OFLAG_CORRUPT),
	      "INODE scrub of %s %s: rc %d flags 0x%x, expected CORRUPT", what, f->path, rc,
	      oflags);
}

static void check_btree_file(const struct ic_file *f, const char *when)
{
	uint32_t oflags;
	struct stat st;
	int rc = stat_rc(f->path, false, &st);

	CHECK(rc == 0 && S_ISREG(st.st_mode) && st.st_size == 0,
	      "%s %s: %s, mode 0%o size %lld, expected a regular file of size 0", when, f->path,
	      rc ? strerror(-rc) : "ok", rc ? 0 : st.st_mode, rc ? 0LL : (long long)st.st_size);
	if (rc)
		return;
	rc = bb_scrub(f->path, XFS_SCRUB_TYPE_BMBTD, 0, &oflags);
	CHECK(rc == 0 && (oflags & XFS_SCRUB_OFLAG_CORRUPT),
	      "%s BMBTD scrub of %s: rc %d flags 0x%x, expected CORRUPT", when, f->path, rc,
	      oflags);
}

int main(int argc, char **argv)
{
	const char *backing = argc > 1 ? argv[1] : "/dev/vda";
	struct ic_file *t, *d, *ks, *sl, *bt, *ul;
	unsigned int bucket;
	const char *out;
	char want[64];
	char *keep_sum, *now;
	uint64_t p_blk;
	uint32_t oflags;
	struct stat st;
	int rc;

	vt_require_vm();
	ic_setup(&fs, backing, DIR_FILE, "noatime");
	t = &fs.f[TARGET_FILE];
	d = &fs.f[DIR_FILE];
	ks = &fs.f[KEEPSIZE_FILE];
	sl = &fs.f[SYMLINK_FILE];
	bt = &fs.f[BTREE_FILE];
	ul = &fs.f[UNLINKED_FILE];
	REQUIRE(t->in_bad_block && ks->in_bad_block && sl->in_bad_block && bt->in_bad_block &&
			ul->in_bad_block && ks->size == IC_FS_BLOCK,
		"unexpected layout");

	p_blk = reshape();
	keep_sum = strdup(tl_out("sha256sum < %s", ks->path));
	free(fs.sums);
	fs.sums = tl_checksums(BB_MNT);
	printf("P's block: dust block %llu\n", (unsigned long long)p_blk);

	/* Cold caches, then the cluster's last block and P's block go bad. */
	tl_umount(BB_MNT);
	set_unlinked(ul->st.st_ino, true);
	tl_mount(BB_DEV, BB_MNT, "noatime");
	kt_dust_add(BB_DUST, fs.dust_blk, 0);
	kt_dust_add(BB_DUST, p_blk, 0);
	kt_dust_enable(BB_DUST, true);
	rc = ic_stat(t->path, &st);
	REQUIRE(rc == -EIO, "stat %s with the block unreadable: %d", t->path, rc);

	rc = ic_scrub(XFS_SCRUB_TYPE_INODE, t->st.st_ino, t->gen, XFS_SCRUB_IFLAG_REPAIR,
		      &oflags);
	printf("repair of %s: rc %d flags 0x%x\n", t->path, rc, oflags);
	CHECK(rc == 0 && !(oflags & XFS_SCRUB_OFLAG_CORRUPT), "REPAIR: rc %d flags 0x%x", rc,
	      oflags);
	tl_sh("dmesg | grep 'inode cluster at daddr' | tail -n 4");

	/* P readable again: f55 is reached through it. */
	tl_must("dmsetup message %s 0 removebadblock %llu", BB_DUST, (unsigned long long)p_blk);

	rc = stat_rc(d->path, true, &st);
	CHECK(rc == 0 && S_ISDIR(st.st_mode) && st.st_nlink == 2,
	      "%s after the repair: %s, mode 0%o nlink %lu, expected a directory with 2 links",
	      d->path, rc ? strerror(-rc) : "ok", rc ? 0 : st.st_mode,
	      rc ? 0UL : (unsigned long)st.st_nlink);
	rc = ic_count_names(d->path, "entry");
	CHECK(rc == DIR_ENTRIES, "%s lists %d entries (%s), expected %d", d->path, rc,
	      rc < 0 ? strerror(-rc) : "", DIR_ENTRIES);
	check_damaged(ks, false, "KEEP_SIZE file");
	check_damaged(sl, true, "inline symlink");
	check_btree_file(bt, "after the repair:");
	for (int i = 53; i <= 60; i++)
		if (i != KEEPSIZE_FILE && i != DIR_FILE && i != SYMLINK_FILE && i != BTREE_FILE &&
		    i != UNLINKED_FILE)
			ic_check_rebuilt(&fs.f[i]);
	ic_check_unchanged(&fs, false);

	/* The unlinked inode got no link and heads its bucket still. */
	tl_umount(BB_MNT);
	kt_dust_enable(BB_DUST, false);
	bucket = (unsigned int)(ul->st.st_ino % 64);
	out = db_unlinked(ul->st.st_ino, "", "");
	snprintf(want, sizeof(want), "unlinked[%u] = %llu", bucket,
		 (unsigned long long)ul->st.st_ino);
	CHECK(strstr(out, "core.nlinkv2 = 0") && strstr(out, want),
	      "%s (inode %llu, on the unlinked list) after the repair: %s, expected no link "
	      "and \"%s\"", ul->path, (unsigned long long)ul->st.st_ino, out, want);
	set_unlinked(ul->st.st_ino, false);

	/* What the offline check says about the inodes left damaged. */
	tl_sh("xfs_repair -n %s 2>&1 | grep -v '^ *- \\|^Phase\\|^No modify' | head -n 30",
	      BB_DEV);
	kt_dust_enable(BB_DUST, true);
	tl_mount(BB_DEV, BB_MNT, "noatime");
	ic_check_rebuilt(ul);
	check_damaged(ks, false, "after a remount: KEEP_SIZE file");
	check_damaged(sl, true, "after a remount: inline symlink");
	check_btree_file(bt, "after a remount:");

	/* A repair of each: what the follow-up steps make of them. */
	rc = ic_scrub(XFS_SCRUB_TYPE_INODE, ks->st.st_ino, 0, XFS_SCRUB_IFLAG_REPAIR, &oflags);
	CHECK(rc == 0 && !(oflags & XFS_SCRUB_OFLAG_CORRUPT), "REPAIR of %s: rc %d flags 0x%x",
	      ks->path, rc, oflags);
	rc = stat_rc(ks->path, false, &st);
	CHECK(rc == 0 && S_ISREG(st.st_mode) && st.st_size == IC_FS_BLOCK,
	      "%s after its REPAIR: %s, size %lld, expected %d bytes", ks->path,
	      rc ? strerror(-rc) : "ok", rc ? 0LL : (long long)st.st_size, IC_FS_BLOCK);
	if (rc == 0)
		CHECK_STR(tl_out("sha256sum < %s", ks->path), keep_sum);
	rc = ic_scrub(XFS_SCRUB_TYPE_INODE, sl->st.st_ino, 0, XFS_SCRUB_IFLAG_REPAIR, &oflags);
	printf("REPAIR of %s: rc %d flags 0x%x\n", sl->path, rc, oflags);
	if (vt_modern()) {
		/* Unlinking a rebuilt inode before its parent pointer is back
		 * fails (ENODATA) and shuts the filesystem down. */
		rc = bb_scrub(sl->path, XFS_SCRUB_TYPE_PARENT, XFS_SCRUB_IFLAG_REPAIR, &oflags);
		CHECK(rc == 0 && !(oflags & XFS_SCRUB_OFLAG_CORRUPT),
		      "PARENT REPAIR of %s: rc %d flags 0x%x", sl->path, rc, oflags);
	}
	CHECK(unlink(sl->path) == 0, "unlink %s: %s", sl->path, strerror(errno));
	rc = bb_scrub(bt->path, XFS_SCRUB_TYPE_BMBTD, XFS_SCRUB_IFLAG_REPAIR, &oflags);
	CHECK(rc == 0 && !(oflags & XFS_SCRUB_OFLAG_CORRUPT),
	      "BMBTD REPAIR of %s: rc %d flags 0x%x", bt->path, rc, oflags);
	CHECK_INT(nextents(bt->path), BTREE_EXTENTS);

	/*
	 * The rebuilt directory has a new generation: the parent pointers of
	 * its entries still name the old one (DIR scrub says XCORRUPT) until
	 * PARENT repair of each.
	 */
	for (int i = 0; vt_modern() && i < DIR_ENTRIES; i++) {
		char path[160];

		if (i < IC_DIR_ENTRIES)
			snprintf(path, sizeof(path), "%s/entry%d", d->path, i);
		else
			entry_path(path, sizeof(path), d->path, i);
		rc = bb_scrub(path, XFS_SCRUB_TYPE_PARENT, XFS_SCRUB_IFLAG_REPAIR, &oflags);
		CHECK(rc == 0 && !(oflags & XFS_SCRUB_OFLAG_CORRUPT),
		      "PARENT REPAIR of %s: rc %d flags 0x%x", path, rc, oflags);
	}

	ic_check_scrubs(&fs, true);
	now = tl_checksums(BB_MNT);
	drop_sum(now, "f57");
	drop_sum(fs.sums, "f57");
	CHECK_STR(now, fs.sums);
	free(now);
	free(keep_sum);
	CHECK_INT(bb_finish(), 0);
	free(fs.sums);
	return check_done();
}
