/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The event pipeline's connection to the database: writes each report (its
 * findings and its events-table row) in one transaction; when that fails
 * (the database's filesystem shut down, full, failing) keeps the report in
 * the spool and gives the connection up, so that it holds no filesystem
 * busy; tries the database again every few seconds and replays the spool
 * once it takes writes.  Used by the pipeline's worker thread only.
 */
#ifndef MAPPERD_DBWRITER_H
#define MAPPERD_DBWRITER_H

#include <stdbool.h>
#include <stdint.h>

#include "spool.h"

struct md_dbwriter;

struct md_dbwriter_stats {
	uint64_t spooled;		/* reports kept in the spool */
	uint64_t spool_dropped;		/* reports lost: the spool was full */
	uint64_t replayed;		/* spooled reports written later */
	size_t pending;			/* in the spool now */
	bool down;			/* no connection: the last write failed, or released */
};

/* Connect to @db_path (if it can be opened now) and open the spool in
 * @spool_dir (NULL: no spool; a failed write is then lost). */
int md_dbwriter_open(const char *db_path, const char *spool_dir, struct md_dbwriter **out);
void md_dbwriter_close(struct md_dbwriter *w);
/*
 * Write @e; the findings get their ids and fs_id.  *nnew counts new ones.
 * While the database is busy (another process's transaction), tries again
 * until @stopping says so.  0 written, 1 kept in the spool, or a negative
 * errno: lost.
 */
int md_dbwriter_write(struct md_dbwriter *w, struct md_spool_entry *e, int *nnew,
		      bool (*stopping)(void *arg), void *arg);
/*
 * Go through writing @e (statements compiled, the tables' and indexes' pages
 * read, the code paged in) and roll it back: nothing of it stays.  Done
 * before a filesystem's first report, so that its write costs what later
 * ones do.  Nothing when the connection is down or the spool holds reports.
 */
void md_dbwriter_rehearse(struct md_dbwriter *w, struct md_spool_entry *e);
/* Close the connection now (its filesystem is going away); the next try
 * is DB_RETRY_SECS away. */
void md_dbwriter_release(struct md_dbwriter *w);
/* Try the database again when due, replay the spool into it, and write the
 * metrics file when due (metrics_file.h).  Seconds until something is due
 * again, or -1 when nothing waits. */
double md_dbwriter_tick(struct md_dbwriter *w);
void md_dbwriter_get_stats(const struct md_dbwriter *w, struct md_dbwriter_stats *out);

#endif
