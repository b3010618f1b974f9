// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <sched.h>
#include <linux/dm-ioctl.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "ktest.h"
#include "map_scrub.h"
#include "testlib.h"

#include "kt_require.h"

#define TRACEFS "/sys/kernel/tracing"

void kt_geometry(int fd, struct xfs_fsop_geom *geo)
{
	memset(geo, 0, sizeof(*geo));
	REQUIRE(ioctl(fd, XFS_IOC_FSGEOMETRY, geo) == 0, "FSGEOMETRY: %s", strerror(errno));
}

int kt_scrub_ino(const char *mnt, uint32_t type, uint64_t ino, uint32_t gen, uint32_t iflags,
		 uint32_t *oflags)
{
	int fd = tl_open(mnt, O_RDONLY | O_DIRECTORY);
	int rc;

	*oflags = 0;
	rc = map_scrub_call(fd, type, 0, ino, gen, iflags, oflags);
	close(fd);
	return rc;
}

const char *kt_fs_name(const char *dev)
{
	static char name[64];
	char link[PATH_MAX], target[PATH_MAX];
	struct stat st;

	REQUIRE(stat(dev, &st) == 0 && S_ISBLK(st.st_mode), "%s is not a block device", dev);
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(st.st_rdev),
		 minor(st.st_rdev));
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	REQUIRE(n > 0, "readlink %s: %s", link, strerror(errno));
	target[n] = '\0';
	snprintf(name, sizeof(name), "%s", basename(target));
	return name;
}

uint64_t kt_bmbt_leaf_daddr(const char *dev, uint64_t ino)
{
	unsigned long long fsb, daddr;
	const char *fmt = tl_out("xfs_db -r -c 'inode %llu' -c 'print core.format' %s",
				 (unsigned long long)ino, dev);

	REQUIRE(strstr(fmt, "btree") != NULL, "inode %llu has no mapping btree: %s",
		(unsigned long long)ino, fmt);
	fsb = strtoull(tl_out("xfs_db -r -c 'inode %llu' -c 'print u3.bmbt.ptrs[1]' %s | "
			      "sed 's/.*= //'", (unsigned long long)ino, dev), NULL, 10);
	REQUIRE(fsb != 0, "no mapping btree leaf for inode %llu", (unsigned long long)ino);
	REQUIRE(sscanf(tl_out("xfs_db -r -c 'convert fsb %llu daddr' %s", fsb, dev),
		       "%*s (%llu)", &daddr) == 1, "xfs_db convert fsb");
	return daddr;
}

void kt_write_btree_file(const char *path, int extents)
{
	int fd = tl_open(path, O_WRONLY | O_CREAT | O_TRUNC);
	char block[4096];

	memset(block, 'm', sizeof(block));
	for (int i = 0; i < extents; i++)
		REQUIRE(pwrite(fd, block, sizeof(block), (off_t)i * 2 * (off_t)sizeof(block)) ==
				(ssize_t)sizeof(block),
			"write %s: %s", path, strerror(errno));
	REQUIRE(fsync(fd) == 0, "fsync %s: %s", path, strerror(errno));
	close(fd);
}

void kt_break_inode_mode(const char *dev, uint64_t ino)
{
	unsigned long long byte;

	REQUIRE(sscanf(tl_out("xfs_db -r -c 'convert ino %llu byte' %s", (unsigned long long)ino,
			      dev), "%*s (%llu)", &byte) == 1, "xfs_db convert ino");
	printf("inode %llu: core at byte %llu\n", (unsigned long long)ino, byte);
	tl_must("printf '\\377\\377' | dd of=%s bs=1 seek=%llu conv=notrunc status=none", dev,
		byte + 2);
}

void kt_errortag(const char *fs_name, const char *tag, unsigned int value)
{
	char path[256], val[16];

	snprintf(path, sizeof(path), "/sys/fs/xfs/%s/errortag/%s", fs_name, tag);
	snprintf(val, sizeof(val), "%u", value);
	tl_write_str(path, val);
}

/*
 * Turning a trace event on or off patches kernel text (jump labels), and by
 * default the first event also hooks sched_switch to record command names,
 * which patches __schedule itself.  Under TCG with two vCPUs a CPU once ran
 * into the patch's int3 after the patching had finished (an oops in
 * __schedule).  So: no command-name recording, and events are switched on
 * once and left on; tracing_on alone starts and stops the capture.
 */
void kt_trace_start(const char *const *events, size_t n)
{
	tl_write_str(TRACEFS "/tracing_on", "0");
	tl_write_str(TRACEFS "/options/record-cmd", "0");
	tl_write_str(TRACEFS "/buffer_size_kb", "8192");
	for (size_t i = 0; i < n; i++) {
		int fd = open(TRACEFS "/set_event", O_WRONLY | O_APPEND);

		REQUIRE(fd >= 0 && write(fd, events[i], strlen(events[i])) > 0,
			"cannot enable trace event %s: %s", events[i], strerror(errno));
		close(fd);
	}
	tl_write_str(TRACEFS "/trace", "");
	tl_write_str(TRACEFS "/tracing_on", "1");
}

char *kt_trace_stop(void)
{
	tl_write_str(TRACEFS "/tracing_on", "0");
	return tl_out_alloc("cat " TRACEFS "/trace");
}

int kt_trace_count(const char *trace, ...)
{
	const char *needles[8];
	size_t nn = 0;
	va_list ap;
	int count = 0;

	va_start(ap, trace);
	for (const char *s; (s = va_arg(ap, const char *)) != NULL && nn < 8;)
		needles[nn++] = s;
	va_end(ap);

	for (const char *line = trace; *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		bool all = line[0] != '#';

		for (size_t i = 0; all && i < nn; i++)
			all = memmem(line, len, needles[i], strlen(needles[i])) != NULL;
		count += all;
		line += len + (end != NULL);
	}
	return count;
}

void kt_dust_create(const char *name, const char *backing)
{
	const char *sectors = tl_out("blockdev --getsz %s", backing);

	REQUIRE(*sectors, "cannot size %s", backing);
	setenv("DM_DISABLE_UDEV", "1", 1);
	tl_must("dmsetup create %s --table '0 %s dust %s 0 4096'", name, sectors, backing);
	tl_must("test -b /dev/mapper/%s", name);
}

void kt_dust_remove(const char *name)
{
	tl_must("dmsetup remove %s", name);
}

void kt_dust_add(const char *name, uint64_t blk, unsigned int write_fails)
{
	if (write_fails)
		tl_must("dmsetup message %s 0 addbadblock %llu %u", name, (unsigned long long)blk,
			write_fails);
	else
		tl_must("dmsetup message %s 0 addbadblock %llu", name, (unsigned long long)blk);
}

/*
 * The same as kt_dust_add() for @count blocks from @first, through the
 * device-mapper ioctl itself: a dmsetup per block takes a tenth of a second
 * in the guest, and a log has thousands of blocks.
 */
void kt_dust_add_range(const char *name, uint64_t first, uint64_t count, unsigned int write_fails)
{
	union {
		struct dm_ioctl io;
		char bytes[sizeof(struct dm_ioctl) + sizeof(struct dm_target_msg) + 64];
	} req;
	int ctl = open("/dev/mapper/control", O_RDWR | O_CLOEXEC);

	REQUIRE(ctl >= 0, "/dev/mapper/control: %s", strerror(errno));
	for (uint64_t b = first; b < first + count; b++) {
		struct dm_target_msg *msg = (void *)(req.bytes + sizeof(struct dm_ioctl));

		memset(&req, 0, sizeof(req));
		req.io.version[0] = DM_VERSION_MAJOR;
		req.io.data_size = sizeof(req);
		req.io.data_start = sizeof(struct dm_ioctl);
		snprintf(req.io.name, sizeof(req.io.name), "%s", name);
		msg->sector = 0;
		snprintf(msg->message, 64, "addbadblock %llu %u", (unsigned long long)b,
			 write_fails);
		REQUIRE(ioctl(ctl, DM_TARGET_MSG, &req) == 0, "%s: addbadblock %llu: %s", name,
			(unsigned long long)b, strerror(errno));
	}
	close(ctl);
}

void kt_dust_enable(const char *name, bool on)
{
	tl_must("dmsetup message %s 0 %s", name, on ? "enable" : "disable");
}

#define RT_RUNTIME "/proc/sys/kernel/sched_rt_runtime_us"
#define CPU1_ONLINE "/sys/devices/system/cpu/cpu1/online"
static char saved_rt_runtime[32];

/* Keep the contents of a small sysfs/procfs file in @dst to restore later. */
static void save_str(char *dst, size_t size, const char *path)
{
	char value[4096];

	tl_slurp(path, value, sizeof(value));
	REQUIRE(strlen(value) < size, "%s: %s", path, value);
	memcpy(dst, value, strlen(value) + 1);
}

static bool cpu1_online(void)
{
	char on[8];

	tl_slurp(CPU1_ONLINE, on, sizeof(on));
	return on[0] == '1';
}

void kt_solo_begin(void)
{
	REQUIRE(cpu1_online(), "the guest has no second CPU online");
	save_str(saved_rt_runtime, sizeof(saved_rt_runtime), RT_RUNTIME);
	tl_write_str(RT_RUNTIME, "-1");
	tl_write_str(CPU1_ONLINE, "0");
}

void kt_solo_end(void)
{
	tl_write_str(CPU1_ONLINE, "1");
	tl_write_str(RT_RUNTIME, saved_rt_runtime);
}

void kt_run_alone(void (*fn)(void *), void *arg)
{
	struct sched_param rt = { .sched_priority = 50 }, normal = { 0 };

	tl_pin_to_cpu0();
	REQUIRE(sched_setscheduler(0, SCHED_FIFO, &rt) == 0, "SCHED_FIFO: %s", strerror(errno));
	fn(arg);
	REQUIRE(sched_setscheduler(0, SCHED_OTHER, &normal) == 0, "SCHED_OTHER: %s",
		strerror(errno));
}

#define WQ_CPUMASK "/sys/devices/virtual/workqueue/cpumask"
/* 6.12 runs normal tasks for a while each second even on a CPU that a
 * SCHED_FIFO task keeps busy (the deadline "fair server"); 0 turns it off. */
#define FAIR_SERVER_CPU1 "/sys/kernel/debug/sched/fair_server/cpu1/runtime"
static pid_t hog_pid = -1;
static char saved_wq_cpumask[64];
static char saved_fair_server[32];

/* The CPU 1 hog: SCHED_FIFO on CPU 1 for @arg seconds, from ready on. */
static void hog(void *arg, int ready)
{
	unsigned int seconds = *(const unsigned int *)arg;
	struct sched_param rt = { .sched_priority = 50 };
	cpu_set_t cpus;
	struct timespec end, now;

	/*
	 * No open file of the test may outlive its close() in here:
	 * the hog's copy would be the last reference, dropped when
	 * the hold ends, and an inode the test evicts would stay.
	 */
	if ((ready > 3 && close_range(3, (unsigned int)ready - 1, 0)) ||
	    close_range((unsigned int)ready + 1, ~0U, 0))
		_exit(1);
	CPU_ZERO(&cpus);
	CPU_SET(1, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus) || sched_setscheduler(0, SCHED_FIFO, &rt))
		_exit(1);
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += seconds;
	if (write(ready, "r", 1) != 1)
		_exit(1);
	do
		clock_gettime(CLOCK_MONOTONIC, &now);
	while (now.tv_sec < end.tv_sec ||
	       (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
	_exit(0);
}

void kt_hold_unbound_workers(unsigned int seconds)
{
	REQUIRE(cpu1_online(), "the guest has no second CPU online");
	save_str(saved_wq_cpumask, sizeof(saved_wq_cpumask), WQ_CPUMASK);
	save_str(saved_rt_runtime, sizeof(saved_rt_runtime), RT_RUNTIME);
	save_str(saved_fair_server, sizeof(saved_fair_server), FAIR_SERVER_CPU1);
	tl_write_str(RT_RUNTIME, "-1");
	tl_write_str(FAIR_SERVER_CPU1, "0");
	tl_write_str(WQ_CPUMASK, "2");
	hog_pid = tl_fork_ready(hog, &seconds);
	REQUIRE(hog_pid > 0, "the CPU 1 hog did not start");
}

void kt_release_unbound_workers(void)
{
	int status;

	REQUIRE(waitpid(hog_pid, &status, 0) == hog_pid && WIFEXITED(status) &&
		WEXITSTATUS(status) == 0, "the CPU 1 hog failed");
	hog_pid = -1;
	tl_write_str(WQ_CPUMASK, saved_wq_cpumask);
	tl_write_str(FAIR_SERVER_CPU1, saved_fair_server);
	tl_write_str(RT_RUNTIME, saved_rt_runtime);
}
