// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A daemon scan survives kill -9:
 *  1. mapperd runs a rate-limited full scan of a dm-dust filesystem with two
 *     bad blocks, one early and one late on the device; while it runs, a
 *     mapctl scan of the same filesystem is refused (the scan lock);
 *  2. after the media phase has saved a checkpoint past the first bad block,
 *     mapperd is killed with SIGKILL: the scan row says running;
 *  3. a new mapperd resumes that same scan (same id, runs = 2) from the
 *     checkpoint and completes it; each bad block is one finding, recorded
 *     once; the database passes PRAGMA integrity_check;
 *  4. while mapctl holds the scan lock, a scan requested from mapperd waits
 *     and runs once mapctl is done.
 *
 * Usage (in the guest): vm_mapperd_resume MAPPERD MAPCTL DEVICE
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "mdtest.h"
#include "vmtest.h"

#define MiB (1024ULL * 1024)
#define FILE_MB 48

static char reply[1 << 16];

static int latest_scan(struct map_scan_row *row)
{
	struct map_store *st;
	struct map_store_fs sf;
	struct map_fs *fs;
	int rc;

	if (map_store_open(MDT_DB, MAP_STORE_READONLY, &st) != 0)
		return -1;
	rc = map_fs_open(FX_MNT, &fs);
	if (rc == 0) {
		rc = map_store_fs_by_uuid(st, map_fs_info(fs)->uuid, &sf);
		map_fs_close(fs);
	}
	if (rc == 0)
		rc = map_store_scan_latest(st, sf.id, row);
	map_store_close(st);
	return rc;
}

struct bad {
	uint64_t physical;
	int seen;
	int64_t first_scan, last_scan;
};

static bool is_media(const struct map_finding *f, void *arg)
{
	struct bad *b = arg;

	if (f->source != MAP_SOURCE_MEDIA)
		return false;
	for (int i = 0; i < 2; i++) {
		if (f->has_range && f->physical == b[i].physical) {
			b[i].seen++;
			b[i].first_scan = f->first_scan;
			b[i].last_scan = f->last_scan;
		}
	}
	return true;
}

static int count_actions_resumed(void)
{
	const char *out = tl_out("sqlite3 %s \"SELECT count(*) FROM actions WHERE action = 'scan' "
				 "AND detail LIKE '%%(resumed)%%' AND outcome = 'complete'\"", MDT_DB);
	return atoi(out);
}

int main(int argc, char **argv)
{
	struct map_scan_row row;
	int arg;

	vt_require_vm();
	arg = mdt_args(argc, argv);
	REQUIRE(arg < argc, "which device?");
	fx_setup(argv[arg], vt_features());
	for (int i = 1; i <= 3; i++)
		tl_must("xfs_io -f -c 'pwrite -q -S 0x%02x -b 4m 0 %dm' %s/big%d", 0x40 + i, FILE_MB,
			FX_MNT, i);
	tl_must("sync");
	/* The earliest and the latest place on the device among the files'. */
	struct bad bad[2] = { { .physical = UINT64_MAX }, { .physical = 0 } };
	for (int i = 1; i <= 3; i++) {
		char name[16];

		snprintf(name, sizeof(name), "big%d", i);
		uint64_t a = fx_file_physical(name, 1 * MiB);
		uint64_t b = fx_file_physical(name, (FILE_MB - 1) * MiB);
		if (a < bad[0].physical)
			bad[0].physical = a;
		if (b > bad[1].physical)
			bad[1].physical = b;
	}
	printf("bad blocks at device bytes %llu and %llu\n", (unsigned long long)bad[0].physical,
	       (unsigned long long)bad[1].physical);
	for (int i = 0; i < 2; i++)
		tl_must("dmsetup message dust 0 addbadblock %llu",
			(unsigned long long)(bad[i].physical / 4096));
	tl_must("dmsetup message dust 0 enable");

	/* Slow enough that a checkpoint (every 2 s) comes well before the end. */
	mdt_write_config("rate_limit = 12M\nioprio = be\n");
	pid_t pid = mdt_start(NULL);
	REQUIRE(mdt_wait_watched(FX_MNT, true, 10) >= 0, "not watched");
	REQUIRE(mdt_request("scan full " FX_MNT, reply, sizeof(reply)) == 0, "scan: %s", reply);

	/* 1-2. Wait for a checkpoint in the media phase past the first bad block. */
	double t0 = tl_mono();
	bool ready = false;
	int polls = 0;
	while (!ready && tl_mono() - t0 < 120) {
		int lrc = latest_scan(&row);
		if (polls++ % 20 == 0)
			printf("poll %.1f s: %s, phase %s position %llu\n", tl_mono() - t0,
			       lrc ? map_strerror(lrc) : "ok",
			       lrc ? "-" : map_scan_phase_name(row.phase),
			       lrc ? 0ULL : (unsigned long long)row.media_position);
		ready = lrc == 0 && row.phase == MAP_SCAN_PHASE_MEDIA &&
			row.media_position > bad[0].physical &&
			row.media_position + 16 * MiB < bad[1].physical;
		if (!ready)
			tl_sleep(0.1);
	}
	REQUIRE(ready, "no media checkpoint past byte %llu in time (phase %s position %llu, "
		"%llu of %llu bytes in %.1f s, after %.1f s)",
		(unsigned long long)bad[0].physical, map_scan_phase_name(row.phase),
		(unsigned long long)row.media_position, (unsigned long long)row.media_done,
		(unsigned long long)row.media_total, row.seconds, tl_mono() - t0);
	printf("checkpoint: scan %lld at %llu of %llu bytes\n", (long long)row.id,
	       (unsigned long long)row.media_done, (unsigned long long)row.media_total);
	/* The lock: mapctl cannot scan the filesystem the daemon is scanning. */
	const char *out = tl_out("%s --db %s scan --media %s 2>&1; echo \"exit $?\"", mdt_mapctl,
				 MDT_DB, FX_MNT);
	printf("mapctl during the daemon's scan: %s\n", out);
	CHECK(strstr(out, "another scan of this filesystem is running") && strstr(out, "exit 2"),
	      "mapctl scan was not refused: %s", out);

	mdt_kill9(pid);
	int64_t scan_id = row.id;
	uint64_t killed_at = row.media_position;
	REQUIRE(latest_scan(&row) == 0, "no scan row");
	CHECK_INT(row.state, MAP_SCAN_RUNNING);
	CHECK_INT(row.runs, 1);
	CHECK_INT(row.id, scan_id);

	/* 3. A new daemon resumes it. */
	pid = mdt_start(NULL);
	t0 = tl_mono();
	bool done = false;
	while (!done && tl_mono() - t0 < 180) {
		done = latest_scan(&row) == 0 && row.state == MAP_SCAN_COMPLETE;
		if (!done)
			tl_sleep(0.2);
	}
	CHECK(done, "the scan did not complete after the restart (state %s)",
	      map_scan_state_name(row.state));
	CHECK_INT(row.id, scan_id);
	CHECK_INT(row.runs, 2);
	CHECK(row.media_done == row.media_total && row.media_total > 3 * FILE_MB * MiB,
	      "media done %llu of %llu", (unsigned long long)row.media_done,
	      (unsigned long long)row.media_total);
	CHECK_INT(count_actions_resumed(), 1);
	printf("resumed scan %lld from byte %llu; complete after %d runs\n", (long long)scan_id,
	       (unsigned long long)killed_at, row.runs);

	int n = mdt_count_findings(is_media, bad);
	CHECK_INT(n, 2);
	for (int i = 0; i < 2; i++) {
		CHECK(bad[i].seen == 1, "bad block %d: %d findings", i, bad[i].seen);
		CHECK(bad[i].first_scan == scan_id && bad[i].last_scan == scan_id,
		      "bad block %d: scans %lld..%lld, expected %lld", i,
		      (long long)bad[i].first_scan, (long long)bad[i].last_scan, (long long)scan_id);
	}
	struct map_store *st;
	REQUIRE(map_store_open(MDT_DB, MAP_STORE_READONLY, &st) == 0, "open the database");
	CHECK_INT(map_store_check(st), 0);
	map_store_close(st);

	/* 4. mapctl holds the lock; the daemon's scan waits for it. */
	pid_t ctl = fork();
	REQUIRE(ctl >= 0, "fork");
	if (ctl == 0) {
		execl(mdt_mapctl, "mapctl", "--db", MDT_DB, "scan", "--media", "--rate", "24M",
		      FX_MNT, (char *)NULL);
		_exit(127);
	}
	t0 = tl_mono();
	while (tl_mono() - t0 < 30 && !(latest_scan(&row) == 0 && row.id != scan_id &&
					  row.state == MAP_SCAN_RUNNING))
		tl_sleep(0.05);
	int64_t ctl_scan = row.id;
	CHECK(ctl_scan != scan_id, "mapctl's scan did not start");
	CHECK(mdt_request("scan metadata " FX_MNT, reply, sizeof(reply)) == 0, "scan: %s", reply);
	int st_ctl;
	waitpid(ctl, &st_ctl, 0);
	CHECK(WIFEXITED(st_ctl) && WEXITSTATUS(st_ctl) == 1, "mapctl scan status %#x (1: damage)",
	      st_ctl);
	t0 = tl_mono();
	done = false;
	while (!done && tl_mono() - t0 < 60) {
		done = latest_scan(&row) == 0 && row.id != ctl_scan && row.id != scan_id &&
		       row.state == MAP_SCAN_COMPLETE;
		if (!done)
			tl_sleep(0.2);
	}
	CHECK(done, "the daemon's scan did not run after mapctl's");
	out = tl_out("grep -c 'another scan holds the filesystem' %s", MDT_LOG);
	CHECK(atoi(out) >= 1, "the daemon never found the filesystem busy");

	CHECK_INT(mdt_stop(pid), 0);
	mdt_show_log();
	fx_teardown();
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
