// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Store: findings and their evidence.  A finding is one damaged object
 * (map_finding_object_key); each sighting of it (a media read, a scrub
 * check, a kernel event) is a row of finding_evidence, and a complete scan
 * resolves a finding only when it re-checked all of that evidence.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "map_internal.h"
#include "store_internal.h"

/* The states that still want something done, as SQL. */
#define OPEN_STATES "('open', 'zeroed')"

bool map_state_is_open(enum map_finding_state state)
{
	return state == MAP_STATE_OPEN || state == MAP_STATE_ZEROED;
}

int map_counts_open(const int counts[MAP_STATE_NR])
{
	return counts[MAP_STATE_OPEN] + counts[MAP_STATE_ZEROED];
}

/* How directly a source shows damage: an unreadable device range (media)
 * over the kernel reporting an error in use (event) over a check that found
 * an inconsistency (scrub).  The finding's source is its most direct one. */
static int source_rank(enum map_finding_source source)
{
	static const int rank[MAP_SOURCE_NR] = {
		[MAP_SOURCE_MEDIA] = 3, [MAP_SOURCE_EVENT] = 2, [MAP_SOURCE_SCRUB] = 1,
	};

	return (unsigned int)source < MAP_SOURCE_NR ? rank[source] : 0;
}

/* Whether comma list @list holds @item (@n bytes). */
static bool list_has(const char *list, const char *item, size_t n)
{
	for (const char *p = list; *p;) {
		size_t k = strcspn(p, ",");

		if (k == n && strncmp(p, item, n) == 0)
			return true;
		p += k;
		if (*p == ',')
			p++;
	}
	return false;
}

/* Add to comma list @dst (of @len bytes) each item of @add it lacks; an
 * item that does not fit is left out (the lists are of scrub type names,
 * each at most once, which fit). */
static void list_union(char *dst, size_t len, const char *add)
{
	size_t used = strlen(dst);

	for (const char *p = add; *p;) {
		size_t k = strcspn(p, ",");

		if (k && !list_has(dst, p, k) && used + (used ? 1 : 0) + k < len) {
			if (used)
				dst[used++] = ',';
			memcpy(dst + used, p, k);
			used += k;
			dst[used] = '\0';
		}
		p += k;
		if (*p == ',')
			p++;
	}
}

int map_store_finding_set_paths(struct map_store *st, int64_t id, char *const *paths, size_t n)
{
	sqlite3_stmt *stmt;
	int rc;

	if (n == 0)
		return 0;	/* keep what an earlier look found */
	rc = prepare(st, "DELETE FROM finding_paths WHERE finding_id = ?1", &stmt);
	if (rc)
		return rc;
	sqlite3_bind_int64(stmt, 1, id);
	rc = run(st, stmt);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		rc = prepare(st, "INSERT OR IGNORE INTO finding_paths (finding_id, path) "
			     "VALUES (?1, ?2)", &stmt);
		if (rc)
			break;
		sqlite3_bind_int64(stmt, 1, id);
		sqlite3_bind_blob(stmt, 2, paths[i], (int)strlen(paths[i]), SQLITE_TRANSIENT);
		rc = run(st, stmt);
	}
	return rc;
}

/* The evidence row of this sighting: added, or its last_seen refreshed. */
static int evidence_record(struct map_store *st, int64_t finding_id, int64_t scan_id,
			   const struct map_finding *f, int64_t t)
{
	sqlite3_stmt *stmt;
	int rc = prepare(st,
		"INSERT INTO finding_evidence (finding_id, source, scrub, physical, length, detail, "
		"  first_seen, last_seen, last_scan) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, ?8) "
		"ON CONFLICT (finding_id, source, scrub, coalesce(physical, -1), "
		"  coalesce(length, -1)) DO UPDATE SET last_seen = max(last_seen, ?7), "
		"  first_seen = min(first_seen, ?7), "
		"  last_scan = coalesce(?8, last_scan), detail = ?6", &stmt);

	if (rc)
		return rc;
	sqlite3_bind_int64(stmt, 1, finding_id);
	bind_str(stmt, 2, map_finding_source_name(f->source));
	bind_str(stmt, 3, f->scrub);
	if (f->has_range) {
		sqlite3_bind_int64(stmt, 4, (int64_t)f->physical);
		sqlite3_bind_int64(stmt, 5, (int64_t)f->length);
	}
	bind_str(stmt, 6, f->detail);
	sqlite3_bind_int64(stmt, 7, t);
	if (scan_id)
		sqlite3_bind_int64(stmt, 8, scan_id);
	return run(st, stmt);
}

/* Seen again: fold this sighting into the finding.  Ignored stays ignored,
 * zeroed stays zeroed (only a mirror brings its content back); anything else
 * that was closed is damaged again, so it opens again.  The first device
 * range seen stays the finding's; later ones are evidence.  A sighting
 * replayed from mapperd's spool may be older than the row's: the times only
 * widen, and @f gets the row's. */
static int finding_update(struct map_store *st, int64_t scan_id, struct map_finding *f,
			  enum map_finding_source source, const char *scrub, int64_t t)
{
	sqlite3_stmt *stmt;
	int rc = prepare(st,
		"UPDATE findings SET last_seen = max(last_seen, ?2), "
		"  first_seen = min(first_seen, ?2), "
		"  last_scan = coalesce(?3, last_scan), "
		"  gen = CASE WHEN ?4 != 0 THEN ?4 ELSE gen END, "
		"  mode = CASE WHEN ?5 != 0 THEN ?5 ELSE mode END, flags = flags | ?6, "
		"  detail = CASE WHEN ?7 != '' THEN ?7 ELSE detail END, source = ?8, scrub = ?9, "
		"  agno = coalesce(agno, ?10), "
		"  length = CASE WHEN physical IS NULL AND ?11 IS NOT NULL THEN ?12 ELSE length END, "
		"  fork = CASE WHEN physical IS NULL AND ?11 IS NOT NULL THEN ?13 ELSE fork END, "
		"  offset = CASE WHEN physical IS NULL AND ?11 IS NOT NULL THEN ?14 ELSE offset END, "
		"  physical = coalesce(physical, ?11), "
		"  state = CASE WHEN state IN ('ignored', 'zeroed') THEN state ELSE 'open' END "
		"WHERE id = ?1 RETURNING first_seen, last_seen", &stmt);

	if (rc)
		return rc;
	sqlite3_bind_int64(stmt, 1, f->id);
	sqlite3_bind_int64(stmt, 2, t);
	if (scan_id)
		sqlite3_bind_int64(stmt, 3, scan_id);
	sqlite3_bind_int64(stmt, 4, f->gen);
	sqlite3_bind_int64(stmt, 5, f->mode);
	sqlite3_bind_int64(stmt, 6, f->flags);
	bind_str(stmt, 7, f->detail);
	bind_str(stmt, 8, map_finding_source_name(source));
	bind_str(stmt, 9, scrub);
	if (f->agno >= 0)
		sqlite3_bind_int64(stmt, 10, f->agno);
	if (f->has_range) {
		sqlite3_bind_int64(stmt, 11, (int64_t)f->physical);
		sqlite3_bind_int64(stmt, 12, (int64_t)f->length);
	}
	bind_str(stmt, 13, f->fork);
	if (f->has_offset)
		sqlite3_bind_int64(stmt, 14, (int64_t)f->offset);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		f->first_seen = sqlite3_column_int64(stmt, 0);
		f->last_seen = sqlite3_column_int64(stmt, 1);
		rc = sqlite3_step(stmt);
	}
	done(st, stmt);
	return rc == SQLITE_DONE ? 0 : st_err(st, rc);
}

static int finding_insert(struct map_store *st, int64_t scan_id, struct map_finding *f,
			  const char *key, int64_t t)
{
	sqlite3_stmt *stmt;
	int rc = prepare(st,
		"INSERT INTO findings (fs_id, fkey, source, kind, physical, length, ino, gen, "
		"  mode, fork, offset, agno, flags, scrub, detail, state, first_seen, "
		"  last_seen, first_scan, last_scan) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
		"  ?9, ?10, ?11, ?12, ?13, ?14, ?15, 'open', ?16, ?16, ?17, ?17)", &stmt);

	if (rc)
		return rc;
	sqlite3_bind_int64(stmt, 1, f->fs_id);
	bind_str(stmt, 2, key);
	bind_str(stmt, 3, map_finding_source_name(f->source));
	bind_str(stmt, 4, f->kind);
	if (f->has_range) {
		sqlite3_bind_int64(stmt, 5, (int64_t)f->physical);
		sqlite3_bind_int64(stmt, 6, (int64_t)f->length);
	}
	if (f->ino) {
		sqlite3_bind_int64(stmt, 7, (int64_t)f->ino);
		sqlite3_bind_int64(stmt, 8, f->gen);
		sqlite3_bind_int64(stmt, 9, f->mode);
	}
	bind_str(stmt, 10, f->fork);
	if (f->has_offset)
		sqlite3_bind_int64(stmt, 11, (int64_t)f->offset);
	if (f->agno >= 0)
		sqlite3_bind_int64(stmt, 12, f->agno);
	sqlite3_bind_int64(stmt, 13, f->flags);
	bind_str(stmt, 14, f->scrub);
	bind_str(stmt, 15, f->detail);
	sqlite3_bind_int64(stmt, 16, t);
	if (scan_id)
		sqlite3_bind_int64(stmt, 17, scan_id);
	rc = run(st, stmt);
	if (rc == 0) {
		f->id = sqlite3_last_insert_rowid(st->db);
		f->first_seen = f->last_seen = t;
	}
	return rc;
}

int map_store_finding_record(struct map_store *st, int64_t scan_id, struct map_finding *f,
			     bool *is_new)
{
	sqlite3_stmt *stmt;
	char key[512];
	enum map_finding_source source = MAP_SOURCE_NONE;
	char scrub[sizeof(f->scrub)];
	/* A finding kept aside while the database could not be written
	 * (mapperd's spool) comes with the time it was seen. */
	int64_t t = f->last_seen > 0 && f->last_seen <= now() ? f->last_seen : now();
	int rc;

	map_finding_object_key(f, key, sizeof(key));
	rc = prepare(st, "SELECT id, source, scrub FROM findings WHERE fs_id = ?1 AND fkey = ?2",
		     &stmt);
	if (rc)
		return rc;
	sqlite3_bind_int64(stmt, 1, f->fs_id);
	bind_str(stmt, 2, key);
	rc = sqlite3_step(stmt);
	bool exists = rc == SQLITE_ROW;
	if (exists) {
		f->id = sqlite3_column_int64(stmt, 0);
		source = (enum map_finding_source)col_word(stmt, 1, map_finding_source_from_name,
							   MAP_SOURCE_NR);
		col_str(stmt, 2, scrub, sizeof(scrub));
	}
	done(st, stmt);
	if (!exists && rc != SQLITE_DONE)
		return st_err(st, rc);
	if (is_new)
		*is_new = !exists;

	if (exists) {
		if (source_rank(f->source) > source_rank(source))
			source = f->source;
		list_union(scrub, sizeof(scrub), f->scrub);
		rc = finding_update(st, scan_id, f, source, scrub, t);
	} else {
		rc = finding_insert(st, scan_id, f, key, t);
	}
	if (rc == 0)
		rc = evidence_record(st, f->id, scan_id, f, t);
	if (rc == 0)
		rc = map_store_finding_set_paths(st, f->id, f->paths, f->npaths);
	return rc;
}

int map_store_finding_evidence(struct map_store *st, int64_t finding_id,
			       int (*fn)(const struct map_evidence *, void *), void *arg)
{
	sqlite3_stmt *stmt;
	struct map_evidence e;
	int rc;

	/* Read-only, from before evidence was kept: the finding is all there is. */
	if (st->version < SCHEMA_EVIDENCE)
		return 0;
	rc = prepare(st, "SELECT id, finding_id, source, scrub, physical, length, detail, "
		     "first_seen, last_seen, coalesce(last_scan, 0) FROM finding_evidence "
		     "WHERE finding_id = ?1 ORDER BY id", &stmt);
	if (rc)
		return rc;
	sqlite3_bind_int64(stmt, 1, finding_id);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		memset(&e, 0, sizeof(e));
		e.id = sqlite3_column_int64(stmt, 0);
		e.finding_id = sqlite3_column_int64(stmt, 1);
		e.source = (enum map_finding_source)col_word(stmt, 2, map_finding_source_from_name,
							     MAP_SOURCE_NR);
		col_str(stmt, 3, e.scrub, sizeof(e.scrub));
		e.has_range = sqlite3_column_type(stmt, 4) != SQLITE_NULL;
		e.physical = (uint64_t)sqlite3_column_int64(stmt, 4);
		e.length = (uint64_t)sqlite3_column_int64(stmt, 5);
		col_str(stmt, 6, e.detail, sizeof(e.detail));
		e.first_seen = sqlite3_column_int64(stmt, 7);
		e.last_seen = sqlite3_column_int64(stmt, 8);
		e.last_scan = sqlite3_column_int64(stmt, 9);
		rc = fn(&e, arg);
		if (rc)
			break;
	}
	done(st, stmt);
	return rc == SQLITE_DONE ? 0 : (rc > 0 ? st_err(st, rc) : rc);
}

#define FINDING_COLUMNS "id, fs_id, source, kind, physical, length, ino, gen, mode, fork, " \
			"offset, agno, flags, scrub, detail, state, first_seen, last_seen, " \
			"coalesce(first_scan, 0), coalesce(last_scan, 0)"

static int finding_from_row(struct map_store *st, sqlite3_stmt *stmt, struct map_finding *f)
{
	sqlite3_stmt *ps;
	char state[16];
	int rc;

	map_finding_init(f);
	f->id = sqlite3_column_int64(stmt, 0);
	f->fs_id = sqlite3_column_int64(stmt, 1);
	f->source = (enum map_finding_source)col_word(stmt, 2, map_finding_source_from_name,
						      MAP_SOURCE_NR);
	col_str(stmt, 3, f->kind, sizeof(f->kind));
	f->has_range = sqlite3_column_type(stmt, 4) != SQLITE_NULL;
	f->physical = (uint64_t)sqlite3_column_int64(stmt, 4);
	f->length = (uint64_t)sqlite3_column_int64(stmt, 5);
	f->ino = (uint64_t)sqlite3_column_int64(stmt, 6);
	f->gen = (uint32_t)sqlite3_column_int64(stmt, 7);
	f->mode = (uint32_t)sqlite3_column_int64(stmt, 8);
	col_str(stmt, 9, f->fork, sizeof(f->fork));
	f->has_offset = sqlite3_column_type(stmt, 10) != SQLITE_NULL;
	f->offset = (uint64_t)sqlite3_column_int64(stmt, 10);
	f->agno = sqlite3_column_type(stmt, 11) == SQLITE_NULL ? -1 : sqlite3_column_int64(stmt, 11);
	f->flags = (uint32_t)sqlite3_column_int64(stmt, 12);
	col_str(stmt, 13, f->scrub, sizeof(f->scrub));
	col_str(stmt, 14, f->detail, sizeof(f->detail));
	col_str(stmt, 15, state, sizeof(state));
	int s = map_state_from_name(state);
	f->state = s < 0 ? MAP_STATE_OPEN : (enum map_finding_state)s;
	f->first_seen = sqlite3_column_int64(stmt, 16);
	f->last_seen = sqlite3_column_int64(stmt, 17);
	f->first_scan = sqlite3_column_int64(stmt, 18);
	f->last_scan = sqlite3_column_int64(stmt, 19);

	rc = prepare(st, "SELECT path FROM finding_paths WHERE finding_id = ?1 ORDER BY path", &ps);
	if (rc)
		return rc;
	sqlite3_bind_int64(ps, 1, f->id);
	while ((rc = sqlite3_step(ps)) == SQLITE_ROW) {
		int len = sqlite3_column_bytes(ps, 0);
		char *path = malloc((size_t)len + 1);

		if (!path) {
			done(st, ps);
			return -ENOMEM;
		}
		/* The mount root's path is "": SQLite gives NULL for an empty
		 * blob, and memcpy must not be handed NULL even for 0 bytes. */
		if (len > 0)
			memcpy(path, sqlite3_column_blob(ps, 0), (size_t)len);
		path[len] = '\0';
		char **v = realloc(f->paths, (f->npaths + 1) * sizeof(*v));
		if (!v) {
			free(path);
			done(st, ps);
			return -ENOMEM;
		}
		f->paths = v;
		f->paths[f->npaths++] = path;
	}
	done(st, ps);
	return rc == SQLITE_DONE ? 0 : st_err(st, rc);
}

int map_store_findings(struct map_store *st, int64_t fs_id, unsigned int filter,
		       int (*fn)(const struct map_finding *, void *), void *arg)
{
	char sql[512];
	sqlite3_stmt *stmt;
	struct map_finding f;
	int rc;

	snprintf(sql, sizeof(sql), "SELECT " FINDING_COLUMNS " FROM findings WHERE "
		 "(?1 = 0 OR fs_id = ?1)%s%s%s ORDER BY id",
		 (filter & MAP_FIND_ALL) ? "" : " AND state IN " OPEN_STATES,
		 (filter & MAP_FIND_FILES) ? " AND ino IS NOT NULL" : "",
		 (filter & MAP_FIND_METADATA) ? " AND kind NOT IN ('file', 'free', 'unknown')" : "");
	rc = prepare(st, sql, &stmt);
	if (rc)
		return rc;
	sqlite3_bind_int64(stmt, 1, fs_id);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		rc = finding_from_row(st, stmt, &f);
		if (rc == 0)
			rc = fn(&f, arg);
		map_finding_clear(&f);
		if (rc)
			break;
	}
	done(st, stmt);
	return rc == SQLITE_DONE ? 0 : (rc > 0 ? st_err(st, rc) : rc);
}

int map_store_finding_get(struct map_store *st, int64_t id, struct map_finding *out)
{
	sqlite3_stmt *stmt;
	int rc = prepare(st, "SELECT " FINDING_COLUMNS " FROM findings WHERE id = ?1", &stmt);

	if (rc)
		return rc;
	sqlite3_bind_int64(stmt, 1, id);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW)
		rc = finding_from_row(st, stmt, out);
	else
		rc = rc == SQLITE_DONE ? -ENOENT : st_err(st, rc);
	done(st, stmt);
	return rc;
}

int map_store_finding_set_state(struct map_store *st, int64_t id, enum map_finding_state state)
{
	sqlite3_stmt *stmt;
	int rc = prepare(st, "UPDATE findings SET state = ?2 WHERE id = ?1", &stmt);

	if (rc)
		return rc;
	sqlite3_bind_int64(stmt, 1, id);
	bind_str(stmt, 2, map_state_name(state));
	rc = run(st, stmt);
	if (rc == 0 && sqlite3_changes(st->db) == 0)
		rc = -ENOENT;
	return rc;
}

/* Whether every item of comma list @list is in comma list @set. */
static bool list_within(const char *list, const char *set)
{
	for (const char *p = list; *p;) {
		size_t k = strcspn(p, ",");

		if (k && !list_has(set, p, k))
			return false;
		p += k;
		if (*p == ',')
			p++;
	}
	return true;
}

#define HEALTHY_MAX 64		/* findings of one inode closed at once */

int map_store_close_healthy(struct map_store *st, int64_t fs_id, uint64_t ino, uint32_t gen,
			    const char *scrub, const char *who, const char *detail, int *n)
{
	int64_t ids[HEALTHY_MAX];
	size_t nids = 0;
	sqlite3_stmt *stmt;
	int rc;

	*n = 0;
	/* Metadata findings only: one with an unreadable device range is
	 * about sectors, which the kernel's verdict on the structure does not
	 * cover.  And of this very inode: a finding whose generation is not
	 * known may be of an earlier inode with the same number, and closing
	 * it would hide damage, so it stays open (a scan resolves it). */
	if (gen == 0)
		return 0;
	rc = prepare(st,
		"SELECT id, scrub FROM findings WHERE fs_id = ?1 AND ino = ?2 AND gen = ?3 AND "
		"  state IN ('open', 'repaired') AND "
		"  physical IS NULL AND scrub != '' AND NOT EXISTS ("
		"    SELECT 1 FROM finding_evidence e WHERE e.finding_id = findings.id AND "
		"    e.physical IS NOT NULL) ORDER BY id", &stmt);
	if (rc)
		return rc;
	sqlite3_bind_int64(stmt, 1, fs_id);
	sqlite3_bind_int64(stmt, 2, (int64_t)ino);
	sqlite3_bind_int64(stmt, 3, gen);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW && nids < HEALTHY_MAX) {
		char types[sizeof(((struct map_finding *)0)->scrub)];

		col_str(stmt, 1, types, sizeof(types));
		if (list_within(types, scrub))
			ids[nids++] = sqlite3_column_int64(stmt, 0);
	}
	done(st, stmt);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return st_err(st, rc);
	for (size_t i = 0; i < nids; i++) {
		struct map_action a = { .fs_id = fs_id, .finding_id = ids[i] };

		rc = map_store_finding_set_state(st, ids[i], MAP_STATE_RESOLVED);
		if (rc)
			return rc;
		snprintf(a.action, sizeof(a.action), "resolve");
		snprintf(a.user, sizeof(a.user), "%s", who);
		snprintf(a.outcome, sizeof(a.outcome), "resolved");
		snprintf(a.detail, sizeof(a.detail), "%s", detail);
		rc = map_store_action_add(st, &a);
		if (rc)
			return rc;
		(*n)++;
	}
	return 0;
}

/*
 * A complete pass of a scan re-checks evidence of its own kind: the media
 * pass reads every written byte again, so it re-checks every unreadable
 * device range (found by a media scan or located from a kernel event); the
 * metadata pass runs every scrub type on every object, so it re-checks every
 * scrub result (from a scan, or from mapperd scrubbing an inode it was told
 * about).  A finding is resolved only when the scan re-checked all of its
 * evidence and saw none of it again:
 *  - evidence seen by this scan (last_scan), or by anyone since it started
 *    (a kernel report that came in while it ran), keeps the finding open;
 *  - evidence the scan did not re-check keeps it open too: a scrub result
 *    after a media-only scan, a bad range after a metadata-only pass, an
 *    event that named neither a range nor a scrub type.
 * Ignored findings are left alone, and so are zeroed ones: their sectors
 * read as zeros now, which a scan cannot tell from the data they held.
 */
int map_store_resolve_unseen(struct map_store *st, int64_t fs_id, int64_t scan_id,
			     unsigned int covered, int *n)
{
	sqlite3_stmt *stmt;
	int rc = prepare(st,
		"UPDATE findings SET state = 'resolved' WHERE fs_id = ?1 AND "
		"  state IN ('open', 'refetched', 'repaired') AND NOT EXISTS ("
		"    SELECT 1 FROM finding_evidence e WHERE e.finding_id = findings.id AND ("
		"      coalesce(e.last_scan, 0) = ?2 OR "
		"      e.last_seen >= coalesce((SELECT started FROM scans WHERE id = ?2), 0) OR "
		"      NOT ((?3 AND e.physical IS NOT NULL) OR "
		"           (?4 AND e.physical IS NULL AND e.scrub != ''))))",
		&stmt);

	if (rc)
		return rc;
	sqlite3_bind_int64(stmt, 1, fs_id);
	sqlite3_bind_int64(stmt, 2, scan_id);
	sqlite3_bind_int(stmt, 3, !!(covered & MAP_COVER_MEDIA));
	sqlite3_bind_int(stmt, 4, !!(covered & MAP_COVER_METADATA));
	rc = run(st, stmt);
	if (n)
		*n = rc ? 0 : sqlite3_changes(st->db);
	return rc;
}

int map_store_count(struct map_store *st, int64_t fs_id, int counts[MAP_STATE_NR])
{
	sqlite3_stmt *stmt;
	int rc = prepare(st, "SELECT state, count(*) FROM findings WHERE fs_id = ?1 GROUP BY state",
			 &stmt);

	memset(counts, 0, sizeof(int) * MAP_STATE_NR);
	if (rc)
		return rc;
	sqlite3_bind_int64(stmt, 1, fs_id);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		int s = map_state_from_name((const char *)sqlite3_column_text(stmt, 0));

		if (s >= 0)
			counts[s] = sqlite3_column_int(stmt, 1);
	}
	done(st, stmt);
	return rc == SQLITE_DONE ? 0 : st_err(st, rc);
}

