// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapperd keeps a Prometheus textfile (metrics_file) for node_exporter:
 *  1. it is there soon after the start, mode 0644 under umask 077, with no
 *     open findings and no FILE.tmp left beside it;
 *  2. a read over a bad block (dm-dust) gives a finding, and the file then
 *     says mapper_open_findings{...,kind="file"} 1 within seconds (not at
 *     the once-a-minute refresh), and passes promtool check metrics; the
 *     daemon's families count the report received and none dropped;
 *  3. a metadata scan that completes shows in the file within seconds as
 *     mapper_last_complete_scan_timestamp_seconds{...,type="metadata"}
 *     (the scheduler tells the writer; a refresh would take up to a minute).
 *
 * Usage (in the guest): vm_mapperd_metrics MAPPERD MAPCTL DEVICE
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "fixture.h"
#include "mdtest.h"
#include "vmtest.h"

#define PROM_DIR MDT_DIR "/textfile"
#define PROM PROM_DIR "/mapper.prom"
/* Longer than the pipeline needs to store a finding and write the file
 * (well under a second), far shorter than the refresh of once a minute. */
#define FRESH_SECS 10.0

static char text[65536];

/* The file's text, or NULL when it is not there. */
static const char *prom_text(void)
{
	return tl_slurp(PROM, text, sizeof(text)) < 0 ? NULL : text;
}

/* Wait until the file holds @line (a whole line); seconds waited or -1. */
static double wait_line(const char *line, double timeout)
{
	char want[512];
	double t0 = tl_mono();

	snprintf(want, sizeof(want), "\n%s\n", line);
	while (tl_mono() - t0 < timeout) {
		const char *t = prom_text();

		if (t && strstr(t, want))
			return tl_mono() - t0;
		tl_sleep(0.05);
	}
	return -1;
}

static bool match_file(const struct map_finding *f, void *arg)
{
	return f->ino == *(const uint64_t *)arg && !strcmp(f->kind, "file");
}

int main(int argc, char **argv)
{
	char reply[4096], line[512];
	struct stat sb;
	int arg;

	vt_require_vm();
	REQUIRE(tl_sh("command -v promtool >/dev/null") == 0,
		"promtool not found: install Debian's prometheus package (scripts/packages)");
	arg = mdt_args(argc, argv);
	REQUIRE(arg < argc, "which device?");
	fx_setup(argv[arg], vt_features());
	tl_must("xfs_io -f -c 'pwrite -q -S 0x5a 0 256k' -c fsync %s/victim.bin", FX_MNT);
	uint64_t ino = fx_ino("victim.bin");
	uint64_t phys = fx_file_physical("victim.bin", 64 * 1024);
	const char *uuid = tl_out("blkid -s UUID -o value " FX_DUST);
	REQUIRE(uuid[0], "no UUID for " FX_DUST);
	char prefix[256];
	snprintf(prefix, sizeof(prefix), "{uuid=\"%s\",mountpoint=\"" FX_MNT "\"", uuid);

	tl_must("mkdir -p " PROM_DIR);
	mdt_write_config("metrics_file = " PROM "\nmetrics_interval = 1s\n");
	mode_t old = umask(077);	/* the daemon inherits it; the file is 0644 anyway */
	pid_t pid = mdt_start(NULL);
	umask(old);
	REQUIRE(mdt_wait_watched(FX_MNT, true, 10) >= 0, "mapperd does not watch %s", FX_MNT);

	/* 1. There from the start. */
	double waited = wait_line("# TYPE mapper_open_findings gauge", FRESH_SECS);
	CHECK(waited >= 0, "%s not written within %.0f s of the start", PROM, FRESH_SECS);
	CHECK(stat(PROM, &sb) == 0 && (sb.st_mode & 07777) == 0644, "mode %o",
	      (unsigned int)(sb.st_mode & 07777));
	CHECK(lstat(PROM ".tmp", &sb) < 0 && errno == ENOENT, PROM ".tmp is left");
	const char *t = prom_text();
	CHECK(t && !strstr(t, "kind=\"file\""), "a file finding before any damage:\n%s", t);

	/* 2. One finding. */
	tl_must("dmsetup message dust 0 addbadblock %llu", (unsigned long long)(phys / 4096));
	tl_must("dmsetup message dust 0 enable");
	tl_evict(FX_MNT "/victim.bin");
	double t0 = tl_mono();
	CHECK_INT(tl_read_file(FX_MNT "/victim.bin"), EIO);
	double stored = mdt_wait_finding(match_file, &ino, t0, 10, NULL);
	CHECK(stored >= 0, "no finding for victim.bin within 10 s");
	snprintf(line, sizeof(line), "mapper_open_findings%s,kind=\"file\"} 1", prefix);
	waited = wait_line(line, FRESH_SECS);
	printf("EIO -> finding stored in %.3f s -> in %s after %.3f s more\n", stored, PROM, waited);
	CHECK(waited >= 0, "no line '%s' within %.0f s; the file says:\n%s", line, FRESH_SECS,
	      prom_text() ? text : "(no file)");
	CHECK_INT(tl_sh("promtool check metrics < " PROM), 0);
	/* The daemon's own counters: the read's report (fanotify, and the
	 * kernel log's line for the same error, merged or counted as a
	 * duplicate), nothing lost. */
	const char *t2 = prom_text();
	const char *rx = t2 ? strstr(t2, "\nmapper_daemon_reports_received_total ") : NULL;
	CHECK(rx && strtoull(rx + 38, NULL, 10) >= 1, "no reports received in:\n%s", t2 ? t2 : "");
	CHECK(t2 && strstr(t2, "\nmapper_daemon_reports_dropped_total{reason=\"queue_full\"} 0\n") &&
	      strstr(t2, "\nmapper_daemon_reports_dropped_total{reason=\"spool_full\"} 0\n"),
	      "reports lost in:\n%s", t2 ? t2 : "");

	/* 3. A scan completes. */
	REQUIRE(mdt_request("scan metadata " FX_MNT, reply, sizeof(reply)) == 0, "%s", reply);
	t0 = tl_mono();
	bool complete = false;
	while (!complete && tl_mono() - t0 < 180) {
		complete = atoi(tl_out("sqlite3 " MDT_DB " \"SELECT count(*) FROM scans WHERE "
				       "state = 'complete' AND do_metadata\"")) == 1;
		if (!complete)
			tl_sleep(0.2);
	}
	CHECK(complete, "the scan did not complete within 180 s");
	snprintf(line, sizeof(line), "mapper_last_complete_scan_timestamp_seconds%s,type=\"metadata\"}",
		 prefix);
	t0 = tl_mono();
	bool seen = false;
	while (!seen && tl_mono() - t0 < FRESH_SECS) {
		t = prom_text();
		seen = t && strstr(t, line);
		if (!seen)
			tl_sleep(0.05);
	}
	printf("scan complete -> in %s after %.3f s\n", PROM, tl_mono() - t0);
	CHECK(seen, "no '%s' within %.0f s of the scan's end; the file says:\n%s", line,
	      FRESH_SECS, prom_text() ? text : "(no file)");
	CHECK_INT(tl_sh("promtool check metrics < " PROM), 0);

	CHECK_INT(mdt_stop(pid), 0);
	mdt_show_log();
	CHECK(atoi(tl_out("grep -c 'metrics file' %s", MDT_LOG)) == 0,
	      "the daemon logged a metrics file error");
	fx_teardown();
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
