// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Error reports are never lost without a trace (kernel/patches 1/1 and 1/2).
 * On a filesystem over dm-dust with one bad block in each of 200 files, and
 * a FAN_REPORT_FID listener that reads only after each step:
 *
 * 1. errors noticed by different tasks, one worker run each, on both CPUs:
 *    one event, count 8, naming the first file (fanotify merges a
 *    filesystem's error events whoever reported them);
 * 2. a storm: file A read 200 times, then file B once, while the reporting
 *    worker cannot run: one event with count 2 (A and B; the 200 identical
 *    reports of A take one slot, so B is not crowded out), nothing lost;
 * 3. 150 different files read while the worker cannot run: the first 64
 *    reports are delivered and the other 86 are lost; one event, count 65
 *    (64 reports and the filesystem-wide ENOBUFS that tells the listener
 *    reports were lost), and the kernel log says "86 error reports ...
 *    lost since mount".
 *
 * "The worker cannot run": CPU 1 is taken offline and the reads run as a
 * SCHED_FIFO task on CPU 0 with RT throttling off.  A direct read over a
 * dm-dust bad block fails inside the submitting call without sleeping, so
 * the worker (a normal-priority kworker) gets the CPU only when the burst is
 * over.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fserror_listen.h"
#include "ktest.h"
#include "vmtest.h"

#define DUST "kdust"
#define DEV "/dev/mapper/" DUST
#define MNT "/tmp/mnt"
#define BLK 4096
#define NFILES 200
#define EVENT_MS 10000
#define NO_EVENT_MS 1500

struct file {
	char path[64];
	uint64_t ino;
	uint32_t gen;
	int fd;				/* O_DIRECT */
};

static struct file files[NFILES];
static void *buf;

static void populate(void)
{
	for (int i = 0; i < NFILES; i++) {
		struct file *f = &files[i];

		snprintf(f->path, sizeof(f->path), MNT "/f%03d", i);
		tl_write_file(f->path, BLK, (unsigned int)i + 1, false);
	}
	sync();
	for (int i = 0; i < NFILES; i++) {
		struct file *f = &files[i];

		tl_ino_gen(f->path, &f->ino, &f->gen);
		kt_dust_add(DUST, tl_file_physical(f->path, 0) / BLK, 0);
	}
}

/* Read a file's one block; it must fail with EIO. */
static void read_bad(struct file *f)
{
	ssize_t n = pread(f->fd, buf, BLK, 0);

	if (n >= 0 || errno != EIO)
		fprintf(stderr, "reading %s: %s, expected EIO\n", f->path,
			n >= 0 ? "no error" : strerror(errno));
}

/* The one event a step must give: EIO on @first, @count errors merged. */
static void expect_one_event(int fan, const char *step, const struct file *first, uint32_t count)
{
	struct kt_fserror ev[8];

	if (!kt_fserror_read_one(fan, EVENT_MS, step, &ev[0]))
		return;
	CHECK_INT(ev[0].error, EIO);
	CHECK(ev[0].count == count, "%s: %u errors merged into the event, expected %u", step,
	      ev[0].count, count);
	CHECK(ev[0].has_inode, "%s: the event names no file", step);
	CHECK(ev[0].ino == first->ino && ev[0].gen == first->gen,
	      "%s: the event names inode %llu gen %u, expected %s (inode %llu gen %u)", step,
	      (unsigned long long)ev[0].ino, ev[0].gen, first->path,
	      (unsigned long long)first->ino, first->gen);
	kt_fserror_expect_none(fan, NO_EVENT_MS, step);
}

/* Step 1: one child per error, one worker run each, on alternate CPUs. */
static void merged_across_tasks(int fan)
{
	for (int i = 0; i < 8; i++) {
		pid_t pid = fork();

		REQUIRE(pid >= 0, "fork: %s", strerror(errno));
		if (pid == 0) {
			cpu_set_t cpus;

			CPU_ZERO(&cpus);
			CPU_SET(i % 2, &cpus);
			sched_setaffinity(0, sizeof(cpus), &cpus);
			read_bad(&files[i]);
			_exit(0);
		}
		REQUIRE(waitpid(pid, NULL, 0) == pid, "waitpid: %s", strerror(errno));
		usleep(200 * 1000);	/* the worker delivers it before the next */
	}
	expect_one_event(fan, "8 errors from 8 tasks", &files[0], 8);
}

static void storm_on_one_file(void *arg)
{
	(void)arg;
	for (int i = 0; i < 200; i++)
		read_bad(&files[8]);
	read_bad(&files[9]);
}

static void more_than_the_queue(void *arg)
{
	int *n = arg;

	for (int i = 0; i < *n; i++)
		read_bad(&files[10 + i]);
}

int main(int argc, char **argv)
{
	const char *backing = argc > 1 ? argv[1] : "/dev/vda";

	vt_require_vm();
	tl_allow_small_fs(DEV);
	kt_dust_create(DUST, backing);
	tl_mkfs(DEV, "%s", vt_features());
	tl_mount(DEV, MNT, NULL);
	populate();
	tl_umount(MNT);
	kt_dust_enable(DUST, true);
	tl_mount(DEV, MNT, NULL);
	REQUIRE(posix_memalign(&buf, BLK, BLK) == 0, "posix_memalign");
	for (int i = 0; i < NFILES; i++)
		files[i].fd = tl_open(files[i].path, O_RDONLY | O_DIRECT);

	int fan = kt_fserror_listen(MNT);
	merged_across_tasks(fan);

	kt_solo_begin();
	kt_run_alone(storm_on_one_file, NULL);
	expect_one_event(fan, "200 reads of A, then B", &files[8], 2);
	CHECK(strstr(tl_out("dmesg"), "error reports to fsnotify lost") == NULL,
	      "reports lost in the storm on one file");

	int n = NFILES - 10 - 40;
	kt_run_alone(more_than_the_queue, &n);
	expect_one_event(fan, "150 different files", &files[10], 64 + 1);
	const char *log = tl_out("dmesg | grep 'error reports to fsnotify lost' || true");
	printf("kernel log: %s\n", log);
	CHECK(strstr(log, "86 error reports to fsnotify lost since mount") != NULL,
	      "the kernel log does not say that 86 reports were lost");

	kt_solo_end();
	close(fan);
	for (int i = 0; i < NFILES; i++)
		close(files[i].fd);
	tl_umount(MNT);
	kt_dust_remove(DUST);
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
