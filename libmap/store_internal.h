/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The store's handle and the small SQLite helpers its files share. */
#ifndef MAP_STORE_INTERNAL_H
#define MAP_STORE_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <sqlite3.h>

#include "map.h"

/* The schema that brought finding_evidence (sql/002_finding_objects.sql). */
#define SCHEMA_EVIDENCE		2

/*
 * Prepared statements kept for reuse: compiling a statement costs more than
 * running it (a report mapperd records runs about ten), so each SQL text
 * is compiled once per connection.  A statement is "out" from prepare() to
 * done(); the same text asked for meanwhile (a callback that queries the
 * store while a listing runs) gets a statement of its own.
 */
#define STMT_CACHE	32

struct map_cached_stmt {
	char *sql;
	sqlite3_stmt *stmt;
	bool out;
};

/* A store is used by one thread at a time (like an SQLite connection). */
struct map_store {
	sqlite3 *db;
	bool readonly;
	int version;		/* schema in use (a read-only store is not migrated) */
	char *path;
	struct map_cached_stmt cache[STMT_CACHE];
	unsigned int cache_next;	/* the next slot to reuse when all are taken */
};

/* prepare() a statement, done() when finished with it (not sqlite3_finalize). */
int map_store_prepare(struct map_store *st, const char *sql, sqlite3_stmt **stmt);
void map_store_done(struct map_store *st, sqlite3_stmt *stmt);
/* Finalize every kept statement (before sqlite3_close). */
void map_store_cache_clear(struct map_store *st);

/* SQLite result codes to our errors. */
static inline int db_err(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_OK:
	case SQLITE_DONE:
	case SQLITE_ROW:
		return 0;
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT:
		return -MAP_EDBCORRUPT;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_READONLY:
		return -EROFS;
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return -EACCES;
	case SQLITE_CANTOPEN:
		return -ENOENT;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_CONSTRAINT:
		return -EEXIST;
	default:
		return -EIO;
	}
}

/*
 * A statement of @st failed with @rc: keep why, in words (which file, the
 * system's reason, SQLite's own message) for map_store_error(), and return
 * db_err(@rc).  st_err() is the form every failure goes through.
 */
int map_store_failed(struct map_store *st, int rc);

static inline int st_err(struct map_store *st, int rc)
{
	return db_err(rc) ? map_store_failed(st, rc) : 0;
}

static inline int prepare(struct map_store *st, const char *sql, sqlite3_stmt **stmt)
{
	return map_store_prepare(st, sql, stmt);
}

static inline void done(struct map_store *st, sqlite3_stmt *stmt)
{
	map_store_done(st, stmt);
}

static inline void col_str(sqlite3_stmt *stmt, int col, char *dst, size_t len)
{
	const unsigned char *v = sqlite3_column_text(stmt, col);

	snprintf(dst, len, "%s", v ? (const char *)v : "");
}

/* Column @col's word as its enum value, by that enum's _from_name()
 * (store_words.c); @nr, its _NR (named "?"), for one the schema's CHECK
 * would not have let in. */
static inline int col_word(sqlite3_stmt *stmt, int col, int (*from_name)(const char *name),
			   int nr)
{
	const unsigned char *v = sqlite3_column_text(stmt, col);
	int i = v ? from_name((const char *)v) : -ENOENT;

	return i < 0 ? nr : i;
}

static inline void bind_str(sqlite3_stmt *stmt, int col, const char *s)
{
	sqlite3_bind_text(stmt, col, s, -1, SQLITE_TRANSIENT);
}

/* Run a prepared statement that returns no rows, then done() with it. */
static inline int run(struct map_store *st, sqlite3_stmt *stmt)
{
	int rc = sqlite3_step(stmt);

	done(st, stmt);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : st_err(st, rc);
}

static inline int64_t now(void)
{
	return (int64_t)time(NULL);
}

#endif
