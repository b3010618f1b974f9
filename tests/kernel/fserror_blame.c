// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An error report says what failed, names the file it belongs to, and is
 * delivered from the reporting work item, never from inside the filesystem
 * (issue 37, items 1-3).
 *
 * 1. A file's writeback fails (EIO, no reference to the inode kept) and the
 *    inode leaves the cache before the work item runs; the work item then
 *    cannot load it, because the inode cluster now fails the buffer
 *    verifier (a dm-flakey segment under that 4 KiB block sets its first
 *    byte to 0 on every read).  The event must still be EIO and name the
 *    file (its number and generation are all a handle holds).  Before:
 *    the work item took the EFSCORRUPTED of that load for a failure that
 *    xfs_iget() had reported itself and dropped the file's report; only the
 *    AG's sick mark came, without a handle.
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
 * 4. A sync waits for the reporting worker, which may be loading inodes
 *    from a slow disk: two files' writeback fails and both are evicted;
 *    the first one's inode block sits on a device-mapper device that is
 *    suspended, so the worker's load of it waits; syncfs is called, and the
 *    device is resumed 5 s later.  The worker must not load the second
 *    inode (no xfs_iget_miss line for it: a sync has waited 2 s by then)
 *    but still name it.  Before: it loaded the second inode too, however
 *    long each load took.
 * 5. Two adjacent ioends of one file wait for completion together: block 0's,
 *    which the disk failed, and block 1's, which writeback ended unsubmitted
 *    because it could not map block 2 (errortag reduce_max_iextents), each
 *    from its own sync_file_range while the completion worker cannot run.
 *    The writeback trace line covers block 0 only; block 1 is reported as
 *    dropped ("discard").  Before: iomap merged the two, and the merged
 *    ioend reported a disk error for 8 KiB.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "badblock.h"
#include "check.h"
#include "fserror_listen.h"
#include "ktest.h"
#include "vmtest.h"

#define DUST "kblame"
#define TOP "kblametop"
#define SLOW "kblameslow"
#define DEV "/dev/mapper/" TOP
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

static struct file gone = { .path = MNT "/unloadable" };	/* item 1 */
static struct file core = { .path = MNT "/broken-core" };	/* item 2 */
static struct file mapped = { .path = MNT "/unreadable-mapping" };	/* item 3 */
static struct file punched = { .path = MNT "/punched" };	/* item 3 */
static struct file merged = { .path = MNT "/merged" };	/* item 5 */
static struct file slow1 = { .path = MNT "/slow-1" };	/* item 4 */
static struct file slow2 = { .path = MNT "/slow-2" };	/* item 4 */

#define MERGED_EXTENTS 12
#define FAIR_SERVER_CPU0 "/sys/kernel/debug/sched/fair_server/cpu0/runtime"

static unsigned long long dev_sectors;

/* A file of BTREE_EXTENTS one-block extents with holes between them, so that
 * its data fork is a btree. */
static void write_fragmented(const char *path)
{
	int fd = kt_open(path, O_WRONLY | O_CREAT | O_TRUNC);
	char block[BLK];

	memset(block, 'm', sizeof(block));
	for (int i = 0; i < BTREE_EXTENTS; i++)
		REQUIRE(pwrite(fd, block, BLK, (off_t)i * 2 * BLK) == BLK, "write %s: %s", path,
			strerror(errno));
	REQUIRE(fsync(fd) == 0, "fsync %s: %s", path, strerror(errno));
	close(fd);
}

/* Overwrite di_mode (bytes 2-3 of the inode core) with an invalid file type. */
static void break_core(const struct file *f)
{
	unsigned long long byte;

	REQUIRE(sscanf(vt_out("xfs_db -r -c 'convert ino %llu byte' %s", (unsigned long long)f->ino,
			      DEV), "%*s (%llu)", &byte) == 1, "xfs_db convert ino");
	printf("%s: inode core at byte %llu\n", f->path, byte);
	vt_must("printf '\\377\\377' | dd of=%s bs=1 seek=%llu conv=notrunc status=none", DEV,
		byte + 2);
}

/* Disk address of the 4 KiB block that holds inode @ino. */
static unsigned long long inode_block_daddr(uint64_t ino)
{
	unsigned long long fsb, daddr;

	REQUIRE(sscanf(vt_out("xfs_db -r -c 'convert ino %llu fsb' %s", (unsigned long long)ino,
			      DEV), "%*s (%llu)", &fsb) == 1, "xfs_db convert ino fsb");
	REQUIRE(sscanf(vt_out("xfs_db -r -c 'convert fsb %llu daddr' %s", fsb, DEV), "%*s (%llu)",
		       &daddr) == 1, "xfs_db convert fsb daddr");
	return daddr;
}

/*
 * Load a new table into TOP and switch to it without freezing or flushing
 * the filesystem (a freeze would sync, and a sync delivers the reports).
 * @flakey: 0 for all linear over the dm-dust device, else the disk address
 * of a 4 KiB block whose reads come back with their first byte set to 0.
 */
static void top_table(unsigned long long flakey)
{
	if (!flakey)
		vt_must("echo '0 %llu linear /dev/mapper/%s 0' | dmsetup load %s", dev_sectors, DUST,
			TOP);
	else
		vt_must("printf '0 %llu linear /dev/mapper/%s 0\\n"
			"%llu 8 flakey /dev/mapper/%s %llu 0 1 5 corrupt_bio_byte 1 r 0 0\\n"
			"%llu %llu linear /dev/mapper/%s %llu\\n' | dmsetup load %s",
			flakey, DUST, flakey, DUST, flakey, flakey + 8, dev_sectors - flakey - 8,
			DUST, flakey + 8, TOP);
	vt_must("dmsetup suspend --nolockfs --noflush %s && dmsetup resume %s", TOP, TOP);
}

/* Map the 4 KiB block at disk address @daddr to SLOW, the rest to DUST. */
static void top_table_slow(unsigned long long daddr)
{
	vt_must("printf '0 %llu linear /dev/mapper/%s 0\n"
		"%llu 8 linear /dev/mapper/%s 0\n"
		"%llu %llu linear /dev/mapper/%s %llu\n' | dmsetup load %s",
		daddr, DUST, daddr, SLOW, daddr + 8, dev_sectors - daddr - 8, DUST, daddr + 8, TOP);
	vt_must("dmsetup suspend --nolockfs --noflush %s && dmsetup resume %s", TOP, TOP);
}

/* Open a regular file for writing through its XFS handle: such a file does
 * not update the timestamps (FMODE_NOCMTIME), so writing it dirties no
 * metadata and the inode stays clean. */
static int open_nocmtime(const char *path)
{
	unsigned char handle[64];
	__u32 hlen = sizeof(handle);
	struct xfs_fsop_handlereq req;
	int mnt = kt_open(MNT, O_RDONLY | O_DIRECTORY);
	int fd;

	memset(&req, 0, sizeof(req));
	req.path = (void *)path;
	req.ohandle = handle;
	req.ohandlen = &hlen;
	REQUIRE(ioctl(mnt, XFS_IOC_PATH_TO_HANDLE, &req) == 0, "PATH_TO_HANDLE %s: %s", path,
		strerror(errno));
	memset(&req, 0, sizeof(req));
	req.ihandle = handle;
	req.ihandlen = hlen;
	req.oflags = O_WRONLY;
	fd = ioctl(mnt, XFS_IOC_OPEN_BY_HANDLE, &req);
	REQUIRE(fd >= 0, "OPEN_BY_HANDLE %s: %s", path, strerror(errno));
	close(mnt);
	return fd;
}

static void write_block(int fd, off_t blk, char fill)
{
	char block[BLK];

	memset(block, fill, sizeof(block));
	REQUIRE(pwrite(fd, block, BLK, blk * BLK) == BLK, "write block %lld: %s", (long long)blk,
		strerror(errno));
}

static void pin_to_cpu0(void)
{
	cpu_set_t cpu0;

	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	REQUIRE(sched_setaffinity(0, sizeof(cpu0), &cpu0) == 0, "affinity: %s", strerror(errno));
}

/* Item 2: the report of an inode that cannot be loaded is queued. */
static void unloadable_core(int fan)
{
	struct stat st;
	int err;

	pin_to_cpu0();
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
	int fd = kt_open(mapped.path, O_WRONLY);
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
	uint64_t blk1 = vt_file_physical(punched.path, BLK) / BLK;
	int fd = kt_open(punched.path, O_WRONLY);

	kt_dust_add(DUST, blk1, 1);
	write_block(fd, 1, 'w');
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
	int fd = kt_open(merged.path, O_WRONLY | O_CREAT | O_TRUNC);

	write_block(fd, 0, 'a');
	write_block(fd, 1, 'a');
	REQUIRE(fsync(fd) == 0, "fsync %s: %s", merged.path, strerror(errno));
	for (int i = 1; i < MERGED_EXTENTS; i++)
		write_block(fd, 2 + 2 * i, 'a');
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
	uint64_t blk0 = vt_file_physical(merged.path, 0) / BLK;
	char fair[32];
	int fd = kt_open(merged.path, O_WRONLY);
	int got;

	REQUIRE(vt_file_physical(merged.path, BLK) == (blk0 + 1) * BLK,
		"%s: blocks 0 and 1 are not next to each other on disk", merged.path);
	kt_dust_add(DUST, blk0, 1);
	write_block(fd, 0, 'b');	/* overwrite: the disk fails it */
	write_block(fd, 1, 'b');	/* overwrite: mapped at once */
	write_block(fd, 2, 'b');	/* hole: cannot be mapped below */
	kt_errortag(fs, "reduce_max_iextents", 1);
	snprintf(fair, sizeof(fair), "%s", kt_read_str(FAIR_SERVER_CPU0));
	kt_solo_begin();
	/* the completion worker must not run between the two writebacks */
	kt_write_str(FAIR_SERVER_CPU0, "0");
	kt_run_alone(two_writebacks, &fd);
	kt_write_str(FAIR_SERVER_CPU0, fair);
	kt_solo_end();
	kt_errortag(fs, "reduce_max_iextents", 0);
	got = fsync(fd) == 0 ? 0 : errno;
	close(fd);
	CHECK(got == EIO, "fsync of %s: %s, expected EIO", merged.path, strerror(got));
	kt_fserror_expect_file(fan, EVENT_MS, "adjacent ioends", EIO, merged.ino, merged.gen);
}

/* Item 4: a sync stops waiting for inode loads. */
static void sync_bound(int fan, unsigned long long slow_daddr)
{
	struct kt_fserror ev[MAX_EVENTS];
	int fd1 = open_nocmtime(slow1.path), fd2 = open_nocmtime(slow2.path);
	int got1, got2, n;

	kt_dust_add(DUST, vt_file_physical(slow1.path, 0) / BLK, 1);
	kt_dust_add(DUST, vt_file_physical(slow2.path, 0) / BLK, 1);
	write_block(fd1, 0, 's');
	write_block(fd2, 0, 's');
	/* the cluster buffer is in memory while the files are open */
	top_table_slow(slow_daddr);
	vt_must("dmsetup suspend %s", SLOW);
	pin_to_cpu0();
	kt_write_str("/proc/sys/vm/drop_caches", "3");
	kt_hold_unbound_workers(6);
	got1 = fsync(fd1) == 0 ? 0 : errno;
	got2 = fsync(fd2) == 0 ? 0 : errno;
	close(fd1);
	close(fd2);
	for (int i = 0; i < 4; i++)
		kt_write_str("/proc/sys/vm/drop_caches", "3");
	kt_release_unbound_workers();
	CHECK(got1 == EIO && got2 == EIO, "fsync: %s, %s; expected EIO", strerror(got1),
	      strerror(got2));

	/* the worker now waits for the first inode; the sync for the worker */
	pid_t resumer = fork();

	REQUIRE(resumer >= 0, "fork: %s", strerror(errno));
	if (resumer == 0) {
		sleep(5);
		_exit(vt_sh("dmsetup resume %s", SLOW) == 0 ? 0 : 1);
	}
	int mnt = kt_open(MNT, O_RDONLY | O_DIRECTORY);

	CHECK(syncfs(mnt) == 0 || errno == EIO, "syncfs: %s", strerror(errno));
	close(mnt);
	int status = 0;

	REQUIRE(waitpid(resumer, &status, 0) == resumer && WIFEXITED(status) &&
		WEXITSTATUS(status) == 0, "could not resume %s", SLOW);

	n = kt_fserror_read(fan, EVENT_MS, ev, MAX_EVENTS);
	for (int i = 0; i < n; i++)
		kt_fserror_print("sync on a slow disk", &ev[i]);
	CHECK(n >= 1 && ev[0].error == EIO && ev[0].has_inode && ev[0].ino == slow1.ino,
	      "sync on a slow disk: the first event is not EIO for %s", slow1.path);
	top_table(0);
}

/* Item 1: writeback fails, the inode is evicted, and it cannot be loaded. */
static void writeback_then_unloadable(int fan, unsigned long long cluster_daddr)
{
	struct kt_fserror ev[MAX_EVENTS];
	uint64_t blk0 = vt_file_physical(gone.path, 0) / BLK;
	int fd = open_nocmtime(gone.path);
	int got, n;

	kt_dust_add(DUST, blk0, 1);
	write_block(fd, 0, 'g');
	/* the cluster buffer is in memory while the file is open */
	top_table(cluster_daddr);
	pin_to_cpu0();
	kt_write_str("/proc/sys/vm/drop_caches", "3");
	kt_hold_unbound_workers(6);
	got = fsync(fd) == 0 ? 0 : errno;
	close(fd);
	/* dentry, inode and buffer caches each give an entry second chances */
	for (int i = 0; i < 4; i++)
		kt_write_str("/proc/sys/vm/drop_caches", "3");
	kt_release_unbound_workers();
	CHECK(got == EIO, "fsync of %s: %s, expected EIO", gone.path, strerror(got));

	n = kt_fserror_read(fan, EVENT_MS, ev, MAX_EVENTS);
	for (int i = 0; i < n; i++)
		kt_fserror_print("writeback, inode unloadable", &ev[i]);
	CHECK(n >= 1, "writeback, inode unloadable: no event");
	if (n >= 1) {
		CHECK(ev[0].error == EIO, "writeback, inode unloadable: first error %d, expected EIO",
		      ev[0].error);
		CHECK(ev[0].has_inode && ev[0].ino == gone.ino && ev[0].gen == gone.gen,
		      "writeback, inode unloadable: the event does not name %s (inode %llu gen %u)",
		      gone.path, (unsigned long long)gone.ino, gone.gen);
	}
	top_table(0);
}

int main(int argc, char **argv)
{
	static const char *const events[] = { "xfs:xfs_file_ioerror", "xfs:xfs_inode_mark_sick",
					      "xfs:xfs_ag_mark_sick", "xfs:xfs_iget_miss" };
	const char *backing = argc > 1 ? argv[1] : "/dev/vda";
	unsigned long long cluster_daddr;
	char want[160];

	vt_require_vm();
	kt_allow_small_fs(DEV);
	kt_dust_create(DUST, backing);
	dev_sectors = strtoull(vt_out("blockdev --getsz %s", backing), NULL, 10);
	REQUIRE(dev_sectors > 0, "cannot size %s", backing);
	vt_must("dmsetup create %s --table '0 %llu linear /dev/mapper/%s 0'", TOP, dev_sectors,
		DUST);
	kt_mkfs(DEV, "");
	kt_mount(DEV, MNT, NULL);
	kt_write_file(gone.path, BLK, 1, true);
	kt_write_file(core.path, BLK, 2, true);
	write_fragmented(mapped.path);
	kt_write_file(punched.path, 4 * BLK, 4, true);
	write_merged();
	kt_write_file(slow1.path, BLK, 5, true);
	kt_write_file(slow2.path, BLK, 6, true);
	kt_ino_gen(gone.path, &gone.ino, &gone.gen);
	kt_ino_gen(core.path, &core.ino, &core.gen);
	kt_ino_gen(mapped.path, &mapped.ino, &mapped.gen);
	kt_ino_gen(punched.path, &punched.ino, &punched.gen);
	kt_ino_gen(merged.path, &merged.ino, &merged.gen);
	kt_ino_gen(slow1.path, &slow1.ino, &slow1.gen);
	kt_ino_gen(slow2.path, &slow2.ino, &slow2.gen);
	kt_umount(MNT);

	/* The mount below starts with every inode clean and out of memory. */
	cluster_daddr = inode_block_daddr(gone.ino);
	printf("%s: inode %llu in the block at daddr %llu\n", gone.path,
	       (unsigned long long)gone.ino, cluster_daddr);
	unsigned long long slow_daddr = inode_block_daddr(slow1.ino);

	vt_must("dmsetup create %s --table '0 8 linear /dev/mapper/%s %llu'", SLOW, DUST,
		slow_daddr);
	break_core(&core);
	kt_dust_add(DUST, kt_bmbt_leaf_daddr(DEV, mapped.ino) * 512 / BLK, 0);
	kt_dust_enable(DUST, true);
	kt_mount(DEV, MNT, NULL);

	int fan = kt_fserror_listen(MNT);
	int missing = bb_trace_start(events, 4);

	/*
	 * First, while every inode of the cluster is clean: a dirty inode
	 * would keep the cluster buffer in memory, and the worker would not
	 * read the disk to load an inode.
	 */
	writeback_then_unloadable(fan, cluster_daddr);
	sync_bound(fan, slow_daddr);
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
	/* the work item did load the evicted inode from disk, and that failed */
	CHECK(kt_trace_count(trace, "xfs_ag_mark_sick:", (char *)NULL) >= 1,
	      "the work item did not fail to load %s from disk", gone.path);
	/* the worker loaded the first slow inode, and named the second unloaded */
	snprintf(want, sizeof(want), "ino 0x%llx", (unsigned long long)slow2.ino);
	CHECK(kt_trace_count(trace, "xfs_iget_miss:", want, (char *)NULL) == 0,
	      "the worker loaded %s while a sync had waited for it for 2 s", slow2.path);
	snprintf(want, sizeof(want), "ino 0x%llx", (unsigned long long)slow1.ino);
	CHECK(kt_trace_count(trace, "xfs_iget_miss:", want, (char *)NULL) >= 1,
	      "the worker did not load %s from disk", slow1.path);
	free(trace);

	close(fan);
	kt_umount(MNT);
	vt_must("dmsetup remove %s", TOP);
	vt_must("dmsetup remove %s", SLOW);
	kt_dust_remove(DUST);
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
