// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a user who can read a damaged file can make mapperd do (issue 12,
 * item 5), on a dm-dust filesystem with a 64 MiB file whose block at 60 MiB
 * is bad, and event_read_limit = 8M:
 *  1. each read of the file's bad block (EIO, a fanotify report) makes the
 *     daemon read at most 8 MiB of the disk (/sys/block/DISK/stat), not the
 *     whole file again; status counts the report as limited and says so;
 *  2. report after report the reads move on through the file, and the bad
 *     block is found by the eighth report at the latest;
 *  3. with event scans on and event_scan_interval = 1h, a report that read
 *     only part of the file and found nothing asks for one media scan; the
 *     next such report asks for none (counted as limited).
 *
 * Usage (in the guest): vm_mapperd_amplify MAPPERD MAPCTL DEVICE
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "mdtest.h"
#include "vmtest.h"

#define MiB (1024ULL * 1024)
#define FILE_MB 64
#define BAD_AT (60 * MiB)
#define LIMIT (8 * MiB)
/* Besides the data: GETFSMAP, bulkstat and the directory pass that name the
 * owner of a bad block read metadata (about 2 MiB here).  Before the fix
 * each report read the whole 64 MiB file. */
#define SLACK (4 * MiB)
#define DEDUP_WAIT 2.5			/* past the test configuration's 2 s window */

static char reply[1 << 20];

/* Bytes read from the disk so far (the disk under dm-dust: /sys/block/NAME/stat,
 * sectors read).  The guest kernel has no per-process I/O accounting; while
 * the test waits for a report, only the daemon reads. */
static long long disk_read_bytes(const char *disk)
{
	char path[96];
	unsigned long long v[3] = { 0 };
	FILE *f;

	snprintf(path, sizeof(path), "/sys/block/%s/stat", disk);
	f = fopen(path, "r");
	REQUIRE(f, "%s: %s", path, strerror(errno));
	REQUIRE(fscanf(f, "%llu %llu %llu", &v[0], &v[1], &v[2]) == 3, "%s: unreadable", path);
	fclose(f);
	return (long long)(v[2] * 512);
}

struct want {
	uint64_t ino, offset;
};

static bool match(const struct map_finding *f, void *arg)
{
	const struct want *w = arg;

	return f->source == MAP_SOURCE_EVENT && !strcmp(f->kind, "file") && f->ino == w->ino &&
	       f->has_offset && f->offset == w->offset;
}

/* Read the bad block of the file (EIO: a fanotify report naming its inode)
 * and wait until the daemon handled the report.  Only that block is read, so
 * what the disk reads meanwhile is the daemon's. */
static void one_report(int n)
{
	long long before = mdt_status_number("\"processed\":");
	double t0 = tl_mono();
	int err = tl_read_block(FX_MNT "/big.bin", BAD_AT);

	CHECK(err == EIO, "report %d: reading big.bin at 60 MiB: %s, expected EIO", n,
	      err ? strerror(err) : "no error");
	while (tl_mono() - t0 < 30 && mdt_status_number("\"processed\":") <= before)
		tl_sleep(0.05);
	REQUIRE(mdt_status_number("\"processed\":") > before, "report %d was not handled", n);
}

int main(int argc, char **argv)
{
	struct map_finding f;
	int arg;

	vt_require_vm();
	arg = mdt_args(argc, argv);
	REQUIRE(arg < argc, "which device?");
	fx_setup(argv[arg], vt_features());
	const char *disk = strrchr(argv[arg], '/') ? strrchr(argv[arg], '/') + 1 : argv[arg];
	tl_must("dd if=/dev/urandom of=%s/big.bin bs=1M count=%d status=none && sync", FX_MNT,
		FILE_MB);
	uint64_t bad_phys = fx_file_physical("big.bin", BAD_AT);
	struct want w = { fx_ino("big.bin"), BAD_AT };

	mdt_write_config("event_read_limit = 8M\nevent_scans = no\n");
	pid_t pid = mdt_start(NULL);
	REQUIRE(mdt_wait_watched(FX_MNT, true, 10) >= 0, "mapperd does not watch %s", FX_MNT);
	tl_must("dmsetup message dust 0 addbadblock %llu", (unsigned long long)(bad_phys / 4096));
	tl_must("dmsetup message dust 0 enable");

	/* 1 and 2: bounded reads that move on */
	int found_at = 0;
	for (int n = 1; n <= 9 && !found_at; n++) {
		long long io0 = disk_read_bytes(disk);

		one_report(n);
		long long io = disk_read_bytes(disk) - io0;
		printf("report %d: the disk read %lld KiB\n", n, io / 1024);
		CHECK(io <= (long long)(LIMIT + SLACK), "report %d: the disk read %lld bytes, over "
		      "event_read_limit (%llu) and what locating takes", n, io,
		      (unsigned long long)LIMIT);
		if (mdt_count_findings(match, &w) > 0)
			found_at = n;
		else
			tl_sleep(DEDUP_WAIT);
	}
	CHECK(found_at >= 1 && found_at <= (int)(FILE_MB * MiB / LIMIT),
	      "the block at 60 MiB was not found within %llu reports", FILE_MB * MiB / LIMIT);
	printf("the bad block at 60 MiB was found by report %d\n", found_at);
	if (mdt_wait_finding(match, &w, tl_mono(), 1, &f) >= 0) {
		CHECK_INT(f.length, 4096);
		map_finding_clear(&f);
	}
	long long limited = mdt_status_number("\"reads_limited\":");
	CHECK(limited >= 1, "status counts %lld limited file reports", limited);
	CHECK_INT(mdt_request("status", reply, sizeof(reply)), 0);
	CHECK(strstr(reply, "limits: ") != NULL, "status text says nothing of limits:\n%s", reply);
	printf("%s", reply);

	/* 3: at most one event-requested scan per event_scan_interval */
	mdt_write_config("event_read_limit = 8M\nevent_scans = yes\nevent_scan_interval = 1h\n");
	CHECK_INT(mdt_request("reload", reply, sizeof(reply)), 0);
	long long asked0 = mdt_status_number("\"scans_requested\":");
	long long limited0 = mdt_status_number("\"scans_limited\":");
	for (int n = 1; n <= 3; n++) {
		tl_sleep(DEDUP_WAIT);
		one_report(100 + n);
	}
	long long asked = mdt_status_number("\"scans_requested\":") - asked0;
	long long held = mdt_status_number("\"scans_limited\":") - limited0;
	printf("3 more reports: %lld scans requested, %lld not (event_scan_interval)\n", asked,
	       held);
	CHECK_INT(asked, 1);
	CHECK(held >= 1, "%lld scans held back by event_scan_interval", held);

	CHECK_INT(mdt_stop(pid), 0);
	mdt_show_log();
	fx_teardown();
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
