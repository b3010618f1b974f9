/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The event pipeline: one worker thread that turns each reported error into
 * findings.  For an inode it reads that file's extents (O_DIRECT) to find
 * the exact bad ranges; for a device range it reads that range; each bad
 * range is mapped to its owners and their paths and recorded (source
 * "event") with a row in the events table, in one short transaction.
 */
#ifndef MAPPERD_PIPELINE_H
#define MAPPERD_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "dirwatch.h"
#include "event.h"

struct md_pipeline;

struct md_pipeline_stats {
	uint64_t received;		/* submitted */
	uint64_t merged;		/* reports that stood for several errors */
	uint64_t duplicates;		/* dropped: seen within the window */
	uint64_t dropped;		/* dropped: queue full */
	uint64_t processed;
	uint64_t failed;		/* could not be processed (fs gone, ...) */
	uint64_t findings;		/* findings recorded (new or seen again) */
	uint64_t new_findings;
	uint64_t scans_requested;
	uint64_t rate_limited;		/* not taken: over a source's per-filesystem rate */
	uint64_t reads_limited;		/* file reports that read only event_read_limit bytes */
	uint64_t scans_limited;		/* scans not requested: within event_scan_interval */
	uint64_t spooled;		/* reports kept aside: the database could not take them */
	uint64_t spool_dropped;		/* reports lost: the spool was full too */
	uint64_t replayed;		/* spooled reports written later */
	size_t spool_pending;		/* in the spool now */
	bool db_down;			/* the pipeline has no database connection now */
	double last_latency;		/* seconds from reading the report to commit */
	double max_latency;
	uint64_t fs_reopens, fs_full_opens;	/* see fscache.h */
	size_t queued;
	struct md_dirwatch_stats dirindex;
};

/* A scan the pipeline wants the scheduler to run. */
struct md_scan_req {
	char uuid[40];
	bool metadata, media;
	char reason[96];
};

/* What the configuration says about events (mapperd.conf). */
struct md_pipeline_conf {
	int64_t dedup_window_ms;
	bool event_scans;		/* may request scans at all */
	uint64_t read_limit;		/* bytes read per file report, 0: the whole file */
	int64_t scan_interval_ms;	/* between requested scans of one filesystem */
};

/* Start the worker with its own connection to the database at @db_path;
 * reports it cannot write wait in the spool folder @spool_dir (NULL: none). */
int md_pipeline_start(const char *db_path, const char *spool_dir, struct md_pipeline **out);
/* Close the worker's database connection soon (the database's filesystem is
 * shut down: it must not be held busy); it is tried again every few seconds. */
void md_pipeline_release_db(struct md_pipeline *p);
/* Keep (@on) or stop keeping a directory index of filesystem @uuid at
 * @mountpoint (dirwatch.h); the worker does it between reports. */
void md_pipeline_track_dirs(struct md_pipeline *p, const char *uuid, const char *mountpoint,
			    bool on);
/* Make filesystem @uuid at @mountpoint ready for its first report
 * (warmup.h); the worker does it between reports. */
void md_pipeline_warm(struct md_pipeline *p, const char *uuid, const char *mountpoint);
void md_pipeline_configure(struct md_pipeline *p, const struct md_pipeline_conf *conf);
/* A source did not submit @n reports because of its rate limit (counted). */
void md_pipeline_count_limited(struct md_pipeline *p, uint64_t n);
/*
 * Queue @ev (ownership passes).  Returns 0 when queued, 1 when dropped as a
 * duplicate of one seen within the window, -ENOSPC when the queue is full
 * (the kernel log may fill only half of it: the rest stays for fanotify).
 */
int md_pipeline_submit(struct md_pipeline *p, struct md_event *ev);
/* True when bytes [start, start+length) of device @dev were read by the
 * pipeline itself a moment ago: block-layer errors there are our own. */
bool md_pipeline_self_inflicted(struct md_pipeline *p, dev_t dev, uint64_t start,
				uint64_t length);
/* Readable (eventfd) when scan requests are waiting. */
int md_pipeline_notify_fd(struct md_pipeline *p);
size_t md_pipeline_take_requests(struct md_pipeline *p, struct md_scan_req *out, size_t max);
void md_pipeline_get_stats(struct md_pipeline *p, struct md_pipeline_stats *out);
/* Finish the event being processed, drop the rest, join the thread. */
void md_pipeline_stop(struct md_pipeline *p);

#endif
