/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The event pipeline's state, shared by its worker and life cycle
 * (pipeline.c), the queue (pipeline_queue.c), what explains a kernel log line
 * (pipeline_recent.c), scan requests (pipeline_marks.c), reads and read
 * cursors (pipeline_read.c), findings (pipeline_locate.c) and event analysis
 * (pipeline_look.c).  Private to mapperd's pipeline.
 */
#ifndef MAPPERD_PIPELINE_INTERNAL_H
#define MAPPERD_PIPELINE_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "dbwriter.h"
#include "dedup.h"
#include "dirwatch.h"
#include "fscache.h"
#include "health.h"
#include "map.h"
#include "pipeline.h"

#define MAX_REQUESTS 32
#define READ_CURSORS 64		/* files whose partial reads we remember (LRU) */
#define SCAN_MARKS 64		/* filesystems whose last requested scans we remember */
#define RECENT_RANGES 64
#define LOCATED_FS 16		/* filesystems the kernel log placed an error of */
#define DIRWATCH_REQS 64

struct recent_range {
	dev_t dev;
	uint64_t start, length;
	double until;			/* md_mono() */
};

struct located_fs {
	char uuid[40];
	double at;			/* md_mono() when a range was last located */
};

/* Where the next report of a file larger than the read limit starts reading,
 * so repeated reports cover it piece by piece instead of its start again. */
struct read_cursor {
	char uuid[40];
	uint64_t ino;
	uint32_t gen;
	uint64_t next;			/* bytes into its written extents */
	double used;			/* md_mono(); 0: free */
};

/* When a scan of a filesystem was last requested, per kind. */
struct scan_mark {
	char uuid[40];
	double metadata, media;		/* md_mono(); 0: never */
};

/* Start or stop a filesystem's directory index, or make it ready for its
 * first report (main thread to worker). */
struct dirwatch_req {
	char uuid[40];
	char mountpoint[PATH_MAX];
	bool on;
	bool warm;			/* md_pipeline_warm: not about the index */
};
/* Add @r to the @n requests in @q (DIRWATCH_REQS at most, oldest first);
 * false when it is dropped instead. */
bool pipeline_fs_req_add(struct dirwatch_req *q, size_t *n, const struct dirwatch_req *r);

struct md_pipeline {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct md_event *head, *tail;
	size_t queued;
	bool stop;
	char db_path[PATH_MAX];
	size_t queued_kmsg;		/* of queued, from the kernel log */
	struct md_dedup dedup;
	struct md_pipeline_conf conf;
	struct md_pipeline_stats stats;
	struct recent_range recent[RECENT_RANGES];
	unsigned int next_recent;
	struct located_fs located[LOCATED_FS];
	unsigned int next_located;
	struct md_scan_req reqs[MAX_REQUESTS];
	size_t nreqs;
	struct scan_mark marks[SCAN_MARKS];
	struct read_cursor cursors[READ_CURSORS];	/* worker thread only */
	struct md_dbwriter *db;				/* worker thread only */
	struct md_dbwriter_stats dbstats;		/* its last figures */
	bool release_db;				/* asked to give the database up */
	int notify_fd;
	struct dirwatch_req dwreqs[DIRWATCH_REQS];	/* for the worker, oldest first */
	size_t ndwreqs;
	struct md_dirwatch *dirwatch;			/* worker thread only */
	struct md_fscache *fscache;			/* worker thread only */
};

/* What one event turned into, before it is written. */
struct outcome {
	struct map_finding *v;
	size_t n;
	int bad_ranges;
	double read_s;			/* in pipeline_verify(), for the debug log */
	uint64_t reads, failed_reads;
	char note[160];			/* appended to the event's detail */
	uint64_t healthy_ino;		/* an inode marked healthy: close its findings */
	uint32_t healthy_gen;
	char healthy_scrub[96];		/* of these scrub types */
};

/* Device ranges a read proved bad, collected by pipeline_verify(). */
struct bad_list {
	struct map_range_list ranges;
	int error;
};

/* pipeline_queue.c */
/* The next event to handle, waiting up to @wait seconds (< 0: until woken). */
struct md_event *pipeline_next_event(struct md_pipeline *p, double wait);
/* Free every queued event; returns how many there were. */
size_t pipeline_drop_queued(struct md_pipeline *p);

/* pipeline_recent.c */
void pipeline_remember_read(struct md_pipeline *p, dev_t dev, uint64_t start, uint64_t length,
			    double until);
void pipeline_note_located(struct md_pipeline *p, const char *uuid);
bool pipeline_wait_located(struct md_pipeline *p, const char *uuid, double reported);

/* pipeline_marks.c */
bool pipeline_event_scans(struct md_pipeline *p);
bool pipeline_request_scan(struct md_pipeline *p, const char *uuid, bool metadata, bool media,
			   const char *reason);

/* pipeline_read.c */
int pipeline_verify(struct md_pipeline *p, struct map_fs *fs, const struct map_range_list *ranges,
		    struct bad_list *bad, struct outcome *o);
int pipeline_ranges_window(const struct map_range_list *all, uint64_t skip, uint64_t max,
			   struct map_range_list *out);
int pipeline_choose_reads(struct md_pipeline *p, struct map_fs *fs, uint64_t ino, uint32_t gen,
			  struct map_range_list *all, struct map_range_list *out, bool *partial,
			  struct outcome *o);

/* pipeline_locate.c */
void pipeline_outcome_free(struct outcome *o);
int pipeline_locate_bad(struct map_fs *fs, const struct map_range_list *bad, struct outcome *o);
int pipeline_scrub_inode(struct map_fs *fs, const struct md_sick_inode *si, struct outcome *o);

/* pipeline_look.c */
/* What @ev's kind of report says, looked at on @fs (fs-wide reports: nothing). */
int pipeline_look(struct md_pipeline *p, struct map_fs *fs, const struct md_event *ev,
		  struct outcome *o);
/* A report fs-wide or standing for several errors: what the kernel marked sick. */
int pipeline_look_at_health(struct md_pipeline *p, struct map_fs *fs, const struct md_event *ev,
			    struct outcome *o);

#endif
