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
#include <errno.h>
#include <inttypes.h>
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
	struct md_report_counts counts;
} mf = { .lock = PTHREAD_MUTEX_INITIALIZER, .interval = 15 };

void md_metrics_file_set_counts(const struct md_report_counts *c)
{
	pthread_mutex_lock(&mf.lock);
	if (memcmp(&mf.counts, c, sizeof(*c)) != 0)
		mf.changed = true;
	mf.counts = *c;
	pthread_mutex_unlock(&mf.lock);
}

static void counter(FILE *out, const char *name, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s counter\n", name, help, name);
}

/* The daemon's families, from the snapshot the tick took. */
static void write_counts(FILE *out, void *arg)
{
	const struct md_report_counts *c = arg;
	const char *dropped = "mapper_daemon_reports_dropped_total";

	counter(out, "mapper_daemon_reports_received_total",
		"Error reports mapperd read from the kernel (fanotify and the kernel log).");
	fprintf(out, "mapper_daemon_reports_received_total %" PRIu64 "\n", c->received);
	counter(out, dropped, "Error reports mapperd did not turn into findings, by reason.");
	fprintf(out, "%s{reason=\"duplicate\"} %" PRIu64 "\n", dropped, c->duplicates);
	fprintf(out, "%s{reason=\"queue_full\"} %" PRIu64 "\n", dropped, c->queue_full);
	fprintf(out, "%s{reason=\"rate_limited\"} %" PRIu64 "\n", dropped, c->rate_limited);
	fprintf(out, "%s{reason=\"spool_full\"} %" PRIu64 "\n", dropped, c->spool_full);
	fprintf(out, "%s{reason=\"failed\"} %" PRIu64 "\n", dropped, c->failed);
}

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
	struct md_report_counts counts;
	double now = md_mono(), interval, refresh, wait;
	bool due;
	int rc;

	pthread_mutex_lock(&mf.lock);
	interval = mf.interval;
	refresh = interval > REFRESH_SECS ? interval : REFRESH_SECS;
	snprintf(path, sizeof(path), "%s", mf.path);
	counts = mf.counts;
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

	rc = map_metrics_write_file(st, path, write_counts, &counts);
	pthread_mutex_lock(&mf.lock);
	if (strcmp(mf.path, path) == 0) {	/* not configured anew meanwhile */
		mf.last = now;
		mf.written = true;
		if (rc && -rc != mf.failed)
			log_err("metrics file %s: %s; trying again later", path,
				rc == -ELOOP ? "a folder on its path is a symbolic link (none is "
					       "followed: give the folder it points to)" :
				map_strerror(rc));
		else if (!rc && mf.failed)
			log_notice("metrics file %s written again", path);
		mf.failed = rc ? -rc : 0;
	}
	pthread_mutex_unlock(&mf.lock);
	return interval;
}
