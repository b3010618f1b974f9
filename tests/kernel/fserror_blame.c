// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An error report says what failed and is delivered from the reporting work
 * item, never from inside the filesystem (issue 37, items 2, 3 and 5).
 *
 * 2. stat() of a file whose inode core fails verification: the report is
 *    queued, not delivered from inside xfs_iget() (no event while the work
 *    item's workers are kept off the CPUs), the inode is marked sick (the
 *    xfs_inode_mark_sick trace line), and the event names the file with
 *    its on-disk generation.  Before: the event came at once, from inside
 *    xfs_iget(), and there was no sick mark.
 * 3. Errors that are not the file's data are not reported as its data:
 *    a write whose mapping btree leaf cannot be read (EIO) gives no
 *    write_read trace line and only the metadata read error, without a
 *    handle; a hole punched after a writeback error that syncfs did not
 *    consume fails with that stale EIO, and reports nothing.  Before: a
 *    write_read line and a report with the handle, each.
 * 5. Two adjacent ioends of one file wait for completion together: block 0's,
 *    which the disk failed, and block 1's, which writeback ended unsubmitted
 *    because it could not map block 2 (errortag reduce_max_iextents), each
 *    from its own sync_file_range while the completion worker cannot run.
 *    The writeback trace line covers block 0 only (kernel/patches 1/7);
 *    block 1 is reported as dropped ("discard", 1/13).  Before 1/13 there
 *    is no "discard" line, before 1/7 no line at all.  On the series
 *    before issue 37, iomap merged the two, and the merged ioend reported
 *    a disk error for 8 KiB.
 *
 * Items 1 and 4 (a report whose inode must be loaded again from the disk)
 * are tested in fserror_reload.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "badblock.h"
#include "check.h"
#include "fserror_listen.h"
#include "ktest.h"
#include "vmtest.h"

#define DUST "kblame"
#define DEV "/dev/mapper/" DUST
#define MNT "/tmp/mnt"
#define BLK 4096
#define EVENT_MS 10000
#define NO_EVENT_MS 1500
#define BTREE_EXTENTS 120
#define MAX_EVENTS 8

struct file {
	const char *path;
	uint64_t ino;
	uint32_t gen;
};

static struct file core = { .path = MNT "/broken-core" };	/* item 2 */
static struct file mapped = { .path = MNT "/unreadable-mapping" };	/* item 3 */
static struct file punched = { .path = MNT "/punched" };	/* item 3 */
static struct file merged = { .path = MNT "/merged" };	/* item 5 */

#define MERGED_EXTENTS 12
#define FAIR_SERVER_CPU0 "/sys/kernel/debug/sched/fair_server/cpu0/runtime"

/* Item 2: the report of an inode that cannot be loaded is queued. */
static void unloadable_core(int fan)
{
	struct stat st;
	int err;

	tl_pin_to_cpu0();
	kt_hold_unbound_workers(4);
	err = stat(core.path, &st) == 0 ? 0 : errno;
	kt_fserror_expect_none(fan, NO_EVENT_MS, "inode core, reporting worker held");
	kt_release_unbound_workers();
	CHECK(err == EFSCORRUPTED, "stat of %s: %s, expected EUCLEAN", core.path, strerror(err));
	kt_fserror_expect_file(fan, EVENT_MS, "inode core, worker released", EFSCORRUPTED, core.ino,
			       core.gen);
	kt_fserror_expect_none(fan, NO_EVENT_MS, "inode core, worker released");
}

/* Item 3: a write whose mapping cannot be read is no data error. */
static void unreadable_mapping(int fan)
{
	struct kt_fserror ev[MAX_EVENTS];
	char small[100];
	unsigned int errors = 0;
	int fd = tl_open(mapped.path, O_WRONLY);
	int n;

	memset(small, 0x3c, sizeof(small));
	errno = 0;
	CHECK(pwrite(fd, small, sizeof(small), 10) < 0 && errno == EIO,
	      "write over an unreadable mapping btree leaf: %s", strerror(errno));
	close(fd);
	n = kt_fserror_read(fan, EVENT_MS, ev, MAX_EVENTS);
	for (int i = 0; i < n; i++) {
		kt_fserror_print("unreadable mapping", &ev[i]);
		CHECK(!ev[i].has_inode, "unreadable mapping: an event names inode %llu",
		      (unsigned long long)ev[i].ino);
		CHECK(ev[i].error == EIO, "unreadable mapping: error %d", ev[i].error);
		errors += ev[i].count;
	}
	/* the metadata read error, and nothing else */
	CHECK(errors == 1, "unreadable mapping: %u errors reported, expected 1", errors);
}

/* Item 3: the stale writeback error that a hole punch's flush hands back. */
static void stale_writeback_error(int fan)
{
	uint64_t blk1 = tl_file_physical(punched.path, BLK) / BLK;
	int fd = tl_open(punched.path, O_WRONLY);

	kt_dust_add(DUST, blk1, 1);
	tl_write_block(fd, 1, 'w');
	/* syncfs leaves the mapping's AS_EIO for the next flush to find */
	CHECK(syncfs(fd) < 0 && errno == EIO, "syncfs after a failed writeback: %s",
	      strerror(errno));
	kt_fserror_expect_file(fan, EVENT_MS, "writeback before the punch", EIO, punched.ino,
			       punched.gen);
	errno = 0;
	CHECK(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 3 * BLK, BLK) < 0 &&
		      errno == EIO, "hole punch after the failed writeback: %s", strerror(errno));
	kt_fserror_expect_none(fan, NO_EVENT_MS, "hole punch after the failed writeback");
	close(fd);
}

/* Blocks 0-1 in one extent, then one-block extents with holes between them:
 * MERGED_EXTENTS in all. */
static void write_merged(void)
{
	int fd = tl_open(merged.path, O_WRONLY | O_CREAT | O_TRUNC);

	tl_write_block(fd, 0, 'a');
	tl_write_block(fd, 1, 'a');
	REQUIRE(fsync(fd) == 0, "fsync %s: %s", merged.path, strerror(errno));
	for (int i = 1; i < MERGED_EXTENTS; i++)
		tl_write_block(fd, 2 + 2 * i, 'a');
	REQUIRE(fsync(fd) == 0, "fsync %s: %s", merged.path, strerror(errno));
	close(fd);
}

/* Block 0 alone, then blocks 1-2: two ioends, one after the other. */
static void two_writebacks(void *arg)
{
	int fd = *(int *)arg;

	sync_file_range(fd, 0, BLK, SYNC_FILE_RANGE_WRITE);
	sync_file_range(fd, BLK, 2 * BLK, SYNC_FILE_RANGE_WRITE);
}

/* Item 5: a disk-failed ioend and an unsubmitted one next to it. */
static void no_merge(int fan)
{
	const char *fs = kt_fs_name(DEV);
	uint64_t blk0 = tl_file_physical(merged.path, 0) / BLK;
	char fair[32];
	int fd = tl_open(merged.path, O_WRONLY);
	int got;

	REQUIRE(tl_file_physical(merged.path, BLK) == (blk0 + 1) * BLK,
		"%s: blocks 0 and 1 are not next to each other on disk", merged.path);
	kt_dust_add(DUST, blk0, 1);
	tl_write_block(fd, 0, 'b');	/* overwrite: the disk fails it */
	tl_write_block(fd, 1, 'b');	/* overwrite: mapped at once */
	tl_write_block(fd, 2, 'b');	/* hole: cannot be mapped below */
	kt_errortag(fs, "reduce_max_iextents", 1);
	tl_slurp(FAIR_SERVER_CPU0, fair, sizeof(fair));
	kt_solo_begin();
	/* the completion worker must not run between the two writebacks */
	tl_write_str(FAIR_SERVER_CPU0, "0");
	kt_run_alone(two_writebacks, &fd);
	tl_write_str(FAIR_SERVER_CPU0, fair);
	kt_solo_end();
	kt_errortag(fs, "reduce_max_iextents", 0);
	got = fsync(fd) == 0 ? 0 : errno;
	close(fd);
	CHECK(got == EIO, "fsync of %s: %s, expected EIO", merged.path, strerror(got));
	kt_fserror_expect_file(fan, EVENT_MS, "adjacent ioends", EIO, merged.ino, merged.gen);
}

int main(int argc, char **argv)
{
	static const char *const events[] = { "xfs:xfs_file_ioerror", "xfs:xfs_inode_mark_sick" };
	const char *backing = argc > 1 ? argv[1] : "/dev/vda";
	char want[160];

	vt_require_vm();
	tl_allow_small_fs(DEV);
	kt_dust_create(DUST, backing);
	tl_mkfs(DEV, "%s", vt_features());
	tl_mount(DEV, MNT, NULL);
	tl_write_file(core.path, BLK, 2, true);
	kt_write_btree_file(mapped.path, BTREE_EXTENTS);
	tl_write_file(punched.path, 4 * BLK, 4, true);
	write_merged();
	tl_ino_gen(core.path, &core.ino, &core.gen);
	tl_ino_gen(mapped.path, &mapped.ino, &mapped.gen);
	tl_ino_gen(punched.path, &punched.ino, &punched.gen);
	tl_ino_gen(merged.path, &merged.ino, &merged.gen);
	tl_umount(MNT);

	kt_break_inode_mode(DEV, core.ino);
	kt_dust_add(DUST, kt_bmbt_leaf_daddr(DEV, mapped.ino) * 512 / BLK, 0);
	kt_dust_enable(DUST, true);
	tl_mount(DEV, MNT, NULL);

	int fan = kt_fserror_listen(MNT);
	int missing = bb_trace_start(events, 2);

	unloadable_core(fan);
	unreadable_mapping(fan);
	stale_writeback_error(fan);
	no_merge(fan);

	char *trace = kt_trace_stop();

	printf("trace:\n%s", trace);
	CHECK_INT(missing, 0);
	snprintf(want, sizeof(want), "ino 0x%llx flags 0x1", (unsigned long long)core.ino);
	CHECK(kt_trace_count(trace, "xfs_inode_mark_sick:", want, (char *)NULL) == 1,
	      "no single sick mark \"%s\" for the inode core that failed to load", want);
	CHECK_INT(kt_trace_count(trace, "xfs_file_ioerror:", " write_read ", (char *)NULL), 0);
	for (unsigned int blk = 0; blk < 3; blk++) {
		snprintf(want, sizeof(want), "ino 0x%llx gen 0x%x %s pos 0x%x bytecount 0x%x error 5",
			 (unsigned long long)merged.ino, merged.gen, blk ? "discard" : "writeback",
			 blk * BLK, BLK);
		CHECK(kt_trace_count(trace, "xfs_file_ioerror:", want, (char *)NULL) == 1,
		      "no single trace line \"%s\"", want);
	}
	snprintf(want, sizeof(want), "ino 0x%llx ", (unsigned long long)merged.ino);
	CHECK_INT(kt_trace_count(trace, "xfs_file_ioerror:", want, (char *)NULL), 3);
	free(trace);

	close(fan);
	tl_umount(MNT);
	kt_dust_remove(DUST);
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
