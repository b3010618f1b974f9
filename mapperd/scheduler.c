// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Scans: when each filesystem is due, a queue of what to run, and one
 * worker thread at a time running map_scan() (which holds the per-filesystem
 * scan lock, so a mapctl scan and ours never run at once: -EBUSY means try
 * again later).  Here: when scans are due, the queue, the requests; the
 * running scan is scheduler_run.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "daemon.h"
#include "log.h"
#include "scheduler_internal.h"

#define MAX_WAIT_MS 60000

/* ---- re-arming the schedule ---- */

/*
 * A scheduled scan is queued with its filesystem's next times cleared (so it
 * is not queued again while it waits or runs), and only a complete run sets
 * them again.  Every other end -- cancelled, interrupted, dropped from the
 * queue, never started -- must set them too, or scheduled scans of that
 * filesystem stop until the next reload.  @delay_ms < 0: the next regular
 * time (interval plus the random delay, from now).
 */
static void rearm(struct md_daemon *d, const char *uuid, bool metadata, bool media,
		  int64_t delay_ms, const char *why)
{
	struct md_fs *fs = md_fs_by_uuid(d, uuid);
	int64_t now = md_now_ms();
	bool changed = false;

	if (!fs || d->stopping)
		return;
	if (media && d->cfg.media_interval && !fs->next_media) {
		fs->next_media = now + (delay_ms >= 0 ? delay_ms : d->cfg.media_interval +
					jitter(d->cfg.random_delay));
		changed = true;
	}
	if (metadata && d->cfg.metadata_interval && !fs->next_metadata) {
		fs->next_metadata = now + (delay_ms >= 0 ? delay_ms : d->cfg.metadata_interval +
					   jitter(d->cfg.random_delay));
		changed = true;
	}
	if (changed)
		log_info("%s %s: scheduled scan %s; the schedule goes on", fs->uuid, fs->mountpoint,
			 why);
}

void sched_rearm_job(struct md_daemon *d, const struct job *j, int64_t delay_ms,
		     const char *why)
{
	if (j->scheduled)
		rearm(d, j->uuid, j->metadata, j->media, delay_ms, why);
}

/* ---- the queue ---- */

bool sched_enqueue(struct md_sched *s, const char *uuid, bool metadata, bool media,
		   bool scheduled, int64_t not_before, const char *user, const char *reason)
{
	struct job **pp = &s->queue, *j;

	for (j = s->queue; j; j = j->next) {
		if (strcmp(j->uuid, uuid) == 0) {
			/* One queued scan per filesystem, covering both asks. */
			j->metadata |= metadata;
			j->media |= media;
			j->scheduled |= scheduled;
			if (not_before < j->not_before) {
				j->not_before = not_before;
				snprintf(j->user, sizeof(j->user), "%s", user);
				snprintf(j->reason, sizeof(j->reason), "%s", reason);
			}
			return true;
		}
	}
	j = calloc(1, sizeof(*j));
	if (!j) {
		log_err("%s: out of memory queueing a scan", uuid);
		return false;
	}
	snprintf(j->uuid, sizeof(j->uuid), "%s", uuid);
	j->metadata = metadata;
	j->media = media;
	j->scheduled = scheduled;
	j->not_before = not_before;
	snprintf(j->user, sizeof(j->user), "%s", user);
	snprintf(j->reason, sizeof(j->reason), "%s", reason);
	while (*pp)
		pp = &(*pp)->next;
	*pp = j;
	return true;
}

/* Drop the queued scans of @uuid; scheduled ones come back at their next
 * regular time when @rearm_them (a cancel; not when the fs went away). */
static void drop_queued(struct md_daemon *d, const char *uuid, bool rearm_them)
{
	struct md_sched *s = d->sched;

	for (struct job **pp = &s->queue; *pp;) {
		if (strcmp((*pp)->uuid, uuid) == 0) {
			struct job *j = *pp;

			*pp = j->next;
			if (rearm_them)
				sched_rearm_job(d, j, -1, "dropped from the queue");
			free(j);
		} else {
			pp = &(*pp)->next;
		}
	}
}

/* ---- schedule ---- */

static void set_next_times(struct md_daemon *d, struct md_fs *fs)
{
	struct map_scan_row latest, media;
	int64_t now = md_now_ms(), meta_base = 0, media_base = 0;
	/* Without the database (closed while its filesystem is shut down)
	 * nothing is known: due as if never scanned; nothing starts until
	 * it is back anyway. */
	bool have_latest = d->st && map_store_scan_latest(d->st, fs->fs_id, &latest) == 0;
	bool have_media = d->st && map_store_scan_last_complete(d->st, fs->fs_id, &media) == 0;

	if (have_media) {
		media_base = media.finished * 1000;
		if (media.do_metadata)
			meta_base = media_base;
	}
	if (have_latest && latest.state == MAP_SCAN_COMPLETE && latest.do_metadata &&
	    latest.finished * 1000 > meta_base)
		meta_base = latest.finished * 1000;
	/* Never scanned: due now, plus the random delay. */
	fs->next_media = d->cfg.media_interval ?
		(media_base ? media_base + d->cfg.media_interval : now) + jitter(d->cfg.random_delay) : 0;
	fs->next_metadata = d->cfg.metadata_interval ?
		(meta_base ? meta_base + d->cfg.metadata_interval : now) +
		jitter(d->cfg.random_delay) : 0;
}

void md_sched_fs_added(struct md_daemon *d, struct md_fs *fs)
{
	struct map_scan_row latest;

	set_next_times(d, fs);
	if (d->st && map_store_scan_latest(d->st, fs->fs_id, &latest) == 0 &&
	    (latest.state == MAP_SCAN_RUNNING || latest.state == MAP_SCAN_INTERRUPTED)) {
		char why[96];

		snprintf(why, sizeof(why), "resume scan %" PRId64 ", %s", latest.id,
			 map_scan_state_name(latest.state));
		sched_enqueue(d->sched, fs->uuid, latest.do_metadata, latest.do_media, false,
			      md_now_ms() + d->cfg.resume_delay, "mapperd (resume)", why);
		log_notice("%s %s: scan %" PRId64 " was %s at %s; resuming it in %" PRId64 " s",
			   fs->uuid, fs->mountpoint, latest.id, map_scan_state_name(latest.state),
			   map_scan_phase_name(latest.phase), d->cfg.resume_delay / 1000);
	}
}

void md_sched_fs_removed(struct md_daemon *d, struct md_fs *fs)
{
	if (d->sched)
		drop_queued(d, fs->uuid, false);
	/* A running scan of it notices the unmount at its next checkpoint. */
}

void md_sched_reconfigure(struct md_daemon *d)
{
	for (struct md_fs *fs = d->fs_list; fs; fs = fs->next)
		set_next_times(d, fs);
}

int md_sched_request(struct md_daemon *d, struct md_fs *fs, bool metadata, bool media,
		     const char *user, const char *reason, char *msg, size_t len)
{
	struct md_sched *s = d->sched;

	if (d->stopping) {
		snprintf(msg, len, "the daemon is stopping");
		return -ESHUTDOWN;
	}
	if (fs->shut_down) {
		snprintf(msg, len, "%s is shut down: unmount it and run xfs_repair", fs->mountpoint);
		return -ESHUTDOWN;
	}
	if (s->run && strcmp(s->run->job.uuid, fs->uuid) == 0 &&
	    (s->run->job.metadata || !metadata) && (s->run->job.media || !media)) {
		snprintf(msg, len, "a %s scan of %s is already running",
			 kind_name(s->run->job.metadata, s->run->job.media), fs->mountpoint);
		return 0;
	}
	if (!sched_enqueue(s, fs->uuid, metadata, media, false, md_now_ms(), user, reason)) {
		snprintf(msg, len, "out of memory: the scan of %s is not queued", fs->mountpoint);
		return -ENOMEM;
	}
	snprintf(msg, len, "%s scan of %s (%s) queued%s", kind_name(metadata, media), fs->mountpoint,
		 fs->uuid, s->run ? " after the running scan" : "");
	log_info("%s %s: %s scan requested (%s, by %s)", fs->uuid, fs->mountpoint,
		 kind_name(metadata, media), reason, user);
	return 0;
}

int md_sched_cancel(struct md_daemon *d, struct md_fs *fs, char *msg, size_t len)
{
	struct md_sched *s = d->sched;
	bool queued = false;

	for (struct job *j = s->queue; j; j = j->next)
		queued |= strcmp(j->uuid, fs->uuid) == 0;
	drop_queued(d, fs->uuid, true);
	if (s->run && strcmp(s->run->job.uuid, fs->uuid) == 0) {
		s->run->cancel = 1;
		s->run->cancel_asked = true;
		snprintf(msg, len, "stopping the scan of %s at its next checkpoint (it resumes from "
			 "there when asked again)", fs->mountpoint);
		log_notice("%s %s: scan cancelled on request", fs->uuid, fs->mountpoint);
		return 0;
	}
	if (queued) {
		snprintf(msg, len, "queued scan of %s dropped", fs->mountpoint);
		return 0;
	}
	snprintf(msg, len, "no scan of %s is running or queued", fs->mountpoint);
	return -ENOENT;
}

static void done_ready(struct md_daemon *d, struct md_watch *w, uint32_t events)
{
	uint64_t v;

	(void)events;
	if (read(w->fd, &v, sizeof(v)) < 0) {
		/* spurious */
	}
	sched_finish(d);
	md_sched_tick(d);
}

int md_sched_tick(struct md_daemon *d)
{
	struct md_sched *s = d->sched;
	int64_t now = md_now_ms(), next = -1;

	if (d->stopping)
		return -1;
	for (struct md_fs *fs = d->fs_list; fs; fs = fs->next) {
		bool media = fs->next_media && fs->next_media <= now;
		bool metadata = fs->next_metadata && fs->next_metadata <= now;

		if (fs->shut_down)
			continue;
		if (media || metadata) {
			/* A media pass checks metadata first anyway. */
			if (!sched_enqueue(s, fs->uuid, true, media, true, now, "mapperd (schedule)",
					   "scheduled")) {
				/* no memory now: try again after retry_delay */
				if (media)
					fs->next_media = now + d->cfg.retry_delay;
				if (metadata)
					fs->next_metadata = now + d->cfg.retry_delay;
				continue;
			}
			if (media)
				fs->next_media = 0;
			fs->next_metadata = 0;
			continue;
		}
		if (fs->next_media && (next < 0 || fs->next_media < next))
			next = fs->next_media;
		if (fs->next_metadata && (next < 0 || fs->next_metadata < next))
			next = fs->next_metadata;
	}
	/* A scan records into the database: none starts while it is closed. */
	if (!s->run && d->st) {
		for (struct job **pp = &s->queue; *pp; pp = &(*pp)->next) {
			struct job *j = *pp;
			struct md_fs *fs = md_fs_by_uuid(d, j->uuid);

			if (!fs || j->not_before > now)
				continue;
			*pp = j->next;
			int rc = sched_start_job(d, j, fs);
			if (rc) {
				log_err("%s: cannot start a scan: %s", j->uuid, map_strerror(rc));
				sched_rearm_job(d, j, d->cfg.retry_delay, "could not start");
			}
			free(j);
			break;
		}
	}
	if (!s->run && d->st)
		for (struct job *j = s->queue; j; j = j->next)
			if (next < 0 || j->not_before < next)
				next = j->not_before;
	if (next < 0)
		return -1;
	return next <= now ? 0 : (int)(next - now < MAX_WAIT_MS ? next - now : MAX_WAIT_MS);
}

void md_sched_release_db(struct md_daemon *d)
{
	struct md_sched *s = d->sched;

	if (s && s->run) {
		log_notice("%s: stopping the running scan at its next checkpoint: the database "
			   "is going away", s->run->job.uuid);
		s->run->cancel = 1;
	}
}

void md_sched_state(struct md_daemon *d, const struct md_fs *fs, struct md_scan_state *out)
{
	struct md_sched *s = d->sched;
	struct running *r = s->run;

	memset(out, 0, sizeof(*out));
	if (r && strcmp(r->job.uuid, fs->uuid) == 0) {
		out->running = true;
		out->metadata = r->job.metadata;
		out->media = r->job.media;
		snprintf(out->user, sizeof(out->user), "%s", r->job.user);
		snprintf(out->reason, sizeof(out->reason), "%s", r->job.reason);
		pthread_mutex_lock(&r->lock);
		snprintf(out->phase, sizeof(out->phase), "%s", r->phase);
		out->done = r->progress.done;
		out->total = r->progress.total;
		out->bad_ranges = r->progress.bad_ranges;
		out->elapsed = r->progress.elapsed;
		pthread_mutex_unlock(&r->lock);
	}
	for (struct job *j = s->queue; j; j = j->next) {
		if (strcmp(j->uuid, fs->uuid) == 0) {
			out->queued = true;
			out->queued_at = j->not_before;
			if (!out->running) {
				out->metadata = j->metadata;
				out->media = j->media;
				snprintf(out->user, sizeof(out->user), "%s", j->user);
				snprintf(out->reason, sizeof(out->reason), "%s", j->reason);
			}
		}
	}
}

int md_sched_start(struct md_daemon *d)
{
	struct md_sched *s = calloc(1, sizeof(*s));
	int rc;

	if (!s)
		return -ENOMEM;
	s->done.fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (s->done.fd < 0) {
		rc = -errno;
		free(s);
		return rc;
	}
	s->done.ready = done_ready;
	s->done.arg = s;
	d->sched = s;
	rc = md_watch_add(d, &s->done, EPOLLIN);
	if (rc) {
		close(s->done.fd);
		free(s);
		d->sched = NULL;
	}
	return rc;
}

void md_sched_stop(struct md_daemon *d)
{
	struct md_sched *s = d->sched;

	if (!s)
		return;
	if (s->run) {
		log_notice("%s: stopping the running scan at its next checkpoint", s->run->job.uuid);
		s->run->cancel = 1;
		sched_finish(d);
	}
	while (s->queue) {
		struct job *j = s->queue;

		s->queue = j->next;
		free(j);
	}
	md_watch_del(d, &s->done);
	close(s->done.fd);
	free(s);
	d->sched = NULL;
}
