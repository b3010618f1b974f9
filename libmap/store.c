// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Store: the SQLite database of filesystems, scans, findings, actions and
 * events.  WAL mode, foreign keys, a busy timeout; migrations from sql/
 * applied in one transaction; a file that is not ours is never written.
 * Here: opening, migrating, transactions and why a call failed; filesystems
 * and scans are in store_scans.c, actions and events in store_history.c,
 * findings and their evidence in store_findings.c.
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

/* Is the file at @path one we may open (and, unless @readonly, write)?
 * Made, with its folder, when missing and to be written. */
static int check_file(const char *path, bool readonly)
{
	struct stat sb;
	int rc;

	if (!readonly) {
		rc = check_folder(path);
		if (rc)
			return rc;
	}
	if (stat(path, &sb) != 0) {
		if (errno != ENOENT || readonly)
			return -errno;
		return create_file(path);
	}
	if (!S_ISREG(sb.st_mode))
		return -MAP_EDBCORRUPT;
	if (!readonly && sb.st_uid != 0 && sb.st_uid != geteuid())
		return -EPERM;	/* someone else's file: not ours to write */
	if (access(path, readonly ? R_OK : R_OK | W_OK) != 0)
		return -errno;	/* say "permission denied", not "cannot open" */
	return 0;
}

/* The SQLite connection of @st, with our settings. */
static int connect_db(struct map_store *st)
{
	int rc = sqlite3_open_v2(st->path, &st->db,
				 st->readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE, NULL);

	if (rc != SQLITE_OK)
		return st_err(st, rc);
	if (!st->readonly) {
		/* Keep the -wal and -shm files after the last connection closes:
		 * readers who may read the database but not write its folder
		 * (a group given access to /var/lib/mapper/mapper.db) can then
		 * still open it. */
		int one = 1;

		sqlite3_file_control(st->db, "main", SQLITE_FCNTL_PERSIST_WAL, &one);
	}
	sqlite3_extended_result_codes(st->db, 0);
	sqlite3_busy_timeout(st->db, BUSY_TIMEOUT_MS);
	return 0;
}

/* Is it ours, and a schema we know?  Its schema version in *@version. */
static int check_ours(struct map_store *st, int64_t *version)
{
	int64_t app_id = 0, tables = 0;
	/* Reading the header also catches files that are not SQLite at all
	 * (SQLITE_NOTADB). */
	int rc = query_int(st, "PRAGMA application_id", &app_id);

	if (!rc)
		rc = query_int(st, "PRAGMA user_version", version);
	if (!rc)
		rc = query_int(st, "SELECT count(*) FROM sqlite_master", &tables);
	if (rc)
		return rc;
	if (app_id != MAPPER_APPLICATION_ID && (app_id != 0 || tables != 0 || *version != 0))
		return -MAP_EDBCORRUPT;	/* someone else's database */
	if (*version > map_migrations[map_migration_count - 1].version)
		return -MAP_EDBSCHEMA;
	return 0;
}

/* A read-only store must have a schema; a writable one is brought to ours. */
static int ready_schema(struct map_store *st, int64_t version)
{
	int rc;

	if (st->readonly)
		return version == 0 ? -ENOENT : 0;	/* nothing recorded yet */
	rc = exec(st, "PRAGMA journal_mode = WAL");
	if (!rc)
		rc = exec(st, "PRAGMA synchronous = FULL");
	if (!rc && version < map_migrations[map_migration_count - 1].version)
		rc = migrate(st, version);
	return rc;
}

/*
 * The database is there: SQLite's "cannot open" (-ENOENT) or "read only"
 * (-EROFS) was about one of its files; say what the system said
 * (map_store_error has which file).
 */
static int open_error(int rc)
{
	if ((rc == -ENOENT || rc == -EROFS || rc == -EIO) && last_failure.rc == rc &&
	    last_failure.sys) {
		rc = last_failure.sys == EPERM ? -EACCES : -last_failure.sys;
		last_failure.rc = rc;
	}
	return rc;
}

int map_store_open(const char *path, unsigned int flags, struct map_store **out)
{
	struct map_store *st;
	bool readonly = flags & MAP_STORE_READONLY;
	int64_t version = 0;
	int rc;

	*out = NULL;
	last_failure.rc = 0;
	rc = check_file(path, readonly);
	if (rc)
		return rc;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->readonly = readonly;
	st->path = strdup(path);
	if (!st->path) {
		free(st);
		return -ENOMEM;
	}
	rc = connect_db(st);
	if (!rc)
		rc = check_ours(st, &version);
	if (!rc)
		rc = ready_schema(st, version);
	if (!rc)
		rc = exec(st, "PRAGMA foreign_keys = ON");
	if (rc) {
		rc = open_error(rc);
		map_store_close(st);
		return rc;
	}
	st->version = readonly ? (int)version : map_migrations[map_migration_count - 1].version;
	*out = st;
	return 0;
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

int map_store_begin_nowait(struct map_store *st)
{
	int rc;

	sqlite3_busy_timeout(st->db, 0);
	rc = exec(st, "BEGIN IMMEDIATE");
	sqlite3_busy_timeout(st->db, BUSY_TIMEOUT_MS);
	return rc;
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
