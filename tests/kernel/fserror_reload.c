// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A report whose inode the reporting work item must load from the disk again
 * (issue 37, items 1 and 4).
 *
 * The inode of a file whose writeback failed must leave the cache while the
 * work item is held.  After a failed fsync() the inode keeps I_DIRTY_PAGES
 * until the flusher (an unbound work item, held too) has looked at it, so
 * it is neither evicted nor reclaimed.  The files are therefore marked
 * I_DONTCACHE first (toggling FS_XFLAG_DAX does that), and their last close
 * writes the inode out itself (write_inode_now) and evicts it; dropping the
 * caches then reclaims it.  They are opened through their XFS handle, whose
 * writes leave the timestamps alone (FMODE_NOCMTIME), so the inode stays
 * clean after a freeze has written it back, and can be reclaimed at once.
 *
 * 1. A file's writeback fails (fsync EIO) while the work item is held, the
 *    file is closed and its inode reclaimed, and the 4 KiB block that holds
 *    the inode then reads back with its first byte set to 0 (dm-flakey
 *    corrupt_bio_byte), so the work item's load fails in the cluster buffer
 *    verifier with EFSCORRUPTED.  The first event must be EIO and name the
 *    file by the number and generation the report holds.  Before: the work
 *    item took that EFSCORRUPTED for a failure xfs_iget() had reported
 *    itself and dropped the file's report; only the AG's EUCLEAN came,
 *    without a handle.
 * 2. Two files' writeback fails and both inodes are reclaimed the same way;
 *    the block that holds them is on a device-mapper device that is
 *    suspended, so the work item's load of the first one waits.  syncfs()
 *    is called; once it waits for the work item, 3 s pass (the sync's
 *    deadline is 2 s) and the device is resumed.  The work item must not
 *    load the second inode (no xfs_iget_miss line) but name it all the same.
 *    Before: it loaded the second inode too, however long a sync had waited.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "badblock.h"
#include "fserror_listen.h"
#include "ktest.h"
#include "vmtest.h"

#define DUST "kreload"
#define TOP "kreloadtop"
#define SLOW "kreloadslow"
#define DEV "/dev/mapper/" TOP
#define MNT "/tmp/mnt"
#define BLK 4096
#define EVENT_MS 10000
#define MAX_EVENTS 8
#define HOLD_S 25
#define RECLAIM_ROUNDS 40
#define SYNC_POLLS 1200		/* x 50 ms */
#define PAST_DEADLINE_S 3	/* the sync's deadline is 2 s */

struct file {
	const char *path;
	uint64_t ino;
	uint32_t gen;
};

static struct file gone = { .path = MNT "/unloadable" };	/* item 1 */
static struct file slow1 = { .path = MNT "/slow-1" };	/* item 4 */
static struct file slow2 = { .path = MNT "/slow-2" };	/* item 4 */

static unsigned long long dev_sectors;

/* Disk address of the 4 KiB block that holds inode @ino. */
static unsigned long long inode_block_daddr(uint64_t ino)
{
	unsigned long long fsb, daddr;

	REQUIRE(sscanf(tl_out("xfs_db -r -c 'convert ino %llu fsb' %s", (unsigned long long)ino,
			      DEV), "%*s (%llu)", &fsb) == 1, "xfs_db convert ino fsb");
	REQUIRE(sscanf(tl_out("xfs_db -r -c 'convert fsb %llu daddr' %s", fsb, DEV), "%*s (%llu)",
		       &daddr) == 1, "xfs_db convert fsb daddr");
	return daddr;
}

/*
 * Load a new table into TOP and switch to it without freezing or flushing
 * the filesystem (a freeze would sync, and a sync delivers the reports).
 * @daddr: the 4 KiB block that reads back corrupt (@flakey) or goes through
 * SLOW; 0 for all linear over the dm-dust device.
 */
static void top_table(unsigned long long daddr, bool flakey)
{
	if (!daddr)
		tl_must("echo '0 %llu linear /dev/mapper/%s 0' | dmsetup load %s", dev_sectors, DUST,
			TOP);
	else if (flakey)
		tl_must("printf '0 %llu linear /dev/mapper/%s 0\\n"
			"%llu 8 flakey /dev/mapper/%s %llu 0 1 5 corrupt_bio_byte 1 r 0 0\\n"
			"%llu %llu linear /dev/mapper/%s %llu\\n' | dmsetup load %s",
			daddr, DUST, daddr, DUST, daddr, daddr + 8, dev_sectors - daddr - 8, DUST,
			daddr + 8, TOP);
	else
		tl_must("printf '0 %llu linear /dev/mapper/%s 0\\n"
			"%llu 8 linear /dev/mapper/%s 0\\n"
			"%llu %llu linear /dev/mapper/%s %llu\\n' | dmsetup load %s",
			daddr, DUST, daddr, SLOW, daddr + 8, dev_sectors - daddr - 8, DUST,
			daddr + 8, TOP);
	tl_must("dmsetup suspend --nolockfs --noflush %s && dmsetup resume %s", TOP, TOP);
}

/* Open a regular file for writing through its XFS handle: such a file does
 * not update the timestamps (FMODE_NOCMTIME), so writing it dirties no
 * metadata and the inode stays clean. */
static int open_nocmtime(const char *path)
{
	unsigned char handle[64];
	__u32 hlen = sizeof(handle);
	struct xfs_fsop_handlereq req;
	int mnt = tl_open(MNT, O_RDONLY | O_DIRECTORY);
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

/* Toggling FS_XFLAG_DAX marks the inode and its dentries "do not cache":
 * the last close evicts the inode and writes it out first, dirty pages
 * flag included, without the flusher. */
static void mark_dontcache(int fd, const char *path)
{
	struct fsxattr fa;

	REQUIRE(ioctl(fd, FS_IOC_FSGETXATTR, &fa) == 0, "FSGETXATTR %s: %s", path,
		strerror(errno));
	fa.fsx_xflags ^= FS_XFLAG_DAX;
	REQUIRE(ioctl(fd, FS_IOC_FSSETXATTR, &fa) == 0, "FSSETXATTR %s: %s", path,
		strerror(errno));
}

/* Freeze and thaw: every inode and its cluster written back, the log clean. */
static void write_back_all(void)
{
	int mfd = tl_open(MNT, O_RDONLY | O_DIRECTORY);

	REQUIRE(ioctl(mfd, FIFREEZE, 0) == 0, "FIFREEZE: %s", strerror(errno));
	REQUIRE(ioctl(mfd, FITHAW, 0) == 0, "FITHAW: %s", strerror(errno));
	close(mfd);
}

/* A line in the trace, to place the events of a step. */
static void trace_mark(const char *what)
{
	tl_write_str("/sys/kernel/tracing/trace_marker", what);
}

/* Lines of trace event @event for inode @ino captured so far. */
static int trace_lines(const char *event, uint64_t ino)
{
	return atoi(tl_out("grep -c ' %s: dev [0-9:]* ino 0x%llx ' /sys/kernel/tracing/trace",
			   event, (unsigned long long)ino));
}

/*
 * Drop the caches until the inodes of @files have been reclaimed, then twice
 * more: the buffer cache gives an inode cluster buffer second chances.  The
 * shrinkers scan each cache in proportion to its size, so one round need not
 * reach XFS's reclaimable inodes.
 */
static void reclaim(const struct file *const *files, int n)
{
	int rounds = 0, done = 0;

	while (done < n && rounds++ < RECLAIM_ROUNDS) {
		tl_write_str("/proc/sys/vm/drop_caches", "2");
		trace_mark("k37t: caches dropped");
		for (done = 0; done < n; done++)
			if (!trace_lines("xfs_inode_reclaiming", files[done]->ino))
				break;
	}
	tl_write_str("/proc/sys/vm/drop_caches", "2");
	tl_write_str("/proc/sys/vm/drop_caches", "2");
	printf("reclaimed %d of %d inodes after %d rounds\n", done, n, rounds);
}

/*
 * With the work item held: fsync each file (EIO, the report queued without
 * an inode reference), close it (evicted), and reclaim the inodes.
 */
static void fail_and_evict(int *fds, const struct file *const *files, int n)
{
	static const char *const events[] = { "xfs:xfs_inode_reclaiming", "xfs:xfs_iget_miss",
					      "xfs:xfs_iget_recycle", "xfs:xfs_inode_set_reclaimable",
					      "xfs:xfs_ag_mark_sick" };
	int got[2];

	tl_pin_to_cpu0();
	tl_write_str("/proc/sys/vm/drop_caches", "3");
	CHECK_INT(bb_trace_start(events, sizeof(events) / sizeof(events[0])), 0);
	kt_hold_unbound_workers(HOLD_S);
	trace_mark("k37t: work item held");
	for (int i = 0; i < n; i++)
		got[i] = fsync(fds[i]) == 0 ? 0 : errno;
	trace_mark("k37t: fsync done");
	for (int i = 0; i < n; i++)
		close(fds[i]);
	trace_mark("k37t: closed");
	reclaim(files, n);
	for (int i = 0; i < n; i++)
		CHECK(trace_lines("xfs_inode_reclaiming", files[i]->ino) == 1 &&
		      !trace_lines("xfs_iget_miss", files[i]->ino),
		      "%s: not reclaimed while the work item was held", files[i]->path);
	trace_mark("k37t: releasing");
	kt_release_unbound_workers();
	trace_mark("k37t: released");
	for (int i = 0; i < n; i++)
		CHECK(got[i] == EIO, "fsync of %s: %s, expected EIO", files[i]->path,
		      strerror(got[i]));
}

/*
 * The trace of a step: CHECK that the work item loaded each file (@loads)
 * or not, and whether an inode cluster of AG 0 failed verification (@sick:
 * a failed load leaves no xfs_iget_miss line, it comes after the read).
 */
static void step_trace(const char *step, const struct file *const *files, int n,
		       const bool *loads, bool sick)
{
	char *trace = kt_trace_stop();
	char want[64];

	printf("%s: trace:\n%s", step, trace);
	for (int i = 0; i < n; i++) {
		snprintf(want, sizeof(want), "ino 0x%llx ", (unsigned long long)files[i]->ino);
		CHECK(kt_trace_count(trace, "xfs_iget_miss:", want, (char *)NULL) == loads[i],
		      "%s: the work item %s %s from the disk", step,
		      loads[i] ? "did not load" : "loaded", files[i]->path);
	}
	/* XFS_SICK_AG_INODES */
	CHECK((kt_trace_count(trace, "xfs_ag_mark_sick:", "agno 0x0 flags 0x400", (char *)NULL) >
	       0) == sick, "%s: an inode cluster %s verification", step, sick ? "did not fail" : "failed");
	free(trace);
}

/* Item 1: writeback fails, the inode is evicted, and it cannot be loaded. */
static void writeback_then_unloadable(int fan, unsigned long long daddr)
{
	static const struct file *const files[] = { &gone };
	struct kt_fserror ev[MAX_EVENTS];
	int fd = open_nocmtime(gone.path);
	int n;

	mark_dontcache(fd, gone.path);
	write_back_all();
	kt_dust_add(DUST, tl_file_physical(gone.path, 0) / BLK, 1);
	tl_write_block(fd, 0, 'g');
	/* the inode is in memory while the file is open: nothing reads the block */
	top_table(daddr, true);
	fail_and_evict(&fd, files, 1);

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
	step_trace("writeback, inode unloadable", files, 1, (const bool[]){ false }, true);
	top_table(0, false);
}

/* Is task @pid inside XFS's ->sync_fs, waiting for a work item? */
static bool sync_waits_for_worker(pid_t pid)
{
	char path[64], stack[4096];
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stack", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	len = read(fd, stack, sizeof(stack) - 1);
	close(fd);
	if (len <= 0)
		return false;
	stack[len] = '\0';
	return strstr(stack, "xfs_fs_sync_fs") && strstr(stack, "flush_work");
}

/* Item 4: a sync stops waiting for inode loads. */
static void sync_bound(int fan, unsigned long long daddr)
{
	static const struct file *const files[] = { &slow1, &slow2 };
	struct kt_fserror ev[MAX_EVENTS];
	int fds[2] = { open_nocmtime(slow1.path), open_nocmtime(slow2.path) };
	int n, polls = 0, status = 0;
	pid_t syncer;

	mark_dontcache(fds[0], slow1.path);
	mark_dontcache(fds[1], slow2.path);
	write_back_all();
	kt_dust_add(DUST, tl_file_physical(slow1.path, 0) / BLK, 1);
	kt_dust_add(DUST, tl_file_physical(slow2.path, 0) / BLK, 1);
	tl_write_block(fds[0], 0, 's');
	tl_write_block(fds[1], 0, 's');
	top_table(daddr, false);
	tl_must("dmsetup suspend %s", SLOW);
	fail_and_evict(fds, files, 2);

	/* the work item now waits for the first inode's block */
	syncer = fork();
	REQUIRE(syncer >= 0, "fork: %s", strerror(errno));
	if (syncer == 0) {
		int mnt = open(MNT, O_RDONLY | O_DIRECTORY);

		_exit(mnt >= 0 && (syncfs(mnt) == 0 || errno == EIO) ? 0 : 1);
	}
	while (!sync_waits_for_worker(syncer) && ++polls < SYNC_POLLS)
		usleep(50 * 1000);
	CHECK(polls < SYNC_POLLS, "syncfs never waited for the reporting work item");
	sleep(PAST_DEADLINE_S);
	tl_must("dmsetup resume %s", SLOW);
	REQUIRE(waitpid(syncer, &status, 0) == syncer, "waitpid: %s", strerror(errno));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "syncfs failed");

	n = kt_fserror_read(fan, EVENT_MS, ev, MAX_EVENTS);
	for (int i = 0; i < n; i++)
		kt_fserror_print("sync on a slow disk", &ev[i]);
	CHECK(n >= 1, "sync on a slow disk: no event");
	if (n >= 1)
		CHECK(ev[0].error == EIO && ev[0].has_inode && ev[0].ino == slow1.ino &&
		      ev[0].gen == slow1.gen && ev[0].count == 2,
		      "sync on a slow disk: not EIO twice, first for %s", slow1.path);
	/* a sync had waited 2 s: the second inode is named without a load */
	step_trace("sync on a slow disk", files, 2, (const bool[]){ true, false }, false);
	top_table(0, false);
}

int main(int argc, char **argv)
{
	const char *backing = argc > 1 ? argv[1] : "/dev/vda";
	unsigned long long gone_daddr, slow_daddr;

	vt_require_vm();
	tl_allow_small_fs(DEV);
	kt_dust_create(DUST, backing);
	dev_sectors = strtoull(tl_out("blockdev --getsz %s", backing), NULL, 10);
	REQUIRE(dev_sectors > 0, "cannot size %s", backing);
	tl_must("dmsetup create %s --table '0 %llu linear /dev/mapper/%s 0'", TOP, dev_sectors,
		DUST);
	tl_mkfs(DEV, "%s", vt_features());
	tl_mount(DEV, MNT, NULL);
	tl_write_file(gone.path, BLK, 1, true);
	tl_write_file(slow1.path, BLK, 2, true);
	tl_write_file(slow2.path, BLK, 3, true);
	tl_ino_gen(gone.path, &gone.ino, &gone.gen);
	tl_ino_gen(slow1.path, &slow1.ino, &slow1.gen);
	tl_ino_gen(slow2.path, &slow2.ino, &slow2.gen);
	tl_umount(MNT);

	gone_daddr = inode_block_daddr(gone.ino);
	slow_daddr = inode_block_daddr(slow1.ino);
	printf("inode %llu in the block at daddr %llu, inode %llu at %llu\n",
	       (unsigned long long)gone.ino, gone_daddr, (unsigned long long)slow1.ino, slow_daddr);
	REQUIRE(inode_block_daddr(slow2.ino) == slow_daddr, "%s and %s in different blocks",
		slow1.path, slow2.path);
	tl_must("dmsetup create %s --table '0 8 linear /dev/mapper/%s %llu'", SLOW, DUST,
		slow_daddr);
	kt_dust_enable(DUST, true);
	tl_mount(DEV, MNT, NULL);

	int fan = kt_fserror_listen(MNT);

	writeback_then_unloadable(fan, gone_daddr);
	sync_bound(fan, slow_daddr);

	close(fan);
	tl_umount(MNT);
	tl_must("dmsetup remove %s", TOP);
	tl_must("dmsetup remove %s", SLOW);
	kt_dust_remove(DUST);
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
