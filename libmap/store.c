// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Store: the SQLite database of filesystems, scans, findings, actions and
 * events.  WAL mode, foreign keys, a busy timeout; migrations from sql/
 * applied in one transaction; a file that is not ours is never written.
 * Findings and their evidence are in store_findings.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "map_internal.h"
#include "map_store_sql.h"
#include "store_internal.h"

#define MAPPER_APPLICATION_ID	0x4d415052	/* "MAPR" */
#define BUSY_TIMEOUT_MS		10000
/* Rows of the events table kept (a few MB): it is a log of what the kernel
 * reported, which anyone who can make the kernel report can grow; findings,
 * not events, are what must never be lost. */
#define EVENTS_KEPT		20000

const char *map_store_path(const struct map_store *st)
{
	return st->path;
}

/* ---- why a store call failed, in words ---- */

/* The last failure of this thread's store calls (map_store_error). */
static __thread struct {
	int rc;			/* what the call returned */
	int sys;		/* the system's errno behind it, 0 if none */
	char text[4800];
} last_failure;

const char *map_store_error(int rc)
{
	return rc && last_failure.rc == rc && last_failure.text[0] ? last_failure.text : NULL;
}

/*
 * Which of the database's files SQLite could not use, into @buf as
 * "FILE: reason"; the errno in *@sys.  SQLite's own message names none: a
 * reader that may read the database but not its -shm gets "unable to open
 * database file" like one that has no database at all.
 */
static void name_file(const struct map_store *st, int code, char *buf, size_t len, int *sys)
{
	static const char *const suffix[] = { "", "-wal", "-shm" };
	int want = st->readonly ? R_OK : R_OK | W_OK;
	char f[4200], dir[4200];
	struct stat sb;

	if (code == SQLITE_FULL) {
		*sys = ENOSPC;
		snprintf(buf, len, "%.4000s: no space left for it or its -wal on the filesystem "
			 "that holds them", st->path);
		return;
	}
	if (code != SQLITE_CANTOPEN && code != SQLITE_READONLY && code != SQLITE_IOERR &&
	    code != SQLITE_PERM && code != SQLITE_AUTH) {
		snprintf(buf, len, "%.4000s", st->path);
		return;
	}
	for (size_t i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		snprintf(f, sizeof(f), "%s%s", st->path, suffix[i]);
		if (lstat(f, &sb) == 0 && access(f, want) != 0) {
			*sys = errno;
			snprintf(buf, len, "%.4000s: %.200s", f, map_strerror(errno));
			return;
		}
	}
	/* A -wal or -shm that is missing and cannot be made. */
	snprintf(dir, sizeof(dir), "%s", st->path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		slash == dir ? (void)(dir[1] = '\0') : (void)(*slash = '\0');
	for (size_t i = 1; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		snprintf(f, sizeof(f), "%s%s", st->path, suffix[i]);
		if (lstat(f, &sb) != 0 && access(dir, W_OK) != 0) {
			*sys = errno;
			snprintf(buf, len, "%.1000s: missing, and its folder %.1000s does not let "
				 "this user make it (%.200s)", f, dir, map_strerror(errno));
			return;
		}
	}
	if (*sys)
		snprintf(buf, len, "%.4000s: %.200s", st->path, map_strerror(*sys));
	else
		snprintf(buf, len, "%.4000s", st->path);
}

int map_store_failed(struct map_store *st, int rc)
{
	char where[4400];
	int sys = sqlite3_system_errno(st->db);

	name_file(st, rc & 0xff, where, sizeof(where), &sys);
	last_failure.rc = db_err(rc);
	last_failure.sys = sys;
	snprintf(last_failure.text, sizeof(last_failure.text), "%.4400s (SQLite: %.300s)", where,
		 sqlite3_errmsg(st->db));
	return last_failure.rc;
}

const char *map_store_default_path(void)
{
	const char *env = getenv("MAPPER_DB");

	return env && *env ? env : "/var/lib/mapper/mapper.db";
}

static int exec(struct map_store *st, const char *sql)
{
	return st_err(st, sqlite3_exec(st->db, sql, NULL, NULL, NULL));
}

/* One integer from a query such as a PRAGMA. */
static int query_int(struct map_store *st, const char *sql, int64_t *out)
{
	sqlite3_stmt *stmt;
	int rc = prepare(st, sql, &stmt);

	if (rc)
		return rc;
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int64(stmt, 0);
		rc = 0;
	} else {
		rc = rc == SQLITE_DONE ? -ENOENT : st_err(st, rc);
	}
	done(st, stmt);
	return rc;
}

static int migrate(struct map_store *st, int64_t version)
{
	char sql[128];
	int rc = exec(st, "BEGIN IMMEDIATE");

	if (rc)
		return rc;
	/* Someone may have migrated while we waited for the lock. */
	rc = query_int(st, "PRAGMA user_version", &version);
	for (int i = 0; rc == 0 && i < map_migration_count; i++) {
		if (map_migrations[i].version <= version)
			continue;
		rc = exec(st, map_migrations[i].sql);
		if (rc == 0) {
			snprintf(sql, sizeof(sql), "PRAGMA user_version = %d",
				 map_migrations[i].version);
			rc = exec(st, sql);
		}
	}
	if (rc == 0) {
		snprintf(sql, sizeof(sql), "PRAGMA application_id = %d", MAPPER_APPLICATION_ID);
		rc = exec(st, sql);
	}
	if (rc == 0)
		rc = exec(st, "COMMIT");
	if (rc)
		exec(st, "ROLLBACK");
	return rc;
}

/* The database's folder (made if missing) must be safe to write in: SQLite
 * creates its -wal and -shm files there and the scan locks live there. */
static int check_folder(const char *path)
{
	char dir[4096];
	char *slash;

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';		/* "/" */
	else
		*slash = '\0';
	return map_dir_ensure(dir, 0755);
}

/* Create the file ourselves so it gets mode 0640 whatever the umask. */
static int create_file(const char *path)
{
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (fd < 0)
		return errno == EEXIST ? 0 : -errno;
	fchmod(fd, 0640);
	close(fd);
	return 0;
}

int map_store_open(const char *path, unsigned int flags, struct map_store **out)
{
	struct map_store *st;
	bool readonly = flags & MAP_STORE_READONLY;
	int64_t app_id = 0, version = 0, tables = 0;
	struct stat sb;
	int rc;

	*out = NULL;
	last_failure.rc = 0;
	if (!readonly) {
		rc = check_folder(path);
		if (rc)
			return rc;
	}
	if (stat(path, &sb) != 0) {
		if (errno != ENOENT || readonly)
			return -errno;
		rc = create_file(path);
		if (rc)
			return rc;
	} else if (!S_ISREG(sb.st_mode)) {
		return -MAP_EDBCORRUPT;
	} else if (!readonly && sb.st_uid != 0 && sb.st_uid != geteuid()) {
		return -EPERM;	/* someone else's file: not ours to write */
	} else if (access(path, readonly ? R_OK : R_OK | W_OK) != 0) {
		return -errno;	/* say "permission denied", not "cannot open" */
	}
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->readonly = readonly;
	st->path = strdup(path);
	if (!st->path) {
		free(st);
		return -ENOMEM;
	}
	rc = sqlite3_open_v2(path, &st->db,
			     readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE, NULL);
	if (rc != SQLITE_OK) {
		rc = st_err(st, rc);
		goto fail;
	}
	if (!readonly) {
		/* Keep the -wal and -shm files after the last connection closes:
		 * readers who may read the database but not write its folder
		 * (a group given access to /var/lib/mapper/mapper.db) can then
		 * still open it. */
		int one = 1;

		sqlite3_file_control(st->db, "main", SQLITE_FCNTL_PERSIST_WAL, &one);
	}
	sqlite3_extended_result_codes(st->db, 0);
	sqlite3_busy_timeout(st->db, BUSY_TIMEOUT_MS);

	/* Is it ours?  Reading the header also catches files that are not
	 * SQLite at all (SQLITE_NOTADB). */
	rc = query_int(st, "PRAGMA application_id", &app_id);
	if (!rc)
		rc = query_int(st, "PRAGMA user_version", &version);
	if (!rc)
		rc = query_int(st, "SELECT count(*) FROM sqlite_master", &tables);
	if (rc)
		goto fail;
	if (app_id != MAPPER_APPLICATION_ID && (app_id != 0 || tables != 0 || version != 0)) {
		rc = -MAP_EDBCORRUPT;	/* someone else's database */
		goto fail;
	}
	if (version > map_migrations[map_migration_count - 1].version) {
		rc = -MAP_EDBSCHEMA;
		goto fail;
	}
	if (readonly) {
		if (version == 0) {
			rc = -ENOENT;	/* nothing recorded yet */
			goto fail;
		}
	} else {
		rc = exec(st, "PRAGMA journal_mode = WAL");
		if (!rc)
			rc = exec(st, "PRAGMA synchronous = FULL");
		if (!rc && version < map_migrations[map_migration_count - 1].version)
			rc = migrate(st, version);
		if (rc)
			goto fail;
	}
	rc = exec(st, "PRAGMA foreign_keys = ON");
	if (rc)
		goto fail;
	st->version = readonly ? (int)version : map_migrations[map_migration_count - 1].version;
	*out = st;
	return 0;
fail:
	/* The database is there: SQLite's "cannot open" (-ENOENT) or "read
	 * only" (-EROFS) was about one of its files; say what the system said
	 * (map_store_error has which file). */
	if ((rc == -ENOENT || rc == -EROFS || rc == -EIO) && last_failure.rc == rc &&
	    last_failure.sys) {
		rc = last_failure.sys == EPERM ? -EACCES : -last_failure.sys;
		last_failure.rc = rc;
	}
	map_store_cache_clear(st);
	sqlite3_close(st->db);
	free(st->path);
	free(st);
	return rc;
}

void map_store_close(struct map_store *st)
{
	if (!st)
		return;
	map_store_cache_clear(st);
	sqlite3_close(st->db);
	free(st->path);
	free(st);
}

int map_store_version(struct map_store *st)
{
	int64_t v = 0;

	query_int(st, "PRAGMA user_version", &v);
	return (int)v;
}

int map_store_begin(struct map_store *st)
{
	return exec(st, "BEGIN IMMEDIATE");
}

int map_store_commit(struct map_store *st)
{
	int rc = exec(st, "COMMIT");

	/* A COMMIT that fails (busy, a deferred constraint, a full or failing
	 * disk) may leave the transaction open; end it, so the caller's next
	 * BEGIN does not fail and nothing half-done is committed later. */
	if (rc && !sqlite3_get_autocommit(st->db))
		exec(st, "ROLLBACK");
	return rc;
}

void map_store_rollback(struct map_store *st)
{
	exec(st, "ROLLBACK");
}

int map_store_check(struct map_store *st)
{
	sqlite3_stmt *stmt;
	int rc = prepare(st, "PRAGMA integrity_check", &stmt);

	if (rc)
		return rc;
	rc = -MAP_EDBCORRUPT;
	if (sqlite3_step(stmt) == SQLITE_ROW &&
	    strcmp((const char *)sqlite3_column_text(stmt, 0), "ok") == 0)
		rc = 0;
	done(st, stmt);
	return rc;
}

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
	col_str(stmt, 2, s->state, sizeof(s->state));
	col_str(stmt, 3, s->phase, sizeof(s->phase));
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
	bind_str(stmt, 2, s->state);
	bind_str(stmt, 3, s->phase);
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
	bind_str(stmt, 3, e->source);
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
		col_str(stmt, 3, e.source, sizeof(e.source));
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
