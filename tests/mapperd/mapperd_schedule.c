// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Scheduled scans go on after a `cancel` (issue 12, item 4).  Two
 * filesystems, both due at start (never scanned, no random delay): one scan
 * runs, rate-limited so it lasts, the other waits in the queue.
 *  1. cancel the queued one: it is dropped, and its next metadata and media
 *     times are set again (not "off"), in the future, within one interval;
 *  2. cancel the running one: it stops at a checkpoint, and its next times
 *     are set again the same way;
 *  3. when those times come, a scheduled scan runs again without a reload.
 * Before the fix both filesystems showed "off" for good after the cancels.
 *
 * Usage (in the guest): vm_mapperd_schedule MAPPERD MAPCTL DEV_A DEV_B
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "mdtest.h"
#include "vmtest.h"

#define MNT_A "/mnt/a"
#define MNT_B "/mnt/b"
#define INTERVAL 40			/* seconds, both kinds */

static char reply[1 << 20];


static long long fs_number(const char *mnt, const char *key)
{
	const char *v = mdt_status_field(mnt, key);

	return v ? strtoll(v, NULL, 10) : -1;
}

static bool fs_flag(const char *mnt, const char *key)
{
	const char *v = mdt_status_field(mnt, key);

	return v && strncmp(v, "true", 4) == 0;
}

static void check_autofsck(const char *mnt, const char *want)
{
	const char *v = mdt_status_field(mnt, "autofsck");

	CHECK(v && !strncmp(v, want, strlen(want)), "%s: status autofsck %.20s, expected %s", mnt,
	      v ? v : "(none)", want);
}

/* Both next times of @mnt set again: in the future, within one interval. */
static void check_rearmed(const char *what, const char *mnt)
{
	long long now = (long long)time(NULL);
	long long meta = fs_number(mnt, "next_metadata_time"),
		  media = fs_number(mnt, "next_media_time");

	printf("%s: %s next metadata scan at now%+lld s, next media scan at now%+lld s\n", what, mnt,
	       meta ? meta - now : 0, media ? media - now : 0);
	CHECK(meta > now && meta <= now + INTERVAL + 1,
	      "%s: %s next metadata scan is %lld (now %lld): not set again", what, mnt, meta, now);
	CHECK(media > now && media <= now + INTERVAL + 1,
	      "%s: %s next media scan is %lld (now %lld): not set again", what, mnt, media, now);
}

int main(int argc, char **argv)
{
	char conf[512];
	const char *running = NULL, *queued = NULL;

	vt_require_vm();
	int rest = mdt_args(argc, argv);
	REQUIRE(argc - rest == 2, "usage: %s MAPPERD MAPCTL DEV_A DEV_B", argv[0]);
	tl_mkfs_mount(argv[rest], vt_features(), MNT_A);
	tl_mkfs_mount(argv[rest + 1], vt_features(), MNT_B);
	/* enough data that a 4 MB/s media pass lasts well past the cancels */
	tl_must("dd if=/dev/urandom of=%s/data bs=1M count=48 status=none", MNT_A);
	tl_must("dd if=/dev/urandom of=%s/data bs=1M count=48 status=none", MNT_B);
	tl_must("sync");
	snprintf(conf, sizeof(conf),
		 "metadata_interval = %ds\nmedia_interval = %ds\nrandom_delay = 0\n"
		 "rate_limit = 4M\n", INTERVAL, INTERVAL);
	mdt_write_config(conf);
	/* mkfs 6.x sets no autofsck property; give /mnt/b one by hand. */
	tl_must("setfattr -n trusted.xfs:autofsck -v check " MNT_B);
	pid_t pid = mdt_start(NULL);
	REQUIRE(mdt_wait_watched(MNT_A, true, 20) >= 0 && mdt_wait_watched(MNT_B, true, 20) >= 0,
		"mapperd does not watch both filesystems");
	check_autofsck(MNT_A, "null");
	check_autofsck(MNT_B, "\"check\"");

	/* Both are due now: one runs, the other waits. */
	double t0 = tl_mono();
	while (tl_mono() - t0 < 30 && !(running && queued)) {
		running = fs_flag(MNT_A, "running") ? MNT_A : fs_flag(MNT_B, "running") ? MNT_B : NULL;
		queued = fs_flag(MNT_A, "queued") ? MNT_A : fs_flag(MNT_B, "queued") ? MNT_B : NULL;
		tl_sleep(0.2);
	}
	REQUIRE(running && queued && strcmp(running, queued) != 0,
		"expected one scheduled scan running and one queued (running %s, queued %s)",
		running ? running : "none", queued ? queued : "none");
	printf("scheduled scan of %s running, of %s queued\n", running, queued);

	/* 1. the queued one */
	char line[64];
	snprintf(line, sizeof(line), "cancel %s", queued);
	CHECK_INT(mdt_request(line, reply, sizeof(reply)), 0);
	printf("%s", reply);
	CHECK(strstr(reply, "dropped") != NULL, "cancel of the queued scan: %s", reply);
	check_rearmed("queued scan dropped", queued);

	/* 2. the running one */
	snprintf(line, sizeof(line), "cancel %s", running);
	CHECK_INT(mdt_request(line, reply, sizeof(reply)), 0);
	printf("%s", reply);
	t0 = tl_mono();
	while (tl_mono() - t0 < 120 && fs_flag(running, "running"))
		tl_sleep(0.2);
	REQUIRE(!fs_flag(running, "running"), "the cancelled scan of %s still runs", running);
	printf("running scan stopped %.1f s after the cancel\n", tl_mono() - t0);
	check_rearmed("running scan cancelled", running);

	/* 3. the schedule goes on by itself */
	t0 = tl_mono();
	bool again = false;
	while (tl_mono() - t0 < INTERVAL + 60 && !again) {
		again = fs_flag(MNT_A, "running") || fs_flag(MNT_B, "running");
		tl_sleep(0.5);
	}
	CHECK(again, "no scheduled scan ran again within %d s of the cancels", INTERVAL + 60);
	if (again)
		printf("a scheduled scan runs again %.1f s after the cancels\n", tl_mono() - t0);

	CHECK_INT(mdt_stop(pid), 0);
	mdt_show_log();
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
