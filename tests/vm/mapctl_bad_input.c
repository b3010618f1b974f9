// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Bad input gets one clear line and loses nothing: paths that are not XFS or
 * do not exist, a filesystem without rmapbt, a read-only mount, an unmount
 * during a scan, a corrupt database and one from a newer version (never
 * written to), two scans at once, SIGINT and kill -9 in the middle of a scan
 * (resumed, no duplicates, database intact), and users who are not root.
 *
 * Usage (in the guest): vm_mapctl_bad_input MAPCTL DEVICE OTHER_DEVICE
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "vmtest.h"

#define MiB (1024ULL * 1024)
#define DB "/tmp/bad.db"

static const char *mapctl;

struct outcome {
	int rc;
	char err[4096];
	int err_lines;
	char out[8192];
};

/* Run a shell command line; exit status, stderr and stdout. */
static struct outcome *run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static struct outcome *run(const char *fmt, ...)
{
	static struct outcome o;
	char *cmd;
	va_list ap;

	va_start(ap, fmt);
	REQUIRE(vasprintf(&cmd, fmt, ap) > 0, "vasprintf");
	va_end(ap);
	printf("+ %s\n", cmd);
	o.rc = atoi(tl_out("(%s) 2>/tmp/err.txt >/tmp/out.txt; echo $?", cmd));
	snprintf(o.err, sizeof(o.err), "%s", tl_out("cat /tmp/err.txt"));
	snprintf(o.out, sizeof(o.out), "%s", tl_out("cat /tmp/out.txt"));
	o.err_lines = atoi(tl_out("grep -c . /tmp/err.txt"));
	printf("  exit %d; stderr: %s\n", o.rc, o.err);
	free(cmd);
	return &o;
}

/* One line on stderr, exit 2, containing @text. */
static void check_refused(const struct outcome *o, const char *text)
{
	CHECK_INT(o->rc, 2);
	CHECK_INT(o->err_lines, 1);
	CHECK(strstr(o->err, text), "stderr '%s' does not say '%s'", o->err, text);
}

static long long db_int(const char *db, const char *sql)
{
	return atoll(tl_out("sqlite3 %s \"%s\"", db, sql));
}

/* Start a slow scan in the background; its pid. */
static int start_scan(const char *args)
{
	return atoi(tl_out("%s --db " DB " scan %s </dev/null >/tmp/bg.out 2>/tmp/bg.err & echo $!",
			   mapctl, args));
}

/* Wait until the scan run by @pid has checkpointed past @pos (bytes). */
static long long wait_position(int pid, unsigned long long pos)
{
	char sql[160];
	long long p = 0;

	snprintf(sql, sizeof(sql), "select coalesce(max(media_position), 0) from scans where "
		 "state = 'running' and pid = %d", pid);
	for (int i = 0; i < 600; i++) {
		p = db_int(DB, sql);
		if (p > (long long)pos)
			return p;
		usleep(100000);
	}
	printf("scans: %s\n", tl_out("sqlite3 " DB " 'select * from scans'"));
	REQUIRE(0, "scan %d never passed byte %llu (at %lld); its stderr: %s", pid, pos, p,
		tl_out("cat /tmp/bg.err"));
	return p;
}

static int wait_exit(int pid)
{
	return atoi(tl_out("while kill -0 %d 2>/dev/null; do sleep 0.1; done; "
			   "wait %d 2>/dev/null; cat /tmp/bg.err >&2; echo 0", pid, pid));
}

static const char *sha(const char *file)
{
	static char buf[128];

	snprintf(buf, sizeof(buf), "%s", tl_out("sha256sum < %s", file));
	return buf;
}

struct cand {
	char name[64];
	uint64_t phys;
};

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	return x->phys < y->phys ? -1 : x->phys > y->phys;
}

int main(int argc, char **argv)
{
	struct outcome *o;
	mapctl = argc > 1 ? argv[1] : "mapctl";
	const char *dev = argc > 2 ? argv[2] : "/dev/vda";
	const char *other = argc > 3 ? argv[3] : "/dev/vdb";

	vt_require_vm();
	fx_setup(dev, vt_features());
	fx_build_tree();
	CHECK_INT(run("%s --db " DB " scan " FX_MNT, mapctl)->rc, 0);

	/* ---- paths ---- */
	check_refused(run("%s --db " DB " scan /proc", mapctl), "not on an XFS filesystem");
	check_refused(run("%s --db " DB " scan /nonexistent/x", mapctl), "no such file");
	check_refused(run("%s --db " DB " scan", mapctl), "which filesystem");
	check_refused(run("%s --db " DB " frobnicate", mapctl), "unknown command");
	check_refused(run("%s --db " DB " scan --rate fast " FX_MNT, mapctl), "--rate");

	/* ---- no rmapbt: degraded mode, and it says so ---- */
	tl_must("mkfs.xfs -q -f -m rmapbt=0 %s && mkdir -p /mnt/normap && mount %s /mnt/normap && "
		"echo hello > /mnt/normap/file", other, other);
	o = run("%s --db " DB " scan /mnt/normap", mapctl);
	CHECK_INT(o->rc, 0);
	CHECK(strstr(o->err, "no reverse-mapping btree"), "degraded mode not announced: %s", o->err);
	CHECK(strstr(run("%s --db " DB " status /mnt/normap", mapctl)->out,
		     "no reverse-mapping btree"), "status shows degraded mode");
	tl_must("umount /mnt/normap");

	/* ---- read-only mount: repair refused with the reason ---- */
	tl_must("mount -o remount,ro " FX_MNT);
	CHECK_INT(run("%s --db " DB " scan --metadata " FX_MNT, mapctl)->rc, 0);
	check_refused(run("%s --db " DB " repair --yes " FX_MNT, mapctl), "mounted read-only");
	tl_must("mount -o remount,rw " FX_MNT);

	/* ---- a corrupt database and one from a newer version stay untouched ---- */
	tl_must("head -c 65536 /dev/urandom > /tmp/corrupt.db");
	char before[128];
	snprintf(before, sizeof(before), "%s", sha("/tmp/corrupt.db"));
	check_refused(run("%s --db /tmp/corrupt.db status", mapctl), "not a mapper database");
	check_refused(run("%s --db /tmp/corrupt.db scan " FX_MNT, mapctl), "not a mapper database");
	CHECK_STR(sha("/tmp/corrupt.db"), before);
	tl_must("cp " DB " /tmp/newer.db && sqlite3 /tmp/newer.db 'pragma user_version = 99'");
	snprintf(before, sizeof(before), "%s", sha("/tmp/newer.db"));
	check_refused(run("%s --db /tmp/newer.db files", mapctl), "newer version");
	check_refused(run("%s --db /tmp/newer.db scan " FX_MNT, mapctl), "newer version");
	CHECK_STR(sha("/tmp/newer.db"), before);

	/* ---- users who are not root ---- */
	const char *nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups";
	check_refused(run("%s %s --db " DB " files", nobody, mapctl), "permission denied");
	check_refused(run("%s %s --db " DB " scan " FX_MNT, nobody, mapctl), "needs root");
	CHECK_STR(tl_out("stat -c %%a " DB), "640");
	/* A member of the database's group may list. */
	tl_must("chgrp 65534 " DB " " DB "-wal " DB "-shm && chmod 0640 " DB "-wal " DB "-shm");
	o = run("%s %s --db " DB " status " FX_MNT, nobody, mapctl);
	CHECK_INT(o->rc, 0);
	CHECK(strstr(o->out, "state: OK"), "status as a group member: %s", o->out);
	check_refused(run("%s %s --db " DB " repair --yes " FX_MNT, nobody, mapctl), "needs root");

	/* ---- damage spread over the device: rank twenty small files in
	 * different folders (so in different AGs) and the middle of the big
	 * file by disk address; the lowest, the median and the highest are
	 * the victims, wherever the allocator put them ---- */
	struct cand cand[21];
	for (int d = 0; d < 20; d++) {
		snprintf(cand[d].name, sizeof(cand[d].name), "tree/d%02d/s0/f00.dat", d);
		cand[d].phys = fx_file_physical(cand[d].name, 0);
	}
	snprintf(cand[20].name, sizeof(cand[20].name), "big/archive.tar");
	cand[20].phys = fx_file_physical("big/archive.tar", 25 * MiB);
	qsort(cand, 21, sizeof(cand[0]), cmp_cand);
	const struct cand *pick[3] = { &cand[0], &cand[10], &cand[20] };
	const char *names[3];
	uint64_t victims[3], blocks[3];
	for (int i = 0; i < 3; i++) {
		names[i] = pick[i]->name;
		victims[i] = pick[i]->phys;
		blocks[i] = victims[i] / 4096;
	}
	uint64_t lo = victims[0], hi = victims[2];
	REQUIRE(lo < victims[1] && victims[1] < hi, "victims share an address: %llu %llu %llu",
		(unsigned long long)lo, (unsigned long long)victims[1], (unsigned long long)hi);
	char expected[512];
	snprintf(expected, sizeof(expected), "%s", tl_out("printf '" FX_MNT "/%%s\\n' %s %s %s | sort",
							    names[0], names[1], names[2]));
	fx_umount();
	fx_add_bad_blocks(blocks, 3);
	fx_mount();

	/* ---- two scans at once; SIGINT saves and resumes ---- */
	int pid = start_scan("--media --rate 6M " FX_MNT);
	wait_position(pid, 0);
	o = run("%s --db " DB " scan --media " FX_MNT, mapctl);
	check_refused(o, "another scan of this filesystem is running");
	char pidtext[32];
	snprintf(pidtext, sizeof(pidtext), "pid %d", pid);
	CHECK(strstr(o->err, pidtext), "the message names the running scan (%s)", pidtext);
	tl_must("kill -INT %d", pid);
	wait_exit(pid);
	CHECK(strstr(tl_out("cat /tmp/bg.err"), "interrupted; progress is saved"),
	      "SIGINT message");
	CHECK_STR(tl_out("sqlite3 " DB " 'select state from scans order by id desc limit 1'"),
		  "interrupted");

	/* ---- kill -9 between the first and last bad block, then resume ---- */
	pid = start_scan("--media --restart --rate 6M " FX_MNT);
	long long at = wait_position(pid, lo);
	CHECK(at < (long long)hi, "scan passed the last victim before the kill (%lld)", at);
	tl_must("kill -9 %d", pid);
	wait_exit(pid);
	long long scan_id = db_int(DB, "select id from scans order by id desc limit 1");
	CHECK_STR(tl_out("sqlite3 " DB " 'select state from scans where id = %lld'", scan_id),
		  "running");	/* as the killed process left it */
	o = run("%s --db " DB " scan --media " FX_MNT, mapctl);
	CHECK_INT(o->rc, 1);
	CHECK(strstr(o->out, "(resumed)"), "the scan resumed: %s", o->out);
	CHECK_INT(db_int(DB, "select id from scans order by id desc limit 1"), scan_id);
	CHECK_INT(db_int(DB, "select runs from scans order by id desc limit 1") >= 2, 1);
	CHECK_STR(tl_out("sqlite3 " DB " 'select state from scans where id = %lld'", scan_id),
		  "complete");
	/* Each damaged file exactly once, none lost to the kill. */
	CHECK_INT(db_int(DB, "select count(*) from findings where state = 'open' and kind = 'file'"),
		  3);
	CHECK_INT(db_int(DB, "select count(*) - count(distinct fkey) from findings"), 0);
	o = run("%s --db " DB " files -0 " FX_MNT " | tr '\\0' '\\n' | sort", mapctl);
	CHECK_STR(o->out, expected);
	CHECK_STR(tl_out("sqlite3 " DB " 'pragma integrity_check'"), "ok");

	/* ---- unmounted during a scan: stops, saved, exit 2; then resumes ---- */
	pid = start_scan("--media --restart --rate 6M " FX_MNT);
	wait_position(pid, 0);
	tl_must("umount -l " FX_MNT);
	wait_exit(pid);
	CHECK(strstr(tl_out("cat /tmp/bg.err"), "unmounted"), "unmount message: %s",
	      tl_out("cat /tmp/bg.err"));
	CHECK_STR(tl_out("sqlite3 " DB " 'select state from scans order by id desc limit 1'"),
		  "interrupted");
	fx_mount();
	o = run("%s --db " DB " scan --media " FX_MNT, mapctl);
	CHECK_INT(o->rc, 1);
	CHECK(strstr(o->out, "(resumed)"), "resumed after the remount: %s", o->out);
	CHECK_INT(db_int(DB, "select count(*) from findings where state = 'open' and kind = 'file'"),
		  3);
	CHECK_STR(tl_out("sqlite3 " DB " 'pragma integrity_check'"), "ok");

	fx_teardown();
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
