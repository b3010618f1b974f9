// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The inode cluster salvage under load in the cluster's own AG (issue 34,
 * item 1; both profiles).  The fixture of icluster.h: 32 files fill a 16 KiB
 * cluster in AG 0, its last 4 KiB block (8 of them) is made unreadable.
 *
 * Part 1, ten rounds: the block is made unreadable again (unmount, dm-dust,
 * mount), a load process creates, writes, extends, fsyncs and unlinks files
 * in a directory of AG 0 and appends to and fsyncs files next to the cluster,
 * while REPAIR of a lost inode rebuilds the cluster.  Each round: REPAIR
 * succeeds, the load sees no error and reads back what it wrote, the 24
 * readable neighbours are unchanged, the 8 lost files are rebuilt; and a file
 * of the load is created in AG 0 while the repair is reading the cluster
 * (between its first and its last read attempt: 900 ms of pauses).  Before
 * the salvage gathered its evidence without locks, the scrub setup's AGI was
 * held through all of it: every create in AG 0 waited for the whole repair.
 *
 * Part 2, the review's deadlock: a file of the cluster outside the bad block
 * is held open (opened by handle, so that its writes leave the inode clean)
 * with 64 KiB of delayed allocation, and the cluster buffer has left the
 * cache when the block goes bad.  As soon as the repair gets the cluster
 * buffer (the xfs_trans_get_buf trace line of its disk address), a process
 * fsyncs that file: writeback allocates in AG 0, holding the AGF, and its
 * commit waits for the cluster buffer.  The repair must still finish (it may
 * not wait for an AGF while it holds that buffer), the fsync succeeds, and
 * after a remount the file has its data.  Before, the repair read every AGF
 * with the buffer held: both tasks waited for each other for ever.
 *
 * Every part ends with all files scrubbing clean, xfs_repair -n clean, and a
 * kernel log without BUG, WARNING, lockdep report or hung task (the checked
 * kernel variant has hung task detection; it is set to 60 s here).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "badblock.h"
#include "check.h"
#include "icluster.h"
#include "ktest.h"
#include "vmtest.h"
#include "xfs_abi.h"

#define TARGET_FILE 60
/* A file of the cluster outside the bad block (part 2). */
#define WRITER_FILE IC_CLUSTER_FILE
#define ROUNDS 10
#define NEAR_FILES 4
#define LOAD_DIR BB_MNT "/load"
#define LOAD_FILE 16384
#define LOAD_MAX 4096
#define APPEND (64 * 1024)
/* Bound on waiting for a repair that may be deadlocked (part 2). */
#define HANG_SECONDS 300

static struct ic_fs fs;
static unsigned int ag_shift;	/* inode number bits below the AG number */

/* What the load did, in memory shared with the test. */
struct load_log {
	unsigned int creates;
	unsigned int errors;
	char first_error[160];
	struct {
		double t;	/* CLOCK_MONOTONIC when the create returned */
		uint64_t ino;
	} create[LOAD_MAX];
};

static unsigned int ilog2u(unsigned long long v)
{
	unsigned int l = 0;

	while (v > 1) {
		v >>= 1;
		l++;
	}
	return l;
}

static void set_ag_shift(void)
{
	struct xfs_fsop_geom geo;
	int fd = tl_open(BB_MNT, O_RDONLY | O_DIRECTORY);

	kt_geometry(fd, &geo);
	close(fd);
	/* agblklog is the log of agblocks rounded up. */
	ag_shift = ilog2u((unsigned long long)geo.agblocks - 1) + 1 +
		   ilog2u(geo.blocksize / geo.inodesize);
}

static unsigned int ag_of(uint64_t ino)
{
	return (unsigned int)(ino >> ag_shift);
}

static void fill(char *buf, size_t len, unsigned int seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (char)(seed * 131 + i * 7 + (i >> 9));
}

static void load_error(struct load_log *log, const char *what, const char *path, int err)
{
	if (log->errors++ == 0)
		snprintf(log->first_error, sizeof(log->first_error), "%s %s: %s", what, path,
			 strerror(err));
}

/* Write @len bytes of pattern @seed at @off and fsync. */
static bool write_sync(struct load_log *log, int fd, const char *path, off_t off, size_t len,
		       unsigned int seed)
{
	static char buf[LOAD_FILE];

	fill(buf, len, seed);
	if (pwrite(fd, buf, len, off) != (ssize_t)len) {
		load_error(log, "write", path, errno);
		return false;
	}
	if (fsync(fd) != 0) {
		load_error(log, "fsync", path, errno);
		return false;
	}
	return true;
}

/* The file reads back what write_sync() put there. */
static void verify(struct load_log *log, const char *path, size_t len, unsigned int seed)
{
	static char want[LOAD_FILE], got[LOAD_FILE];
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		load_error(log, "open", path, errno);
		return;
	}
	fill(want, len, seed);
	if (pread(fd, got, len, 0) != (ssize_t)len || memcmp(want, got, len) != 0)
		load_error(log, "read back", path, errno ? errno : EILSEQ);
	close(fd);
}

static volatile sig_atomic_t load_stop;

static void on_term(int sig)
{
	(void)sig;
	load_stop = 1;
}

/*
 * The load: create a 16 KiB file in LOAD_DIR (AG 0) and fsync it, extend it
 * by 4 KiB and fsync, check and unlink the file of four iterations before,
 * append 4 KiB to one of the files next to the cluster and fsync.  Signals
 * @ready after the first iteration; stops at SIGTERM.
 */
static void load_main(struct load_log *log, int round, int ready)
{
	char near[NEAR_FILES][64];
	unsigned int i;

	signal(SIGTERM, on_term);
	for (int k = 0; k < NEAR_FILES; k++)
		snprintf(near[k], sizeof(near[k]), BB_MNT "/near%d", k);
	for (i = 0; !load_stop && i < LOAD_MAX; i++) {
		char path[96];
		struct stat st;
		int fd;

		snprintf(path, sizeof(path), LOAD_DIR "/r%d-%u", round, i);
		fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0644);
		if (fd < 0) {
			load_error(log, "create", path, errno);
			break;
		}
		log->create[i].t = tl_mono();
		log->create[i].ino = fstat(fd, &st) == 0 ? st.st_ino : 0;
		log->creates = i + 1;
		if (write_sync(log, fd, path, 0, LOAD_FILE, i))
			write_sync(log, fd, path, LOAD_FILE, 4096, i);
		close(fd);
		if (i >= 4) {
			snprintf(path, sizeof(path), LOAD_DIR "/r%d-%u", round, i - 4);
			verify(log, path, LOAD_FILE, i - 4);
			if (unlink(path) != 0)
				load_error(log, "unlink", path, errno);
		}
		fd = open(near[i % NEAR_FILES], O_WRONLY | O_APPEND);
		if (fd < 0) {
			load_error(log, "open", near[i % NEAR_FILES], errno);
		} else {
			write_sync(log, fd, near[i % NEAR_FILES], 0, 4096, i);
			close(fd);
		}
		if (i == 0 && write(ready, "r", 1) != 1)
			load_error(log, "signal", "ready", errno);
		if (log->errors)
			break;
	}
	_exit(0);
}

struct load_arg {
	struct load_log *log;
	int round;
};

static void run_load(void *arg, int ready)
{
	const struct load_arg *a = arg;

	load_main(a->log, a->round, ready);
}

/* Timestamp of the first trace line of @event containing @needle, or -1. */
static double trace_time(const char *trace, const char *event, const char *needle)
{
	char key[96];

	snprintf(key, sizeof(key), ": %s:", event);
	for (const char *line = trace; line && *line;) {
		const char *end = strchr(line, '\n');
		const char *ev = strstr(line, key);

		if (ev && (!end || ev < end)) {
			const char *n = strstr(ev, needle);

			if (n && (!end || n < end)) {
				const char *p = ev;
				double t;

				while (p > line && p[-1] != ' ')
					p--;
				if (sscanf(p, "%lf", &t) == 1)
					return t;
			}
		}
		line = end ? end + 1 : NULL;
	}
	return -1;
}

static void round_under_load(int round, struct load_log *log)
{
	static const char *const events[] = {
		"xfs_scrub:xrep_icluster_unreadable", "xfs_scrub:xrep_icluster_rebuild",
	};
	struct ic_file *t = &fs.f[TARGET_FILE];
	double t_first, t_last;
	unsigned int inside = 0, inside_ag = 0, done_before;
	struct load_arg load = { log, round };
	int status = -1, rc;
	uint32_t oflags;
	struct stat st;
	char *trace;
	pid_t pid;

	printf("=== round %d\n", round);
	tl_umount(BB_MNT);
	/* A round whose repair failed left the block bad. */
	tl_must("dmsetup message %s 0 clearbadblocks", BB_DUST);
	kt_dust_add(BB_DUST, fs.dust_blk, 0);
	kt_dust_enable(BB_DUST, true);
	tl_mount(BB_DEV, BB_MNT, "noatime");
	CHECK_INT(ic_stat(t->path, &st), -EIO);

	memset(log, 0, sizeof(*log));
	pid = tl_fork_ready(run_load, &load);
	REQUIRE(pid > 0, "the load stopped before its first iteration: %s", log->first_error);

	CHECK_INT(bb_trace_start(events, sizeof(events) / sizeof(events[0])), 0);
	done_before = log->creates;
	rc = ic_scrub(XFS_SCRUB_TYPE_INODE, t->st.st_ino, t->gen, XFS_SCRUB_IFLAG_REPAIR,
		      &oflags);
	trace = kt_trace_stop();
	kill(pid, SIGTERM);
	REQUIRE(waitpid(pid, &status, 0) == pid, "waitpid: %s", strerror(errno));

	printf("round %d: repair rc %d flags 0x%x; load: %u files, %u during the repair, "
	       "%u errors\n", round, rc, oflags, log->creates, log->creates - done_before,
	       log->errors);
	CHECK(rc == 0 && !(oflags & XFS_SCRUB_OFLAG_CORRUPT), "round %d: REPAIR rc %d flags 0x%x",
	      round, rc, oflags);
	if (rc != 0 || (oflags & XFS_SCRUB_OFLAG_CORRUPT))
		tl_sh("dmesg | tail -n 20");
	CHECK(log->errors == 0, "round %d: the load failed %u times, first: %s", round,
	      log->errors, log->first_error);
	CHECK_INT(kt_trace_count(trace, "xrep_icluster_rebuild", NULL), IC_INODES_PER_BLOCK);

	/* Files the load created while the repair paused between reads. */
	t_first = trace_time(trace, "xrep_icluster_unreadable", "try 1/3");
	t_last = trace_time(trace, "xrep_icluster_unreadable", "try 3/3");
	for (unsigned int i = 0; i < log->creates; i++) {
		if (log->create[i].t > t_first && log->create[i].t < t_last) {
			inside++;
			inside_ag += ag_of(log->create[i].ino) == ag_of(fs.first);
		}
	}
	printf("round %d: reads of the cluster from %.6f to %.6f; %u files created meanwhile, "
	       "%u of them in AG %u\n", round, t_first, t_last, inside, inside_ag,
	       ag_of(fs.first));
	CHECK(t_first > 0 && t_last > t_first, "round %d: no first and last read attempt traced",
	      round);
	CHECK(inside_ag > 0, "round %d: no file was created in AG %u while the repair read the "
	      "cluster (its AGI is held meanwhile)", round, ag_of(fs.first));
	free(trace);

	ic_check_repaired(&fs);
	CHECK(bb_fs_alive(), "round %d: the filesystem is shut down or unmounted", round);
}

static void part_load(const char *backing)
{
	struct load_log *log;
	struct stat st;

	printf("=== part 1: %d rounds of REPAIR under load in the cluster's AG\n", ROUNDS);
	ic_setup(&fs, backing, -1, "noatime");
	set_ag_shift();
	REQUIRE(fs.f[TARGET_FILE].in_bad_block, "%s is not in the bad block",
		fs.f[TARGET_FILE].path);

	/* The first directory made after a mount goes to AG 0. */
	REQUIRE(mkdir(LOAD_DIR, 0755) == 0, "mkdir %s: %s", LOAD_DIR, strerror(errno));
	REQUIRE(stat(LOAD_DIR, &st) == 0 && ag_of(st.st_ino) == ag_of(fs.first),
		"%s (inode %llu) is not in AG %u", LOAD_DIR, (unsigned long long)st.st_ino,
		ag_of(fs.first));
	for (int k = 0; k < NEAR_FILES; k++) {
		char path[64];

		snprintf(path, sizeof(path), BB_MNT "/near%d", k);
		tl_write_file(path, 4096, (unsigned int)(700 + k), true);
		REQUIRE(stat(path, &st) == 0, "stat %s", path);
		printf("%s: inode %llu\n", path, (unsigned long long)st.st_ino);
	}
	tl_must("sync");

	log = mmap(NULL, sizeof(*log), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	REQUIRE(log != MAP_FAILED, "mmap: %s", strerror(errno));
	for (int r = 1; r <= ROUNDS; r++)
		round_under_load(r, log);
	munmap(log, sizeof(*log));

	/* What the load left is not part of the recorded files.  A failed
	 * last repair left the block bad: make it work again (a rewrite of
	 * the cluster has cleared it already). */
	tl_must("rm -rf %s %s/near*", LOAD_DIR, BB_MNT);
	tl_umount(BB_MNT);
	tl_must("dmsetup message %s 0 clearbadblocks", BB_DUST);
	if (!ic_mount_checked(NULL))
		return;
	ic_check_unchanged(&fs, false);
	ic_check_sums(&fs);
	ic_check_scrubs(&fs, true);
	CHECK_INT(bb_finish(), 0);
	free(fs.sums);
}

/* Open @path by handle: its writes change no timestamp (FMODE_NOCMTIME),
 * so appending leaves delayed allocation behind a clean inode. */
static int open_by_handle_nocmtime(const char *path)
{
	char handle[128];
	__u32 hlen = sizeof(handle);
	xfs_fsop_handlereq_t req = { .path = (void *)path, .ohandle = handle, .ohandlen = &hlen };
	int mfd = tl_open(BB_MNT, O_RDONLY | O_DIRECTORY);
	int fd;

	REQUIRE(ioctl(mfd, XFS_IOC_PATH_TO_HANDLE, &req) == 0, "path to handle %s: %s", path,
		strerror(errno));
	memset(&req, 0, sizeof(req));
	req.oflags = O_RDWR;
	req.ihandle = handle;
	req.ihandlen = hlen;
	fd = ioctl(mfd, XFS_IOC_OPEN_BY_HANDLE, &req);
	REQUIRE(fd >= 0, "open by handle %s: %s", path, strerror(errno));
	close(mfd);
	return fd;
}

/* Kernel log lines of a rebuild of the 8 inodes of the bad block. */
static int rebuild_log_lines(void)
{
	return atoi(tl_out("dmesg | grep -c 'inode cluster at daddr 0x%llx: rebuilt %d unreadable' "
			   "|| true", fs.cluster_daddr, IC_INODES_PER_BLOCK));
}

struct writer {
	int fd;
	char needle[64];
};

static void write_when_traced(void *arg, int ready)
{
	const struct writer *w = arg;
	static char buf[1 << 20];
	size_t len = 0, line = 0;
	int tp = open("/sys/kernel/tracing/trace_pipe", O_RDONLY);

	if (tp < 0 || write(ready, "r", 1) != 1)
		_exit(2);
	while (len < sizeof(buf) - 1) {
		ssize_t n = read(tp, buf + len, sizeof(buf) - 1 - len);
		char *end;

		if (n <= 0)
			_exit(3);
		len += (size_t)n;
		buf[len] = '\0';
		/* Complete lines only, each once. */
		while ((end = strchr(buf + line, '\n')) != NULL) {
			*end = '\0';
			if (strstr(buf + line, "xfs_trans_get_buf:") &&
			    strstr(buf + line, w->needle)) {
				double t0 = tl_mono();
				int rc = fsync(w->fd);

				printf("writer: fsync after \"%s\": %s (%.3f s)\n", buf + line,
				       rc == 0 ? "ok" : strerror(errno), tl_mono() - t0);
				fflush(stdout);
				_exit(rc == 0 ? 0 : 4);
			}
			line = (size_t)(end - buf) + 1;
		}
	}
	_exit(5);
}

/* A child that fsyncs @fd as soon as the trace shows the repair getting the
 * cluster buffer; exits 0 if the fsync succeeded. */
static pid_t start_writer(int fd)
{
	struct writer w = { .fd = fd };
	pid_t pid;

	snprintf(w.needle, sizeof(w.needle), "daddr 0x%llx ", fs.cluster_daddr);
	pid = tl_fork_ready(write_when_traced, &w);
	REQUIRE(pid > 0, "the writer could not open trace_pipe");
	return pid;
}

/* The REPAIR call in a child, so that a deadlock can be seen and reported.
 * Its result goes through @out. */
static pid_t start_repair(const struct ic_file *t, int out)
{
	pid_t pid = fork();

	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		int res[2];

		res[0] = ic_scrub(XFS_SCRUB_TYPE_INODE, t->st.st_ino, t->gen,
				  XFS_SCRUB_IFLAG_REPAIR, (uint32_t *)&res[1]);
		_exit(write(out, res, sizeof(res)) == sizeof(res) ? 0 : 1);
	}
	return pid;
}

static void show_task(const char *what, pid_t pid)
{
	printf("%s (pid %d): state %c\n", what, (int)pid, tl_task_state(pid));
	tl_sh("cat /proc/%d/stack 2>/dev/null", (int)pid);
}

/* Wait for both children; false if they are still there after HANG_SECONDS. */
static bool wait_both(pid_t repair, int *repair_status, pid_t writer, int *writer_status)
{
	bool repair_done = false, writer_done = false;

	for (int s = 0; s < HANG_SECONDS * 10 && !(repair_done && writer_done); s++) {
		if (!repair_done && waitpid(repair, repair_status, WNOHANG) == repair)
			repair_done = true;
		if (!writer_done && waitpid(writer, writer_status, WNOHANG) == writer)
			writer_done = true;
		if (!(repair_done && writer_done))
			poll(NULL, 0, 100);
	}
	if (repair_done && writer_done)
		return true;
	CHECK(false, "after %d s the repair %s and the fsync %s", HANG_SECONDS,
	      repair_done ? "has ended" : "has not returned",
	      writer_done ? "has ended" : "has not returned");
	if (!repair_done)
		show_task("repair", repair);
	if (!writer_done)
		show_task("writer", writer);
	tl_sh("dmesg | tail -n 60");
	return false;
}

static void part_writeback(const char *backing)
{
	static const char *const events[] = {
		"xfs_scrub:xrep_icluster_unreadable", "xfs_scrub:xrep_icluster_rebuild",
		"xfs:xfs_trans_get_buf",
	};
	struct ic_file *t, *w;
	static char want[APPEND], got[APPEND];
	int fd, res[2] = { -1, 0 }, out[2], rs = -1, ws = -1, nlog;
	pid_t repair, writer;
	struct stat st;
	char *trace;

	printf("=== part 2: writeback of a file of the cluster while it is rebuilt\n");
	ic_setup(&fs, backing, -1, "noatime");
	t = &fs.f[TARGET_FILE];
	w = &fs.f[WRITER_FILE];
	REQUIRE(t->in_bad_block && w->in_cluster && !w->in_bad_block,
		"%s must be in the bad block and %s in the cluster outside it", t->path, w->path);

	/* Keep dirty data in memory until the test syncs it. */
	tl_write_str("/proc/sys/vm/dirty_writeback_centisecs", "0");
	tl_write_str("/proc/sys/vm/dirty_expire_centisecs", "360000");
	fd = open_by_handle_nocmtime(w->path);
	fill(want, sizeof(want), 4242);
	REQUIRE(pwrite(fd, want, sizeof(want), (off_t)w->size) == (ssize_t)sizeof(want),
		"append to %s: %s", w->path, strerror(errno));

	/* The cluster buffer leaves the cache (inode buffers take a few
	 * passes of the shrinker), then the block goes bad under the
	 * mounted filesystem. */
	for (int i = 0; i < 4; i++)
		tl_write_str("/proc/sys/vm/drop_caches", "3");
	kt_dust_add(BB_DUST, fs.dust_blk, 0);
	kt_dust_enable(BB_DUST, true);
	REQUIRE(ic_stat(fs.f[TARGET_FILE - 1].path, &st) == -EIO,
		"%s does not fail with EIO: the cluster buffer is still cached",
		fs.f[TARGET_FILE - 1].path);

	nlog = rebuild_log_lines();
	CHECK_INT(bb_trace_start(events, sizeof(events) / sizeof(events[0])), 0);
	writer = start_writer(fd);
	REQUIRE(pipe(out) == 0, "pipe: %s", strerror(errno));
	repair = start_repair(t, out[1]);
	close(out[1]);
	if (!wait_both(repair, &rs, writer, &ws)) {
		int rc;

		fprintf(stderr, "FAIL: the repair and the writeback are stuck: no cleanup\n");
		rc = check_done();
		_exit(rc ? rc : 1);
	}
	CHECK(read(out[0], res, sizeof(res)) == sizeof(res), "no result from the repair");
	close(out[0]);
	trace = kt_trace_stop();
	close(fd);

	printf("repair of %s: rc %d flags 0x%x\n", t->path, res[0], res[1]);
	CHECK(res[0] == 0 && !(res[1] & XFS_SCRUB_OFLAG_CORRUPT), "REPAIR: rc %d flags 0x%x",
	      res[0], res[1]);
	CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "the writer's fsync of %s failed (status "
	      "0x%x)", w->path, ws);
	/* The writer read (and so took) the trace up to its line: count the
	 * rebuild in the kernel log. */
	CHECK_INT(rebuild_log_lines(), nlog + 1);
	free(trace);
	CHECK(bb_fs_alive(), "the filesystem is shut down or unmounted");

	/* The appended data is on the disk. */
	tl_umount(BB_MNT);
	if (!ic_mount_checked(NULL))
		return;
	fd = tl_open(w->path, O_RDONLY);
	CHECK(fstat(fd, &st) == 0 && (size_t)st.st_size == w->size + APPEND,
	      "%s: size %lld, expected %zu", w->path, (long long)st.st_size, w->size + APPEND);
	CHECK(pread(fd, got, sizeof(got), (off_t)w->size) == (ssize_t)sizeof(got) &&
		      memcmp(got, want, sizeof(got)) == 0,
	      "%s does not read back the appended data", w->path);
	close(fd);
	for (int i = 0; i < IC_FILES; i++)
		if (fs.f[i].in_bad_block)
			ic_check_rebuilt(&fs.f[i]);
	ic_check_scrubs(&fs, true);
	CHECK_INT(bb_finish(), 0);
	free(fs.sums);
}

int main(int argc, char **argv)
{
	const char *backing = argc > 1 ? argv[1] : "/dev/vda";

	vt_require_vm();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (access("/proc/sys/kernel/hung_task_timeout_secs", F_OK) == 0) {
		tl_write_str("/proc/sys/kernel/hung_task_timeout_secs", "60");
		printf("hung task detection: 60 s\n");
	} else {
		printf("hung task detection: not in this kernel\n");
	}
	tl_write_str("/sys/kernel/tracing/trace_clock", "mono");
	part_load(backing);
	part_writeback(backing);
	return check_done();
}
