/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One scan's state, shared by its phases (scan.c) and its record in the
 * store (scan_row.c).  Private to libmap.
 */
#ifndef MAP_SCAN_INTERNAL_H
#define MAP_SCAN_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "map_internal.h"

/* The longest a scan holds the database's write lock: mapperd records the
 * kernel's error reports in the same database while a scan runs, within a
 * second of the error. */
#define TXN_MAX_SECS 0.25

struct scan {
	struct map_store *st;
	struct map_fs *fs;
	const struct map_scan_opts *opts;
	struct map_scan_result *res;
	struct map_scan_row row;
	double t0;			/* this run's start */
	double seconds_before;		/* time spent by earlier runs */
	/*
	 * The metadata walk and the media readers share the store, the row,
	 * the result and the caller's callbacks: @lock covers all of them.
	 * Taken inside the scrubber's and the verifier's own callback locks,
	 * never around them.
	 */
	pthread_mutex_t lock;
	volatile int stop;		/* media: 1 cancelled, 2 unmounted */
	int error;			/* first store error */
	int media_rc;			/* media's result, once it has stopped */
	bool media_beside;		/* media runs beside the metadata walk */
	bool metadata_done;		/* media progress goes to the caller
					 * only then: one phase at a time */
	bool in_txn;			/* a write transaction is open */
	/* metadata phase */
	double meta_commit_at;
	uint64_t *scrub_inos;		/* inode-scoped findings, for paths */
	int64_t *scrub_ids;		/*   and their finding ids */
	size_t nscrub_inos;
	/* media phase: bad ranges not yet recorded */
	struct map_range_list pending;
	double last_checkpoint;
	uint64_t bad_ranges;
	uint64_t done_before;		/* bytes verified by earlier runs */
};

static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Transactions: opened when there is something to write. */
static inline int txn_begin(struct scan *s)
{
	if (s->in_txn)
		return 0;
	int rc = map_store_begin(s->st);
	if (rc == 0)
		s->in_txn = true;
	return rc;
}

static inline int txn_commit(struct scan *s)
{
	if (!s->in_txn)
		return 0;
	s->in_txn = false;
	return map_store_commit(s->st);
}

static inline void txn_rollback(struct scan *s)
{
	if (s->in_txn)
		map_store_rollback(s->st);
	s->in_txn = false;
}

/* The row as it is now, with the time spent so far; a failure is kept in
 * s->error. */
static inline void save_row(struct scan *s)
{
	s->row.seconds = s->seconds_before + (now_s() - s->t0);
	int rc = map_store_scan_update(s->st, &s->row);
	if (rc && !s->error)
		s->error = rc;
}

/* scan_row.c */
/* The row of this scan: the last one resumed (same phases, running or
 * interrupted, unless opts->restart) or a new one, marked running. */
int scan_start_or_resume(struct scan *s, bool do_metadata, bool do_media);
/* How the scan ended (@rc) goes into its row, and an action says so. */
void scan_finish(struct scan *s, int rc);

#endif
