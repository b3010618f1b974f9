// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The store on a real SQLite file in a fresh folder: a finding for the
 * mount root (empty path) survives the round trip, the folder and the scan
 * lock refuse what another user could have planted, and a COMMIT that fails
 * leaves no transaction open behind it.
 */
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "map.h"

static char dir[64];

static char *path_in(const char *name)
{
	static char buf[8][256];
	static int next;
	char *p = buf[next++ % 8];

	snprintf(p, sizeof(buf[0]), "%s/%s", dir, name);
	return p;
}

static struct map_store *open_db(const char *path)
{
	struct map_store *st = NULL;
	int rc = map_store_open(path, 0, &st);

	REQUIRE(rc == 0, "map_store_open %s: %s", path, map_strerror(rc));
	return st;
}

static int64_t add_fs(struct map_store *st)
{
	struct map_fs_info info;
	int64_t fs_id = 0;

	memset(&info, 0, sizeof(info));
	snprintf(info.uuid, sizeof(info.uuid), "0b4ad0c4-59e3-4e0b-9f53-3c1d7c0a5e11");
	snprintf(info.mountpoint, sizeof(info.mountpoint), "/mnt/unit");
	info.geo.blocksize = 4096;
	info.geo.agcount = 4;
	REQUIRE(map_store_fs_upsert(st, &info, &fs_id) == 0, "fs_upsert");
	return fs_id;
}

static int64_t add_finding(struct map_store *st, int64_t fs_id, uint64_t ino, const char *path)
{
	struct map_finding f;

	map_finding_init(&f);
	f.fs_id = fs_id;
	snprintf(f.source, sizeof(f.source), "media");
	snprintf(f.kind, sizeof(f.kind), "dir");
	f.has_range = true;
	f.physical = ino * 4096;
	f.length = 4096;
	f.ino = ino;
	f.mode = 040755;
	REQUIRE(map_finding_add_path(&f, path) == 0, "add_path");
	REQUIRE(map_store_finding_record(st, 0, &f, NULL) == 0, "finding_record");
	map_finding_clear(&f);
	return f.id;
}

struct seen {
	int n;
	size_t npaths;
	char path[64];
};

static int collect(const struct map_finding *f, void *arg)
{
	struct seen *s = arg;

	s->n++;
	s->npaths = f->npaths;
	if (f->npaths)
		snprintf(s->path, sizeof(s->path), "%s", f->paths[0]);
	return 0;
}

/* Issue 12, item 7: the mount root's path is "", stored as an empty blob,
 * which SQLite reads back as NULL. */
static void test_root_path(void)
{
	struct map_store *st = open_db(path_in("root.db"));
	int64_t fs_id = add_fs(st);
	struct seen s = { 0 };
	struct map_finding got;

	add_finding(st, fs_id, 128, "");
	CHECK_INT(map_store_findings(st, fs_id, 0, collect, &s), 0);
	CHECK_INT(s.n, 1);
	CHECK_INT(s.npaths, 1);
	CHECK_STR(s.path, "");
	int64_t id = add_finding(st, fs_id, 131, "");
	CHECK_INT(map_store_finding_get(st, id, &got), 0);
	CHECK_INT(got.npaths, 1);
	CHECK_STR(got.npaths ? got.paths[0] : "(none)", "");
	map_finding_clear(&got);
	map_store_close(st);
}

/* Issue 12, item 9: a folder someone else can write to, or someone else's
 * folder, is refused; a sticky one like /tmp is fine. */
static void test_unsafe_folder(void)
{
	struct map_store *st = NULL;
	char *open_dir = path_in("open"), *sticky = path_in("sticky"), *theirs = path_in("theirs");
	char db[300];

	REQUIRE(mkdir(open_dir, 0755) == 0 && chmod(open_dir, 0777) == 0, "mkdir %s", open_dir);
	snprintf(db, sizeof(db), "%s/m.db", open_dir);
	CHECK_INT(map_store_open(db, 0, &st), -EPERM);
	CHECK(access(db, F_OK) != 0, "nothing created in a world-writable folder");
	map_store_close(st);
	st = NULL;

	REQUIRE(chmod(open_dir, 0775) == 0, "chmod");
	CHECK_INT(map_store_open(db, 0, &st), -EPERM);	/* group-writable */
	map_store_close(st);
	st = NULL;

	REQUIRE(mkdir(sticky, 0755) == 0 && chmod(sticky, 01777) == 0, "mkdir %s", sticky);
	snprintf(db, sizeof(db), "%s/m.db", sticky);
	CHECK_INT(map_store_open(db, 0, &st), 0);
	map_store_close(st);
	st = NULL;

	/* A missing folder is made, mode 0755. */
	struct stat sb;
	snprintf(db, sizeof(db), "%s/m.db", path_in("new"));
	CHECK_INT(map_store_open(db, 0, &st), 0);
	map_store_close(st);
	st = NULL;
	CHECK(stat(path_in("new"), &sb) == 0 && (sb.st_mode & 07777) == 0755, "new folder 0755");

	if (geteuid() == 0) {
		/* Someone else's folder, even with a safe mode. */
		REQUIRE(mkdir(theirs, 0755) == 0 && chown(theirs, 65534, 65534) == 0, "chown");
		snprintf(db, sizeof(db), "%s/m.db", theirs);
		CHECK_INT(map_store_open(db, 0, &st), -EPERM);
		map_store_close(st);
		st = NULL;
		/* Someone else's database file in a sticky folder. */
		snprintf(db, sizeof(db), "%s/planted.db", sticky);
		int fd = open(db, O_CREAT | O_WRONLY, 0666);
		REQUIRE(fd >= 0 && fchown(fd, 65534, 65534) == 0, "plant %s", db);
		close(fd);
		CHECK_INT(map_store_open(db, 0, &st), -EPERM);
		map_store_close(st);
	} else {
		printf("not root: the checks of other owners need chown and did not run\n");
	}
}

/* Issue 12, item 9: the scan lock is never opened through a symbolic link
 * (it was truncated and overwritten with our pid). */
static void test_lock_symlink(void)
{
	const char *uuid = "0b4ad0c4-59e3-4e0b-9f53-3c1d7c0a5e11";
	char *db = path_in("lock.db"), *victim = path_in("precious"), lock[300];
	struct map_store *st = open_db(db);
	char buf[32] = "";
	int fd, holder = 0;

	fd = open(victim, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	REQUIRE(fd >= 0 && write(fd, "precious data\n", 14) == 14, "write %s", victim);
	close(fd);
	snprintf(lock, sizeof(lock), "%s.%s.lock", db, uuid);
	REQUIRE(symlink(victim, lock) == 0, "symlink %s", lock);

	fd = map_scan_lock(st, uuid, &holder);
	CHECK(fd < 0, "map_scan_lock through a symlink gave fd %d", fd);
	if (fd >= 0)
		close(fd);
	fd = open(victim, O_RDONLY);
	REQUIRE(fd >= 0, "open %s", victim);
	CHECK(read(fd, buf, sizeof(buf) - 1) == 14, "victim keeps its length");
	close(fd);
	CHECK_STR(buf, "precious data\n");

	/* A plain lock file works and is exclusive. */
	unlink(lock);
	fd = map_scan_lock(st, uuid, &holder);
	CHECK(fd >= 0, "map_scan_lock: %s", fd < 0 ? map_strerror(fd) : "ok");
	CHECK_INT(map_scan_lock(st, uuid, &holder), -EBUSY);
	CHECK_INT(holder, getpid());
	if (fd >= 0)
		close(fd);
	map_store_close(st);
}

/* Issue 12, item 8: a COMMIT that fails (here a deferred foreign key that
 * a trigger breaks, as a failing disk would) is rolled back, so the next
 * transaction can start and nothing half-done stays. */
static void test_failed_commit(void)
{
	char *db = path_in("commit.db");
	struct map_store *st = open_db(db);
	int64_t fs_id = add_fs(st);
	int64_t bad = add_finding(st, fs_id, 128, "a"), good = add_finding(st, fs_id, 131, "b");
	struct map_finding f;
	sqlite3 *raw;
	char sql[512];

	REQUIRE(sqlite3_open(db, &raw) == SQLITE_OK, "sqlite3_open");
	snprintf(sql, sizeof(sql),
		 "CREATE TABLE commit_fails (finding_id INTEGER REFERENCES findings(id) "
		 "  DEFERRABLE INITIALLY DEFERRED);"
		 "CREATE TRIGGER break_commit AFTER UPDATE OF state ON findings "
		 "  WHEN new.id = %lld BEGIN INSERT INTO commit_fails VALUES (-1); END;",
		 (long long)bad);
	REQUIRE(sqlite3_exec(raw, sql, NULL, NULL, NULL) == SQLITE_OK, "%s", sqlite3_errmsg(raw));
	sqlite3_close(raw);

	CHECK_INT(map_store_begin(st), 0);
	CHECK_INT(map_store_finding_set_state(st, bad, MAP_STATE_RESOLVED), 0);
	CHECK(map_store_commit(st) != 0, "the COMMIT fails");
	/* Nothing may be left open: the next transaction starts and commits. */
	CHECK_INT(map_store_begin(st), 0);
	CHECK_INT(map_store_finding_set_state(st, good, MAP_STATE_RESOLVED), 0);
	CHECK_INT(map_store_commit(st), 0);
	map_store_close(st);

	st = open_db(db);
	CHECK_INT(map_store_finding_get(st, bad, &f), 0);
	CHECK_STR(map_state_name(f.state), "open");
	map_finding_clear(&f);
	CHECK_INT(map_store_finding_get(st, good, &f), 0);
	CHECK_STR(map_state_name(f.state), "resolved");
	map_finding_clear(&f);
	map_store_close(st);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/test_store.XXXXXX");
	REQUIRE(mkdtemp(dir), "mkdtemp");
	test_root_path();
	test_unsafe_folder();
	test_lock_symlink();
	test_failed_commit();
	int rc = check_done();
	if (rc == 0) {
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", dir);
	}
	return rc;
}
