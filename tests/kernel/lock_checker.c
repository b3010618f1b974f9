// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel the kernel and heal tests boot has its lock checkers on.
 *
 * Every kernel test fails on a lockdep, sleep-in-atomic or hung-task report
 * in the kernel log (vt_kernel_log_problems), but a kernel built without the
 * checkers prints none, and every test would pass.  This test runs on the
 * variant that CI names for those tests (MAPPER_KERNEL_TEST_VARIANT; it is
 * registered only when that is not the plain guest kernel) and fails unless:
 * - the running kernel's configuration (/proc/config.gz) has PROVE_LOCKING,
 *   DEBUG_ATOMIC_SLEEP and DETECT_HUNG_TASK;
 * - /proc/lockdep exists, and after a mount, writes, a directory scrub, a
 *   forced inode rebuild and an unmount it lists XFS's inode lock classes
 *   (lockdep saw XFS take its locks);
 * - hung task detection can be configured (the concurrency test sets 60 s);
 * - debug_locks is still 1 at the end (lockdep did not turn itself off),
 *   and the kernel log has no report.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ktest.h"
#include "vmtest.h"
#include "xfs_abi.h"

#define MNT "/tmp/mnt"

static const char *const wanted_options[] = {
	"CONFIG_PROVE_LOCKING=y",
	"CONFIG_DEBUG_ATOMIC_SLEEP=y",
	"CONFIG_DETECT_HUNG_TASK=y",
};

/* Mount, write, scrub a directory, rebuild an inode by force, unmount. */
static void xfs_workload(const char *dev)
{
	char path[64];
	uint64_t ino;
	uint32_t gen, oflags;
	const uint32_t force = XFS_SCRUB_IFLAG_REPAIR | XFS_SCRUB_IFLAG_FORCE_REBUILD;

	tl_allow_small_fs(dev);
	tl_mkfs(dev, "%s", vt_features());
	tl_mount(dev, MNT, NULL);
	tl_must("mkdir -p " MNT "/dir");
	for (int i = 0; i < 40; i++) {
		snprintf(path, sizeof(path), MNT "/dir/f%d", i);
		tl_write_file(path, 8192, (unsigned int)i + 1, i % 8 == 0);
	}
	tl_must("sync");
	tl_ino_gen(MNT "/dir", &ino, &gen);
	CHECK_INT(kt_scrub_ino(MNT, XFS_SCRUB_TYPE_DIR, ino, gen, 0, &oflags), 0);
	CHECK_INT(oflags & XFS_SCRUB_OFLAG_CORRUPT, 0);
	tl_ino_gen(MNT "/dir/f3", &ino, &gen);
	CHECK_INT(kt_scrub_ino(MNT, XFS_SCRUB_TYPE_INODE, ino, gen, force, &oflags), 0);
	tl_umount(MNT);
}

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : "/dev/vda";

	vt_require_vm();
	printf("kernel: %s\n", tl_out("uname -rv"));
	for (size_t i = 0; i < sizeof(wanted_options) / sizeof(wanted_options[0]); i++)
		CHECK(tl_sh("zcat /proc/config.gz | grep -qx '%s'", wanted_options[i]) == 0,
		      "the kernel's configuration has no %s", wanted_options[i]);
	REQUIRE(access("/proc/lockdep", R_OK) == 0, "no /proc/lockdep: lockdep is off");
	CHECK(access("/proc/sys/kernel/hung_task_timeout_secs", W_OK) == 0,
	      "no hung task detection (/proc/sys/kernel/hung_task_timeout_secs)");
	CHECK_INT(vt_debug_locks(), 1);

	xfs_workload(dev);

	CHECK(tl_sh("grep -q xfs_nondir_ilock_class /proc/lockdep") == 0,
	      "lockdep knows no XFS inode lock class after XFS ran");
	CHECK(tl_sh("grep -q xfs_dir_ilock_class /proc/lockdep") == 0,
	      "lockdep knows no XFS directory inode lock class after XFS ran");
	printf("%s\n", tl_out("grep -E 'lock-classes|direct dependencies|debug_locks' "
			      "/proc/lockdep_stats"));
	CHECK_INT(vt_debug_locks(), 1);
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
