// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A power cut right after REPAIR rebuilt an inode cluster (issue 34, item 2;
 * both profiles).  The fixture of icluster.h: 32 files fill a 16 KiB cluster,
 * its last 4 KiB block (8 of them) is made unreadable.
 *
 * Round 1, the block fails reads (dm-dust; a write clears it, as a drive
 * remaps a sector): REPAIR of a file in the bad block succeeds; then
 * `xfs_io -x -c 'shutdown -f'`, unmount, and mount with dm-dust still on.
 * The mount must succeed (log recovery must not need the old contents of
 * the cluster), the 24 neighbours are exactly as before, the 8 rebuilt
 * files are root-owned regular files of their size, mode 0, one link, all
 * data reads back, the cluster and the link counts scrub clean, and
 * xfs_repair -n is clean.  Before the fix the cluster was only logged, and
 * recovery read it first: "log mount/recovery failed: error -5".
 *
 * Round 2, the block fails reads and writes (a device-mapper `error`
 * segment under it): REPAIR must fail with EIO and leave the filesystem
 * running; a plain scrub of a lost inode still says it is damaged (EIO or
 * CORRUPT); after a power cut the mount succeeds and nothing is left
 * pinned or logged.  Once the block works again, all 32 files of the
 * cluster are exactly as before (the failed repair changed nothing on disk
 * or in the log), and xfs_repair -n is clean.  The kernel log has no BUG,
 * WARNING or lockdep report in either round.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "badblock.h"
#include "check.h"
#include "icluster.h"
#include "ktest.h"
#include "vmtest.h"
#include "xfs_abi.h"

/* The file in the bad block that REPAIR targets. */
#define TARGET_FILE 60

static struct ic_fs fs;

static void round_read_errors(const char *backing)
{
	struct ic_file *t;
	uint32_t oflags;
	struct stat st;
	int rc;

	printf("=== round 1: the block fails reads; power cut after the repair\n");
	ic_setup(&fs, backing, -1, NULL);
	t = &fs.f[TARGET_FILE];
	REQUIRE(t->in_bad_block, "%s is not in the bad block", t->path);
	tl_umount(BB_MNT);
	kt_dust_add(BB_DUST, fs.dust_blk, 0);
	kt_dust_enable(BB_DUST, true);
	tl_mount(BB_DEV, BB_MNT, NULL);
	CHECK_INT(ic_stat(t->path, &st), -EIO);

	rc = ic_scrub(XFS_SCRUB_TYPE_INODE, t->st.st_ino, t->gen, XFS_SCRUB_IFLAG_REPAIR,
		      &oflags);
	printf("repair of %s: rc %d flags 0x%x\n", t->path, rc, oflags);
	CHECK(rc == 0 && !(oflags & XFS_SCRUB_OFLAG_CORRUPT), "REPAIR: rc %d flags 0x%x", rc,
	      oflags);

	ic_power_cut();
	if (!ic_mount_checked(NULL))
		return;
	ic_check_repaired(&fs);
	ic_check_sums(&fs);
	ic_check_scrubs(&fs, true);
	CHECK(bb_fs_alive(), "the filesystem is shut down or unmounted");
	CHECK_INT(bb_finish(), 0);
	free(fs.sums);
}

/* Replace dm-dust's table: an `error` segment over the bad block, or back
 * to dm-dust over the whole device (no bad blocks). */
static void error_segment(const char *backing, bool on)
{
	unsigned long long size = strtoull(tl_out("blockdev --getsz %s", backing), NULL, 10);
	unsigned long long s = fs.dust_blk * (IC_FS_BLOCK / 512), n = IC_FS_BLOCK / 512;

	if (on)
		tl_must("printf '0 %llu linear %s 0\\n%llu %llu error\\n%llu %llu linear %s %llu\\n' "
			"| dmsetup load %s && dmsetup suspend %s && dmsetup resume %s", s, backing,
			s, n, s + n, size - s - n, backing, s + n, BB_DUST, BB_DUST, BB_DUST);
	else
		tl_must("dmsetup load %s --table '0 %llu dust %s 0 4096' && dmsetup suspend %s && "
			"dmsetup resume %s", BB_DUST, size, backing, BB_DUST, BB_DUST);
	tl_sh("dmsetup table %s", BB_DUST);
}

static void round_read_write_errors(const char *backing)
{
	struct ic_file *t;
	uint32_t oflags;
	struct stat st;
	int rc;

	printf("=== round 2: the block fails reads and writes\n");
	ic_setup(&fs, backing, -1, NULL);
	t = &fs.f[TARGET_FILE];
	tl_umount(BB_MNT);
	error_segment(backing, true);
	tl_mount(BB_DEV, BB_MNT, NULL);
	CHECK_INT(ic_stat(t->path, &st), -EIO);

	rc = ic_scrub(XFS_SCRUB_TYPE_INODE, t->st.st_ino, t->gen, XFS_SCRUB_IFLAG_REPAIR,
		      &oflags);
	printf("repair of %s: rc %d flags 0x%x\n", t->path, rc, oflags);
	CHECK(rc == -EIO, "REPAIR over a block that cannot be written: rc %d flags 0x%x, "
	      "expected EIO", rc, oflags);
	CHECK(bb_fs_alive(), "the failed repair shut the filesystem down");
	rc = ic_scrub(XFS_SCRUB_TYPE_INODE, t->st.st_ino, t->gen, 0, &oflags);
	CHECK(rc == -EIO || (rc == 0 && (oflags & XFS_SCRUB_OFLAG_CORRUPT)),
	      "scrub of the lost inode after the failed repair: rc %d flags 0x%x", rc, oflags);

	ic_power_cut();
	if (!ic_mount_checked(NULL))
		return;
	CHECK_INT(ic_stat(t->path, &st), -EIO);
	rc = ic_scrub(XFS_SCRUB_TYPE_INODE, t->st.st_ino, t->gen, 0, &oflags);
	CHECK(rc == -EIO || (rc == 0 && (oflags & XFS_SCRUB_OFLAG_CORRUPT)),
	      "scrub of the lost inode after the power cut: rc %d flags 0x%x", rc, oflags);
	for (int i = 0; i < IC_FILES; i++)
		if (!fs.f[i].in_cluster)
			CHECK_INT(ic_stat(fs.f[i].path, &st), 0);

	/* The block works again: nothing of the cluster has changed. */
	tl_umount(BB_MNT);
	error_segment(backing, false);
	if (!ic_mount_checked(NULL))
		return;
	ic_check_unchanged(&fs, true);
	ic_check_sums(&fs);
	CHECK_INT(bb_finish(), 0);
	free(fs.sums);
}

int main(int argc, char **argv)
{
	const char *backing = argc > 1 ? argv[1] : "/dev/vda";

	vt_require_vm();
	round_read_errors(backing);
	round_read_write_errors(backing);
	return check_done();
}
