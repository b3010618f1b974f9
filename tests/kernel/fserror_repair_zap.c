// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Online repair's own "zapped" marks are not error reports (kernel/patches
 * 1/4, defect 7 of issue 13).
 *
 * The first mapping of a file's data fork is given a start block past the
 * end of the filesystem (xfs_db), so the inode fails to load.  With a
 * FAN_FS_ERROR listener attached:
 *
 * - stat() fails with EUCLEAN: one event naming the file, and no more (the
 *   fork code marks the inode sick while xfs_iget() loads it; queued, that
 *   report made the work item load the inode again to name it, which failed
 *   and queued another report, for ever: thousands of errors a second);
 * - scrub of the inode says CORRUPT; the failed loads of that call are
 *   reported, and the events of the call carry some number N of errors
 *   (fanotify merges queued error events and counts what it merged);
 * - REPAIR of the inode succeeds: it erases the bad fork and marks the inode
 *   "data fork zapped" so that the mapping repair rebuilds it.  The call
 *   loads the inode as the scrub did, so its events must carry N errors
 *   too: the zapped mark is repair's bookkeeping, not damage anybody found.
 *   A kernel that reported it as corruption gives N + 1.
 * - Then scrub of the data fork mappings says CORRUPT (zapped), REPAIR
 *   rebuilds them from the reverse mapping btree, and the file reads back
 *   unchanged; inode and mappings scrub clean, xfs_repair -n is clean, and
 *   the kernel log has no BUG, WARNING, lockdep or KASAN report.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "fserror_listen.h"
#include "ktest.h"
#include "vmtest.h"
#include "xfs_abi.h"

#define MNT "/tmp/mnt"
#define FILE_PATH MNT "/zapped"
#define EFSCORRUPTED EUCLEAN
#define EVENT_MS 10000
#define QUIET_MS 2000
#define MAX_EVENTS 64

/* Errors carried by the events that come within @timeout_ms, all of them
 * without a file or naming inode @ino. */
static unsigned int errors_reported(int fan, int timeout_ms, const char *step, uint64_t ino)
{
	struct kt_fserror ev[MAX_EVENTS];
	unsigned int total = 0;
	int n = kt_fserror_read(fan, timeout_ms, ev, MAX_EVENTS);

	for (int i = 0; i < n; i++) {
		kt_fserror_print(step, &ev[i]);
		CHECK(ev[i].error == EFSCORRUPTED, "%s: event with errno %d, expected EUCLEAN",
		      step, ev[i].error);
		CHECK(!ev[i].has_inode || ev[i].ino == ino,
		      "%s: event names inode %llu, expected %llu", step,
		      (unsigned long long)ev[i].ino, (unsigned long long)ino);
		total += ev[i].count;
	}
	printf("%s: %d event(s), %u error(s)\n", step, n, total);
	return total;
}

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : "/dev/vda";
	uint64_t ino;
	uint32_t gen, oflags;
	struct stat st;
	int rc;

	vt_require_vm();
	tl_allow_small_fs(dev);
	tl_mkfs(dev, "%s", vt_features());
	tl_mount(dev, MNT, NULL);
	tl_write_file(FILE_PATH, 64 * 1024, 11, true);
	tl_ino_gen(FILE_PATH, &ino, &gen);
	char *sums = tl_checksums(MNT);

	tl_umount(MNT);
	const char *fmt = tl_out("xfs_db -r -c 'inode %llu' -c 'print core.format' %s",
				 (unsigned long long)ino, dev);
	REQUIRE(strstr(fmt, "extents") != NULL, "the file's fork is not in extents format: %s",
		fmt);
	tl_must("xfs_db -x -c 'inode %llu' -c 'write u3.bmx[0].startblock 0xfffffffffffff' %s "
		">/dev/null", (unsigned long long)ino, dev);
	tl_mount(dev, MNT, NULL);

	int fan = kt_fserror_listen(MNT);
	int err = stat(FILE_PATH, &st) == 0 ? 0 : errno;

	CHECK(err == EFSCORRUPTED, "stat: %s, expected EUCLEAN", strerror(err));
	kt_fserror_expect_file(fan, EVENT_MS, "stat", EFSCORRUPTED, ino, gen);
	/* One failed load, one report: nothing loads the inode again to name
	 * it (before the fix to old patch 0018, now 1/2 and 1/4, the work
	 * item did, and failed, and queued another report, for ever). */
	kt_fserror_expect_none(fan, QUIET_MS, "after stat");

	rc = kt_scrub_ino(MNT, XFS_SCRUB_TYPE_INODE, ino, gen, 0, &oflags);
	printf("scrub of the inode: rc %d flags 0x%x\n", rc, oflags);
	CHECK(rc == 0 && (oflags & XFS_SCRUB_OFLAG_CORRUPT),
	      "scrub of the inode: rc %d flags 0x%x, expected CORRUPT", rc, oflags);
	unsigned int scrub_errors = errors_reported(fan, QUIET_MS, "scrub", ino);

	CHECK(scrub_errors > 0, "the scrub's failed loads were not reported");

	rc = kt_scrub_ino(MNT, XFS_SCRUB_TYPE_INODE, ino, gen, XFS_SCRUB_IFLAG_REPAIR, &oflags);
	printf("repair of the inode: rc %d flags 0x%x\n", rc, oflags);
	CHECK(rc == 0 && !(oflags & XFS_SCRUB_OFLAG_CORRUPT),
	      "repair of the inode: rc %d flags 0x%x, expected success", rc, oflags);
	unsigned int repair_errors = errors_reported(fan, QUIET_MS, "repair", ino);

	CHECK(repair_errors == scrub_errors,
	      "the repair call reported %u error(s), its scrub %u: the zapped mark was reported",
	      repair_errors, scrub_errors);

	/* The data fork was erased: its mappings come back from the rmapbt. */
	rc = kt_scrub_ino(MNT, XFS_SCRUB_TYPE_BMBTD, ino, gen, 0, &oflags);
	printf("scrub of the mappings: rc %d flags 0x%x\n", rc, oflags);
	CHECK(rc == 0 && (oflags & XFS_SCRUB_OFLAG_CORRUPT),
	      "scrub of the zapped mappings: rc %d flags 0x%x, expected CORRUPT", rc, oflags);
	rc = kt_scrub_ino(MNT, XFS_SCRUB_TYPE_BMBTD, ino, gen, XFS_SCRUB_IFLAG_REPAIR, &oflags);
	printf("repair of the mappings: rc %d flags 0x%x\n", rc, oflags);
	CHECK(rc == 0 && oflags == 0, "repair of the mappings: rc %d flags 0x%x", rc, oflags);
	CHECK(kt_scrub_ino(MNT, XFS_SCRUB_TYPE_INODE, ino, gen, 0, &oflags) == 0 && oflags == 0,
	      "scrub of the inode after the repairs: flags 0x%x", oflags);
	CHECK(kt_scrub_ino(MNT, XFS_SCRUB_TYPE_BMBTD, ino, gen, 0, &oflags) == 0 && oflags == 0,
	      "scrub of the mappings after the repairs: flags 0x%x", oflags);
	errors_reported(fan, QUIET_MS, "mapping repair", ino);

	tl_must("echo 3 > /proc/sys/vm/drop_caches");
	char *now = tl_checksums(MNT);

	CHECK_STR(now, sums);
	free(now);
	free(sums);
	close(fan);
	tl_umount(MNT);
	CHECK_INT(tl_sh("xfs_repair -n %s", dev), 0);
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
