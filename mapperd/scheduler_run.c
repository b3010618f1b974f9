// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The running scan: its worker thread (map_scan() with the daemon's
 * settings, findings logged and batched for the hooks), and its end, joined
 * on the main thread: what it says, and what follows it (the next scheduled
 * times, a retry, a resume).  When scans are due and the queue are in
 * scheduler.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"
#include "findlog.h"
#include "journal_ids.h"
#include "log.h"
#include "metrics_file.h"
#include "notify.h"
#include "scheduler_internal.h"

static void on_progress(const struct map_scan_progress *p, void *arg)
{
	struct running *r = arg;

	pthread_mutex_lock(&r->lock);
	r->progress = *p;
	snprintf(r->phase, sizeof(r->phase), "%s", map_scan_phase_name(p->phase));
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

int sched_start_job(struct md_daemon *d, struct job *job, struct md_fs *fs)
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

void sched_finish(struct md_daemon *d)
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
		    !sched_enqueue(s, r->job.uuid, r->job.metadata, r->job.media, r->job.scheduled,
				   now + d->cfg.retry_delay, r->job.user, r->job.reason))
			sched_rearm_job(d, &r->job, d->cfg.retry_delay, "not queued again");
	} else if (r->rc == -MAP_ECANCELED || r->rc == -MAP_EUNMOUNTED) {
		log_notice("%s %s: %s scan %" PRId64 " interrupted (%s); its progress is saved",
			   r->job.uuid, mnt, kind, r->res.scan_id, map_strerror(r->rc));
		/* Cancelled on request: the next regular time.  Interrupted
		 * otherwise: resumed like a scan found interrupted at start. */
		if (r->cancel_asked)
			sched_rearm_job(d, &r->job, -1, "cancelled");
		else
			sched_rearm_job(d, &r->job, d->cfg.resume_delay, "interrupted");
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
