/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Scheduled and requested scans: per filesystem the next metadata and media
 * times (in memory, from the store's last complete scans plus the interval
 * plus a random delay), a queue, and one worker thread running map_scan()
 * with a cancel flag.  An interrupted scan found at start is resumed.
 */
#ifndef MAPPERD_SCHEDULER_H
#define MAPPERD_SCHEDULER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct md_daemon;
struct md_fs;

int md_sched_start(struct md_daemon *d);
/* Cancel a running scan (it stops at its next checkpoint) and wait for it. */
void md_sched_stop(struct md_daemon *d);
void md_sched_fs_added(struct md_daemon *d, struct md_fs *fs);
void md_sched_fs_removed(struct md_daemon *d, struct md_fs *fs);
/* Intervals changed (SIGHUP): compute every next time again. */
void md_sched_reconfigure(struct md_daemon *d);

/*
 * Queue a scan of @fs now.  Returns 0 with a message for the requester in
 * @msg, or a negative errno with the reason in @msg.
 */
int md_sched_request(struct md_daemon *d, struct md_fs *fs, bool metadata, bool media,
		     const char *user, const char *reason, char *msg, size_t len);
/* Stop the scan of @fs (saved at its checkpoint) and drop queued ones. */
int md_sched_cancel(struct md_daemon *d, struct md_fs *fs, char *msg, size_t len);
/* Stop a running scan at its next checkpoint: the database is closing (its
 * filesystem is shut down); queued ones wait until it is back. */
void md_sched_release_db(struct md_daemon *d);
/* Start what is due; milliseconds until something else is due (-1: nothing). */
int md_sched_tick(struct md_daemon *d);

struct md_scan_state {
	bool running;
	char phase[16];			/* metadata, media */
	bool metadata, media;		/* what the scan covers */
	uint64_t done, total;
	uint64_t bad_ranges;
	double elapsed;
	char user[64];
	char reason[96];
	bool queued;			/* another one waits */
	int64_t queued_at;		/* unix ms it may start */
};
void md_sched_state(struct md_daemon *d, const struct md_fs *fs, struct md_scan_state *out);

#endif
