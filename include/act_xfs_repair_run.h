/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Running xfs_repair for mapctl repair --offline, so that an interrupted
 * mapctl neither stops it halfway nor loses what it did: it runs in a
 * session of its own under a watcher process (a fork of mapctl), writes to
 * a log file rather than a pipe (a pipe whose reader died kills the writer
 * with SIGPIPE), and the watcher writes its exit status to a status file
 * when it ends.  mapctl follows the log while it waits.
 */
#ifndef MAP_ACT_XFS_REPAIR_RUN_H
#define MAP_ACT_XFS_REPAIR_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Output lines are looked at in pieces of at most this size. */
#define REPAIR_LINE 512

/* Exit statuses of the watcher that are not xfs_repair's own. */
#define XFS_REPAIR_NOT_STARTED	125	/* mapctl could not record the start */
#define XFS_REPAIR_DEVICE_GONE	126	/* the device node names another device now */
#define XFS_REPAIR_NO_EXEC	127	/* no xfs_repair could be run */

struct xfs_repair_result {
	int status;			/* exit status; -1 not run, see above */
	uint64_t moved;			/* "moving to lost+found" lines: inodes moved */
	char last[REPAIR_LINE];		/* its last line that says something */
	char would[REPAIR_LINE];	/* with -n: the first thing it would change */
};

struct xfs_repair_job {
	const char *device;		/* block device node */
	dev_t rdev;			/* the device checked: the node must still be it
					 * right before xfs_repair starts */
	bool check;			/* xfs_repair -n */
	const char *log;		/* its output (made or emptied, mode 0600) */
	const char *status;		/* "pid P exit N" when the watcher saw it end */
	/* Called with the watcher's pid and start time before xfs_repair
	 * starts; nonzero: it does not start, and that is returned. */
	int (*started)(pid_t pid, unsigned long long start, void *arg);
	/* Called with each line of its output as it comes (not with check):
	 * raw, cut at REPAIR_LINE; it prints names from the filesystem, so
	 * whoever shows a line escapes it. */
	void (*line)(const char *line, void *arg);
	void *arg;
};

/*
 * Run the first xfs_repair in PATH as @job says and wait for it, its output
 * passed on to job->line.  0, or a negative errno when it could not be
 * started or followed.
 */
int run_xfs_repair(const struct xfs_repair_job *job, struct xfs_repair_result *r);

/* Start time of process @pid (clock ticks after boot, /proc/PID/stat), 0
 * when there is no such live process (a zombie is not live). */
unsigned long long proc_start_time(pid_t pid);

/* The exit status a watcher @pid wrote to @status: 0 and *exit_status, or
 * -ENOENT when it wrote none (or the file is not ours). */
int xfs_repair_status(const char *status, pid_t pid, int *exit_status);

#endif
