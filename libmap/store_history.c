// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Store: what was done (actions: refetches, repairs, by whom) and what the
 * kernel reported (events, the newest EVENTS_KEPT kept).
 */
#include <string.h>

#include <sqlite3.h>

#include "map_internal.h"
#include "store_internal.h"

/* Rows of the events table kept (a few MB): it is a log of what the kernel
 * reported, which anyone who can make the kernel report can grow; findings,
 * not events, are what must never be lost. */
#define EVENTS_KEPT		20000

/* ---- actions and events ---- */

int map_store_action_add(struct map_store *st, const struct map_action *a)
{
	sqlite3_stmt *stmt;
	int rc = prepare(st, "INSERT INTO actions (fs_id, finding_id, at, action, user, outcome, "
			 "detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", &stmt);

	if (rc)
		return rc;
	sqlite3_bind_int64(stmt, 1, a->fs_id);
	if (a->finding_id)
		sqlite3_bind_int64(stmt, 2, a->finding_id);
	sqlite3_bind_int64(stmt, 3, a->at ? a->at : now());
	bind_str(stmt, 4, a->action);
	bind_str(stmt, 5, a->user);
	bind_str(stmt, 6, a->outcome);
	bind_str(stmt, 7, a->detail);
	return run(st, stmt);
}

int map_store_actions(struct map_store *st, int64_t fs_id,
		      int (*fn)(const struct map_action *, void *), void *arg)
{
	sqlite3_stmt *stmt;
	struct map_action a;
	int rc = prepare(st, "SELECT id, fs_id, coalesce(finding_id, 0), at, action, user, outcome, "
			 "detail FROM actions WHERE (?1 = 0 OR fs_id = ?1) ORDER BY at, id", &stmt);

	if (rc)
		return rc;
	sqlite3_bind_int64(stmt, 1, fs_id);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		memset(&a, 0, sizeof(a));
		a.id = sqlite3_column_int64(stmt, 0);
		a.fs_id = sqlite3_column_int64(stmt, 1);
		a.finding_id = sqlite3_column_int64(stmt, 2);
		a.at = sqlite3_column_int64(stmt, 3);
		col_str(stmt, 4, a.action, sizeof(a.action));
		col_str(stmt, 5, a.user, sizeof(a.user));
		col_str(stmt, 6, a.outcome, sizeof(a.outcome));
		col_str(stmt, 7, a.detail, sizeof(a.detail));
		rc = fn(&a, arg);
		if (rc)
			break;
	}
	done(st, stmt);
	return rc == SQLITE_DONE ? 0 : (rc > 0 ? st_err(st, rc) : rc);
}

int map_store_event_add(struct map_store *st, const struct map_event *e)
{
	sqlite3_stmt *stmt;
	int rc = prepare(st, "INSERT INTO events (fs_id, at, source, ino, gen, error, detail) "
			 "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", &stmt);

	if (rc)
		return rc;
	if (e->fs_id)
		sqlite3_bind_int64(stmt, 1, e->fs_id);
	sqlite3_bind_int64(stmt, 2, e->at ? e->at : now());
	bind_str(stmt, 3, map_event_source_name(e->source));
	if (e->ino) {
		sqlite3_bind_int64(stmt, 4, (int64_t)e->ino);
		sqlite3_bind_int64(stmt, 5, e->gen);
	}
	sqlite3_bind_int(stmt, 6, e->error);
	bind_str(stmt, 7, e->detail);
	rc = run(st, stmt);
	if (rc)
		return rc;
	/* Keep the newest EVENTS_KEPT rows: ids only grow, so one range delete
	 * on the primary key, in the caller's transaction. */
	rc = prepare(st, "DELETE FROM events WHERE id <= last_insert_rowid() - ?1", &stmt);
	if (rc)
		return rc;
	sqlite3_bind_int64(stmt, 1, EVENTS_KEPT);
	return run(st, stmt);
}

int map_store_events(struct map_store *st, int64_t fs_id,
		     int (*fn)(const struct map_event *, void *), void *arg)
{
	sqlite3_stmt *stmt;
	struct map_event e;
	int rc = prepare(st, "SELECT id, coalesce(fs_id, 0), at, source, coalesce(ino, 0), "
			 "coalesce(gen, 0), coalesce(error, 0), detail FROM events "
			 "WHERE (?1 = 0 OR fs_id = ?1) ORDER BY at, id", &stmt);

	if (rc)
		return rc;
	sqlite3_bind_int64(stmt, 1, fs_id);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		memset(&e, 0, sizeof(e));
		e.id = sqlite3_column_int64(stmt, 0);
		e.fs_id = sqlite3_column_int64(stmt, 1);
		e.at = sqlite3_column_int64(stmt, 2);
		e.source = (enum map_event_source)col_word(stmt, 3, map_event_source_from_name,
							   MAP_EVENT_SOURCE_NR);
		e.ino = (uint64_t)sqlite3_column_int64(stmt, 4);
		e.gen = (uint32_t)sqlite3_column_int64(stmt, 5);
		e.error = sqlite3_column_int(stmt, 6);
		col_str(stmt, 7, e.detail, sizeof(e.detail));
		rc = fn(&e, arg);
		if (rc)
			break;
	}
	done(st, stmt);
	return rc == SQLITE_DONE ? 0 : (rc > 0 ? st_err(st, rc) : rc);
}
