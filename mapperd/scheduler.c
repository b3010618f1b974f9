// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Scans: when each filesystem is due, a queue of what to run, and one
 * worker thread at a time running map_scan() (which holds the per-filesystem
 * scan lock, so a mapctl scan and ours never run at once: -EBUSY means try
 * again later).
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
#include "findlog.h"
#include "journal_ids.h"
#include "log.h"
#include "metrics_file.h"
#include "notify.h"
#include "scheduler.h"

#define MAX_WAIT_MS 60000

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

static int64_t jitter(int64_t max_ms)
{
	return max_ms > 0 ? (int64_t)((double)random() / ((double)RAND_MAX + 1) * (double)max_ms) : 0;
}

/* ---- the worker ---- */

static void on_progress(const struct map_scan_progress *p, void *arg)
{
	struct running *r = arg;

	pthread_mutex_lock(&r->lock);
	r->progress = *p;
	snprintf(r->phase, sizeof(r->phase), "%s", p->phase ? p->phase : "");
	r->progress.phase = NULL;
	pthread_mutex_unlock(&r->lock);
}

static void on_found(const struct map_finding *f, bool is_new, void *arg)
{
	struct running *r = arg;

	md_log_finding(r->job.uuid, r->mountpoint, f, is_new, "scan");
	md_notify_batch_add(r->batch, f, is_new);
}

static void *scan_thread(void *arg)
{
	struct running *r = arg;
	struct map_store *st = NULL;
	struct map_fs *fs = NULL;
	uint64_t one = 1;
	int rc;

	rc = map_store_open(r->db_path, 0, &st);
	if (rc == 0)
		rc = map_fs_open(r->mountpoint, &fs);
	if (rc == 0 && strcmp(map_fs_info(fs)->uuid, r->job.uuid) != 0)
		rc = -MAP_EUNMOUNTED;
	if (rc == 0) {
		r->batch = md_notify_batch_new(r->job.uuid, r->mountpoint);
		rc = map_scan(st, fs, &r->opts, &r->res, &r->holder);
		/* Findings a scan stored are news even when it stopped early. */
		md_notify_batch_post(r->batch, r->job.uuid, r->mountpoint, r->res.new_findings,
				     rc == 0 ? r->res.open : -1);
		r->batch = NULL;
		if (rc == 0 && r->res.open > 0)
			md_notify_post(MD_NOTIFY_SCAN_DONE, r->job.uuid, r->mountpoint,
				       r->res.new_findings, r->res.open);
	}
	/* Said by the main thread: the words are this thread's to take. */
	if (rc && map_store_error(rc))
		snprintf(r->why, sizeof(r->why), "the database: %.480s", map_store_error(rc));
	map_fs_close(fs);
	map_store_close(st);
	r->rc = rc;
	if (write(r->done_fd, &one, sizeof(one)) < 0) {
		/* the main loop also joins at exit */
	}
	return NULL;
}

static const char *kind_name(bool metadata, bool media)
{
	return metadata && media ? "full" : metadata ? "metadata" : "media";
}

static int start_job(struct md_daemon *d, struct job *job, struct md_fs *fs)
{
	struct md_sched *s = d->sched;
	struct running *r = calloc(1, sizeof(*r));
	int rc;

	if (!r)
		return -ENOMEM;
	r->job = *job;
	r->job.next = NULL;
	snprintf(r->mountpoint, sizeof(r->mountpoint), "%s", fs->mountpoint);
	snprintf(r->db_path, sizeof(r->db_path), "%s", d->db_path);
	r->done_fd = s->done.fd;
	r->opts = (struct map_scan_opts){
		.metadata = job->metadata,
		.media = job->media,
		.io_size = d->cfg.io_size,
		.ioprio_class = d->cfg.ioprio_class,
		.ioprio_level = d->cfg.ioprio_level,
		.rate = d->cfg.rate_limit,
		.user = r->job.user,
		.progress = on_progress,
		.found = on_found,
		.cancel = &r->cancel,
		.arg = r,
	};
	snprintf(r->phase, sizeof(r->phase), "starting");
	pthread_mutex_init(&r->lock, NULL);
	rc = -pthread_create(&r->thread, NULL, scan_thread, r);
	if (rc) {
		pthread_mutex_destroy(&r->lock);
		free(r);
		return rc;
	}
	s->run = r;
	log_notice("%s %s: %s scan started (%s, by %s)", fs->uuid, fs->mountpoint,
		   kind_name(job->metadata, job->media), job->reason, job->user);
	return 0;
}

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

static void rearm_job(struct md_daemon *d, const struct job *j, int64_t delay_ms, const char *why)
{
	if (j->scheduled)
		rearm(d, j->uuid, j->metadata, j->media, delay_ms, why);
}

/* ---- the queue ---- */

static bool enqueue(struct md_sched *s, const char *uuid, bool metadata, bool media,
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
				rearm_job(d, j, -1, "dropped from the queue");
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
	if (have_latest && strcmp(latest.state, "complete") == 0 && latest.do_metadata &&
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
	    (strcmp(latest.state, "running") == 0 || strcmp(latest.state, "interrupted") == 0)) {
		char why[96];

		snprintf(why, sizeof(why), "resume scan %" PRId64 ", %s", latest.id, latest.state);
		enqueue(d->sched, fs->uuid, latest.do_metadata, latest.do_media, false,
			md_now_ms() + d->cfg.resume_delay, "mapperd (resume)", why);
		log_notice("%s %s: scan %" PRId64 " was %s at %s; resuming it in %" PRId64 " s",
			   fs->uuid, fs->mountpoint, latest.id, latest.state, latest.phase,
			   d->cfg.resume_delay / 1000);
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
	if (!enqueue(s, fs->uuid, metadata, media, false, md_now_ms(), user, reason)) {
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

/* The worker finished: join it and plan what follows. */
static void finish(struct md_daemon *d)
{
	struct md_sched *s = d->sched;
	struct running *r = s->run;
	struct md_fs *fs;
	int64_t now = md_now_ms();

	if (!r)
		return;
	pthread_join(r->thread, NULL);
	s->run = NULL;
	md_metrics_file_changed();	/* its scan row, findings, resolved ones */
	fs = md_fs_by_uuid(d, r->job.uuid);
	const char *mnt = fs ? fs->mountpoint : r->mountpoint;
	const char *kind = kind_name(r->job.metadata, r->job.media);

	if (r->rc == 0) {
		if (r->res.metadata_skipped)
			log_warn("%s %s: metadata not checked: %s", r->job.uuid, mnt,
				 map_strerror(-MAP_ENOSCRUB));
		struct log_ctx lc = {
			.message_id = MD_MSGID_SCAN_DONE, .uuid = r->job.uuid, .mountpoint = mnt,
			.kind = kind,
		};

		log_ctx_msg(LOG_NOTICE, &lc, "%s %s: %s scan %" PRId64 " complete%s: %d new, %d seen "
			    "again, %d resolved; %d open", r->job.uuid, mnt, kind, r->res.scan_id,
			    r->res.resumed ? " (resumed)" : "", r->res.new_findings,
			    r->res.seen_findings, r->res.resolved, r->res.open);
		if (fs) {
			if (r->job.media && d->cfg.media_interval)
				fs->next_media = now + d->cfg.media_interval + jitter(d->cfg.random_delay);
			if (r->job.metadata && d->cfg.metadata_interval)
				fs->next_metadata = now + d->cfg.metadata_interval +
						    jitter(d->cfg.random_delay);
		}
	} else if (r->rc == -EBUSY) {
		log_notice("%s %s: another scan holds the filesystem (pid %d); trying again in "
			   "%" PRId64 " s", r->job.uuid, mnt, r->holder, d->cfg.retry_delay / 1000);
		if (fs && !d->stopping &&
		    !enqueue(s, r->job.uuid, r->job.metadata, r->job.media, r->job.scheduled,
			     now + d->cfg.retry_delay, r->job.user, r->job.reason))
			rearm_job(d, &r->job, d->cfg.retry_delay, "not queued again");
	} else if (r->rc == -MAP_ECANCELED || r->rc == -MAP_EUNMOUNTED) {
		log_notice("%s %s: %s scan %" PRId64 " interrupted (%s); its progress is saved",
			   r->job.uuid, mnt, kind, r->res.scan_id, map_strerror(r->rc));
		/* Cancelled on request: the next regular time.  Interrupted
		 * otherwise: resumed like a scan found interrupted at start. */
		if (r->cancel_asked)
			rearm_job(d, &r->job, -1, "cancelled");
		else
			rearm_job(d, &r->job, d->cfg.resume_delay, "interrupted");
	} else {
		struct log_ctx lc = {
			.message_id = MD_MSGID_SCAN_FAILED, .uuid = r->job.uuid, .mountpoint = mnt,
			.kind = kind,
		};

		log_ctx_msg(LOG_ERR, &lc, "%s %s: %s scan failed: %s", r->job.uuid, mnt, kind,
			    r->why[0] ? r->why : map_strerror(r->rc));
		/* Not again right away: the next regular time. */
		if (fs && r->job.scheduled) {
			if (r->job.media && d->cfg.media_interval)
				fs->next_media = now + d->cfg.media_interval;
			if (r->job.metadata && d->cfg.metadata_interval)
				fs->next_metadata = now + d->cfg.metadata_interval;
		}
	}
	pthread_mutex_destroy(&r->lock);
	free(r);
}

static void done_ready(struct md_daemon *d, struct md_watch *w, uint32_t events)
{
	uint64_t v;

	(void)events;
	if (read(w->fd, &v, sizeof(v)) < 0) {
		/* spurious */
	}
	finish(d);
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
			if (!enqueue(s, fs->uuid, true, media, true, now, "mapperd (schedule)",
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
			int rc = start_job(d, j, fs);
			if (rc) {
				log_err("%s: cannot start a scan: %s", j->uuid, map_strerror(rc));
				rearm_job(d, j, d->cfg.retry_delay, "could not start");
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
		finish(d);
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
