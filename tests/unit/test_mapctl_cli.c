// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapctl's command line as an administrator first meets it (issue 14):
 * "daemon status" without a daemon says so in one line and exits 2; --db
 * and --version work before or after the command; "help [COMMAND]" is
 * --help; "files -0" prints every path of a large store once, in order.
 *
 * Usage: test_mapctl_cli PATH-TO-MAPCTL
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "map.h"
#include "testlib.h"

static const char *mapctl;
static char dir[64];

/* Run mapctl with @args (shell words), stdin from the terminal's stand-in. */
static void run(struct tl_run *r, const char *args)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "%s %s", mapctl, args);
	tl_run(r, dir, cmd);
}

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static int64_t add_fs(struct map_store *st, const char *mnt)
{
	struct map_fs_info info;
	int64_t id = 0;

	memset(&info, 0, sizeof(info));
	snprintf(info.uuid, sizeof(info.uuid), "6e1d4f8a-2b3c-4d5e-8f90-1a2b3c4d5e6f");
	snprintf(info.mountpoint, sizeof(info.mountpoint), "%s", mnt);
	snprintf(info.device, sizeof(info.device), "/dev/vda");
	info.geo.blocksize = 4096;
	info.geo.agcount = 4;
	info.geo.rmapbt = true;
	REQUIRE(map_store_fs_upsert(st, &info, &id) == 0, "fs_upsert");
	return id;
}

/* A media finding for inode @ino with the @n names paths[0..n). */
static void add_file(struct map_store *st, int64_t fs_id, uint64_t ino, char **paths, int n)
{
	struct map_finding f;

	map_finding_init(&f);
	f.fs_id = fs_id;
	f.source = MAP_SOURCE_MEDIA;
	snprintf(f.kind, sizeof(f.kind), "file");
	f.has_range = true;
	f.physical = ino * 4096;
	f.length = 4096;
	f.ino = ino;
	f.mode = 0100644;
	f.has_offset = true;
	for (int i = 0; i < n; i++)
		REQUIRE(map_finding_add_path(&f, paths[i]) == 0, "add_path");
	REQUIRE(map_store_finding_record(st, 0, &f, NULL) == 0, "finding_record");
	map_finding_clear(&f);
}

/* A store with one finding whose path is "f"; its file name in @db. */
static void small_db(char *db, size_t len)
{
	struct map_store *st;
	char *path = "dir/f";

	snprintf(db, len, "%s/small.db", dir);
	REQUIRE(map_store_open(db, 0, &st) == 0, "map_store_open %s", db);
	add_file(st, add_fs(st, "/mnt/small"), 131, &path, 1);
	map_store_close(st);
}

/* Item 1: connect_to() returned fail()'s 2 and the caller took stderr for
 * the socket.  Now one clear line and exit status 2. */
static void test_daemon_not_running(void)
{
	struct tl_run r;
	char args[256], want[256], sock[100];	/* fits sun_path */

	snprintf(args, sizeof(args), "daemon status --socket %s/none.sock", dir);
	run(&r, args);
	CHECK_INT(r.rc, 2);
	snprintf(want, sizeof(want), "mapctl daemon: mapperd is not running: no socket at %s/none.sock\n",
		 dir);
	CHECK_STR(r.err, want);
	CHECK_STR(r.out, "");
	tl_run_free(&r);

	/* A socket nobody listens on: refused, also one line. */
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sock, sizeof(sock), "%s/dead.sock", dir);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	REQUIRE(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0, "bind %s", sock);
	snprintf(args, sizeof(args), "daemon progress --json --socket %s", sock);
	run(&r, args);
	CHECK_INT(r.rc, 2);
	CHECK(strstr(r.err, "mapperd is not running: nothing answers on") && lines(r.err) == 1,
	      "stderr: %s", r.err);
	tl_run_free(&r);
	close(fd);
	unlink(sock);

	/* The same through $MAPPERD_SOCKET, for the scan request too. */
	snprintf(args, sizeof(args), "daemon scan --metadata %s", dir);
	setenv("MAPPERD_SOCKET", sock, 1);
	run(&r, args);
	unsetenv("MAPPERD_SOCKET");
	CHECK_INT(r.rc, 2);
	CHECK(strstr(r.err, "not running: no socket at") && lines(r.err) == 1, "stderr: %s", r.err);
	tl_run_free(&r);
}

/* Item 2: global options before or after the command. */
static void test_global_options(void)
{
	struct tl_run r;
	char db[128], args[512];

	small_db(db, sizeof(db));
	/* the words before the database's name and after it */
	static const char *const forms[][2] = {
		{ "--db ", " files" }, { "files --db ", "" }, { "files --db=", "" },
		{ "--db=", " files -0" }, { "files -0 --db ", "" },
		{ "--db /nonexistent/x.db files --db ", "" },
	};
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		snprintf(args, sizeof(args), "%s%s%s", forms[i][0], db, forms[i][1]);
		run(&r, args);
		CHECK(r.rc == 1 && strstr(r.out, "/mnt/small/dir/f") && !r.err[0],
		      "mapctl %s: rc %d, out '%s', err '%s'", args, r.rc, r.out, r.err);
		tl_run_free(&r);
	}
	run(&r, "files --db");
	CHECK(r.rc == 2 && strstr(r.err, "--db wants a FILE"), "files --db: %d %s", r.rc, r.err);
	tl_run_free(&r);
	/* after "--" nothing is an option of mapctl's: "--db" is which filesystem */
	snprintf(args, sizeof(args), "--db %s files -- --db", db);
	run(&r, args);
	CHECK(r.rc == 2 && strstr(r.err, "mapctl files: --db is neither the UUID nor the recorded "
				  "mount point"), "%s: %d %s", args, r.rc, r.err);
	tl_run_free(&r);

	static const char *const version[] = { "-V", "--version", "files -V", "--db x files --version" };
	for (size_t i = 0; i < sizeof(version) / sizeof(version[0]); i++) {
		run(&r, version[i]);
		CHECK(r.rc == 0 && !strncmp(r.out, "mapctl ", 7) && lines(r.out) == 1 && !r.err[0],
		      "mapctl %s: %d '%s'", version[i], r.rc, r.out);
		tl_run_free(&r);
	}
}

/* Item 2: "mapctl help [COMMAND]" is --help and COMMAND --help. */
static void test_help(void)
{
	static const char *const pairs[][2] = {
		{ "help", "--help" }, { "help files", "files --help" },
		{ "help daemon", "daemon --help" }, { "help scan", "scan -h" },
	};
	struct tl_run a, b;

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		run(&a, pairs[i][0]);
		run(&b, pairs[i][1]);
		CHECK(a.rc == 0 && b.rc == 0 && a.outlen > 100 && !strcmp(a.out, b.out),
		      "mapctl %s (%d) differs from mapctl %s (%d)", pairs[i][0], a.rc, pairs[i][1],
		      b.rc);
		tl_run_free(&a);
		tl_run_free(&b);
	}
	run(&a, "help nosuch");
	CHECK(a.rc == 2 && strstr(a.err, "unknown command 'nosuch'") && !a.out[0], "help nosuch");
	tl_run_free(&a);
}

/*
 * Item 5: files -0 searched every path printed so far for each new one.
 * 40k paths (10k files with four names each) plus files that share names
 * with earlier ones: each path once, in the store's order.  No timing is
 * asserted; the quadratic version took seconds here, this takes a blink.
 */
#define BIG_FILES 10000
#define BIG_NAMES 4

static void test_files_zero_many(void)
{
	struct map_store *st;
	struct tl_run r;
	char db[128], args[256], name[BIG_NAMES][64], *paths[BIG_NAMES];
	size_t cap = (size_t)BIG_FILES * BIG_NAMES * 40, len = 0;
	char *want = malloc(cap);
	int64_t fs_id;

	REQUIRE(want, "malloc");
	snprintf(db, sizeof(db), "%s/big.db", dir);
	REQUIRE(map_store_open(db, 0, &st) == 0, "map_store_open %s", db);
	fs_id = add_fs(st, "/mnt/big");
	REQUIRE(map_store_begin(st) == 0, "begin");
	for (int i = 0; i < BIG_FILES; i++) {
		for (int k = 0; k < BIG_NAMES; k++) {
			snprintf(name[k], sizeof(name[k]), "d%d/f%d.%d", i % 97, i, k);
			paths[k] = name[k];
			len += (size_t)snprintf(want + len, cap - len, "/mnt/big/%s", name[k]) + 1;
		}
		add_file(st, fs_id, 1000 + (uint64_t)i, paths, BIG_NAMES);
	}
	/* Reflink sharers named again by later findings: not printed again. */
	for (int i = 0; i < 3; i++) {
		snprintf(name[0], sizeof(name[0]), "d%d/f%d.%d", i * 1000 % 97, i * 1000, i);
		snprintf(name[1], sizeof(name[1]), "new/%d", i);
		paths[0] = name[0];
		paths[1] = name[1];
		len += (size_t)snprintf(want + len, cap - len, "/mnt/big/%s", name[1]) + 1;
		add_file(st, fs_id, 500000 + (uint64_t)i, paths, 2);
	}
	REQUIRE(map_store_commit(st) == 0, "commit");
	map_store_close(st);

	snprintf(args, sizeof(args), "files -0 --db %s", db);
	run(&r, args);
	CHECK_INT(r.rc, 1);
	CHECK_STR(r.err, "");
	CHECK(r.outlen == len && memcmp(r.out, want, len) == 0,
	      "output: %zu bytes, expected %zu (each path once, in order)", r.outlen, len);
	tl_run_free(&r);
	free(want);
}

int main(int argc, char **argv)
{
	REQUIRE(argc == 2, "usage: test_mapctl_cli PATH-TO-MAPCTL");
	mapctl = argv[1];
	tl_tmpdir(dir, sizeof(dir), "test_mapctl_cli");
	unsetenv("MAPPER_DB");
	unsetenv("MAPPERD_SOCKET");

	test_daemon_not_running();
	test_global_options();
	test_help();
	test_files_zero_many();

	tl_cleanup(dir);
	return check_done();
}
