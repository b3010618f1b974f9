// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapctl's JSON and its database-only commands (issue 14), on stores made
 * here through libmap, whose filesystems are mounted nowhere on this host:
 *
 *  - status, files, history and events --json each have exactly the members
 *    mapper-json(7) lists for them, of the listed types (json_schema.sh, in
 *    --strict mode: the fixture has every member), begin with the output
 *    version, print null for what is absent, name the filesystem of every
 *    finding, action and event, and list actions and events by time;
 *  - json_schema.sh itself fails on an output with a member the page does
 *    not list, without one it lists, with a wrong type, and on a page that
 *    lost a line, so the comparison can fail;
 *  - status, files, history, events and export take a filesystem's UUID (any
 *    case) or its recorded mount point (a trailing slash too) while it is
 *    not mounted; a mount point recorded for two filesystems is an error
 *    that names both, and so is an argument that names none.
 *
 * Usage: test_mapctl_json MAPCTL MAPPERD JSON_SCHEMA_SH MAPPER_JSON_7
 */
#include <stdarg.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "map.h"
#include "store_fixture.h"
#include "testlib.h"

#define UUID_A "5d0c3f7e-1a2b-4c3d-8e9f-0a1b2c3d4e5f"
#define UUID_B "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9"
#define UUID_C "c0ffee00-1111-4222-8333-444455556666"
/* Mount points no host has: the filesystems are "unmounted". */
#define MNT_A "/nonexistent-mapper-test/a"
#define MNT_SHARED "/nonexistent-mapper-test/shared"
#define T0 1700000000LL

static const char *mapctl, *mapperd, *schema, *manpage;
static char dir[64], db[128], db2[128];

static struct tl_run *run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static struct tl_run *run(const char *fmt, ...)
{
	char args[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	return sf_run_mapctl(mapctl, dir, NULL, args);
}

/* The exit status of a shell command line. */
/* The first line jq -r prints for @filter on @file. */
static const char *jq(const char *file, const char *filter)
{
	static char out[4096];
	char cmd[1024], path[128];

	snprintf(path, sizeof(path), "%s/jq.out", dir);
	snprintf(cmd, sizeof(cmd), "jq -r '%s' %s > %s 2>&1", filter, file, path);
	if (system(cmd) != 0)
		return "(jq failed)";
	tl_slurp(path, out, sizeof(out));
	out[strcspn(out, "\n")] = '\0';
	return out;
}

static int64_t add_fs(struct map_store *st, const char *uuid, const char *mnt)
{
	struct map_fs_info info;
	int64_t id = 0;

	memset(&info, 0, sizeof(info));
	snprintf(info.uuid, sizeof(info.uuid), "%s", uuid);
	snprintf(info.mountpoint, sizeof(info.mountpoint), "%s", mnt);
	snprintf(info.device, sizeof(info.device), "/dev/vdz");
	snprintf(info.label, sizeof(info.label), "archive");
	snprintf(info.model, sizeof(info.model), "QEMU HARDDISK");
	snprintf(info.serial, sizeof(info.serial), "QM0001");
	info.geo.blocksize = 4096;
	info.geo.agcount = 4;
	info.geo.rmapbt = true;
	REQUIRE(map_store_fs_upsert(st, &info, &id) == 0, "fs_upsert %s", uuid);
	return id;
}

static void add_scan(struct map_store *st, int64_t fs_id, int64_t finished)
{
	struct map_scan_row row;

	memset(&row, 0, sizeof(row));
	row.fs_id = fs_id;
	row.state = MAP_SCAN_COMPLETE;
	row.phase = MAP_SCAN_PHASE_DONE;
	row.do_metadata = row.do_media = true;
	row.started = finished - 60;
	row.finished = finished;
	row.seconds = 60;
	row.media_done = row.media_total = 1 << 20;
	row.runs = 1;
	REQUIRE(map_store_scan_insert(st, &row) == 0, "scan_insert");
}

/* Rows written out of time order (as mapperd's spool replays them): the
 * listings must still come by time. */
static void add_history(struct map_store *st, int64_t fs_id, int64_t finding_id)
{
	struct map_action a = { .fs_id = fs_id, .at = T0 + 20 };

	snprintf(a.action, sizeof(a.action), "scan");
	snprintf(a.user, sizeof(a.user), "root");
	snprintf(a.outcome, sizeof(a.outcome), "complete");
	REQUIRE(map_store_action_add(st, &a) == 0, "action_add");
	a.at = T0 + 10;
	a.finding_id = finding_id;
	snprintf(a.action, sizeof(a.action), "ignore");
	snprintf(a.outcome, sizeof(a.outcome), "ignored");
	snprintf(a.detail, sizeof(a.detail), "was open");
	REQUIRE(map_store_action_add(st, &a) == 0, "action_add");

	struct map_event e = { .fs_id = fs_id, .at = T0 + 30, .ino = 131, .gen = 7, .error = 5 };
	e.source = MAP_EVENT_FANOTIFY;
	snprintf(e.detail, sizeof(e.detail), "read error");
	REQUIRE(map_store_event_add(st, &e) == 0, "event_add");
	struct map_event f = { .fs_id = 0, .at = T0 + 5 };	/* on no known filesystem */
	f.source = MAP_EVENT_KMSG;
	REQUIRE(map_store_event_add(st, &f) == 0, "event_add");
}

static void make_stores(void)
{
	struct map_store *st;

	snprintf(db, sizeof(db), "%s/json.db", dir);
	REQUIRE(map_store_open(db, 0, &st) == 0, "open %s", db);
	int64_t a = add_fs(st, UUID_A, MNT_A);
	int64_t f = sf_add_finding(st, a, "file", 131, 0100644, "dir/victim.dat");
	sf_add_finding(st, a, "directory", 132, 040755, "dir");
	add_scan(st, a, (int64_t)time(NULL) - 60);
	add_history(st, a, f);
	map_store_close(st);

	/* Two filesystems were mounted at MNT_SHARED, one after the other. */
	snprintf(db2, sizeof(db2), "%s/two.db", dir);
	REQUIRE(map_store_open(db2, 0, &st) == 0, "open %s", db2);
	sf_add_finding(st, add_fs(st, UUID_B, MNT_SHARED), "file", 140, 0100644, "b.dat");
	sf_add_finding(st, add_fs(st, UUID_C, MNT_SHARED), "file", 150, 0100644, "c.dat");
	map_store_close(st);
}

/* @command's output (mapctl ARGS) saved in dir/NAME.json; 0 if it held to
 * mapper-json(7) (@strict: and had every member it lists). */
static int schema_check(const char *name, const char *command, const char *args, bool strict)
{
	char file[128];

	snprintf(file, sizeof(file), "%s/%s.json", dir, name);
	struct tl_run *r = run("%s", args);
	CHECK(r->rc == 0 || r->rc == 1, "mapctl %s: %d %s", args, r->rc, r->err);
	FILE *out = fopen(file, "w");
	REQUIRE(out && fputs(r->out, out) >= 0 && fclose(out) == 0, "writing %s", file);
	return tl_sh("sh %s %s %s '%s' %s >&2", schema, strict ? "--strict" : "", manpage, command,
		     file);
}

static void test_schema(void)
{
	char args[256];

	snprintf(args, sizeof(args), "--db %s status --json --max-age 1d", db);
	CHECK_INT(schema_check("status", "mapctl status", args, true), 0);
	snprintf(args, sizeof(args), "--db %s files --json --all", db);
	CHECK_INT(schema_check("files", "mapctl files", args, true), 0);
	snprintf(args, sizeof(args), "--db %s history --json", db);
	CHECK_INT(schema_check("history", "mapctl history", args, true), 0);
	snprintf(args, sizeof(args), "--db %s events --json", db);
	CHECK_INT(schema_check("events", "mapctl events", args, true), 0);
}

static void test_schema_can_fail(void)
{
	char good[128], bad[128], page[128];

	snprintf(good, sizeof(good), "%s/files.json", dir);
	snprintf(bad, sizeof(bad), "%s/bad.json", dir);
	snprintf(page, sizeof(page), "%s/page.7", dir);
	/* a member the page does not list */
	tl_sh("jq -c '.findings[0].extra = 1' %s > %s", good, bad);
	CHECK(tl_sh("sh %s %s 'mapctl files' %s >/dev/null", schema, manpage, bad) != 0,
	      "an undocumented member passes");
	/* one it lists, missing */
	tl_sh("jq -c 'del(.findings[].fs_uuid)' %s > %s", good, bad);
	CHECK(tl_sh("sh %s --strict %s 'mapctl files' %s >/dev/null", schema, manpage, bad) != 0,
	      "a missing member passes");
	/* a type other than the listed one: 0 for an absent inode */
	tl_sh("jq -c '.findings[0].fork = 0' %s > %s", good, bad);
	CHECK(tl_sh("sh %s %s 'mapctl files' %s >/dev/null", schema, manpage, bad) != 0,
	      "a number where the page says string or null passes");
	/* another command's version */
	tl_sh("jq -c '.output_version.command = \"mapctl status\"' %s > %s", good, bad);
	CHECK(tl_sh("sh %s %s 'mapctl files' %s >/dev/null", schema, manpage, bad) != 0,
	      "the wrong output_version passes");
	/* the page without the line of a member the output has */
	tl_sh("grep -v '^\\.BR last_seen_time ' %s > %s", manpage, page);
	CHECK(tl_sh("sh %s %s 'mapctl files' %s >/dev/null", schema, page, good) != 0,
	      "a member the page lost passes");
	CHECK_INT(tl_sh("sh %s %s 'mapctl files' %s", schema, manpage, good), 0);
}

static void test_values(void)
{
	char f[128], s[128], h[128], e[128];

	snprintf(f, sizeof(f), "%s/files.json", dir);
	snprintf(s, sizeof(s), "%s/status.json", dir);
	snprintf(h, sizeof(h), "%s/history.json", dir);
	snprintf(e, sizeof(e), "%s/events.json", dir);
	CHECK_STR(jq(f, ".output_version | [.command, .major, .minor] | @csv"),
		  "\"mapctl files\",1,0");
	CHECK_STR(jq(f, "[.findings[] | .fs_uuid, .mountpoint] | unique | join(\" \")"),
		  MNT_A " " UUID_A);
	CHECK_STR(jq(f, ".findings[] | select(.kind == \"file\") | .paths[0]"),
		  MNT_A "/dir/victim.dat");
	CHECK_STR(jq(f, ".findings[] | select(.kind == \"file\") | [.file_offset, .file_length, "
		      ".ag, .fork, .scrub] | @json"), "[0,4096,null,null,null]");
	CHECK_STR(jq(f, ".findings[] | select(.kind == \"directory\") | [.file_offset, "
		      ".inode] | @json"), "[null,132]");
	CHECK_STR(jq(f, "[.findings[].evidence[] | .source, .device_length] | @json"),
		  "[\"media\",4096,\"media\",4096]");
	CHECK_STR(jq(s, ".filesystems[0] | [.fs_uuid, .state, .never_scanned, .stale, "
		      ".finding_counts.open, .open_by_kind[0].count] | @json"),
		  "[\"" UUID_A "\",\"DAMAGED\",false,false,2,1]");
	/* history and events: the filesystem named, by time, nulls */
	CHECK_STR(jq(h, "[.actions[].time] | . == sort"), "true");
	CHECK_STR(jq(h, "[.actions[] | .action, .finding_id] | @json"),
		  "[\"ignore\",1,\"scan\",null]");
	CHECK_STR(jq(h, "[.actions[].fs_uuid] | unique | @json"), "[\"" UUID_A "\"]");
	CHECK_STR(jq(e, "[.events[] | [.time, .fs_uuid, .inode, .error]] | @json"),
		  "[[1700000005,null,null,null],[1700000030,\"" UUID_A "\",131,5]]");
}

static void test_unmounted(void)
{
	struct tl_run *r;

	/* by recorded mount point, by UUID in either case, trailing slash */
	r = run("--db %s files --json " MNT_A, db);
	CHECK_INT(r->rc, 1);
	CHECK(strstr(r->out, "dir/victim.dat"), "%s %s", r->out, r->err);
	r = run("--db %s status " MNT_A "/", db);
	CHECK_INT(r->rc, 1);
	CHECK(strstr(r->out, "uuid: " UUID_A), "%s %s", r->out, r->err);
	r = run("--db %s status --json 5D0C3F7E-1A2B-4C3D-8E9F-0A1B2C3D4E5F", db);
	CHECK_INT(r->rc, 1);
	CHECK(strstr(r->out, "\"fs_uuid\":\"" UUID_A "\""), "%s %s", r->out, r->err);
	r = run("--db %s history " UUID_A, db);
	CHECK_INT(r->rc, 0);
	CHECK(strstr(r->out, "ignore"), "%s %s", r->out, r->err);
	r = run("--db %s events --json " MNT_A, db);
	CHECK_INT(r->rc, 0);
	CHECK(strstr(r->out, "read error") && !strstr(r->out, "kmsg"), "%s %s", r->out, r->err);
	r = run("--db %s export " MNT_A " --rsync", db);
	CHECK_INT(r->rc, 1);
	CHECK_STR(r->out, "dir/victim.dat\n");

	/* names nothing recorded: says so, and what is */
	r = run("--db %s files /nonexistent-mapper-test/b", db);
	CHECK_INT(r->rc, 2);
	CHECK(strstr(r->err, "neither the UUID nor the recorded mount point") &&
	      strstr(r->err, UUID_A "  " MNT_A), "%s", r->err);
	r = run("--db %s status 00000000-0000-4000-8000-000000000000", db);
	CHECK_INT(r->rc, 2);

	/* two recorded there: which one? both named; each by UUID works */
	r = run("--db %s files " MNT_SHARED, db2);
	CHECK_INT(r->rc, 2);
	CHECK(strstr(r->err, "mount point of 2 recorded filesystems") &&
	      strstr(r->err, UUID_B) && strstr(r->err, UUID_C), "%s", r->err);
	r = run("--db %s export " UUID_C " --rsync", db2);
	CHECK_INT(r->rc, 1);
	CHECK_STR(r->out, "c.dat\n");
}

/* How long mapperd may take to open its socket: it reads mountinfo and
 * opens the store first, a fraction of a second on an idle host. */
#define DAEMON_START_SECS 20

static void test_daemon(void)
{
	char sock[128], conf[128], log[128], pidf[128];
	FILE *f;

	snprintf(sock, sizeof(sock), "%s/d.sock", dir);
	snprintf(conf, sizeof(conf), "%s/d.conf", dir);
	snprintf(log, sizeof(log), "%s/d.log", dir);
	snprintf(pidf, sizeof(pidf), "%s/d.pid", dir);
	f = fopen(conf, "w");
	REQUIRE(f && fputs("fanotify = no\nkmsg = no\n", f) >= 0 && fclose(f) == 0, "%s", conf);
	REQUIRE(tl_sh("%s --config %s --db %s/d.db --socket %s >%s 2>&1 & echo $! > %s", mapperd,
		      conf, dir, sock, log, pidf) == 0, "starting mapperd");
	struct stat st;
	for (int i = 0; i < DAEMON_START_SECS * 10 && stat(sock, &st) != 0; i++)
		usleep(100000);
	char said[4096];
	tl_slurp(log, said, sizeof(said));
	CHECK(stat(sock, &st) == 0, "mapperd did not open %s: %s", sock, said);
	if (stat(sock, &st) != 0) {
		tl_sh("kill $(cat %s)", pidf);
		return;
	}

	char args[256];
	snprintf(args, sizeof(args), "daemon status --json --socket %s", sock);
	CHECK_INT(schema_check("daemon-status", "mapctl daemon status", args, false), 0);
	snprintf(args, sizeof(args), "daemon progress --json --socket %s", sock);
	CHECK_INT(schema_check("daemon-progress", "mapctl daemon progress", args, false), 0);
	char file[128];
	snprintf(file, sizeof(file), "%s/daemon-status.json", dir);
	CHECK_STR(jq(file, "[.uptime_seconds >= 0, .events.received, (.filesystems | length)] | "
		     "@json"), "[true,0,0]");
	tl_sh("kill $(cat %s); cat %s >&2", pidf, log);
}

int main(int argc, char **argv)
{
	REQUIRE(argc == 5, "usage: test_mapctl_json MAPCTL MAPPERD JSON_SCHEMA_SH MAPPER_JSON_7");
	mapctl = argv[1];
	mapperd = argv[2];
	schema = argv[3];
	manpage = argv[4];
	tl_tmpdir(dir, sizeof(dir), "test_mapctl_json");
	make_stores();
	test_schema();
	test_values();
	test_schema_can_fail();
	test_unmounted();
	test_daemon();
	return tl_done(dir);
}
