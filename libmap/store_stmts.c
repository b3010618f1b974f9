// SPDX-License-Identifier: GPL-2.0-or-later
/* The store's prepared statements, compiled once per connection (see
 * store_internal.h). */
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

int map_store_prepare(struct map_store *st, const char *sql, sqlite3_stmt **stmt)
{
	struct map_cached_stmt *slot = NULL;
	int rc;

	for (int i = 0; i < STMT_CACHE; i++) {
		struct map_cached_stmt *c = &st->cache[i];

		if (c->sql && !c->out && strcmp(c->sql, sql) == 0) {
			c->out = true;
			*stmt = c->stmt;
			return 0;
		}
	}
	/* A free slot, else the next one not out, round the ring. */
	for (int i = 0; i < STMT_CACHE && !slot; i++)
		if (!st->cache[i].sql)
			slot = &st->cache[i];
	for (int i = 0; i < STMT_CACHE && !slot; i++) {
		struct map_cached_stmt *c = &st->cache[st->cache_next++ % STMT_CACHE];

		if (!c->out)
			slot = c;
	}
	rc = sqlite3_prepare_v3(st->db, sql, -1, slot ? SQLITE_PREPARE_PERSISTENT : 0, stmt, NULL);
	if (rc != SQLITE_OK || !slot)
		return st_err(st, rc);
	char *copy = strdup(sql);
	if (!copy)
		return 0;	/* used once, not kept */
	if (slot->sql) {
		sqlite3_finalize(slot->stmt);
		free(slot->sql);
	}
	*slot = (struct map_cached_stmt){ .sql = copy, .stmt = *stmt, .out = true };
	return 0;
}

void map_store_done(struct map_store *st, sqlite3_stmt *stmt)
{
	for (int i = 0; i < STMT_CACHE; i++) {
		struct map_cached_stmt *c = &st->cache[i];

		if (c->sql && c->stmt == stmt) {
			/* ends the statement's read transaction; the next use
			 * binds afresh */
			sqlite3_reset(stmt);
			sqlite3_clear_bindings(stmt);
			c->out = false;
			return;
		}
	}
	sqlite3_finalize(stmt);
}

void map_store_cache_clear(struct map_store *st)
{
	for (int i = 0; i < STMT_CACHE; i++) {
		sqlite3_finalize(st->cache[i].stmt);
		free(st->cache[i].sql);
		st->cache[i] = (struct map_cached_stmt){ 0 };
	}
}
