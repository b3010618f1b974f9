// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapperd must not watch another filesystem that its mount point's path
 * leads to (a mount over the mount point, or a path a local user controls).
 * On a dm-dust filesystem A with a 1 MiB file, mapperd watches A by its
 * UUID only, with no event source at first (fanotify, health monitor and
 * kernel log off):
 *  1. another XFS filesystem B (a second disk) is mounted over A's mount
 *     point; the configuration turns the event source on (fanotify; on the
 *     mainline profile the health monitor) and mapperd reloads.  It must
 *     log that the mount point leads to another filesystem, and status must
 *     say the source is off for A (fanotify false; health_monitor "off: the
 *     mount point leads to another filesystem").  On mainline, a health
 *     monitor of our own can still be attached to B (mapperd holds none);
 *  2. B is unmounted: at that change of the mount table mapperd watches A
 *     again (logs it; status shows the source on);
 *  3. a read of A's file over a bad block fails with EIO and arrives
 *     through that source (an events row of source fanotify or healthmon)
 *     as a finding for exactly that block;
 *  4. SIGTERM stops the daemon cleanly (exit 0).
 * Before the check, step 1 marked (or took the monitor of) B, status said
 * fanotify true, and after step 2 A's errors reached nobody.
 *
 * Usage (in the guest): vm_mapperd_mountover MAPPERD MAPCTL DEVICE OTHER
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "map_healthmon.h"
#include "mdtest.h"
#include "vmtest.h"

#define KiB 1024ULL
#define BAD_AT (512 * KiB)

struct want {
	uint64_t ino, physical;
};

static bool match(const struct map_finding *f, void *arg)
{
	const struct want *w = arg;

	return f->source == MAP_SOURCE_EVENT && !strcmp(f->kind, "file") && f->ino == w->ino &&
	       f->has_offset && f->offset == BAD_AT && f->has_range && f->physical == w->physical;
}

/* Does the daemon's log hold @text? */
static bool log_has(const char *text)
{
	char line[1024];
	bool found = false;
	FILE *f = fopen(MDT_LOG, "r");

	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, text) != NULL;
	if (f)
		fclose(f);
	return found;
}

/* Wait up to @secs for a line of the daemon's log holding @text. */
static bool wait_log(const char *text, double secs)
{
	double end = tl_mono() + secs;

	while (!log_has(text)) {
		if (tl_mono() >= end)
			return false;
		tl_sleep(0.1);
	}
	return true;
}

static void write_config(const char *uuid, bool source)
{
	bool mainline = !strcmp(vt_profile(), "mainline");
	char extra[256];

	snprintf(extra, sizeof(extra), "filesystems = %s\nkmsg = no\nevent_scans = no\n"
		 "fanotify = %s\nhealth_monitor = %s\n", uuid, source && !mainline ? "yes" : "no",
		 source && mainline ? "yes" : "no");
	mdt_write_config(extra);
}

int main(int argc, char **argv)
{
	bool mainline;
	struct map_finding f;
	char uuid[64];
	int arg;

	vt_require_vm();
	arg = mdt_args(argc, argv);
	REQUIRE(arg + 1 < argc, "which devices?");
	const char *other = argv[arg + 1];
	mainline = !strcmp(vt_profile(), "mainline");
	fx_setup(argv[arg], vt_features());
	tl_must("dd if=/dev/urandom of=%s/big.bin bs=1M count=1 status=none && sync", FX_MNT);
	struct want w = { fx_ino("big.bin"), fx_file_physical("big.bin", BAD_AT) };
	snprintf(uuid, sizeof(uuid), "%s", tl_out("blkid -s UUID -o value %s", FX_DUST));
	uuid[strcspn(uuid, "\n")] = '\0';
	REQUIRE(uuid[0], "no UUID for %s", FX_DUST);

	write_config(uuid, false);
	mdt_no_fanotify = true;
	pid_t pid = mdt_start(NULL);
	REQUIRE(mdt_wait_watched(FX_MNT, true, 10) >= 0, "mapperd does not watch %s", FX_MNT);
	MDT_CHECK_STATUS(FX_MNT, "fanotify", "false");

	/* 1. Another filesystem over the mount point, then a reload. */
	tl_mkfs_mount(other, "", FX_MNT);
	write_config(uuid, true);
	char reply[512];
	CHECK_INT(mdt_request("reload", reply, sizeof(reply)), 0);
	CHECK(wait_log("the mount point now leads to another filesystem", 10),
	      "mapperd did not say that %s leads to another filesystem", FX_MNT);
	MDT_CHECK_STATUS(FX_MNT, "fanotify", "false");
	if (mainline) {
		MDT_CHECK_STATUS(FX_MNT, "health_monitor",
				 "\"off: the mount point leads to another filesystem\"");
		int root = open(FX_MNT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		REQUIRE(root >= 0, "%s: %s", FX_MNT, strerror(errno));
		int mon = map_healthmon_open(root);
		close(root);
		CHECK(mon >= 0, "a health monitor on the filesystem mounted over %s: %s (mapperd "
		      "holds it?)", FX_MNT, mon < 0 ? strerror(-mon) : "");
		if (mon >= 0)
			close(mon);
	}

	/* 2. The mount over it goes: A is watched again. */
	tl_must("umount %s", other);
	CHECK(wait_log("the mount point leads to it again", 10),
	      "mapperd did not watch %s again after the mount over it went", FX_MNT);
	if (mainline)
		MDT_CHECK_STATUS(FX_MNT, "health_monitor", "\"on\"");
	else
		MDT_CHECK_STATUS(FX_MNT, "fanotify", "true");

	/* 3. A's bad block through that source. */
	tl_must("dmsetup message dust 0 addbadblock %llu", (unsigned long long)(w.physical / 4096));
	tl_must("dmsetup message dust 0 enable");
	tl_evict(FX_MNT "/big.bin");
	double t0 = tl_mono();
	CHECK_INT(tl_read_file(FX_MNT "/big.bin"), EIO);
	double waited = mdt_wait_finding(match, &w, t0, 20, &f);
	CHECK(waited >= 0, "no finding for big.bin at %llu (device byte %llu)",
	      (unsigned long long)BAD_AT, (unsigned long long)w.physical);
	if (waited >= 0) {
		printf("failed read -> finding in %.3f s\n", waited);
		CHECK(f.npaths == 1 && !strcmp(f.paths[0], "big.bin"), "path");
		map_finding_clear(&f);
	}
	CHECK(mdt_count_events(mainline ? "healthmon" : "fanotify") >= 1,
	      "the read error did not arrive through %s", mainline ? "the health monitor" :
	      "fanotify");

	/* 4 */
	CHECK_INT(mdt_stop(pid), 0);
	mdt_show_log();
	fx_teardown();
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
