// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The store on a real SQLite file in a fresh folder: a finding for the
 * mount root (empty path) survives the round trip, the folder and the scan
 * lock refuse what another user could have planted, and a COMMIT that fails
 * leaves no transaction open behind it.  One finding per damaged object
 * (issue 16): media, scrub and event sightings of one object are one finding
 * with its evidence, a scan resolves only what it re-checked, and a schema-1
 * database is merged the same way when it is opened.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "map.h"
#include "map_testing.h"
#include "store_fixture.h"
#include "testlib.h"
#include "xfs_abi.h"

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
	return sf_add_finding(st, fs_id, "dir", ino, 040755, path);
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

static void *commit_later(void *raw)
{
	tl_sleep(0.3);
	sqlite3_exec(raw, "COMMIT", NULL, NULL, NULL);
	return NULL;
}

/* A transaction that must not wait: with another connection holding the
 * write lock, map_store_begin_nowait() fails at once (not after the busy
 * timeout) and leaves the connection usable; the busy timeout is back for
 * the next map_store_begin(). */
static void test_begin_nowait(void)
{
	char *db = path_in("nowait.db");
	struct map_store *st = open_db(db);
	sqlite3 *raw;
	double t0;
	int rc;

	REQUIRE(sqlite3_open(db, &raw) == SQLITE_OK, "sqlite3_open");
	REQUIRE(sqlite3_exec(raw, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK, "%s",
		sqlite3_errmsg(raw));
	t0 = tl_mono();
	rc = map_store_begin_nowait(st);
	CHECK(rc != 0, "BEGIN fails while another connection writes");
	CHECK(tl_mono() - t0 < 2.0, "at once, not after the busy timeout (%.3f s)",
	      tl_mono() - t0);
	sqlite3_exec(raw, "COMMIT", NULL, NULL, NULL);
	CHECK_INT(map_store_begin_nowait(st), 0);
	map_store_rollback(st);
	/* The busy timeout is restored: a begin waits out a short hold. */
	REQUIRE(sqlite3_exec(raw, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK, "%s",
		sqlite3_errmsg(raw));
	pthread_t t;

	REQUIRE(pthread_create(&t, NULL, commit_later, raw) == 0, "pthread_create");
	CHECK_INT(map_store_begin(st), 0);
	map_store_rollback(st);
	pthread_join(t, NULL);
	sqlite3_close(raw);
	map_store_close(st);
}

/* ---- one finding per damaged object ---- */

static int count_one(const struct map_finding *f, void *arg)
{
	(void)f;
	(*(int *)arg)++;
	return 0;
}

static int count_findings(struct map_store *st, int64_t fs_id, unsigned int filter)
{
	int n = 0;

	CHECK_INT(map_store_findings(st, fs_id, filter, count_one, &n), 0);
	return n;
}

struct evidence_list {
	int n;
	struct map_evidence v[8];
};

static int collect_evidence(const struct map_evidence *e, void *arg)
{
	struct evidence_list *l = arg;

	if (l->n < 8)
		l->v[l->n] = *e;
	l->n++;
	return 0;
}

static int evidence_of(struct map_store *st, int64_t id, struct evidence_list *l)
{
	memset(l, 0, sizeof(*l));
	CHECK_INT(map_store_finding_evidence(st, id, collect_evidence, l), 0);
	return l->n;
}

static struct map_owner owner(enum map_owner_kind kind, uint64_t ino, uint32_t agno,
			      uint64_t physical, uint32_t scrub0, uint32_t scrub1)
{
	struct map_owner o;

	memset(&o, 0, sizeof(o));
	o.kind = kind;
	o.ino = ino;
	o.agno = agno;
	o.physical = physical;
	o.length = 4096;
	o.mode = ino ? 0100644 : 0;
	o.scrub[o.nr_scrub++] = scrub0;
	if (scrub1 != UINT32_MAX)
		o.scrub[o.nr_scrub++] = scrub1;
	return o;
}

/* Record a sighting; its finding id, *is_new whether it made one. */
static int64_t sight(struct map_store *st, int64_t scan_id, struct map_finding *f, bool *is_new)
{
	bool fresh = false;
	int rc = map_store_finding_record(st, scan_id, f, &fresh);

	CHECK(rc == 0, "finding_record: %s", map_strerror(rc));
	if (is_new)
		*is_new = fresh;
	int64_t id = f->id;
	map_finding_clear(f);
	return id;
}

static int64_t sight_scrub(struct map_store *st, int64_t fs_id, int64_t scan_id, uint32_t type,
			   uint32_t agno, uint64_t ino, int error, int64_t when, bool *is_new)
{
	struct map_scrub_result r = { .type = type, .agno = agno, .ino = ino, .gen = 7,
				      .oflags = error ? 0 : XFS_SCRUB_OFLAG_CORRUPT,
				      .error = error };
	struct map_finding f;

	map_finding_from_scrub(&f, &r);
	f.fs_id = fs_id;
	f.last_seen = when;
	return sight(st, scan_id, &f, is_new);
}

static int64_t sight_owner(struct map_store *st, int64_t fs_id, int64_t scan_id,
			   enum map_finding_source source, struct map_owner o, int64_t when,
			   bool *is_new)
{
	struct map_finding f;

	map_finding_from_owner(&f, source, &o, NULL);
	f.fs_id = fs_id;
	f.last_seen = when;
	return sight(st, scan_id, &f, is_new);
}

static int64_t add_scan(struct map_store *st, int64_t fs_id, int64_t started)
{
	struct map_scan_row row;

	memset(&row, 0, sizeof(row));
	row.fs_id = fs_id;
	row.state = MAP_SCAN_RUNNING;
	row.phase = MAP_SCAN_PHASE_METADATA;
	row.do_metadata = row.do_media = true;
	row.started = started;
	row.runs = 1;
	REQUIRE(map_store_scan_insert(st, &row) == 0, "scan_insert");
	return row.id;
}

static const char *state_of(struct map_store *st, int64_t id)
{
	static char buf[4][16];
	static int next;
	char *b = buf[next++ % 4];
	struct map_finding f;

	snprintf(b, sizeof(buf[0]), "?");
	if (map_store_finding_get(st, id, &f) == 0)
		snprintf(b, sizeof(buf[0]), "%s", map_state_name(f.state));
	map_finding_clear(&f);
	return b;
}

/* An unreadable inode: the inode scrub fails with EIO (metadata phase
 * first), then the media read finds its cluster: one finding, two pieces
 * of evidence, the media range kept as where it is. */
static void test_inode_media_and_scrub(void)
{
	struct map_store *st = open_db(path_in("inode.db"));
	int64_t fs_id = add_fs(st);
	struct evidence_list ev;
	struct map_finding f;
	bool is_new = false;

	int64_t a = sight_scrub(st, fs_id, 0, XFS_SCRUB_TYPE_INODE, 0, 515, -EIO, 0, &is_new);
	CHECK(is_new, "the scrub sighting makes the finding");
	int64_t b = sight_owner(st, fs_id, 0, MAP_SOURCE_MEDIA,
				owner(MAP_OWNER_INODE, 515, 0, 1 << 20, XFS_SCRUB_TYPE_INODE,
				      UINT32_MAX), 0, &is_new);
	CHECK(!is_new, "the media sighting of the same inode is not a new finding");
	CHECK_INT(b, a);
	CHECK_INT(count_findings(st, fs_id, MAP_FIND_ALL), 1);
	CHECK_INT(evidence_of(st, a, &ev), 2);
	CHECK_INT(ev.v[0].source, MAP_SOURCE_SCRUB);
	CHECK_STR(ev.v[0].scrub, "inode");
	CHECK(!ev.v[0].has_range, "scrub evidence has no device range");
	CHECK(strstr(ev.v[0].detail, "error: ") == ev.v[0].detail, "scrub detail '%s'",
	      ev.v[0].detail);
	CHECK_INT(ev.v[1].source, MAP_SOURCE_MEDIA);
	CHECK(ev.v[1].has_range && ev.v[1].physical == 1 << 20 && ev.v[1].length == 4096,
	      "media evidence keeps its range");
	REQUIRE(map_store_finding_get(st, a, &f) == 0, "finding_get");
	CHECK_STR(f.kind, "inode");
	CHECK_INT(f.source, MAP_SOURCE_MEDIA);	/* the most direct evidence */
	CHECK_STR(f.scrub, "inode");
	CHECK(f.has_range && f.physical == 1 << 20, "the finding knows where it is");
	CHECK_INT(f.mode, 0100644);
	map_finding_clear(&f);

	/* Seen again by both: still one finding, still two pieces. */
	sight_scrub(st, fs_id, 0, XFS_SCRUB_TYPE_INODE, 0, 515, -EIO, 0, NULL);
	sight_owner(st, fs_id, 0, MAP_SOURCE_MEDIA,
		    owner(MAP_OWNER_INODE, 515, 0, 1 << 20, XFS_SCRUB_TYPE_INODE, UINT32_MAX), 0,
		    NULL);
	CHECK_INT(count_findings(st, fs_id, MAP_FIND_ALL), 1);
	CHECK_INT(evidence_of(st, a, &ev), 2);
	/* Its extent map is another object (rebuilt after the inode). */
	int64_t c = sight_scrub(st, fs_id, 0, XFS_SCRUB_TYPE_BMBTD, 0, 515, 0, 0, NULL);
	CHECK(c != a, "the extent map is its own finding");
	map_store_close(st);
}

/* An inode btree block of AG 1 that cannot be read: inobt and finobt both
 * fail, the media read names the block: one finding for AG 1's inode
 * btrees with both scrub types; AG 2's are another. */
static void test_ag_inode_btrees(void)
{
	struct map_store *st = open_db(path_in("inobt.db"));
	int64_t fs_id = add_fs(st);
	struct evidence_list ev;
	struct map_finding f;

	int64_t a = sight_scrub(st, fs_id, 0, XFS_SCRUB_TYPE_INOBT, 1, 0, -EIO, 0, NULL);
	int64_t b = sight_scrub(st, fs_id, 0, XFS_SCRUB_TYPE_FINOBT, 1, 0, 0, 0, NULL);
	int64_t c = sight_owner(st, fs_id, 0, MAP_SOURCE_MEDIA,
				owner(MAP_OWNER_INOBT, 0, 1, 300 << 20, XFS_SCRUB_TYPE_INOBT,
				      XFS_SCRUB_TYPE_FINOBT), 0, NULL);
	CHECK(a == b && b == c, "one finding: %lld %lld %lld", (long long)a, (long long)b,
	      (long long)c);
	CHECK_INT(count_findings(st, fs_id, MAP_FIND_ALL), 1);
	CHECK_INT(evidence_of(st, a, &ev), 3);
	CHECK_STR(ev.v[2].scrub, "inobt,finobt");
	REQUIRE(map_store_finding_get(st, a, &f) == 0, "finding_get");
	CHECK_STR(f.kind, "inode-btrees");
	CHECK_STR(f.scrub, "inobt,finobt");
	CHECK_INT(f.agno, 1);
	CHECK_INT(f.source, MAP_SOURCE_MEDIA);
	map_finding_clear(&f);
	CHECK(sight_scrub(st, fs_id, 0, XFS_SCRUB_TYPE_INOBT, 2, 0, -EIO, 0, NULL) != a,
	      "AG 2's inode btrees are another finding");
	/* AG headers: the sectors of one AG are one object. */
	int64_t h = sight_scrub(st, fs_id, 0, XFS_SCRUB_TYPE_AGF, 1, 0, 0, 0, NULL);
	CHECK_INT(sight_scrub(st, fs_id, 0, XFS_SCRUB_TYPE_AGI, 1, 0, 0, 0, NULL), h);
	CHECK_INT(count_findings(st, fs_id, MAP_FIND_METADATA), 3);
	map_store_close(st);
}

/* The parent check of a plain file is about its parent pointers: kind
 * parent, not directory, and not the same object as a directory's
 * entries; a damaged directory's blocks and its dir/dirtree checks are one. */
static void test_parent_kind(void)
{
	struct map_store *st = open_db(path_in("parent.db"));
	int64_t fs_id = add_fs(st);
	struct map_finding f;

	int64_t p = sight_scrub(st, fs_id, 0, XFS_SCRUB_TYPE_PARENT, 0, 700, 0, 0, NULL);
	REQUIRE(map_store_finding_get(st, p, &f) == 0, "finding_get");
	CHECK_STR(f.kind, "parent");
	CHECK_STR(f.scrub, "parent");
	map_finding_clear(&f);

	int64_t d = sight_scrub(st, fs_id, 0, XFS_SCRUB_TYPE_DIR, 0, 800, 0, 0, NULL);
	CHECK_INT(sight_scrub(st, fs_id, 0, XFS_SCRUB_TYPE_DIRTREE, 0, 800, 0, 0, NULL), d);
	struct map_owner o = owner(MAP_OWNER_DIR, 800, 0, 5 << 20, XFS_SCRUB_TYPE_DIR, UINT32_MAX);
	o.mode = 040755;
	CHECK_INT(sight_owner(st, fs_id, 0, MAP_SOURCE_MEDIA, o, 0, NULL), d);
	int64_t dp = sight_scrub(st, fs_id, 0, XFS_SCRUB_TYPE_PARENT, 0, 800, 0, 0, NULL);
	CHECK(dp != d, "a directory's dotdot is its own finding");
	REQUIRE(map_store_finding_get(st, d, &f) == 0, "finding_get");
	CHECK_STR(f.kind, "directory");
	CHECK_STR(f.scrub, "directory,dirtree");
	CHECK(f.has_offset && f.offset == 0 && f.has_range, "directory block located");
	CHECK_STR(f.fork, "data");
	map_finding_clear(&f);
	REQUIRE(map_store_finding_get(st, dp, &f) == 0, "finding_get");
	CHECK_STR(f.kind, "parent");
	map_finding_clear(&f);
	/* Two bad ranges of one file's data stay two findings. */
	int64_t d1 = sight_owner(st, fs_id, 0, MAP_SOURCE_MEDIA,
				 owner(MAP_OWNER_FILE, 900, 0, 8 << 20, 0, UINT32_MAX), 0, NULL);
	int64_t d2 = sight_owner(st, fs_id, 0, MAP_SOURCE_MEDIA,
				 owner(MAP_OWNER_FILE, 900, 0, 9 << 20, 0, UINT32_MAX), 0, NULL);
	CHECK(d1 != d2, "two data ranges, two findings");
	CHECK_INT(sight_owner(st, fs_id, 0, MAP_SOURCE_EVENT,
			      owner(MAP_OWNER_FILE, 900, 0, 8 << 20, 0, UINT32_MAX), 0, NULL), d1);
	map_store_close(st);
}

/* What a complete scan resolves: findings it re-checked all the evidence
 * of and saw none of again. */
static void test_resolution(void)
{
	struct map_store *st = open_db(path_in("resolve.db"));
	int64_t fs_id = add_fs(st);
	int64_t t = (int64_t)time(NULL);
	int64_t old = add_scan(st, fs_id, t - 2000), scan = add_scan(st, fs_id, t - 100);
	int64_t before = t - 1000;
	int n = -1;

	/* Findings seen by the old scan or by mapperd before this scan. */
	int64_t scrub_only = sight_scrub(st, fs_id, old, XFS_SCRUB_TYPE_AGF, 0, 0, 0, before, NULL);
	int64_t media_only = sight_owner(st, fs_id, old, MAP_SOURCE_MEDIA,
					 owner(MAP_OWNER_FILE, 131, 0, 1 << 20, 0, UINT32_MAX),
					 before, NULL);
	int64_t both = sight_scrub(st, fs_id, old, XFS_SCRUB_TYPE_INOBT, 1, 0, -EIO, before, NULL);
	sight_owner(st, fs_id, old, MAP_SOURCE_MEDIA, owner(MAP_OWNER_INOBT, 0, 1, 300 << 20,
						   XFS_SCRUB_TYPE_INOBT, UINT32_MAX), before, NULL);
	int64_t event_range = sight_owner(st, fs_id, 0, MAP_SOURCE_EVENT,
					  owner(MAP_OWNER_FILE, 132, 0, 2 << 20, 0, UINT32_MAX),
					  before, NULL);
	struct map_finding f;
	struct map_scrub_result r = { .type = XFS_SCRUB_TYPE_XATTR, .ino = 133,
				      .oflags = XFS_SCRUB_OFLAG_CORRUPT };
	map_finding_from_scrub(&f, &r);
	f.source = MAP_SOURCE_EVENT;
	f.fs_id = fs_id;
	f.last_seen = before;
	int64_t event_scrub = sight(st, 0, &f, NULL);
	/* An event that named neither a range nor a scrub type. */
	map_finding_init(&f);
	f.source = MAP_SOURCE_EVENT;
	snprintf(f.kind, sizeof(f.kind), "inode");
	f.fs_id = fs_id;
	f.ino = 134;
	f.last_seen = before;
	int64_t event_bare = sight(st, 0, &f, NULL);
	int64_t seen_again = sight_scrub(st, fs_id, old, XFS_SCRUB_TYPE_AGI, 3, 0, 0, before, NULL);
	int64_t ignored = sight_scrub(st, fs_id, old, XFS_SCRUB_TYPE_AGF, 2, 0, 0, before, NULL);
	CHECK_INT(map_store_finding_set_state(st, ignored, MAP_STATE_IGNORED), 0);
	int64_t repaired = sight_scrub(st, fs_id, old, XFS_SCRUB_TYPE_SB, 1, 0, 0, before, NULL);
	CHECK_INT(map_store_finding_set_state(st, repaired, MAP_STATE_REPAIRED), 0);
	/* Overwritten with zeros by repair --offline: no scan may close it. */
	int64_t zeroed = sight_owner(st, fs_id, old, MAP_SOURCE_MEDIA,
				     owner(MAP_OWNER_FILE, 136, 0, 4 << 20, 0, UINT32_MAX),
				     before, NULL);
	CHECK_INT(map_store_finding_set_state(st, zeroed, MAP_STATE_ZEROED), 0);

	/* This scan's metadata pass sees one again; mapperd reports another
	 * file while the scan runs. */
	sight_scrub(st, fs_id, scan, XFS_SCRUB_TYPE_AGI, 3, 0, 0, 0, NULL);
	int64_t during = sight_owner(st, fs_id, 0, MAP_SOURCE_EVENT,
				     owner(MAP_OWNER_FILE, 135, 0, 3 << 20, 0, UINT32_MAX), 0, NULL);

	/* The metadata pass is complete: what only scrub showed, and scrub
	 * no longer shows, is resolved; bad ranges wait for the media pass. */
	CHECK_INT(map_store_resolve_unseen(st, fs_id, scan, MAP_COVER_METADATA, &n), 0);
	CHECK_INT(n, 3);
	CHECK_STR(state_of(st, scrub_only), "resolved");
	CHECK_STR(state_of(st, event_scrub), "resolved");
	CHECK_STR(state_of(st, repaired), "resolved");
	CHECK_STR(state_of(st, media_only), "open");
	CHECK_STR(state_of(st, both), "open");
	CHECK_STR(state_of(st, event_range), "open");
	CHECK_STR(state_of(st, seen_again), "open");
	CHECK_STR(state_of(st, ignored), "ignored");

	/* A media-only scan re-reads ranges, not scrub results: the inode
	 * btrees' scrub evidence keeps that finding open. */
	CHECK_INT(map_store_resolve_unseen(st, fs_id, scan, MAP_COVER_MEDIA, &n), 0);
	CHECK_INT(n, 2);
	CHECK_STR(state_of(st, media_only), "resolved");
	CHECK_STR(state_of(st, event_range), "resolved");
	CHECK_STR(state_of(st, both), "open");

	/* Both passes: the inode btrees too; never what was seen during the
	 * scan, nor what no scan can check, nor what is ignored. */
	CHECK_INT(map_store_resolve_unseen(st, fs_id, scan, MAP_COVER_MEDIA | MAP_COVER_METADATA,
					   &n), 0);
	CHECK_INT(n, 1);
	CHECK_STR(state_of(st, both), "resolved");
	CHECK_STR(state_of(st, during), "open");
	CHECK_STR(state_of(st, event_bare), "open");
	CHECK_STR(state_of(st, seen_again), "open");
	CHECK_STR(state_of(st, ignored), "ignored");
	CHECK_STR(state_of(st, zeroed), "zeroed");

	/* Seen again: a resolved finding opens, an ignored one stays ignored,
	 * a zeroed one stays zeroed. */
	sight_scrub(st, fs_id, 0, XFS_SCRUB_TYPE_INOBT, 1, 0, -EIO, 0, NULL);
	CHECK_STR(state_of(st, both), "open");
	sight_scrub(st, fs_id, 0, XFS_SCRUB_TYPE_AGF, 2, 0, 0, 0, NULL);
	CHECK_STR(state_of(st, ignored), "ignored");
	sight_owner(st, fs_id, 0, MAP_SOURCE_MEDIA,
		    owner(MAP_OWNER_FILE, 136, 0, 4 << 20, 0, UINT32_MAX), 0, NULL);
	CHECK_STR(state_of(st, zeroed), "zeroed");

	/* It counts as open, and is listed with the open ones. */
	int counts[MAP_STATE_NR];
	CHECK_INT(map_store_count(st, fs_id, counts), 0);
	CHECK_INT(counts[MAP_STATE_ZEROED], 1);
	CHECK_INT(map_counts_open(counts), counts[MAP_STATE_OPEN] + 1);
	CHECK_INT(count_findings(st, fs_id, 0), map_counts_open(counts));
	map_store_close(st);
}

/* ---- migration from schema 1 ---- */

static void exec_raw(sqlite3 *db, const char *sql)
{
	char *err = NULL;

	REQUIRE(sqlite3_exec(db, sql, NULL, NULL, &err) == SQLITE_OK, "%s: %s", sql,
		err ? err : "?");
}

/* A schema-1 database as the previous release left it: an unreadable inode
 * as two findings, a directory as three (its block, dir, and parent with
 * kind directory), AG 1's inode btrees as three, a file's data as one;
 * paths on several, actions on some. */
static void make_schema1(const char *path)
{
	sqlite3 *db;

	REQUIRE(map_migrations[0].version == 1, "migration 1 first");
	unlink(path);
	REQUIRE(sqlite3_open(path, &db) == SQLITE_OK, "sqlite3_open %s", path);
	exec_raw(db, map_migrations[0].sql);
	exec_raw(db, "PRAGMA user_version = 1; PRAGMA application_id = 1296126034;");
	exec_raw(db,
		"INSERT INTO filesystems (id, uuid, first_seen, last_seen) VALUES (1, 'u', 1, 1);"
		"INSERT INTO scans (id, fs_id, state, do_metadata, do_media, started) "
		"  VALUES (1, 1, 'complete', 1, 1, 100), (2, 1, 'complete', 1, 1, 200);"
		"INSERT INTO findings (id, fs_id, fkey, source, kind, physical, length, ino, gen, mode, "
		"  fork, offset, agno, flags, scrub, detail, state, first_seen, last_seen, first_scan, "
		"  last_scan) VALUES "
		"(1, 1, 'media|inode|inode|500', 'media', 'inode', 1048576, 512, 500, 3, 33188, '', "
		"  NULL, 0, 0, 'inode', '', 'repaired', 110, 120, 1, 1),"
		"(2, 1, 'scrub|inode|inode|500', 'scrub', 'inode', NULL, NULL, 500, 3, 0, '', NULL, "
		"  NULL, 0, 'inode', 'error: Input/output error', 'open', 105, 210, 1, 2),"
		"(3, 1, 'scrub|directory|parent|600', 'scrub', 'directory', NULL, NULL, 600, 4, 0, "
		"  '', NULL, NULL, 0, 'parent', 'corrupt', 'open', 105, 205, 1, 2),"
		"(4, 1, 'scrub|directory|directory|600', 'scrub', 'directory', NULL, NULL, 600, 4, 0, "
		"  '', NULL, NULL, 0, 'directory', 'corrupt', 'open', 105, 205, 1, 2),"
		"(5, 1, 'media|directory|directory|600', 'media', 'directory', 2097152, 4096, 600, 4, "
		"  16877, 'data', 0, 0, 0, 'directory', '', 'open', 110, 210, 1, 2),"
		"(6, 1, 'scrub|inode-btrees|inobt|1', 'scrub', 'inode-btrees', NULL, NULL, NULL, NULL, "
		"  NULL, '', NULL, 1, 0, 'inobt', 'error: Input/output error', 'open', 105, 205, 1, 2),"
		"(7, 1, 'scrub|inode-btrees|finobt|1', 'scrub', 'inode-btrees', NULL, NULL, NULL, "
		"  NULL, NULL, '', NULL, 1, 0, 'finobt', 'corrupt', 'open', 105, 205, 1, 2),"
		"(8, 1, 'media|inode-btrees|1', 'media', 'inode-btrees', 314572800, 4096, NULL, NULL, "
		"  NULL, '', NULL, 1, 2, 'inobt,finobt', '', 'ignored', 110, 210, 1, 2),"
		"(9, 1, 'media|file|700', 'media', 'file', 3145728, 4096, 700, 5, 33188, 'data', "
		"  131072, 0, 0, '', '', 'open', 110, 210, 1, 2);"
		"INSERT INTO finding_paths (finding_id, path) VALUES (1, X'612F62'), (2, X'612F62'), "
		"  (2, X'63'), (5, X'64'), (9, X'66');"
		"INSERT INTO actions (id, fs_id, finding_id, at, action, outcome) VALUES "
		"  (1, 1, 2, 300, 'repair', 'failed'), (2, 1, 7, 300, 'repair', 'unsupported'), "
		"  (3, 1, 9, 300, 'ignore', '');");
	sqlite3_close(db);
}

static int64_t action_finding(const char *db, int action_id)
{
	sqlite3 *raw;
	sqlite3_stmt *stmt;
	int64_t id = -1;
	char sql[96];

	REQUIRE(sqlite3_open_v2(db, &raw, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK, "open");
	snprintf(sql, sizeof(sql), "SELECT finding_id FROM actions WHERE id = %d", action_id);
	if (sqlite3_prepare_v2(raw, sql, -1, &stmt, NULL) == SQLITE_OK) {
		if (sqlite3_step(stmt) == SQLITE_ROW)
			id = sqlite3_column_int64(stmt, 0);
		sqlite3_finalize(stmt);
	}
	sqlite3_close(raw);
	return id;
}

static void test_migration(void)
{
	char *db = path_in("schema1.db");
	struct evidence_list ev;
	struct map_finding f;
	bool is_new = true;

	make_schema1(db);
	struct map_store *st = open_db(db);
	CHECK_INT(map_store_version(st), map_migrations[map_migration_count - 1].version);
	CHECK_INT(count_findings(st, 1, MAP_FIND_ALL), 5);

	/* The inode: the oldest id survives, open (one was), media, both paths. */
	REQUIRE(map_store_finding_get(st, 1, &f) == 0, "inode finding 1 survives");
	CHECK_STR(f.kind, "inode");
	CHECK_STR(map_state_name(f.state), "open");
	CHECK_INT(f.source, MAP_SOURCE_MEDIA);
	CHECK_STR(f.scrub, "inode");
	CHECK(f.has_range && f.physical == 1048576, "media range kept");
	CHECK_INT(f.first_seen, 105);
	CHECK_INT(f.last_seen, 210);
	CHECK_INT(f.last_scan, 2);
	CHECK_INT(f.npaths, 2);
	map_finding_clear(&f);
	CHECK_INT(evidence_of(st, 1, &ev), 2);
	CHECK_STR(ev.v[1].detail, "error: Input/output error");
	CHECK_INT(map_store_finding_get(st, 2, &f), -ENOENT);

	/* The parent check of 600 is kind parent now, apart from its entries. */
	REQUIRE(map_store_finding_get(st, 3, &f) == 0, "parent finding 3");
	CHECK_STR(f.kind, "parent");
	map_finding_clear(&f);
	REQUIRE(map_store_finding_get(st, 4, &f) == 0, "directory finding 4");
	CHECK_STR(f.kind, "directory");
	CHECK_INT(f.source, MAP_SOURCE_MEDIA);
	CHECK(f.has_range && f.physical == 2097152 && f.has_offset && f.offset == 0,
	      "directory block from the merged media finding");
	CHECK_STR(f.fork, "data");
	CHECK_INT(f.mode, 16877);
	CHECK_INT(f.npaths, 1);
	map_finding_clear(&f);
	CHECK_INT(evidence_of(st, 4, &ev), 2);

	/* AG 1's inode btrees: one, open (two of three were), both types. */
	REQUIRE(map_store_finding_get(st, 6, &f) == 0, "inode btrees finding 6");
	CHECK_STR(f.scrub, "inobt,finobt");
	CHECK_STR(map_state_name(f.state), "open");
	CHECK_INT(f.flags, 2);
	map_finding_clear(&f);
	CHECK_INT(evidence_of(st, 6, &ev), 3);

	/* Actions follow their finding. */
	map_store_close(st);
	CHECK_INT(action_finding(db, 1), 1);
	CHECK_INT(action_finding(db, 2), 6);
	CHECK_INT(action_finding(db, 3), 9);

	/* The migrated keys are the ones the library makes: new sightings of
	 * the same objects land on the migrated findings. */
	st = open_db(db);
	CHECK_INT(sight_scrub(st, 1, 0, XFS_SCRUB_TYPE_INODE, 0, 500, -EIO, 0, &is_new), 1);
	CHECK(!is_new, "inode 500 seen again");
	CHECK_INT(sight_scrub(st, 1, 0, XFS_SCRUB_TYPE_FINOBT, 1, 0, 0, 0, &is_new), 6);
	CHECK(!is_new, "AG 1 inode btrees seen again");
	CHECK_INT(sight_scrub(st, 1, 0, XFS_SCRUB_TYPE_PARENT, 0, 600, 0, 0, &is_new), 3);
	CHECK_INT(sight_scrub(st, 1, 0, XFS_SCRUB_TYPE_DIRTREE, 0, 600, 0, 0, &is_new), 4);
	struct map_owner o = owner(MAP_OWNER_FILE, 700, 0, 3145728, 0, UINT32_MAX);
	o.offset = 131072;
	CHECK_INT(sight_owner(st, 1, 0, MAP_SOURCE_MEDIA, o, 0, &is_new), 9);
	CHECK(!is_new, "file data seen again");
	CHECK_INT(count_findings(st, 1, MAP_FIND_ALL), 5);
	CHECK_INT(map_store_check(st), 0);
	map_store_close(st);
}

/* Issue 36: a sighting mapperd kept in its spool while the database was
 * away is replayed later with the time it was seen.  Into a row seen since,
 * it must not move last_seen back (nor the evidence's), and the finding
 * handed back says when the row was really last seen. */
static void test_replayed_sighting(void)
{
	struct map_store *st = open_db(path_in("replay.db"));
	int64_t fs_id = add_fs(st);
	struct evidence_list ev;
	struct map_finding f, row;
	bool is_new = false;
	int64_t t0 = (int64_t)time(NULL);

	map_finding_init(&f);
	f.fs_id = fs_id;
	f.source = MAP_SOURCE_EVENT;
	snprintf(f.kind, sizeof(f.kind), "file");
	f.has_range = true;
	f.physical = 1 << 20;
	f.length = 4096;
	f.ino = 131;
	f.mode = 0100644;
	f.has_offset = true;
	REQUIRE(map_finding_add_path(&f, "a/b.dat") == 0, "add_path");
	REQUIRE(map_store_finding_record(st, 0, &f, &is_new) == 0 && is_new, "first sighting");
	int64_t id = f.id;
	REQUIRE(map_store_finding_get(st, id, &row) == 0, "finding_get");
	int64_t seen = row.last_seen, first = row.first_seen;
	CHECK(seen >= t0, "last_seen %lld before the sighting", (long long)seen);
	map_finding_clear(&row);

	/* The spooled sighting of two hours ago. */
	f.last_seen = t0 - 7200;
	REQUIRE(map_store_finding_record(st, 0, &f, &is_new) == 0 && !is_new, "replayed sighting");
	CHECK_INT(f.id, id);
	REQUIRE(map_store_finding_get(st, id, &row) == 0, "finding_get");
	CHECK(row.last_seen == seen, "last_seen moved from %lld to %lld", (long long)seen,
	      (long long)row.last_seen);
	CHECK(row.first_seen == t0 - 7200 || row.first_seen == first,
	      "first_seen %lld", (long long)row.first_seen);
	map_finding_clear(&row);
	CHECK(f.last_seen == seen, "the finding handed back says last seen %lld, the row %lld",
	      (long long)f.last_seen, (long long)seen);
	CHECK_INT(evidence_of(st, id, &ev), 1);
	CHECK(ev.v[0].last_seen == seen, "evidence last_seen moved from %lld to %lld",
	      (long long)seen, (long long)ev.v[0].last_seen);
	map_finding_clear(&f);
	map_store_close(st);
}

int main(void)
{
	tl_tmpdir(dir, sizeof(dir), "test_store");
	CHECK_PART(test_root_path());
	CHECK_PART(test_unsafe_folder());
	CHECK_PART(test_lock_symlink());
	CHECK_PART(test_failed_commit());
	CHECK_PART(test_begin_nowait());
	CHECK_PART(test_inode_media_and_scrub());
	CHECK_PART(test_ag_inode_btrees());
	CHECK_PART(test_parent_kind());
	CHECK_PART(test_resolution());
	CHECK_PART(test_migration());
	CHECK_PART(test_replayed_sighting());
	return tl_done(dir);
}
