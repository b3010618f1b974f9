// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapctl metrics on a store made here through libmap (no kernel needed):
 * every sample line exactly, with a mount point of hostile bytes escaped
 * for the exposition format; which scans and actions count; an error-report
 * count that keeps growing after the events table is pruned; --output
 * written whole through FILE.tmp and rename(), mode 0644 whatever the
 * umask, never through a link left at FILE.tmp nor through a folder on
 * the path replaced by a link; no database yet: every family without
 * samples, exit 0 (a new server's textfile job); a store of schema 2.
 *
 * Usage: test_metrics PATH-TO-MAPCTL OUTPUT-FILE
 * OUTPUT-FILE receives the metrics (for the promtool check of tests/CMakeLists.txt).
 */
#include <errno.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "map.h"
#include "store_fixture.h"
#include "testlib.h"

/* More than the events table keeps (EVENTS_KEPT in libmap/store_history.c). */
#define STORM_EVENTS	20005

static const char *mapctl;
static char dir[64];

/* Run "[PREFIX; ]mapctl ARGS" in a shell, collecting exit status and output. */
static struct tl_run *run(const char *prefix, const char *args)
{
	return sf_run_mapctl(mapctl, dir, prefix, args);
}

static int64_t add_fs(struct map_store *st, const char *uuid, const char *mnt, const char *label)
{
	struct map_fs_info info;
	int64_t id = 0;

	memset(&info, 0, sizeof(info));
	snprintf(info.uuid, sizeof(info.uuid), "%s", uuid);
	snprintf(info.mountpoint, sizeof(info.mountpoint), "%s", mnt);
	snprintf(info.device, sizeof(info.device), "/dev/vda");
	snprintf(info.label, sizeof(info.label), "%s", label);
	info.geo.blocksize = 4096;
	info.geo.agcount = 4;
	REQUIRE(map_store_fs_upsert(st, &info, &id) == 0, "fs_upsert");
	return id;
}

static void add_scan(struct map_store *st, int64_t fs_id, const char *state, bool metadata,
		     bool media, int64_t finished, double seconds, uint64_t verified)
{
	struct map_scan_row s;

	memset(&s, 0, sizeof(s));
	s.fs_id = fs_id;
	s.state = map_scan_state_from_name(state);
	s.phase = strcmp(state, "complete") ? MAP_SCAN_PHASE_MEDIA : MAP_SCAN_PHASE_DONE;
	s.do_metadata = metadata;
	s.do_media = media;
	s.started = finished ? finished - 100 : 1700000000;
	s.finished = finished;
	s.seconds = seconds;
	s.media_done = verified;
	s.media_total = verified;
	s.runs = 1;
	REQUIRE(map_store_scan_insert(st, &s) == 0, "scan_insert");
}

static void add_action(struct map_store *st, int64_t fs_id, int64_t finding_id, const char *action,
		       const char *outcome)
{
	struct map_action a = { .fs_id = fs_id, .finding_id = finding_id, .at = 1700000000 };

	snprintf(a.action, sizeof(a.action), "%s", action);
	snprintf(a.outcome, sizeof(a.outcome), "%s", outcome);
	REQUIRE(map_store_action_add(st, &a) == 0, "action_add");
}

static void add_events(struct map_store *st, int64_t fs_id, enum map_event_source source, int n)
{
	struct map_event e = { .fs_id = fs_id, .source = source, .at = 1700000000, .error = EIO };

	REQUIRE(map_store_begin(st) == 0, "begin");
	for (int i = 0; i < n; i++)
		REQUIRE(map_store_event_add(st, &e) == 0, "event_add");
	REQUIRE(map_store_commit(st) == 0, "commit");
}

/* A metadata finding (no inode): the inode btrees of AG 1. */
static void add_metadata_finding(struct map_store *st, int64_t fs_id)
{
	struct map_finding f;

	map_finding_init(&f);
	f.fs_id = fs_id;
	f.source = MAP_SOURCE_SCRUB;
	snprintf(f.kind, sizeof(f.kind), "inode-btrees");
	snprintf(f.scrub, sizeof(f.scrub), "inobt");
	f.agno = 1;
	REQUIRE(map_store_finding_record(st, 0, &f, NULL) == 0, "finding_record");
	map_finding_clear(&f);
}

static long long events_kept(const char *db)
{
	sqlite3 *raw;
	sqlite3_stmt *stmt;
	long long v = -1;

	REQUIRE(sqlite3_open(db, &raw) == SQLITE_OK, "sqlite3_open %s", db);
	REQUIRE(sqlite3_prepare_v2(raw, "SELECT count(*) FROM events", -1, &stmt, NULL) ==
		SQLITE_OK, "prepare");
	if (sqlite3_step(stmt) == SQLITE_ROW)
		v = sqlite3_column_int64(stmt, 0);
	sqlite3_finalize(stmt);
	sqlite3_close(raw);
	return v;
}

#define A "uuid=\"aaaaaaaa-1111-4222-8333-444444444444\",mountpoint=\"/srv/data\""
/* The mount point /mnt/q"b\s<newline>n<ESC><0xff>: as mapctl writes names
 * for people (/mnt/q"b\\s\nn\x1b\xff), then escaped for the format. */
#define HOSTILE_MNT "/mnt/q\"b\\s\nn\x1b\xff"
#define B "uuid=\"bbbbbbbb-1111-4222-8333-444444444444\"," \
	  "mountpoint=\"/mnt/q\\\"b\\\\\\\\s\\\\nn\\\\x1b\\\\xff\""

/* Every line mapctl metrics must print, in order. */
static const char *const expected[] = {
	"# HELP mapper_filesystem_info A filesystem the store knows (always 1), with its label "
	"and device.",
	"# TYPE mapper_filesystem_info gauge",
	"mapper_filesystem_info{" A ",label=\"data\",device=\"/dev/vda\"} 1",
	"mapper_filesystem_info{" B ",label=\"\\\\t\\\\x07\",device=\"/dev/vda\"} 1",
	"# HELP mapper_open_findings Open findings (damaged objects not yet repaired, refetched, "
	"resolved or ignored) by kind.",
	"# TYPE mapper_open_findings gauge",
	"mapper_open_findings{" A ",kind=\"directory\"} 1",
	"mapper_open_findings{" A ",kind=\"file\"} 2",
	"mapper_open_findings{" A ",kind=\"inode-btrees\"} 1",
	"mapper_open_findings{" A ",kind=\"xattr\"} 1",
	"# HELP mapper_damaged_files Distinct inodes (files, directories, links) with open "
	"findings.",
	"# TYPE mapper_damaged_files gauge",
	"mapper_damaged_files{" A "} 3",
	"mapper_damaged_files{" B "} 0",
	"# HELP mapper_last_complete_scan_timestamp_seconds When the last complete scan of each "
	"type (metadata scrub, media verification) finished, unix time.",
	"# TYPE mapper_last_complete_scan_timestamp_seconds gauge",
	"mapper_last_complete_scan_timestamp_seconds{" A ",type=\"metadata\"} 1700086400",
	"mapper_last_complete_scan_timestamp_seconds{" A ",type=\"media\"} 1700000000",
	"# HELP mapper_last_complete_scan_duration_seconds Time the last complete scan of each "
	"type took, over all its runs.",
	"# TYPE mapper_last_complete_scan_duration_seconds gauge",
	"mapper_last_complete_scan_duration_seconds{" A ",type=\"metadata\"} 3.25",
	"mapper_last_complete_scan_duration_seconds{" A ",type=\"media\"} 812.5",
	"# HELP mapper_last_media_scan_verified_bytes Bytes the last complete media verification "
	"read.",
	"# TYPE mapper_last_media_scan_verified_bytes gauge",
	"mapper_last_media_scan_verified_bytes{" A "} 68719476736",
	"# HELP mapper_events_total Error reports received from the kernel (mapperd), by source.",
	"# TYPE mapper_events_total counter",
	"mapper_events_total{uuid=\"\",mountpoint=\"\",source=\"kmsg\"} 1",
	"mapper_events_total{" A ",source=\"fanotify\"} 20005",
	"mapper_events_total{" A ",source=\"kmsg\"} 2",
	"mapper_events_total{" B ",source=\"fanotify\"} 3",
	"# HELP mapper_repairs_total Repairs of a finding or of summary counters, by outcome.",
	"# TYPE mapper_repairs_total counter",
	"mapper_repairs_total{" A ",outcome=\"failed\"} 1",
	"mapper_repairs_total{" A ",outcome=\"healed\"} 2",
	"mapper_repairs_total{" A ",outcome=\"not-needed\"} 1",
	"# HELP mapper_refetches_total Files restored from a mirror (mapctl refetch), by outcome.",
	"# TYPE mapper_refetches_total counter",
	"mapper_refetches_total{" A ",outcome=\"restored\"} 2",
	"mapper_refetches_total{" A ",outcome=\"still-unreadable\"} 1",
	"mapper_refetches_total{" B ",outcome=\"refused\"} 1",
};

static void build_store(const char *db)
{
	struct map_store *st = NULL;
	int rc = map_store_open(db, 0, &st);

	REQUIRE(rc == 0, "map_store_open %s: %s", db, map_strerror(rc));
	int64_t a = add_fs(st, "aaaaaaaa-1111-4222-8333-444444444444", "/srv/data", "data");
	int64_t b = add_fs(st, "bbbbbbbb-1111-4222-8333-444444444444", HOSTILE_MNT, "\t\a");

	/* Open: files 131 (data and xattr) and 135, directory 128, AG 1's inode
	 * btrees; file 140 was resolved and counts nowhere. */
	int64_t f131 = sf_add_finding(st, a, "file", 131, 0100644, "x/a.dat");
	sf_add_finding(st, a, "xattr", 131, 0100644, "x/a.dat");
	sf_add_finding(st, a, "file", 135, 0100644, "x/b.dat");
	sf_add_finding(st, a, "directory", 128, 040755, "x");
	int64_t f140 = sf_add_finding(st, a, "file", 140, 0100644, "x/c.dat");
	REQUIRE(map_store_finding_set_state(st, f140, MAP_STATE_RESOLVED) == 0, "set_state");
	add_metadata_finding(st, a);

	/* Of A's scans only complete ones count, the newest of each type:
	 * metadata from the second, media from the first. */
	add_scan(st, a, "complete", true, true, 1700000000, 812.5, 64ULL << 30);
	add_scan(st, a, "complete", true, false, 1700086400, 3.25, 0);
	add_scan(st, a, "failed", true, true, 1700090000, 1.0, 1ULL << 20);
	add_scan(st, a, "running", false, true, 0, 7.0, 2ULL << 20);
	add_scan(st, b, "interrupted", true, true, 0, 9.0, 4096);

	/* Repairs: a finding's result, and a summary recount (no finding); the
	 * steps of a finding's repair and other actions are not repairs. */
	add_action(st, a, f131, "repair", "repaired");
	add_action(st, a, f131, "repair-result", "healed");
	add_action(st, a, f131, "repair-result", "healed");
	add_action(st, a, f131, "repair-result", "failed");
	add_action(st, a, 0, "repair", "not-needed");
	add_action(st, a, f131, "refetch", "restored");
	add_action(st, a, f131, "refetch", "restored");
	add_action(st, a, f131, "refetch", "still-unreadable");
	add_action(st, a, f140, "resolve", "resolved");
	add_action(st, a, 0, "scan", "complete");
	add_action(st, b, 0, "refetch", "refused");

	/* A storm: more reports than the events table keeps. */
	add_events(st, a, MAP_EVENT_FANOTIFY, STORM_EVENTS);
	add_events(st, a, MAP_EVENT_KMSG, 2);
	add_events(st, b, MAP_EVENT_FANOTIFY, 3);
	add_events(st, 0, MAP_EVENT_KMSG, 1);
	map_store_close(st);
	REQUIRE(events_kept(db) < STORM_EVENTS, "the events table was pruned (%lld rows)",
		events_kept(db));
}

/* @out holds exactly the expected lines, in order. */
static void check_lines(const char *out)
{
	const char *p = out;
	size_t n = sizeof(expected) / sizeof(expected[0]);

	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(expected[i]);

		if (strncmp(p, expected[i], len) != 0 || p[len] != '\n') {
			const char *nl = strchr(p, '\n');

			CHECK(false, "line %zu:\n  want: %s\n  got:  %.*s", i + 1, expected[i],
			      nl ? (int)(nl - p) : (int)strlen(p), p);
			return;
		}
		p += len + 1;
	}
	CHECK(*p == '\0', "more lines than expected: %s", p);
}

static void test_stdout(const char *db, const char *copy)
{
	char args[256];

	snprintf(args, sizeof(args), "--db %s metrics", db);
	struct tl_run *r = run(NULL, args);
	CHECK_INT(r->rc, 0);
	CHECK(r->err[0] == '\0', "stderr: %s", r->err);
	check_lines(r->out);

	FILE *f = fopen(copy, "w");
	REQUIRE(f && fputs(r->out, f) >= 0 && fclose(f) == 0, "writing %s", copy);
}

/* --output: whole file, mode 0644 under umask 077, no FILE.tmp left, and a
 * symbolic link planted at FILE.tmp is replaced, never written through. */
static void test_output(const char *db)
{
	char args[512], prom[128], tmp[160], victim[128], got[16384];
	struct stat sb;

	snprintf(prom, sizeof(prom), "%s/mapper.prom", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", prom);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	FILE *f = fopen(victim, "w");
	REQUIRE(f && fputs("precious\n", f) >= 0 && fclose(f) == 0, "victim");
	REQUIRE(symlink(victim, tmp) == 0, "symlink");

	snprintf(args, sizeof(args), "--db %s metrics --output %s", db, prom);
	struct tl_run *r = run("umask 077", args);
	CHECK_INT(r->rc, 0);
	CHECK(r->out[0] == '\0', "nothing on stdout: %s", r->out);
	CHECK(r->err[0] == '\0', "stderr: %s", r->err);
	REQUIRE(stat(prom, &sb) == 0, "stat %s", prom);
	CHECK((sb.st_mode & 07777) == 0644, "mode %o", (unsigned int)(sb.st_mode & 07777));
	CHECK(lstat(tmp, &sb) < 0 && errno == ENOENT, "%s is left", tmp);
	tl_slurp(prom, got, sizeof(got));
	check_lines(got);
	tl_slurp(victim, got, sizeof(got));
	CHECK_STR(got, "precious\n");

	/* A folder that cannot be written: exit 2, FILE untouched. */
	snprintf(args, sizeof(args), "--db %s metrics --output %s/no-such-dir/mapper.prom", db, dir);
	r = run(NULL, args);
	CHECK_INT(r->rc, 2);
	CHECK(strstr(r->err, "no-such-dir/mapper.prom.tmp"), "stderr: %s", r->err);
}

static void sql_exec(const char *db, const char *text)
{
	sqlite3 *raw;

	REQUIRE(sqlite3_open(db, &raw) == SQLITE_OK, "sqlite3_open %s", db);
	REQUIRE(sqlite3_exec(raw, text, NULL, NULL, NULL) == SQLITE_OK, "%s: %s", text,
		sqlite3_errmsg(raw));
	sqlite3_close(raw);
}

static void check_events_line(const char *db, int n)
{
	char args[256], want[256];

	snprintf(args, sizeof(args), "--db %s metrics", db);
	struct tl_run *r = run(NULL, args);
	CHECK_INT(r->rc, 0);
	snprintf(want, sizeof(want), "\nmapper_events_total{" A ",source=\"fanotify\"} %d\n", n);
	CHECK(strstr(r->out, want), "want %s in:\n%s", want + 1, r->out);
}

/* A store of schema 2 (before event_counts): read-only, the events it still
 * holds are counted; once migrated, the count starts from them and grows. */
static void test_schema2(void)
{
	char db[128];
	struct map_store *st = NULL;

	snprintf(db, sizeof(db), "%s/schema2.db", dir);
	REQUIRE(map_store_open(db, 0, &st) == 0, "open");
	int64_t a = add_fs(st, "aaaaaaaa-1111-4222-8333-444444444444", "/srv/data", "data");
	add_events(st, a, MAP_EVENT_FANOTIFY, 3);
	map_store_close(st);
	sql_exec(db, "DROP TRIGGER events_counted; DROP TABLE event_counts; "
		 "PRAGMA user_version = 2;");
	check_events_line(db, 3);

	REQUIRE(map_store_open(db, 0, &st) == 0, "open and migrate");
	add_events(st, a, MAP_EVENT_FANOTIFY, 1);
	map_store_close(st);
	check_events_line(db, 4);
}

/* --output through a folder on the path that was replaced by a symbolic
 * link (a folder of another user, swapped for a link to one of root's):
 * refused, nothing written where the link points. */
static void test_output_link(const char *db)
{
	char args[512], target[128], link[128], written[160];
	struct stat sb;

	snprintf(target, sizeof(target), "%s/roots-folder", dir);
	snprintf(link, sizeof(link), "%s/users-folder", dir);
	REQUIRE(mkdir(target, 0755) == 0 && symlink(target, link) == 0, "folder and link");
	snprintf(written, sizeof(written), "%s/mapper.prom", target);

	snprintf(args, sizeof(args), "--db %s metrics --output %s/mapper.prom", db, link);
	struct tl_run *r = run(NULL, args);
	CHECK_INT(r->rc, 2);
	CHECK(strstr(r->err, "symbolic link"), "stderr: %s", r->err);
	CHECK(lstat(written, &sb) < 0 && errno == ENOENT, "written through the link: %s", written);
	snprintf(written, sizeof(written), "%s/mapper.prom.tmp", target);
	CHECK(lstat(written, &sb) < 0 && errno == ENOENT, "written through the link: %s", written);

	/* Deeper on the path too: LINK/sub/FILE. */
	REQUIRE(mkdir(strcat(strcpy(written, target), "/sub"), 0755) == 0, "sub");
	snprintf(args, sizeof(args), "--db %s metrics --output %s/sub/mapper.prom", db, link);
	r = run(NULL, args);
	CHECK_INT(r->rc, 2);
	CHECK(stat(strcat(written, "/mapper.prom"), &sb) < 0 && errno == ENOENT,
	      "written through the link: %s", written);

	/* A relative name in the working folder still works. */
	char cd[160];
	snprintf(cd, sizeof(cd), "cd %s", target);
	r = run(cd, "metrics --db ../metrics.db --output ./rel.prom");
	CHECK_INT(r->rc, 0);
	CHECK(r->err[0] == '\0', "stderr: %s", r->err);
	snprintf(written, sizeof(written), "%s/rel.prom", target);
	CHECK(stat(written, &sb) == 0, "%s not written", written);
}

/* Every family, no sample; 9 of each. */
static void check_no_samples(const char *out)
{
	int help = 0, type = 0, samples = 0;

	for (const char *p = out; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
		if (strncmp(p, "# HELP ", 7) == 0)
			help++;
		else if (strncmp(p, "# TYPE ", 7) == 0)
			type++;
		else
			samples++;
	}
	CHECK_INT(help, 9);
	CHECK_INT(type, 9);
	CHECK_INT(samples, 0);
}

/* An empty store still describes every family, with no samples. */
static void test_empty(void)
{
	char db[128], args[256];
	struct map_store *st = NULL;

	snprintf(db, sizeof(db), "%s/empty.db", dir);
	REQUIRE(map_store_open(db, 0, &st) == 0, "open");
	map_store_close(st);
	snprintf(args, sizeof(args), "--db %s metrics", db);
	struct tl_run *r = run(NULL, args);
	CHECK_INT(r->rc, 0);
	check_no_samples(r->out);
}

/* No database yet (a new server whose textfile job runs before the first
 * scan): the same as an empty one, on stdout and with --output, exit 0,
 * and no database made. */
static void test_no_database(void)
{
	char db[128], args[512], prom[128], got[16384];
	struct stat sb;

	snprintf(db, sizeof(db), "%s/not-yet/mapper.db", dir);
	snprintf(args, sizeof(args), "--db %s metrics", db);
	struct tl_run *r = run(NULL, args);
	CHECK_INT(r->rc, 0);
	CHECK(r->err[0] == '\0', "stderr: %s", r->err);
	check_no_samples(r->out);
	CHECK(strstr(r->out, "# TYPE mapper_open_findings gauge\n"), "families: %s", r->out);

	snprintf(prom, sizeof(prom), "%s/fresh.prom", dir);
	snprintf(args, sizeof(args), "--db %s metrics --output %s", db, prom);
	r = run(NULL, args);
	CHECK_INT(r->rc, 0);
	CHECK(r->err[0] == '\0', "stderr: %s", r->err);
	tl_slurp(prom, got, sizeof(got));
	check_no_samples(got);
	CHECK(stat(db, &sb) < 0 && errno == ENOENT, "a database was made at %s", db);
}

int main(int argc, char **argv)
{
	char db[128];

	REQUIRE(argc == 3, "usage: test_metrics PATH-TO-MAPCTL OUTPUT-FILE");
	mapctl = argv[1];
	tl_tmpdir(dir, sizeof(dir), "test_metrics");
	snprintf(db, sizeof(db), "%s/metrics.db", dir);
	build_store(db);
	CHECK_PART(test_stdout(db, argv[2]));
	CHECK_PART(test_output(db));
	CHECK_PART(test_output_link(db));
	CHECK_PART(test_empty());
	CHECK_PART(test_no_database());
	CHECK_PART(test_schema2());
	return tl_done(dir);
}
