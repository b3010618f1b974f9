// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapctl as a program, on databases made here through libmap (no kernel
 * needed): names chosen by others reach the terminal escaped, a state change
 * whose COMMIT fails is rolled back without taking the next one with it,
 * numbers from the command line never wrap (the size parser itself:
 * test_size_parse), and status is clean only for a filesystem scanned to
 * completion (recently enough, with --max-age).
 *
 * Usage: test_mapctl PATH-TO-MAPCTL
 */
#include <errno.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "map.h"
#include "mapctl.h"
#include "store_fixture.h"
#include "testlib.h"

static const char *mapctl;
static char dir[64];

/* Run mapctl with @args (shell words), collecting its exit status and output. */
static struct tl_run *run(const char *args)
{
	return sf_run_mapctl(mapctl, dir, NULL, args);
}

static struct map_store *new_db(const char *name, char *path, size_t len)
{
	struct map_store *st = NULL;

	snprintf(path, len, "%s/%s", dir, name);
	int rc = map_store_open(path, 0, &st);
	REQUIRE(rc == 0, "map_store_open %s: %s", path, map_strerror(rc));
	return st;
}

static int64_t add_fs(struct map_store *st, const char *mnt, const char *label, const char *model,
		      const char *serial)
{
	struct map_fs_info info;
	int64_t id = 0;

	memset(&info, 0, sizeof(info));
	snprintf(info.uuid, sizeof(info.uuid), "5d0c3f7e-1a2b-4c3d-8e9f-0a1b2c3d4e5f");
	snprintf(info.mountpoint, sizeof(info.mountpoint), "%s", mnt);
	snprintf(info.device, sizeof(info.device), "/dev/vda");
	snprintf(info.label, sizeof(info.label), "%s", label);
	snprintf(info.model, sizeof(info.model), "%s", model);
	snprintf(info.serial, sizeof(info.serial), "%s", serial);
	info.geo.blocksize = 4096;
	info.geo.agcount = 4;
	info.geo.rmapbt = true;
	REQUIRE(map_store_fs_upsert(st, &info, &id) == 0, "fs_upsert");
	return id;
}

static int64_t add_finding(struct map_store *st, int64_t fs_id, uint64_t ino, const char *path)
{
	return sf_add_finding(st, fs_id, "file", ino, 0100644, path);
}

static void sql(const char *db, const char *text)
{
	sqlite3 *raw;

	REQUIRE(sqlite3_open(db, &raw) == SQLITE_OK, "sqlite3_open %s", db);
	REQUIRE(sqlite3_exec(raw, text, NULL, NULL, NULL) == SQLITE_OK, "%s: %s", text,
		sqlite3_errmsg(raw));
	sqlite3_close(raw);
}

static long long sql_int(const char *db, const char *query)
{
	sqlite3 *raw;
	sqlite3_stmt *stmt;
	long long v = -1;

	REQUIRE(sqlite3_open(db, &raw) == SQLITE_OK, "sqlite3_open %s", db);
	REQUIRE(sqlite3_prepare_v2(raw, query, -1, &stmt, NULL) == SQLITE_OK, "%s", query);
	if (sqlite3_step(stmt) == SQLITE_ROW)
		v = sqlite3_column_int64(stmt, 0);
	sqlite3_finalize(stmt);
	sqlite3_close(raw);
	return v;
}

/* Issue 12, item 9: a label, device model, serial and mount point chosen by
 * someone else are escaped on the terminal: no ESC, BEL, C1 CSI or bidi
 * override gets through. */
static void test_status_escapes(void)
{
	char db[128], args[256];
	struct map_store *st = new_db("names.db", db, sizeof(db));

	add_fs(st, "/mnt/\x1b[2Jwiped", "lab\x1b]0;owned\x07" "el", "disk\xe2\x80\xae" "dcba",
	       "S\xc2\x9b" "31m");
	map_store_close(st);
	snprintf(args, sizeof(args), "--db %s status", db);
	struct tl_run *r = run(args);
	CHECK_INT(r->rc, 1);	/* never scanned (test_status_max_age) */
	CHECK(!strchr(r->out, '\x1b') && !strchr(r->out, '\x07'), "raw ESC/BEL in: %s", r->out);
	CHECK(!strstr(r->out, "\xe2\x80\xae"), "raw U+202E in: %s", r->out);
	CHECK(!strstr(r->out, "\xc2\x9b"), "raw U+009B in: %s", r->out);
	CHECK(strstr(r->out, "/mnt/\\x1b[2Jwiped"), "mount point escaped: %s", r->out);
	CHECK(strstr(r->out, "lab\\x1b]0;owned\\x07el"), "label escaped: %s", r->out);
	CHECK(strstr(r->out, "disk\\xe2\\x80\\xaedcba"), "model escaped: %s", r->out);
	CHECK(strstr(r->out, "S\\xc2\\x9b31m"), "serial escaped: %s", r->out);
}

static void add_scan(struct map_store *st, int64_t fs_id, const char *state, bool media,
		     int64_t finished)
{
	struct map_scan_row row;

	memset(&row, 0, sizeof(row));
	row.fs_id = fs_id;
	row.state = map_scan_state_from_name(state);
	row.phase = strcmp(state, "complete") ? MAP_SCAN_PHASE_MEDIA : MAP_SCAN_PHASE_DONE;
	row.do_metadata = true;
	row.do_media = media;
	row.started = finished - 60;
	row.finished = strcmp(state, "complete") ? 0 : finished;
	row.seconds = 60;
	row.runs = 1;
	REQUIRE(map_store_scan_insert(st, &row) == 0, "scan_insert");
}

/* Issue 14: a filesystem never scanned to completion is not clean (it was
 * exit 0, "nothing open", because nothing was ever looked at); with
 * --max-age, neither is one whose last complete scan of either kind is
 * older than that. */
static void test_status_max_age(void)
{
	char db[128], args[256];
	struct map_store *st = new_db("age.db", db, sizeof(db));
	int64_t fs_id = add_fs(st, "/mnt/age", "", "", "");
	int64_t now = (int64_t)time(NULL);
	struct tl_run *r;

	/* only an interrupted scan: never scanned, with or without --max-age */
	add_scan(st, fs_id, "interrupted", true, now);
	snprintf(args, sizeof(args), "--db %s status", db);
	r = run(args);
	CHECK_INT(r->rc, 1);
	CHECK(strstr(r->out, "state: UNVERIFIED - never scanned"), "%s", r->out);
	CHECK(strstr(r->out, "run mapctl scan /mnt/age"), "%s", r->out);
	snprintf(args, sizeof(args), "--db %s status --max-age 8d", db);
	CHECK_INT(run(args)->rc, 1);
	snprintf(args, sizeof(args), "--db %s status --json", db);
	r = run(args);
	CHECK_INT(r->rc, 1);
	CHECK(strstr(r->out, "\"never_scanned\":true,\"last_complete_time\":null"), "%s", r->out);

	/* a metadata scan completed ten days ago: scanned, so clean unless
	 * --max-age is under ten days */
	add_scan(st, fs_id, "complete", false, now - 10 * 86400);
	snprintf(args, sizeof(args), "--db %s status", db);
	r = run(args);
	CHECK_INT(r->rc, 0);
	CHECK(!strstr(r->out, "never scanned"), "%s", r->out);
	snprintf(args, sizeof(args), "--db %s status --max-age 8d", db);
	r = run(args);
	CHECK_INT(r->rc, 1);
	CHECK(strstr(r->out, "last complete scan 10 days ago, older than 8d"), "%s", r->out);
	snprintf(args, sizeof(args), "--db %s status --max-age 12d", db);
	CHECK_INT(run(args)->rc, 0);
	snprintf(args, sizeof(args), "--db %s status --json --max-age 239h", db);
	r = run(args);
	CHECK_INT(r->rc, 1);
	CHECK(strstr(r->out, "\"stale\":true"), "%s", r->out);

	/* a media scan an hour ago: the newest complete one counts */
	add_scan(st, fs_id, "complete", true, now - 3600);
	snprintf(args, sizeof(args), "--db %s status --max-age 8d", db);
	r = run(args);
	CHECK_INT(r->rc, 0);
	CHECK(strstr(r->out, "state: OK\n"), "%s", r->out);
	snprintf(args, sizeof(args), "--db %s status --max-age 90m", db);
	CHECK_INT(run(args)->rc, 0);
	snprintf(args, sizeof(args), "--db %s status --max-age 30m", db);
	r = run(args);
	CHECK_INT(r->rc, 1);
	CHECK(strstr(r->out, "state: OK - last complete scan 1 hour ago, older than 30m"), "%s",
	      r->out);
	CHECK(strstr(r->out, "action: run mapctl scan /mnt/age"), "%s", r->out);

	/* open findings stay exit 1, and say both */
	add_finding(st, fs_id, 131, "a.dat");
	snprintf(args, sizeof(args), "--db %s status --max-age 30m", db);
	r = run(args);
	CHECK_INT(r->rc, 1);
	CHECK(strstr(r->out, "1 open finding: 1 file, 0 metadata; last complete scan"), "%s",
	      r->out);
	map_store_close(st);

	/* durations as mapperd.conf takes them, nothing else */
	snprintf(args, sizeof(args), "--db %s status --max-age 8", db);
	CHECK_INT(run(args)->rc, 1);	/* bare seconds, as in mapperd.conf */
	static const char *const bad[] = { "0", "off", "8 d", "-1d", "1.5d", "500ms", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(args, sizeof(args), "--db %s status --max-age '%s'", db, bad[i]);
		r = run(args);
		CHECK_INT(r->rc, 2);
		CHECK(strstr(r->err, "--max-age wants a duration"), "%s: %s", bad[i], r->err);
	}
}

/* Issue 12, item 8: the first finding's COMMIT fails (a deferred foreign
 * key a trigger breaks, as a failing disk would make it fail); that one is
 * rolled back and reported, and the second is still resolved and recorded. */
static void test_resolve_failed_commit(void)
{
	char db[128], args[256], text[512];
	struct map_store *st = new_db("commit.db", db, sizeof(db));
	int64_t fs_id = add_fs(st, "/mnt/unit", "", "", "");
	int64_t bad = add_finding(st, fs_id, 131, "a.dat");
	int64_t good = add_finding(st, fs_id, 132, "b.dat");

	map_store_close(st);
	snprintf(text, sizeof(text),
		 "CREATE TABLE commit_fails (finding_id INTEGER REFERENCES findings(id) "
		 "  DEFERRABLE INITIALLY DEFERRED);"
		 "CREATE TRIGGER break_commit AFTER UPDATE OF state ON findings "
		 "  WHEN new.id = %lld BEGIN INSERT INTO commit_fails VALUES (-1); END;",
		 (long long)bad);
	sql(db, text);

	snprintf(args, sizeof(args), "--db %s resolve --note test %lld %lld", db, (long long)bad,
		 (long long)good);
	struct tl_run *r = run(args);
	CHECK_INT(r->rc, 2);
	CHECK(strstr(r->err, "finding #"), "the failure is reported: %s", r->err);
	snprintf(text, sizeof(text), "SELECT state = 'open' FROM findings WHERE id = %lld",
		 (long long)bad);
	CHECK_INT(sql_int(db, text), 1);
	snprintf(text, sizeof(text), "SELECT state = 'resolved' FROM findings WHERE id = %lld",
		 (long long)good);
	CHECK_INT(sql_int(db, text), 1);
	snprintf(text, sizeof(text), "SELECT count(*) FROM actions WHERE finding_id = %lld",
		 (long long)bad);
	CHECK_INT(sql_int(db, text), 0);
	snprintf(text, sizeof(text), "SELECT count(*) FROM actions WHERE finding_id = %lld "
		 "AND action = 'resolve'", (long long)good);
	CHECK_INT(sql_int(db, text), 1);
}

/* Issue 12, item 9: a disk address whose byte offset does not fit in 64
 * bits was multiplied by 512 and wrapped (2^55 sectors became byte 0). */
static void test_locate_wrap(void)
{
	char args[256];

	snprintf(args, sizeof(args), "--db %s/none.db locate / 36028797018963968", dir);
	struct tl_run *r = run(args);
	CHECK_INT(r->rc, 2);
	CHECK(strstr(r->err, "past the end of any device"), "stderr: %s", r->err);
	snprintf(args, sizeof(args), "--db %s/none.db locate / 18446744073709551615", dir);
	r = run(args);
	CHECK_INT(r->rc, 2);
	CHECK(strstr(r->err, "past the end of any device"), "stderr: %s", r->err);
}

/* Issue 12, item 9: sizes beyond long long (or not numbers at all) were
 * converted anyway, which is undefined. */
/* Issue 36: the next steps name the mount point as one shell word, so a
 * mount point with a space or a quote can be pasted. */
static void test_hints_quoted(void)
{
	char db[128], args[256];
	struct map_store *st = new_db("hints.db", db, sizeof(db));
	int64_t fs_id = add_fs(st, "/srv/my data", "", "", "");

	add_scan(st, fs_id, "complete", true, (int64_t)time(NULL) - 60);
	add_finding(st, fs_id, 131, "a.dat");
	map_store_close(st);
	snprintf(args, sizeof(args), "--db %s status", db);
	struct tl_run *r = run(args);
	CHECK_INT(r->rc, 1);
	CHECK(strstr(r->out, "mapctl refetch '/srv/my data' --from MIRROR"), "%s", r->out);
	CHECK(strstr(r->out, "mapctl scan '/srv/my data'"), "%s", r->out);
	CHECK(!strstr(r->out, "mapctl scan /srv/my data"), "an unquoted hint: %s", r->out);
}

/* Issue 36: an option error is one line, with the command's prefix and the
 * option named (getopt's own message came first, prefixed "files:"). */
static void test_option_errors(void)
{
	static const struct { const char *args, *says; } cases[] = {
		{ "files --bogus", "mapctl files: unknown option '--bogus' (see 'mapctl files --help')" },
		{ "status -q", "mapctl status: unknown option '-q' (see 'mapctl status --help')" },
		{ "metrics --output", "mapctl metrics: option '--output' needs a value (see "
		  "'mapctl metrics --help')" },
		{ "history --json=yes", "mapctl history: option '--json' takes no value (see "
		  "'mapctl history --help')" },
		{ "repair --bogus", "mapctl repair: unknown option '--bogus' (see "
		  "'mapctl repair --help')" },
		{ "repair --finding", "mapctl repair: option '--finding' needs a value (see "
		  "'mapctl repair --help')" },
		{ "refetch --from", "mapctl refetch: option '--from' needs a value (see "
		  "'mapctl refetch --help')" },
		/* The offline path takes a device, not a filesystem and findings. */
		{ "repair --offline", "mapctl repair: which device? (mapctl repair --offline "
		  "DEVICE, or --offline-plan PATH|DEVICE)" },
	};
	char args[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(args, sizeof(args), "--db %s/none.db %s", dir, cases[i].args);
		struct tl_run *r = run(args);
		char want[256];

		snprintf(want, sizeof(want), "%s\n", cases[i].says);
		CHECK_INT(r->rc, 2);
		CHECK_STR(r->err, want);
	}
}

static void add_action(struct map_store *st, int64_t fs_id, const char *action,
		       const char *outcome, const char *detail)
{
	struct map_action a = { .fs_id = fs_id, .at = 1700000000 };

	snprintf(a.action, sizeof(a.action), "%s", action);
	snprintf(a.user, sizeof(a.user), "root");
	snprintf(a.outcome, sizeof(a.outcome), "%s", outcome);
	snprintf(a.detail, sizeof(a.detail), "%s", detail);
	REQUIRE(map_store_action_add(st, &a) == 0, "action_add");
}

/* Issue 36: the offline path's rows ("xfs_repair -n", "overwrite") keep
 * history's columns, and a device names its filesystem as it does for
 * repair --offline (by the UUID in its superblock, or the device recorded). */
static void test_history(void)
{
	char db[128], args[512], node[128];
	struct map_store *st = new_db("history.db", db, sizeof(db));
	struct map_fs_info info;
	int64_t fs_id = 0;

	memset(&info, 0, sizeof(info));
	snprintf(node, sizeof(node), "%s/vdz", dir);
	/* A block device node of no device (loop minor 250): nothing to
	 * probe, so only the recorded name says which filesystem it is. */
	REQUIRE(mknod(node, S_IFBLK | 0600, makedev(7, 250)) == 0, "mknod %s", node);
	snprintf(info.uuid, sizeof(info.uuid), "6e1d4f8f-2b3c-4d4e-9fa0-1b2c3d4e5f60");
	snprintf(info.mountpoint, sizeof(info.mountpoint), "/srv/off");
	snprintf(info.device, sizeof(info.device), "%s", node);
	info.geo.blocksize = 4096;
	info.geo.agcount = 4;
	REQUIRE(map_store_fs_upsert(st, &info, &fs_id) == 0, "fs_upsert");
	add_action(st, fs_id, "scan", "complete", "metadata and media");
	add_action(st, fs_id, "overwrite", "overwritten", "offline: 2 sectors");
	add_action(st, fs_id, "xfs_repair -n", "not-clean", "offline: xfs_repair -n exited 1");
	add_action(st, fs_id, "xfs_repair", "done", "offline: xfs_repair exited 0");
	map_store_close(st);

	snprintf(args, sizeof(args), "--db %s history %s", db, node);
	struct tl_run *r = run(args);
	CHECK_INT(r->rc, 0);
	CHECK(r->err[0] == '\0', "history of a device: %s", r->err);
	CHECK(strstr(r->out, "xfs_repair -n"), "history of a device: %s", r->out);

	/* The outcome column starts at the same place on every row. */
	snprintf(args, sizeof(args), "--db %s history", db);
	r = run(args);
	CHECK_INT(r->rc, 0);
	const char *outcomes[] = { "complete", "overwritten", "not-clean", "done  " };
	long col = -1;
	for (size_t i = 0; i < 4; i++) {
		const char *at = strstr(r->out, outcomes[i]);
		const char *start = at;

		CHECK(at != NULL, "no %s in: %s", outcomes[i], r->out);
		if (!at)
			continue;
		while (start > r->out && start[-1] != '\n')
			start--;
		if (col < 0)
			col = at - start;
		CHECK(at - start == col, "'%s' at column %ld, not %ld:\n%s", outcomes[i],
		      (long)(at - start), col, r->out);
	}
}

/* Run mapctl as nobody (no groups) with @args. */
static struct tl_run *run_as_nobody(const char *args)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "setpriv --reuid=65534 --regid=65534 --clear-groups %s", mapctl);
	return sf_run_mapctl(cmd, dir, NULL, args);
}

/* Issue 36: a database a reader may read, whose -shm or -wal it may not (or
 * whose -shm it cannot make): the error names that file and why, and keeps
 * SQLite's own words; it said "no database ... yet" or "Read-only file
 * system" although the database is there. */
static void test_db_file_errors(void)
{
	char sub[128], db[160], wal[168], shm[168], args[256];
	struct map_store *st = NULL;

	snprintf(sub, sizeof(sub), "%s/shared", dir);
	REQUIRE(chmod(dir, 0755) == 0 && mkdir(sub, 0755) == 0, "folders");
	snprintf(db, sizeof(db), "%s/mapper.db", sub);
	snprintf(wal, sizeof(wal), "%s-wal", db);
	snprintf(shm, sizeof(shm), "%s-shm", db);
	REQUIRE(map_store_open(db, 0, &st) == 0, "open");
	add_fs(st, "/srv/shared", "", "", "");
	map_store_close(st);	/* -wal and -shm stay (SQLITE_FCNTL_PERSIST_WAL) */
	snprintf(args, sizeof(args), "--db %s status", db);

	REQUIRE(chmod(db, 0644) == 0 && chmod(wal, 0644) == 0 && chmod(shm, 0600) == 0, "modes");
	struct tl_run *r = run_as_nobody(args);
	CHECK_INT(r->rc, 2);
	CHECK(strstr(r->err, "mapper.db-shm") && strstr(r->err, "Permission denied"),
	      "unreadable -shm: %s", r->err);
	CHECK(!strstr(r->err, "no database") && !strstr(r->err, "Read-only file system"),
	      "unreadable -shm: %s", r->err);

	REQUIRE(chmod(wal, 0600) == 0 && chmod(shm, 0644) == 0, "modes");
	r = run_as_nobody(args);
	CHECK_INT(r->rc, 2);
	CHECK(strstr(r->err, "mapper.db-wal") && strstr(r->err, "Permission denied"),
	      "unreadable -wal: %s", r->err);
	CHECK(!strstr(r->err, "no database") && !strstr(r->err, "Read-only file system"),
	      "unreadable -wal: %s", r->err);

	/* No -shm, and a folder the reader cannot make one in. */
	REQUIRE(chmod(wal, 0644) == 0 && unlink(shm) == 0 && chmod(sub, 0555) == 0, "modes");
	r = run_as_nobody(args);
	CHECK_INT(r->rc, 2);
	CHECK(strstr(r->err, "mapper.db-shm") && strstr(r->err, "folder"),
	      "-shm that cannot be made: %s", r->err);
	CHECK(!strstr(r->err, "no database") && !strstr(r->err, "Read-only file system"),
	      "-shm that cannot be made: %s", r->err);
	REQUIRE(chmod(sub, 0755) == 0, "mode");
}

int main(int argc, char **argv)
{
	REQUIRE(argc == 2, "usage: test_mapctl PATH-TO-MAPCTL");
	mapctl = argv[1];
	tl_tmpdir(dir, sizeof(dir), "test_mapctl");
	CHECK_PART(test_status_escapes());
	CHECK_PART(test_status_max_age());
	CHECK_PART(test_resolve_failed_commit());
	CHECK_PART(test_locate_wrap());
	CHECK_PART(test_hints_quoted());
	CHECK_PART(test_option_errors());
	CHECK_PART(test_history());
	CHECK_PART(test_db_file_errors());
	return tl_done(dir);
}
