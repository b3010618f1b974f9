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

struct map_store {
	sqlite3 *db;
	bool readonly;
	int version;		/* schema in use (a read-only store is not migrated) */
	char *path;
};

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

static inline int prepare(struct map_store *st, const char *sql, sqlite3_stmt **stmt)
{
	return db_err(sqlite3_prepare_v2(st->db, sql, -1, stmt, NULL));
}

static inline void col_str(sqlite3_stmt *stmt, int col, char *dst, size_t len)
{
	const unsigned char *v = sqlite3_column_text(stmt, col);

	snprintf(dst, len, "%s", v ? (const char *)v : "");
}

static inline void bind_str(sqlite3_stmt *stmt, int col, const char *s)
{
	sqlite3_bind_text(stmt, col, s, -1, SQLITE_TRANSIENT);
}

/* Run a prepared statement that returns no rows, then finalize it. */
static inline int run(sqlite3_stmt *stmt)
{
	int rc = sqlite3_step(stmt);

	sqlite3_finalize(stmt);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : db_err(rc);
}

static inline int64_t now(void)
{
	return (int64_t)time(NULL);
}

#endif
