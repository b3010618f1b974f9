// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Store: the filesystems seen, and the scans of each (one row per scan,
 * updated at every checkpoint, so an interrupted one can be resumed).
 */
#include <errno.h>
#include <string.h>

#include <sqlite3.h>

#include "map_internal.h"
#include "store_internal.h"

/* ---- filesystems ---- */

int map_store_fs_upsert(struct map_store *st, const struct map_fs_info *info, int64_t *fs_id)
{
	sqlite3_stmt *stmt;
	int rc = prepare(st,
		"INSERT INTO filesystems (uuid, label, mountpoint, device, model, serial, wwn, "
		"  blocksize, agcount, datablocks, rmapbt, reflink, parent, first_seen, last_seen) "
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?14) "
		"ON CONFLICT (uuid) DO UPDATE SET label = ?2, mountpoint = ?3, device = ?4, "
		"  model = ?5, serial = ?6, wwn = ?7, blocksize = ?8, agcount = ?9, "
		"  datablocks = ?10, rmapbt = ?11, reflink = ?12, parent = ?13, last_seen = ?14 "
		"RETURNING id", &stmt);

	if (rc)
		return rc;
	bind_str(stmt, 1, info->uuid);
	bind_str(stmt, 2, info->label);
	bind_str(stmt, 3, info->mountpoint);
	bind_str(stmt, 4, info->device);
	bind_str(stmt, 5, info->model);
	bind_str(stmt, 6, info->serial);
	bind_str(stmt, 7, info->wwn);
	sqlite3_bind_int64(stmt, 8, info->geo.blocksize);
	sqlite3_bind_int64(stmt, 9, info->geo.agcount);
	sqlite3_bind_int64(stmt, 10, (int64_t)info->geo.datablocks);
	sqlite3_bind_int(stmt, 11, info->geo.rmapbt);
	sqlite3_bind_int(stmt, 12, info->geo.reflink);
	sqlite3_bind_int(stmt, 13, info->geo.parent);
	sqlite3_bind_int64(stmt, 14, now());
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		*fs_id = sqlite3_column_int64(stmt, 0);
		rc = 0;
	} else {
		rc = st_err(st, rc);
	}
	done(st, stmt);
	return rc;
}

#define FS_COLUMNS "id, uuid, label, mountpoint, device, model, serial, wwn, blocksize, " \
		   "agcount, datablocks, rmapbt, reflink, parent, first_seen, last_seen"

static void fs_from_row(sqlite3_stmt *stmt, struct map_store_fs *f)
{
	memset(f, 0, sizeof(*f));
	f->id = sqlite3_column_int64(stmt, 0);
	col_str(stmt, 1, f->uuid, sizeof(f->uuid));
	col_str(stmt, 2, f->label, sizeof(f->label));
	col_str(stmt, 3, f->mountpoint, sizeof(f->mountpoint));
	col_str(stmt, 4, f->device, sizeof(f->device));
	col_str(stmt, 5, f->model, sizeof(f->model));
	col_str(stmt, 6, f->serial, sizeof(f->serial));
	col_str(stmt, 7, f->wwn, sizeof(f->wwn));
	f->blocksize = (uint32_t)sqlite3_column_int64(stmt, 8);
	f->agcount = (uint32_t)sqlite3_column_int64(stmt, 9);
	f->datablocks = (uint64_t)sqlite3_column_int64(stmt, 10);
	f->rmapbt = sqlite3_column_int(stmt, 11);
	f->reflink = sqlite3_column_int(stmt, 12);
	f->parent = sqlite3_column_int(stmt, 13);
	f->first_seen = sqlite3_column_int64(stmt, 14);
	f->last_seen = sqlite3_column_int64(stmt, 15);
}

static int fs_one(struct map_store *st, const char *sql, int64_t id, const char *uuid,
		  struct map_store_fs *out)
{
	sqlite3_stmt *stmt;
	int rc = prepare(st, sql, &stmt);

	if (rc)
		return rc;
	if (uuid)
		bind_str(stmt, 1, uuid);
	else
		sqlite3_bind_int64(stmt, 1, id);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		fs_from_row(stmt, out);
		rc = 0;
	} else {
		rc = rc == SQLITE_DONE ? -ENOENT : st_err(st, rc);
	}
	done(st, stmt);
	return rc;
}

int map_store_fs_get(struct map_store *st, int64_t fs_id, struct map_store_fs *out)
{
	return fs_one(st, "SELECT " FS_COLUMNS " FROM filesystems WHERE id = ?1", fs_id, NULL, out);
}

int map_store_fs_by_uuid(struct map_store *st, const char *uuid, struct map_store_fs *out)
{
	return fs_one(st, "SELECT " FS_COLUMNS " FROM filesystems WHERE uuid = ?1", 0, uuid, out);
}

int map_store_fs_each(struct map_store *st, int (*fn)(const struct map_store_fs *, void *),
		      void *arg)
{
	sqlite3_stmt *stmt;
	struct map_store_fs f;
	int rc = prepare(st, "SELECT " FS_COLUMNS " FROM filesystems ORDER BY id", &stmt);

	if (rc)
		return rc;
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		fs_from_row(stmt, &f);
		rc = fn(&f, arg);
		if (rc)
			break;
	}
	done(st, stmt);
	return rc == SQLITE_DONE ? 0 : (rc > 0 ? st_err(st, rc) : rc);
}

/* ---- scans ---- */

#define SCAN_COLUMNS "id, fs_id, state, phase, do_metadata, do_media, started, " \
		     "coalesce(finished, 0), seconds, media_position, media_total, media_done, " \
		     "objects, runs, pid, user, error"

static void scan_from_row(sqlite3_stmt *stmt, struct map_scan_row *s)
{
	memset(s, 0, sizeof(*s));
	s->id = sqlite3_column_int64(stmt, 0);
	s->fs_id = sqlite3_column_int64(stmt, 1);
	s->state = (enum map_scan_state)col_word(stmt, 2, map_scan_state_from_name,
						 MAP_SCAN_STATE_NR);
	s->phase = (enum map_scan_phase)col_word(stmt, 3, map_scan_phase_from_name,
						 MAP_SCAN_PHASE_NR);
	s->do_metadata = sqlite3_column_int(stmt, 4);
	s->do_media = sqlite3_column_int(stmt, 5);
	s->started = sqlite3_column_int64(stmt, 6);
	s->finished = sqlite3_column_int64(stmt, 7);
	s->seconds = sqlite3_column_double(stmt, 8);
	s->media_position = (uint64_t)sqlite3_column_int64(stmt, 9);
	s->media_total = (uint64_t)sqlite3_column_int64(stmt, 10);
	s->media_done = (uint64_t)sqlite3_column_int64(stmt, 11);
	s->objects = (uint64_t)sqlite3_column_int64(stmt, 12);
	s->runs = sqlite3_column_int(stmt, 13);
	s->pid = sqlite3_column_int(stmt, 14);
	col_str(stmt, 15, s->user, sizeof(s->user));
	col_str(stmt, 16, s->error, sizeof(s->error));
}

static int scan_one(struct map_store *st, const char *sql, int64_t fs_id, struct map_scan_row *out)
{
	sqlite3_stmt *stmt;
	int rc = prepare(st, sql, &stmt);

	if (rc)
		return rc;
	sqlite3_bind_int64(stmt, 1, fs_id);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		scan_from_row(stmt, out);
		rc = 0;
	} else {
		rc = rc == SQLITE_DONE ? -ENOENT : st_err(st, rc);
	}
	done(st, stmt);
	return rc;
}

int map_store_scan_latest(struct map_store *st, int64_t fs_id, struct map_scan_row *out)
{
	return scan_one(st, "SELECT " SCAN_COLUMNS " FROM scans WHERE fs_id = ?1 "
			"ORDER BY id DESC LIMIT 1", fs_id, out);
}

int map_store_scan_last_complete(struct map_store *st, int64_t fs_id, struct map_scan_row *out)
{
	return scan_one(st, "SELECT " SCAN_COLUMNS " FROM scans WHERE fs_id = ?1 AND "
			"state = 'complete' AND do_media ORDER BY id DESC LIMIT 1", fs_id, out);
}

int map_store_scan_last_covering(struct map_store *st, int64_t fs_id, unsigned int covered,
				 struct map_scan_row *out)
{
	if (covered == MAP_COVER_METADATA)
		return scan_one(st, "SELECT " SCAN_COLUMNS " FROM scans WHERE fs_id = ?1 AND "
				"state = 'complete' AND do_metadata ORDER BY id DESC LIMIT 1", fs_id,
				out);
	if (covered == MAP_COVER_MEDIA)
		return map_store_scan_last_complete(st, fs_id, out);
	return -EINVAL;
}

static void bind_scan(sqlite3_stmt *stmt, const struct map_scan_row *s)
{
	sqlite3_bind_int64(stmt, 1, s->fs_id);
	bind_str(stmt, 2, map_scan_state_name(s->state));
	bind_str(stmt, 3, map_scan_phase_name(s->phase));
	sqlite3_bind_int(stmt, 4, s->do_metadata);
	sqlite3_bind_int(stmt, 5, s->do_media);
	sqlite3_bind_int64(stmt, 6, s->started);
	if (s->finished)
		sqlite3_bind_int64(stmt, 7, s->finished);
	else
		sqlite3_bind_null(stmt, 7);
	sqlite3_bind_double(stmt, 8, s->seconds);
	sqlite3_bind_int64(stmt, 9, (int64_t)s->media_position);
	sqlite3_bind_int64(stmt, 10, (int64_t)s->media_total);
	sqlite3_bind_int64(stmt, 11, (int64_t)s->media_done);
	sqlite3_bind_int64(stmt, 12, (int64_t)s->objects);
	sqlite3_bind_int(stmt, 13, s->runs);
	sqlite3_bind_int(stmt, 14, s->pid);
	bind_str(stmt, 15, s->user);
	bind_str(stmt, 16, s->error);
}

int map_store_scan_insert(struct map_store *st, struct map_scan_row *row)
{
	sqlite3_stmt *stmt;
	int rc = prepare(st,
		"INSERT INTO scans (fs_id, state, phase, do_metadata, do_media, started, finished, "
		"  seconds, media_position, media_total, media_done, objects, runs, pid, user, "
		"  error) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, "
		"  ?15, ?16)", &stmt);

	if (rc)
		return rc;
	bind_scan(stmt, row);
	rc = run(st, stmt);
	if (rc == 0)
		row->id = sqlite3_last_insert_rowid(st->db);
	return rc;
}

int map_store_scan_update(struct map_store *st, const struct map_scan_row *row)
{
	sqlite3_stmt *stmt;
	int rc = prepare(st,
		"UPDATE scans SET fs_id = ?1, state = ?2, phase = ?3, do_metadata = ?4, "
		"  do_media = ?5, started = ?6, finished = ?7, seconds = ?8, media_position = ?9, "
		"  media_total = ?10, media_done = ?11, objects = ?12, runs = ?13, pid = ?14, "
		"  user = ?15, error = ?16 WHERE id = ?17", &stmt);

	if (rc)
		return rc;
	bind_scan(stmt, row);
	sqlite3_bind_int64(stmt, 17, row->id);
	return run(st, stmt);
}
