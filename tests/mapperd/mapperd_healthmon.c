// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapperd and the XFS health monitor of stock Linux 7.x (issue 38, item 2),
 * on a dm-dust filesystem with a 10 MiB file whose block at 6 MiB is bad:
 *  1. with health_monitor = yes, status says the monitor is on (and
 *     fanotify off); a 4 KiB read of the bad block fails with EIO, and the
 *     store soon holds a finding for exactly that block (kind file, the
 *     inode, offset 6 MiB, the device byte FIEMAP names, 4096 bytes, the
 *     file's path) with an events row of source "healthmon" naming the
 *     inode; while the report was handled the disk read far less than the
 *     file (the range was read, not the whole file).  The time from the
 *     failed read to the finding is printed (bench/ measures p50/p99);
 *  2. the filesystem unmounts while the daemon runs (the monitor keeps
 *     nothing busy) and the daemon stops watching it;
 *  3. mounted again with another health monitor attached first (as
 *     xfs_healer's would be), mapperd logs that it uses fanotify, status
 *     says why, and the same bad read arrives as a fanotify event;
 *  4. SIGTERM stops the daemon cleanly (exit 0).
 * Between 1 and 2, the figure of issue 38's "done when": M more 10 MiB files
 * (M = 20, or the second argument), each with its own bad block at a
 * different offset, are read one after the other; each gives its finding
 * (exactly that block), and p50 / p99 / max of the time from the failed
 * read to the finding row are printed (no threshold: bench/ compares).
 * A kernel without the monitor (ENOTTY) fails step 1: the test is only
 * registered for the mainline profile.
 *
 * Usage (in the guest): vm_mapperd_healthmon MAPPERD MAPCTL DEVICE [M]
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
#define MiB (1024 * KiB)
#define FILE_MB 10
#define BAD_AT (6 * MiB)
#define LAT_FILES 20		/* default M */
#define LAT_MAX 200

struct want {
	uint64_t ino, offset, physical;
};

static bool match(const struct map_finding *f, void *arg)
{
	const struct want *w = arg;

	return f->source == MAP_SOURCE_EVENT && !strcmp(f->kind, "file") && f->ino == w->ino &&
	       f->has_offset && f->offset == w->offset && f->has_range &&
	       f->physical == w->physical;
}

/* Bytes read from @disk so far (/sys/block/NAME/stat, sectors read). */
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

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest rank: the smallest sample with at least @pct % at or below it. */
static double percentile(const double *sorted, int n, int pct)
{
	int rank = (pct * n + 99) / 100;

	return sorted[rank < 1 ? 0 : rank - 1];
}

/*
 * @m files of 10 MiB, each with a bad block of its own (made before the
 * daemon's step 1, bad from now on); each read fails, each finding is timed.
 */
static void latency_figure(int m, const struct want *lat)
{
	double ms[LAT_MAX];
	int got = 0;

	for (int i = 0; i < m; i++)
		tl_must("dmsetup message dust 0 addbadblock %llu",
			(unsigned long long)(lat[i].physical / 4096));
	for (int i = 0; i < m; i++) {
		char path[64];
		struct map_finding f;

		snprintf(path, sizeof(path), FX_MNT "/lat/f%03d.bin", i);
		int err = tl_read_block(path, lat[i].offset);
		double failed = tl_mono();
		CHECK(err == EIO, "%s at %llu: %s, expected EIO", path,
		      (unsigned long long)lat[i].offset, err ? strerror(err) : "no error");
		double waited = mdt_wait_finding(match, (void *)&lat[i], failed, 30, &f);
		CHECK(waited >= 0, "no finding for %s at %llu", path,
		      (unsigned long long)lat[i].offset);
		if (waited < 0)
			continue;
		CHECK_INT(f.length, 4096);
		map_finding_clear(&f);
		ms[got++] = waited * 1000;
	}
	if (got == 0)
		return;
	qsort(ms, (size_t)got, sizeof(ms[0]), cmp_double);
	printf("failed read -> finding row, %d files of %d MiB (health monitor): p50 %.1f ms, "
	       "p99 %.1f ms, max %.1f ms\n", got, FILE_MB, percentile(ms, got, 50),
	       percentile(ms, got, 99), ms[got - 1]);
}

int main(int argc, char **argv)
{
	struct map_finding f;
	char needle[64];
	int arg;

	vt_require_vm();
	arg = mdt_args(argc, argv);
	REQUIRE(arg < argc, "which device?");
	fx_setup(argv[arg], vt_features());
	const char *disk = strrchr(argv[arg], '/') ? strrchr(argv[arg], '/') + 1 : argv[arg];
	int m = arg + 1 < argc ? atoi(argv[arg + 1]) : LAT_FILES;
	REQUIRE(m >= 1 && m <= LAT_MAX, "M = %d: 1 to %d files", m, LAT_MAX);
	tl_must("dd if=/dev/urandom of=%s/big.bin bs=1M count=%d status=none && sync", FX_MNT,
		FILE_MB);
	struct want w = { fx_ino("big.bin"), BAD_AT, fx_file_physical("big.bin", BAD_AT) };
	/* The latency files: one 10 MiB file copied M times, a bad block each
	 * at a different 4 KiB block of the file (spread over its 2560). */
	static struct want lat[LAT_MAX];
	tl_must("mkdir %s/lat && for i in $(seq 0 %d); do cp --reflink=never %s/big.bin "
		"%s/lat/f$(printf %%03d $i).bin; done && sync", FX_MNT, m - 1, FX_MNT, FX_MNT);
	for (int i = 0; i < m; i++) {
		char rel[32];

		snprintf(rel, sizeof(rel), "lat/f%03d.bin", i);
		lat[i].ino = fx_ino(rel);
		lat[i].offset = (uint64_t)((i * 397 + 11) % (FILE_MB * 256)) * 4096;
		lat[i].physical = fx_file_physical(rel, lat[i].offset);
	}

	/* 1: the monitor's file range straight to the finding */
	mdt_write_config("health_monitor = yes\nevent_scans = no\n");
	pid_t pid = mdt_start(NULL);
	REQUIRE(mdt_wait_watched(FX_MNT, true, 10) >= 0, "mapperd does not watch %s", FX_MNT);
	MDT_CHECK_STATUS(FX_MNT, "health_monitor", "\"on\"");
	MDT_CHECK_STATUS(FX_MNT, "fanotify", "false");
	tl_must("dmsetup message dust 0 addbadblock %llu", (unsigned long long)(w.physical / 4096));
	tl_must("dmsetup message dust 0 enable");

	/* Nothing reported yet (and this process has read the store once, so
	 * the time below is mapperd's, not our first look at the store). */
	CHECK_INT(mdt_count_events("healthmon"), 0);
	long long io0 = disk_read_bytes(disk);
	double t0 = tl_mono();
	int err = tl_read_block(FX_MNT "/big.bin", BAD_AT);
	CHECK(err == EIO, "reading big.bin at 6 MiB: %s, expected EIO",
	      err ? strerror(err) : "no error");
	double waited = mdt_wait_finding(match, &w, t0, 30, &f);
	long long io = disk_read_bytes(disk) - io0;
	REQUIRE(waited >= 0, "no finding for big.bin's block at 6 MiB (device byte %llu)",
		(unsigned long long)w.physical);
	printf("failed read -> finding row: %.3f s (health monitor)\n", waited);
	printf("the disk read %lld KiB from the failed read to the finding\n", io / 1024);
	CHECK_INT(f.length, 4096);
	CHECK(f.npaths == 1 && !strcmp(f.paths[0], "big.bin"), "paths: %zu, first %s", f.npaths,
	      f.npaths ? f.paths[0] : "-");
	map_finding_clear(&f);
	/* The whole file would be 10 MiB; the range and what locating it reads
	 * (GETFSMAP, bulkstat, a parent pointer) is far less. */
	CHECK(io < (long long)(FILE_MB * MiB / 2), "the disk read %lld bytes: the whole file?", io);
	snprintf(needle, sizeof(needle), "on inode %llu ", (unsigned long long)w.ino);
	CHECK(mdt_count_events_with("healthmon", needle) >= 1,
	      "no healthmon event names inode %llu", (unsigned long long)w.ino);
	CHECK_INT(mdt_count_events("fanotify"), 0);

	/* the figure: M more files, one bad block each */
	latency_figure(m, lat);

	/* 2: unmount while watched */
	tl_must("umount %s", FX_MNT);
	CHECK(mdt_wait_watched(FX_MNT, false, 10) >= 0, "%s still watched after umount", FX_MNT);

	/* 3: another monitor first: fanotify */
	CHECK_INT(mdt_stop(pid), 0);
	fx_mount();
	int root = open(FX_MNT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	REQUIRE(root >= 0, "%s: %s", FX_MNT, strerror(errno));
	int other = map_healthmon_open(root);
	close(root);
	REQUIRE(other >= 0, "a health monitor of our own: %s", strerror(-other));
	pid = mdt_start(NULL);
	REQUIRE(mdt_wait_watched(FX_MNT, true, 10) >= 0, "mapperd does not watch %s", FX_MNT);
	MDT_CHECK_STATUS(FX_MNT, "health_monitor", "\"off: another monitor is attached\"");
	MDT_CHECK_STATUS(FX_MNT, "fanotify", "true");
	CHECK(tl_sh("grep -q 'another one, e.g. xfs_healer' %s", MDT_LOG) == 0,
	      "the log does not say why the health monitor is not used");
	tl_sleep(2.5);				/* past the dedup window */
	err = tl_read_block(FX_MNT "/big.bin", BAD_AT);
	CHECK(err == EIO, "reading big.bin at 6 MiB again: %s", err ? strerror(err) : "no error");
	double end = tl_mono() + 30;
	while (mdt_count_events("fanotify") < 1 && tl_mono() < end)
		tl_sleep(0.05);
	CHECK(mdt_count_events("fanotify") >= 1, "the read did not arrive through fanotify");
	CHECK(mdt_wait_finding(match, &w, tl_mono(), 5, &f) >= 0, "the finding is gone");
	map_finding_clear(&f);

	/* 4 */
	CHECK_INT(mdt_stop(pid), 0);
	close(other);
	mdt_show_log();
	fx_teardown();
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
