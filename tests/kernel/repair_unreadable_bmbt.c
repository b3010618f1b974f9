// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Online repair of a file's block mapping btree when one of its leaves cannot
 * be read (both profiles: the rebuild needs only the reverse mapping btree).
 * A file of 400 one-block writes, every other block, keeps its mappings (400
 * or more: speculative preallocation fills some holes) in a btree of several
 * leaves; dm-dust makes the first leaf
 * unreadable.  Then:
 *
 * - reading the file fails with EIO (the inode's extent list is loaded whole,
 *   so no block of it can be reached), and scrub of the data fork mappings
 *   says CORRUPT;
 * - REPAIR of the data fork mappings succeeds: the mappings come back from
 *   the reverse mapping btree, which never needed the lost leaf;
 * - the mappings, the inode and the filesystem's other files scrub clean, the
 *   file has all 400 extents at their old places and reads back unchanged,
 *   its holes stay holes, and the filesystem is alive;
 * and at the end xfs_repair -n is clean after unmount (dm-dust disabled: it
 * reads free space too), and the kernel log has no BUG, WARNING, lockdep or
 * KASAN report.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "badblock.h"
#include "check.h"
#include "ktest.h"
#include "vmtest.h"
#include "xfs_abi.h"

#define BLK 4096
#define NEXTENTS 400
#define SPARSE BB_MNT "/sparse"

static void write_sparse(void)
{
	int fd = tl_open(SPARSE, O_WRONLY | O_CREAT | O_TRUNC);
	char block[BLK];

	for (int i = 0; i < NEXTENTS; i++) {
		memset(block, 'a' + i % 26, sizeof(block));
		REQUIRE(pwrite(fd, block, BLK, (off_t)i * 2 * BLK) == BLK, "write: %s",
			strerror(errno));
	}
	REQUIRE(fsync(fd) == 0, "fsync: %s", strerror(errno));
	close(fd);
}

/* "0:0 ... 1:[8..15]: 1234..1241" lines of xfs_io fiemap, one per extent or
 * hole: the file's layout as a string to compare. */
static char *layout(void)
{
	return strdup(tl_out("xfs_io -r -c 'fiemap -v' " SPARSE " | tail -n +2"));
}

int main(int argc, char **argv)
{
	const char *backing = argc > 1 ? argv[1] : "/dev/vda";
	static const char *const events[] = { "xfs_scrub:xrep_bmap_found" };
	uint32_t oflags;
	struct stat st;
	int rc;

	vt_require_vm();
	bb_setup(backing, "-d agcount=4");
	write_sparse();
	tl_write_file(BB_MNT "/other", 256 * 1024, 7, true);
	char *sums = tl_checksums(BB_MNT);
	char *before = layout();

	REQUIRE(stat(SPARSE, &st) == 0, "stat");
	tl_umount(BB_MNT);
	/* Speculative preallocation fills some holes: count the records. */
	long nextents = strtol(tl_out("xfs_db -r -c 'inode %llu' -c 'print core.nextents' %s | "
				      "sed 's/.*= //'", (unsigned long long)st.st_ino, BB_DEV),
			       NULL, 10);
	uint64_t daddr = kt_bmbt_leaf_daddr(BB_DEV, st.st_ino);
	uint64_t blk = bb_damage_daddr(daddr);

	printf("%ld mappings; mapping btree leaf: daddr %llu, dust block %llu\n", nextents,
	       (unsigned long long)daddr, (unsigned long long)blk);
	REQUIRE(nextents >= NEXTENTS, "the file has %ld mappings", nextents);

	/* Ground truth: no block of the file can be reached. */
	CHECK_INT(tl_sh("cat " SPARSE " > /dev/null"), 1);
	rc = bb_scrub(SPARSE, XFS_SCRUB_TYPE_BMBTD, 0, &oflags);
	printf("scrub: rc %d flags 0x%x\n", rc, oflags);
	CHECK(rc == 0 && (oflags & XFS_SCRUB_OFLAG_CORRUPT),
	      "scrub of the damaged mappings: rc %d flags 0x%x, expected 0 and CORRUPT", rc,
	      oflags);

	CHECK_INT(bb_trace_start(events, sizeof(events) / sizeof(events[0])), 0);
	rc = bb_scrub(SPARSE, XFS_SCRUB_TYPE_BMBTD, XFS_SCRUB_IFLAG_REPAIR, &oflags);
	char *trace = kt_trace_stop();

	printf("repair: rc %d flags 0x%x\n", rc, oflags);
	CHECK(rc == 0 && oflags == 0, "repair: rc %d flags 0x%x, expected 0 and no flags", rc,
	      oflags);
	/* Each mapping was found in the reverse mapping btree. */
	CHECK_INT(kt_trace_count(trace, "xrep_bmap_found", NULL), (int)nextents);
	free(trace);

	CHECK(bb_scrub(SPARSE, XFS_SCRUB_TYPE_BMBTD, 0, &oflags) == 0 && oflags == 0,
	      "scrub of the mappings after the repair: flags 0x%x", oflags);
	CHECK(bb_scrub(SPARSE, XFS_SCRUB_TYPE_INODE, 0, &oflags) == 0 && oflags == 0,
	      "scrub of the inode after the repair: flags 0x%x", oflags);
	CHECK(bb_fs_alive(), "the filesystem is shut down or unmounted");

	char *after = layout();

	CHECK_STR(after, before);
	char *now = tl_checksums(BB_MNT);

	CHECK_STR(now, sums);
	free(now);
	free(after);
	free(before);
	free(sums);
	CHECK_INT(bb_finish(), 0);
	return check_done();
}
