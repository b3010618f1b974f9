// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The event pipeline: a queue with de-duplication in front of one worker
 * thread.  The worker owns its own database connection and opens the
 * filesystem for each event only (a descriptor kept open would make umount
 * fail with EBUSY).  Here: the worker, what it records, its life cycle; the
 * queue, reads, analysis and scan requests are in pipeline_*.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"
#include "dbwriter.h"
#include "fscache.h"
#include "findlog.h"
#include "log.h"
#include "metrics_file.h"
#include "notify.h"
#include "pipeline_internal.h"
#include "warmup.h"

/* While an index is built, slices of this many seconds between reports. */
#define DIRWATCH_SLICE	0.05
/* Otherwise its directory events are applied at least this often. */
#define DIRWATCH_EVERY	1.0

/* ---- one event ---- */

static bool stopping_cb(void *arg)
{
	struct md_pipeline *p = arg;
	bool stop;

	pthread_mutex_lock(&p->lock);
	stop = p->stop;
	pthread_mutex_unlock(&p->lock);
	return stop;
}


/*
 * Write what @ev turned into through the database writer (or its spool).
 * @info is the filesystem's, or NULL when it could not be opened (then only
 * the report's uuid and mount point are known).  0 written or kept.
 */
static int record(struct md_pipeline *p, const struct map_fs_info *info, const struct md_event *ev,
		  struct outcome *o, int *nnew)
{
	struct md_spool_entry *e = calloc(1, sizeof(*e));
	int rc;

	*nnew = 0;
	if (!e)
		return -ENOMEM;
	if (info) {
		e->have_info = true;
		e->info = *info;
	} else {
		snprintf(e->info.uuid, sizeof(e->info.uuid), "%s", ev->uuid);
		snprintf(e->info.mountpoint, sizeof(e->info.mountpoint), "%s", ev->mountpoint);
	}
	e->row = (struct map_event){ .source = ev->source, .ino = ev->ino, .gen = ev->gen,
				     .error = ev->error };
	snprintf(e->row.detail, sizeof(e->row.detail), "%.160s; %zu finding%s%.80s", ev->detail,
		 o->n, o->n == 1 ? "" : "s", o->note);
	e->v = o->v;			/* lent, not given */
	e->n = o->n;
	e->healthy_ino = o->healthy_ino;
	e->healthy_gen = o->healthy_gen;
	snprintf(e->healthy_scrub, sizeof(e->healthy_scrub), "%s", o->healthy_scrub);
	md_notify_batch_begin(e->info.uuid, e->info.mountpoint);
	rc = md_dbwriter_write(p->db, e, nnew, stopping_cb, p);
	md_notify_batch_end(e->info.uuid, e->info.mountpoint, rc == 0 ? *nnew : 0, -1);
	free(e);
	pthread_mutex_lock(&p->lock);
	md_dbwriter_get_stats(p->db, &p->dbstats);
	pthread_mutex_unlock(&p->lock);
	return rc < 0 ? rc : 0;
}


static int process(struct md_pipeline *p, struct md_event *ev)
{
	struct outcome o = { 0 };
	struct map_fs *fs;
	int nnew = 0, rc;
	double t_start = md_mono();
	const char *source = map_event_source_name(ev->source);	/* for the log */

	rc = md_fscache_open(p->fscache, ev->mountpoint, ev->uuid, &fs);
	double t_opened = md_mono();
	if (rc == 0)
		md_dirwatch_attach(p->dirwatch, ev->uuid, fs);
	if (rc) {
		if (ev->kind == MD_EV_FS && ev->error == ESHUTDOWN && rc != -MAP_EUNMOUNTED) {
			/* A shut-down filesystem cannot be opened, but its
			 * shutdown is news worth a row all the same. */
			snprintf(o.note, sizeof(o.note), "; the filesystem is shut down");
			return record(p, NULL, ev, &o, &nnew);
		}
		log_notice("%s %s: %s report dropped: %s", ev->uuid, ev->mountpoint, source,
			   map_strerror(rc));
		return rc;
	}
	rc = pipeline_look(p, fs, ev, &o);
	double t_looked = md_mono();
	if (rc == 0 && (ev->kind == MD_EV_FS || ev->count > 1))
		rc = pipeline_look_at_health(p, fs, ev, &o);
	double t_health = md_mono();
	/* The filesystem is closed first: nothing of it stays open while
	 * the database (maybe busy, maybe away) is written. */
	struct map_fs_info *info = rc == 0 ? malloc(sizeof(*info)) : NULL;
	if (info)
		*info = *map_fs_info(fs);
	else if (rc == 0)
		rc = -ENOMEM;
	map_fs_close(fs);
	fs = NULL;
	if (rc == 0)
		rc = record(p, info, ev, &o, &nnew);
	free(info);
	log_debug("%s: %s report handled in %.3f s after it was read: queued %.3f, open %.3f, "
		  "read+locate %.3f (reads %.3f: %" PRIu64 ", %" PRIu64 " failed), health %.3f, "
		  "store %.3f", ev->uuid, source, md_mono() - ev->received,
		  t_start - ev->received, t_opened - t_start, t_looked - t_opened, o.read_s,
		  o.reads, o.failed_reads, t_health - t_looked, md_mono() - t_health);
	if (rc)
		log_err("%s %s: %s report (%s): %s", ev->uuid, ev->mountpoint, source, ev->detail,
			map_strerror(rc));
	else if (o.n == 0)
		log_notice("%s %s: %s report (%s): nothing damaged found%s", ev->uuid,
			   ev->mountpoint, source, ev->detail, o.note);

	double latency = md_mono() - ev->received;
	pthread_mutex_lock(&p->lock);
	if (rc == 0) {
		p->stats.findings += o.n;
		p->stats.new_findings += (uint64_t)nnew;
		p->stats.last_latency = latency;
		if (latency > p->stats.max_latency)
			p->stats.max_latency = latency;
	}
	pthread_mutex_unlock(&p->lock);
	pipeline_outcome_free(&o);
	return rc;
}

/* A read of a filesystem made ready for reports (warmup.h). */
static void warm_read(struct map_fs *fs, const struct map_range_list *ranges, void *arg)
{
	struct bad_list bad = { 0 };
	struct outcome o = { 0 };

	pipeline_verify(arg, fs, ranges, &bad, &o);
	if (bad.ranges.n)
		log_warn("%s: the block of the root directory's inode cannot be read",
			 map_fs_info(fs)->uuid);
	map_range_free(&bad.ranges);
}

static void fs_request(struct md_pipeline *p, const char *uuid, const char *mountpoint, bool on,
		       bool warm)
{
	struct dirwatch_req r = { .on = on, .warm = warm };

	snprintf(r.uuid, sizeof(r.uuid), "%s", uuid);
	snprintf(r.mountpoint, sizeof(r.mountpoint), "%s", mountpoint);
	pthread_mutex_lock(&p->lock);
	if (pipeline_fs_req_add(p->dwreqs, &p->ndwreqs, &r))
		pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

void md_pipeline_track_dirs(struct md_pipeline *p, const char *uuid, const char *mountpoint,
			    bool on)
{
	fs_request(p, uuid, mountpoint, on, false);
}

void md_pipeline_warm(struct md_pipeline *p, const char *uuid, const char *mountpoint)
{
	fs_request(p, uuid, mountpoint, false, true);
}

/* Requests from the main thread, then events and a slice of building when
 * due; returns how long the worker may sleep (< 0: until woken). */
static double keep_dirs(struct md_pipeline *p, double wait, double *last, bool *building)
{
	struct dirwatch_req reqs[DIRWATCH_REQS];
	size_t n;
	bool busy;

	pthread_mutex_lock(&p->lock);
	n = p->ndwreqs;
	memcpy(reqs, p->dwreqs, n * sizeof(reqs[0]));
	p->ndwreqs = 0;
	busy = p->head != NULL;
	pthread_mutex_unlock(&p->lock);
	for (size_t i = 0; i < n; i++) {
		if (reqs[i].warm) {
			md_warmup_fs(p->fscache, p->db, warm_read, p, reqs[i].uuid,
				     reqs[i].mountpoint);
			continue;
		}
		md_dirwatch_set(p->dirwatch, reqs[i].uuid, reqs[i].mountpoint, reqs[i].on);
		*building = true;	/* look at it now */
	}
	if ((*building && !busy) || md_mono() - *last >= DIRWATCH_EVERY) {
		*building = md_dirwatch_work(p->dirwatch, busy ? 0 : DIRWATCH_SLICE);
		*last = md_mono();
	}
	if (*building)
		return 0;
	if (wait < 0 || wait > DIRWATCH_EVERY)
		return DIRWATCH_EVERY;
	return wait;
}

static void *worker(void *arg)
{
	struct md_pipeline *p = arg;
	struct md_event *ev;
	double dir_last = 0;
	bool dir_building = false;
	double wait = keep_dirs(p, md_dbwriter_tick(p->db), &dir_last, &dir_building);

	for (;;) {
		bool release;

		ev = pipeline_next_event(p, wait);
		pthread_mutex_lock(&p->lock);
		release = p->release_db;
		p->release_db = false;
		pthread_mutex_unlock(&p->lock);
		if (release)
			md_dbwriter_release(p->db);
		if (ev) {
			int rc = process(p, ev);

			md_fscache_relearn(p->fscache);	/* after the report, not before */

			pthread_mutex_lock(&p->lock);
			if (rc)
				p->stats.failed++;
			else
				p->stats.processed++;
			pthread_mutex_unlock(&p->lock);
			free(ev);
		} else if (stopping_cb(p)) {
			break;
		}
		pthread_mutex_lock(&p->lock);
		struct md_report_counts counts = {
			.received = p->stats.received, .duplicates = p->stats.duplicates,
			.queue_full = p->stats.dropped, .rate_limited = p->stats.rate_limited,
			.spool_full = p->stats.spool_dropped, .failed = p->stats.failed,
		};
		pthread_mutex_unlock(&p->lock);
		md_metrics_file_set_counts(&counts);
		wait = keep_dirs(p, md_dbwriter_tick(p->db), &dir_last, &dir_building);
		struct md_dirwatch_stats dws;
		md_dirwatch_get_stats(p->dirwatch, &dws);
		struct md_fscache_stats fcs;
		md_fscache_get_stats(p->fscache, &fcs);
		pthread_mutex_lock(&p->lock);
		p->stats.dirindex = dws;
		p->stats.fs_reopens = fcs.reopens;
		p->stats.fs_full_opens = fcs.full_opens;
		md_dbwriter_get_stats(p->db, &p->dbstats);
		pthread_mutex_unlock(&p->lock);
	}
	return NULL;
}

void md_pipeline_release_db(struct md_pipeline *p)
{
	pthread_mutex_lock(&p->lock);
	p->release_db = true;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

/* ---- life cycle ---- */

/* Everything @p holds, whatever part of md_pipeline_start() it got through;
 * its worker has stopped or never started. */
static void pipeline_free(struct md_pipeline *p)
{
	md_dbwriter_close(p->db);
	md_dirwatch_free(p->dirwatch);
	md_fscache_free(p->fscache);
	if (p->notify_fd >= 0)
		close(p->notify_fd);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	free(p);
}

int md_pipeline_start(const char *db_path, const char *spool_dir, struct md_pipeline **out)
{
	struct md_pipeline *p = calloc(1, sizeof(*p));
	int rc;

	*out = NULL;
	if (!p)
		return -ENOMEM;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	p->notify_fd = -1;
	snprintf(p->db_path, sizeof(p->db_path), "%s", db_path);
	p->conf = (struct md_pipeline_conf){ .dedup_window_ms = 2000, .event_scans = true };
	rc = md_dbwriter_open(db_path, spool_dir, &p->db);
	if (rc)
		goto fail;
	md_dbwriter_get_stats(p->db, &p->dbstats);
	p->fscache = md_fscache_new();
	p->dirwatch = p->fscache ? md_dirwatch_new(p->fscache) : NULL;
	p->notify_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (p->notify_fd < 0 || !p->dirwatch) {
		rc = p->notify_fd < 0 ? -errno : -ENOMEM;
		goto fail;
	}
	rc = -pthread_create(&p->thread, NULL, worker, p);
	if (rc)
		goto fail;
	*out = p;
	return 0;
fail:
	pipeline_free(p);
	return rc;
}

void md_pipeline_configure(struct md_pipeline *p, const struct md_pipeline_conf *conf)
{
	pthread_mutex_lock(&p->lock);
	p->conf = *conf;
	pthread_mutex_unlock(&p->lock);
}

void md_pipeline_get_stats(struct md_pipeline *p, struct md_pipeline_stats *out)
{
	pthread_mutex_lock(&p->lock);
	*out = p->stats;
	out->queued = p->queued;
	out->spooled = p->dbstats.spooled;
	out->spool_dropped = p->dbstats.spool_dropped;
	out->replayed = p->dbstats.replayed;
	out->spool_pending = p->dbstats.pending;
	out->db_down = p->dbstats.down;
	pthread_mutex_unlock(&p->lock);
}

void md_pipeline_stop(struct md_pipeline *p)
{
	size_t dropped;

	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	dropped = pipeline_drop_queued(p);
	if (dropped)
		log_notice("event pipeline: %zu queued reports dropped at exit", dropped);
	pipeline_free(p);
}
