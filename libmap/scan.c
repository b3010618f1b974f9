// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Scan: the whole pipeline for one filesystem, recorded in the store with
 * checkpoints.  Metadata (the kernel's scrub of every object) and media
 * (every written byte read) run side by side: the scrub is CPU work in the
 * kernel, the reads are I/O at low priority, and one waiting on the other
 * would add their times.  Each bad range is mapped to its owners and their
 * paths before the checkpoint that moves past it is saved, so an interrupted
 * scan resumes without losing or repeating anything.  Findings that no longer
 * show are resolved only once both have covered the whole filesystem.
 * The scan's row (lock, start or resume, how it ended) is scan_row.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "map_internal.h"
#include "scan_internal.h"

#define DEFAULT_CHECKPOINT_SECS 2

/* ---- findings ---- */

static int record(struct scan *s, struct map_finding *f)
{
	bool is_new = false;
	int rc;

	f->fs_id = s->res->fs_id;
	rc = map_store_finding_record(s->st, s->row.id, f, &is_new);
	if (rc)
		return rc;
	if (is_new)
		s->res->new_findings++;
	else
		s->res->seen_findings++;
	if (s->opts->found)
		s->opts->found(f, is_new, s->opts->arg);
	return 0;
}

int map_locate_paths(struct map_fs *fs, uint64_t start, uint64_t length,
		     struct map_owner_list *owners, struct map_paths **paths)
{
	uint64_t *inos;
	int rc;

	*paths = NULL;
	rc = map_locate(fs, start, length, owners);
	if (rc)
		return rc;
	inos = calloc(owners->n + 1, sizeof(*inos));
	if (!inos)
		return -ENOMEM;
	for (size_t i = 0; i < owners->n; i++)
		inos[i] = owners->v[i].ino;
	rc = map_resolve_paths(fs, inos, owners->n, paths, NULL);
	free(inos);
	return rc;
}

/* Map the pending bad ranges to owners and resolve every inode owner's paths
 * in one pass over the directories, then open the transaction and record
 * them (the caller commits). */
static int record_pending(struct scan *s)
{
	struct map_owner_list owners = { 0 };
	struct map_paths *paths = NULL;
	size_t *first = calloc(s->pending.n + 1, sizeof(*first));
	uint64_t *inos = NULL;
	int rc = first ? 0 : -ENOMEM;

	for (size_t i = 0; i < s->pending.n && rc == 0; i++) {
		first[i] = owners.n;
		rc = map_locate(s->fs, s->pending.v[i].start, s->pending.v[i].length, &owners);
	}
	first[s->pending.n] = owners.n;
	if (rc == 0 && owners.n) {
		inos = calloc(owners.n, sizeof(*inos));
		rc = inos ? 0 : -ENOMEM;
		for (size_t k = 0; rc == 0 && k < owners.n; k++)
			inos[k] = owners.v[k].ino;
		if (rc == 0)
			rc = map_resolve_paths(s->fs, inos, owners.n, &paths, NULL);
	}
	if (rc == 0)
		rc = txn_begin(s);
	for (size_t i = 0; i < s->pending.n && rc == 0; i++) {
		size_t n = first[i + 1] - first[i];

		for (size_t k = first[i]; rc == 0 && k < first[i + 1]; k++) {
			const struct map_owner *o = &owners.v[k];
			struct map_finding f;

			if (o->kind == MAP_OWNER_FREE)
				continue;	/* nothing was stored there */
			if (o->kind == MAP_OWNER_INODES && n > 1)
				continue;	/* its inodes are recorded one by one */
			map_finding_from_owner(&f, MAP_SOURCE_MEDIA, o, paths ? &paths[k] : NULL);
			rc = record(s, &f);
			map_finding_clear(&f);
		}
	}
	map_paths_free(paths, owners.n);
	map_owner_list_free(&owners);
	free(inos);
	free(first);
	s->pending.n = 0;
	return rc;
}

/* ---- metadata ---- */

static bool scrub_is_damage(const struct map_scrub_result *r)
{
	/* HEALTHY only sums up what the other types already reported. */
	if (r->type == XFS_SCRUB_TYPE_HEALTHY)
		return false;
	/* dirtree walks parent pointers up to the root: an error means some
	 * ancestor could not be read (an unreadable inode btree fails every walk
	 * through its AG), and that object is reported by its own check.  A
	 * directory's own broken place in the tree comes back as CORRUPT. */
	if (r->type == XFS_SCRUB_TYPE_DIRTREE && r->error)
		return false;
	if (r->error)
		return r->error != -ENOENT && r->error != -ECANCELED && r->error != -EBUSY;
	return r->oflags & (XFS_SCRUB_OFLAG_CORRUPT | XFS_SCRUB_OFLAG_XCORRUPT);
}

static int on_scrub_locked(struct scan *s, const struct map_scrub_result *r)
{
	int rc = 0;

	/* Media stopped on an error, or the filesystem went away: stop too. */
	if (s->media_rc && s->media_rc != -MAP_ECANCELED)
		return s->media_rc;
	s->row.objects++;
	if (scrub_is_damage(r)) {
		struct map_finding f;

		map_finding_from_scrub(&f, r);
		rc = txn_begin(s);
		if (rc == 0)
			rc = record(s, &f);
		map_finding_clear(&f);
		if (rc == 0 && f.ino) {
			uint64_t *v = realloc(s->scrub_inos, (s->nscrub_inos + 1) * sizeof(*v));
			int64_t *w = v ? realloc(s->scrub_ids, (s->nscrub_inos + 1) * sizeof(*w)) : NULL;

			if (v)
				s->scrub_inos = v;
			if (!w)
				return -ENOMEM;
			s->scrub_ids = w;
			s->scrub_ids[s->nscrub_inos] = f.id;
			s->scrub_inos[s->nscrub_inos++] = f.ino;
		}
	}
	/* Progress is saved now and then; what was found is committed within
	 * TXN_MAX_SECS. */
	double t = now_s();
	if (rc == 0 && t - s->meta_commit_at >= TXN_MAX_SECS) {
		s->meta_commit_at = t;
		save_row(s);
		rc = s->error ? s->error : txn_commit(s);
	}
	return rc;
}

static int on_scrub(const struct map_scrub_result *r, void *arg)
{
	struct scan *s = arg;

	pthread_mutex_lock(&s->lock);
	int rc = on_scrub_locked(s, r);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

/* Bad ranges the media readers found so far are shown with the metadata's
 * progress while both run. */
static void on_scrub_progress(uint64_t done, uint64_t total, void *arg)
{
	struct scan *s = arg;

	pthread_mutex_lock(&s->lock);
	struct map_scan_progress p = { MAP_SCAN_PHASE_METADATA, done, total, s->bad_ranges,
				       now_s() - s->t0 };

	if (s->opts->progress)
		s->opts->progress(&p, s->opts->arg);
	pthread_mutex_unlock(&s->lock);
}

/* Give the inode-scoped scrub findings their paths. */
static int name_scrub_findings(struct scan *s)
{
	struct map_paths *paths = NULL;
	int rc;

	if (s->nscrub_inos == 0)
		return 0;
	rc = map_resolve_paths(s->fs, s->scrub_inos, s->nscrub_inos, &paths, NULL);
	if (rc == 0)
		rc = txn_begin(s);
	if (rc) {
		map_paths_free(paths, s->nscrub_inos);
		return rc;
	}
	for (size_t i = 0; i < s->nscrub_inos && rc == 0; i++)
		if (paths[i].npaths)
			rc = map_store_finding_set_paths(s->st, s->scrub_ids[i], paths[i].paths,
							 paths[i].npaths);
	map_paths_free(paths, s->nscrub_inos);
	return rc;
}

static int metadata_phase(struct scan *s)
{
	struct map_scrub_opts so = {
		.progress = on_scrub_progress,
		.cancel = s->opts->cancel,
		.arg = s,
	};
	int rc, resolved = 0;

	s->row.objects = 0;
	s->meta_commit_at = now_s();
	rc = map_scrub_fs(s->fs, &so, on_scrub, s, &s->res->scrub);
	pthread_mutex_lock(&s->lock);
	if (rc == 0)
		rc = txn_commit(s);
	if (rc == 0)
		rc = name_scrub_findings(s);
	if (rc == 0)
		rc = txn_begin(s);
	/* Every object was scrubbed: findings only scrub had shown and it no
	 * longer shows are resolved now; those with a bad range wait for the
	 * media phase (map_store_resolve_unseen says why). */
	if (rc == 0)
		rc = map_store_resolve_unseen(s->st, s->res->fs_id, s->row.id, MAP_COVER_METADATA,
					      &resolved);
	if (rc == 0) {
		s->res->resolved += resolved;
		s->row.phase = s->row.do_media ? MAP_SCAN_PHASE_MEDIA : MAP_SCAN_PHASE_DONE;
		save_row(s);
		rc = s->error ? s->error : txn_commit(s);
	}
	if (rc)
		txn_rollback(s);
	s->metadata_done = true;
	pthread_mutex_unlock(&s->lock);
	return rc;
}

/* ---- media ---- */

static void on_bad(uint64_t start, uint64_t length, int error, void *arg)
{
	struct scan *s = arg;

	(void)error;
	s->bad_ranges++;
	if (map_range_add(&s->pending, start, length) && !s->error)
		s->error = -ENOMEM;
}

/* The verifier runs this and on_bad under one lock of its own, so bad ranges
 * and checkpoints never race, while the other readers go on reading. */
static void on_media_progress_locked(struct scan *s, uint64_t done, uint64_t total,
				     uint64_t position)
{
	double t = now_s();
	struct map_scan_progress p = { MAP_SCAN_PHASE_MEDIA, s->done_before + done,
				       s->done_before + total, s->bad_ranges, t - s->t0 };

	if (s->opts->progress && (s->metadata_done || !s->media_beside))
		s->opts->progress(&p, s->opts->arg);
	if (!s->stop && map_cancelled(s->opts->cancel))
		s->stop = 1;
	unsigned int every = s->opts->checkpoint_secs ? s->opts->checkpoint_secs :
							 DEFAULT_CHECKPOINT_SECS;
	if (t - s->last_checkpoint < every && done < total && !s->stop)
		return;
	s->last_checkpoint = t;
	if (!s->stop && map_fs_check_mounted(s->fs) != 0)
		s->stop = 2;

	/* Everything below position is verified and its bad ranges are in
	 * pending: record them and the new position in one transaction. */
	int rc = record_pending(s);
	if (rc == 0)
		rc = txn_begin(s);
	if (rc == 0) {
		s->row.media_position = position;
		s->row.media_done = s->done_before + done;
		if (s->done_before + total > s->row.media_total)
			s->row.media_total = s->done_before + total;
		save_row(s);
		rc = s->error ? s->error : txn_commit(s);
	}
	if (rc) {
		txn_rollback(s);
		if (!s->error)
			s->error = rc;
		s->stop = 1;
	}
}

static void on_media_progress(uint64_t done, uint64_t total, uint64_t position, void *arg)
{
	struct scan *s = arg;

	pthread_mutex_lock(&s->lock);
	on_media_progress_locked(s, done, total, position);
	pthread_mutex_unlock(&s->lock);
}

/* Read every written byte from the checkpoint on; bad ranges are recorded at
 * each checkpoint (on_media_progress). */
static int media_verify(struct scan *s)
{
	struct map_verify_opts vo = {
		.io_size = s->opts->io_size,
		.inflight = s->opts->inflight,
		.ioprio_class = s->opts->ioprio_class,
		.ioprio_level = s->opts->ioprio_level,
		.rate = s->opts->rate,
		.progress = on_media_progress,
		.bad = on_bad,
		.cancel = &s->stop,
		.arg = s,
	};
	uint64_t written = 0, from;
	int rc;

	pthread_mutex_lock(&s->lock);
	from = s->row.media_position;
	if (from) {
		s->res->resumed_at = from;
		s->done_before = s->row.media_done;	/* what earlier runs verified */
	}
	s->last_checkpoint = now_s();
	pthread_mutex_unlock(&s->lock);
	rc = map_verify_written(s->fs, from, &vo, &s->res->verify, &written);
	pthread_mutex_lock(&s->lock);
	s->row.media_total = written;
	if (s->error)
		rc = s->error;
	else if (rc == -MAP_ECANCELED && s->stop == 2)
		rc = -MAP_EUNMOUNTED;
	s->media_rc = rc;
	pthread_mutex_unlock(&s->lock);
	return rc;
}

static void *media_thread(void *arg)
{
	media_verify(arg);
	return NULL;
}

/* Every written byte has been read (over one or more runs), and every object
 * scrubbed if this scan checks metadata: what neither saw again is resolved. */
static int media_finish(struct scan *s)
{
	uint64_t written = s->row.media_total;
	int rc, resolved = 0;

	rc = txn_begin(s);
	if (rc == 0)
		rc = map_store_resolve_unseen(s->st, s->res->fs_id, s->row.id,
					      MAP_COVER_MEDIA |
					      (s->row.do_metadata ? MAP_COVER_METADATA : 0),
					      &resolved);
	if (rc == 0) {
		s->res->resolved += resolved;
		s->row.media_done = written;
		s->row.phase = MAP_SCAN_PHASE_DONE;
		save_row(s);
		rc = txn_commit(s);
	}
	if (rc)
		txn_rollback(s);
	return rc;
}

/* ---- the scan ---- */

/* The phases the row has not finished: metadata with media read beside it
 * (or after it, without a thread), then the media's end. */
static int run_phases(struct scan *s, bool do_metadata, bool do_media)
{
	pthread_t media;
	int rc = 0;

	if (do_metadata && s->row.phase == MAP_SCAN_PHASE_METADATA) {
		/* Set before the thread starts: its progress reports read it. */
		s->media_beside = do_media;
		if (do_media && pthread_create(&media, NULL, media_thread, s) != 0)
			s->media_beside = false;	/* then media after metadata */
		rc = metadata_phase(s);
		if (s->media_beside) {
			if (rc)
				s->stop = 1;	/* at the media's next checkpoint */
			pthread_join(media, NULL);
			if (rc == 0)
				rc = s->media_rc;
		}
	}
	if (rc == 0 && do_media && s->row.phase == MAP_SCAN_PHASE_MEDIA) {
		if (!s->media_beside)	/* not read beside the metadata yet */
			rc = media_verify(s);
		if (rc == 0)
			rc = media_finish(s);
	}
	return rc;
}

int map_scan(struct map_store *st, struct map_fs *fs, const struct map_scan_opts *opts,
	     struct map_scan_result *res, int *holder_pid)
{
	const struct map_fs_info *info = map_fs_info(fs);
	bool do_metadata = opts->metadata || !opts->media;
	bool do_media = opts->media || !opts->metadata;
	struct scan s;
	int counts[MAP_STATE_NR];
	int lock, rc;

	memset(res, 0, sizeof(*res));
	memset(&s, 0, sizeof(s));
	s.st = st;
	s.fs = fs;
	s.opts = opts;
	s.res = res;
	s.t0 = now_s();

	if (do_metadata) {
		/* Probe once: without online scrub every object would "fail"
		 * and be recorded as damaged. */
		rc = map_scrub_probe(map_fs_fd(fs));
		if (rc == -MAP_ENOSCRUB && do_media) {
			do_metadata = false;
			res->metadata_skipped = true;
		} else if (rc) {
			return rc;
		}
	}
	rc = map_store_fs_upsert(st, info, &res->fs_id);
	if (rc)
		return rc;
	lock = map_scan_lock(st, info->uuid, holder_pid);
	if (lock < 0)
		return lock;
	pthread_mutex_init(&s.lock, NULL);
	rc = scan_start_or_resume(&s, do_metadata, do_media);
	if (rc)
		goto out;

	rc = run_phases(&s, do_metadata, do_media);
	scan_finish(&s, rc);
	if (map_store_count(st, res->fs_id, counts) == 0)
		res->open = map_counts_open(counts);
out:
	map_range_free(&s.pending);
	free(s.scrub_inos);
	free(s.scrub_ids);
	close(lock);
	pthread_mutex_destroy(&s.lock);
	return rc;
}
