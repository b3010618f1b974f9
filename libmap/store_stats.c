// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Store: figures for monitoring (mapctl metrics).  Counts grouped by
 * filesystem and one word (a finding's kind, an outcome, an event source),
 * read inside one read transaction so that every figure describes the same
 * state of the store.  Nothing here writes.
 */
#include <errno.h>
#include <string.h>

#include <sqlite3.h>

#include "store_internal.h"

/* The schema that brought event_counts (sql/003_event_counts.sql). */
#define SCHEMA_EVENT_COUNTS	3

int map_store_read_begin(struct map_store *st)
{
	/* DEFERRED: the snapshot is taken by the first read, and a read-only
	 * store can open it. */
	return st_err(st, sqlite3_exec(st->db, "BEGIN DEFERRED", NULL, NULL, NULL));
}

void map_store_read_end(struct map_store *st)
{
	sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
}

/* Each query returns fs_id, key, count; ordered by fs_id then key. */
static const char *tally_sql(const struct map_store *st, enum map_tally_what what)
{
	switch (what) {
	case MAP_TALLY_OPEN_BY_KIND:
		return "SELECT fs_id, kind, count(*) FROM findings WHERE state IN ('open', 'zeroed') "
		       "GROUP BY fs_id, kind ORDER BY fs_id, kind";
	case MAP_TALLY_DAMAGED_INODES:
		/* Every filesystem, so that a monitor sees a 0 and not a gap. */
		return "SELECT fs.id, '', (SELECT count(DISTINCT f.ino) FROM findings f "
		       "WHERE f.fs_id = fs.id AND f.state IN ('open', 'zeroed') "
		       "AND coalesce(f.ino, 0) != 0) "
		       "FROM filesystems fs ORDER BY fs.id";
	case MAP_TALLY_REPAIRS:
		/* cli/cmd_repair.c: a finding's repair ends with one "repair-result";
		 * a summary counter's recount is one "repair" of no finding. */
		return "SELECT fs_id, outcome, count(*) FROM actions "
		       "WHERE action = 'repair-result' OR (action = 'repair' AND finding_id IS NULL) "
		       "GROUP BY fs_id, outcome ORDER BY fs_id, outcome";
	case MAP_TALLY_REFETCHES:
		return "SELECT fs_id, outcome, count(*) FROM actions WHERE action = 'refetch' "
		       "GROUP BY fs_id, outcome ORDER BY fs_id, outcome";
	case MAP_TALLY_EVENTS:
		if (st->version >= SCHEMA_EVENT_COUNTS)
			return "SELECT fs_id, source, received FROM event_counts "
			       "ORDER BY fs_id, source";
		/* A read-only store of an older schema: the rows it still has. */
		return "SELECT coalesce(fs_id, 0), source, count(*) FROM events "
		       "GROUP BY coalesce(fs_id, 0), source ORDER BY 1, 2";
	}
	return NULL;
}

int map_store_tally(struct map_store *st, enum map_tally_what what,
		    int (*fn)(const struct map_tally *, void *), void *arg)
{
	const char *sql = tally_sql(st, what);
	sqlite3_stmt *stmt;
	struct map_tally t;
	int rc;

	if (!sql)
		return -EINVAL;
	rc = prepare(st, sql, &stmt);
	if (rc)
		return rc;
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		memset(&t, 0, sizeof(t));
		t.fs_id = sqlite3_column_int64(stmt, 0);
		col_str(stmt, 1, t.key, sizeof(t.key));
		t.n = sqlite3_column_int64(stmt, 2);
		rc = fn(&t, arg);
		if (rc)
			break;
	}
	done(st, stmt);
	return rc == SQLITE_DONE ? 0 : (rc > 0 ? st_err(st, rc) : rc);
}
