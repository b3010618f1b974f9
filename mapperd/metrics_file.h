/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Prometheus textfile (mapperd.conf metrics_file): the store's figures
 * as mapctl metrics writes them, kept fresh for node_exporter's textfile
 * collector.  The main thread configures it and says when a scan finished;
 * the event pipeline's thread, which has its own database connection,
 * writes it (md_dbwriter_tick), so reading the store never holds up the
 * epoll loop.
 */
#ifndef MAPPERD_METRICS_FILE_H
#define MAPPERD_METRICS_FILE_H

#include <stdint.h>

#include "map.h"

/* The file to write ("": none) and the least time between two writes (ms);
 * at start and on SIGHUP.  A new path is written at the next tick. */
void md_metrics_file_configure(const char *path, int64_t interval_ms);
/* The figures changed (findings stored, a scan finished): write the file
 * once the interval since the last write has passed.  Any thread. */
void md_metrics_file_changed(void);
/* Pipeline thread: write the file through @st when due (@st NULL: the
 * database is away, try later).  Seconds until it wants to be called
 * again, or -1 when no file is configured: then nothing wakes the thread
 * for it, which is why metrics_file changes need a restart (main.c). */
double md_metrics_file_tick(struct map_store *st);

/* What became of the error reports mapperd read: the daemon's own families
 * in the file, after the store's (mapperd(8), METRICS). */
struct md_report_counts {
	uint64_t received;
	uint64_t duplicates;		/* dropped: seen within dedup_window */
	uint64_t queue_full;		/* dropped: the queue was full */
	uint64_t rate_limited;		/* dropped: over a source's rate */
	uint64_t spool_full;		/* lost: database away and spool full */
	uint64_t failed;		/* taken but could not be processed */
};
/* The pipeline's thread, before each tick: the counts to write. */
void md_metrics_file_set_counts(const struct md_report_counts *c);

#endif
