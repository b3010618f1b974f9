// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * When to rewrite the Prometheus textfile.  After findings were stored or
 * a scan finished, at most once per metrics_interval (a burst of reports
 * costs one read of the store, not one each); and at least once every
 * REFRESH_SECS even when nothing of ours changed, because other writers
 * (mapctl scan, repair, refetch) change the store too, and because
 * node_exporter shows the file's age: a file that stops changing says the
 * daemon stopped.  The file itself is written by libmap
 * (map_metrics_write_file: FILE.tmp, 0644, rename).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "daemon.h"
#include "log.h"
#include "metrics_file.h"

/* "At least once a minute": four scrapes at Prometheus's default 15 s. */
#define REFRESH_SECS 60.0

static struct {
	pthread_mutex_t lock;
	char path[PATH_MAX];		/* "": off */
	double interval;		/* seconds */
	bool changed;			/* figures changed since the last write */
	bool written;			/* @path written at @last (else: write now) */
	double last;			/* md_mono() of the last attempt */
	int failed;			/* errno of the last failure, 0: none */
} mf = { .lock = PTHREAD_MUTEX_INITIALIZER, .interval = 15 };

void md_metrics_file_configure(const char *path, int64_t interval_ms)
{
	pthread_mutex_lock(&mf.lock);
	if (strcmp(mf.path, path) != 0) {
		snprintf(mf.path, sizeof(mf.path), "%s", path);
		mf.written = false;
		mf.failed = 0;
	}
	mf.interval = interval_ms > 0 ? (double)interval_ms / 1000.0 : 1.0;
	pthread_mutex_unlock(&mf.lock);
}

void md_metrics_file_changed(void)
{
	pthread_mutex_lock(&mf.lock);
	mf.changed = true;
	pthread_mutex_unlock(&mf.lock);
}

double md_metrics_file_tick(struct map_store *st)
{
	char path[PATH_MAX];
	double now = md_mono(), interval, refresh, wait;
	bool due;
	int rc;

	pthread_mutex_lock(&mf.lock);
	interval = mf.interval;
	refresh = interval > REFRESH_SECS ? interval : REFRESH_SECS;
	snprintf(path, sizeof(path), "%s", mf.path);
	due = path[0] && st &&
	      (!mf.written || now >= mf.last + refresh || (mf.changed && now >= mf.last + interval));
	if (due)
		mf.changed = false;	/* a change while we write asks again */
	/* Not due: called again within @interval, so that a change made
	 * meanwhile waits no longer than that for its write. */
	wait = mf.written ? mf.last + interval - now : interval;
	pthread_mutex_unlock(&mf.lock);
	if (!path[0])
		return -1;
	if (!due)
		return wait > 0 ? wait : interval;

	rc = map_metrics_write_file(st, path);
	pthread_mutex_lock(&mf.lock);
	if (strcmp(mf.path, path) == 0) {	/* not configured anew meanwhile */
		mf.last = now;
		mf.written = true;
		if (rc && -rc != mf.failed)
			log_err("metrics file %s: %s; trying again later", path, map_strerror(rc));
		else if (!rc && mf.failed)
			log_notice("metrics file %s written again", path);
		mf.failed = rc ? -rc : 0;
	}
	pthread_mutex_unlock(&mf.lock);
	return interval;
}
