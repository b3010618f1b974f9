/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The scheduler's state, shared by the schedule and its queue (scheduler.c)
 * and the running scan (scheduler_run.c).  Private to mapperd's scheduler.
 */
#ifndef MAPPERD_SCHEDULER_INTERNAL_H
#define MAPPERD_SCHEDULER_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "daemon.h"
#include "map.h"
#include "scheduler.h"

struct job {
	struct job *next;
	char uuid[40];
	bool metadata, media;
	bool scheduled;			/* from the schedule: sets the next times when done */
	int64_t not_before;		/* unix ms */
	char user[64];
	char reason[96];
};

struct running {
	pthread_t thread;
	struct job job;
	char mountpoint[PATH_MAX];
	char db_path[PATH_MAX];
	struct map_scan_opts opts;
	volatile int cancel;
	bool cancel_asked;		/* by a `cancel` request, not by our own stop */
	int done_fd;
	pthread_mutex_t lock;		/* guards progress */
	struct map_scan_progress progress;
	char phase[16];
	/* result, read after the join */
	int rc, holder;
	char why[512];			/* a database error in words (map_store_error) */
	struct map_scan_result res;
	/* The scan's new findings for the hooks: map_scan calls on_found from
	 * the media readers' threads, one at a time (under its own lock). */
	struct md_notification *batch;
};

struct md_sched {
	struct job *queue;
	struct running *run;
	struct md_watch done;
};

static inline int64_t jitter(int64_t max_ms)
{
	return max_ms > 0 ? (int64_t)((double)random() / ((double)RAND_MAX + 1) * (double)max_ms) : 0;
}

static inline const char *kind_name(bool metadata, bool media)
{
	return metadata && media ? "full" : metadata ? "metadata" : "media";
}

/* scheduler.c */
/* Queue a scan of @uuid (one per filesystem: a second ask widens the
 * first); false when out of memory (logged). */
bool sched_enqueue(struct md_sched *s, const char *uuid, bool metadata, bool media,
		   bool scheduled, int64_t not_before, const char *user, const char *reason);
/* A scheduled job @j that ends without completing sets its filesystem's next
 * times again (see rearm() in scheduler.c); others are left alone. */
void sched_rearm_job(struct md_daemon *d, const struct job *j, int64_t delay_ms,
		     const char *why);

/* scheduler_run.c */
/* Start @job on @fs in a worker thread (d->sched->run). */
int sched_start_job(struct md_daemon *d, struct job *job, struct md_fs *fs);
/* The worker finished: join it and plan what follows. */
void sched_finish(struct md_daemon *d);

#endif
