// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench_latency: how long from a reader's EIO to the finding mapperd stores.
 *
 * Usage (in the guest, from bench/guest-bench):
 *   bench_latency MAPPERD MAPCTL MOUNTPOINT EVENTS DUST_NAME
 *
 * Starts mapperd on the mounted filesystem (fanotify and kernel log on, no
 * schedule), waits until its directory index is ready (or not needed: parent
 * pointers) and prints "index-ready-s S", then EVENTS times: picks a file not
 * yet damaged, puts a dm-dust bad block under its first block, drops its
 * cached pages, reads it (the clock starts when the read has returned EIO)
 * and waits until mapperd has stored a finding for that inode at that disk
 * address.  Prints each latency and then "latency-ms P50 P99 MAX N"
 * (milliseconds), "read-ms P50 P99 MAX N" (how long the failing reads
 * themselves took) and "mapperd-peak-rss-kib N" (the daemon's VmHWM just
 * before it is stopped); mapperd's log follows.  The database is read again
 * each time its write-ahead log changes (and at least every 20 ms).
 */
#include <errno.h>
#include <ftw.h>
#include <linux/fiemap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "latency_stats.h"
#include "mdtest.h"
#include "vmtest.h"

#define MAX_CANDIDATES 20000

struct target {
	uint64_t ino;
	uint64_t physical;
};

static char *candidates[MAX_CANDIDATES];
static size_t ncandidates;

/* Regular files of at least one block, each with its own (not shared, not
 * inline) first block: the bad block names exactly one inode. */
static int collect(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	if (type == FTW_F && S_ISREG(st->st_mode) && st->st_size >= 4096 && st->st_nlink == 1 &&
	    ncandidates < MAX_CANDIDATES)
		candidates[ncandidates++] = strdup(path);
	return 0;
}

/* Disk byte of @path's first block, or 0 when it is shared or unusual. */
static uint64_t first_block(const char *path)
{
	uint64_t phys;
	uint32_t flags;

	if (tl_file_extent(path, 0, &phys, &flags) != 0 ||
	    (flags & (FIEMAP_EXTENT_SHARED | FIEMAP_EXTENT_UNWRITTEN | FIEMAP_EXTENT_NOT_ALIGNED |
		      FIEMAP_EXTENT_DATA_INLINE)))
		return 0;
	return phys;
}

static bool is_target(const struct map_finding *f, void *arg)
{
	const struct target *t = arg;

	return f->source == MAP_SOURCE_EVENT && !strcmp(f->kind, "file") && f->ino == t->ino &&
	       f->has_range && f->physical == t->physical;
}

/* Peak resident set of process @pid in KiB (VmHWM), or -1. */
static long peak_rss_kib(pid_t pid)
{
	char path[64], line[256];
	long kib = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

int main(int argc, char **argv)
{
	int arg = mdt_args(argc, argv);

	REQUIRE(argc - arg == 3, "usage: %s MAPPERD MAPCTL MOUNTPOINT EVENTS DUST_NAME", argv[0]);
	const char *mnt = argv[arg];
	long events = strtol(argv[arg + 1], NULL, 10);
	const char *dust = argv[arg + 2];
	REQUIRE(events > 0, "EVENTS must be a positive number, not '%s'", argv[arg + 1]);

	REQUIRE(nftw(mnt, collect, 64, FTW_PHYS | FTW_MOUNT) == 0, "walking %s: %s", mnt,
		strerror(errno));
	REQUIRE(ncandidates > 0, "no files of at least 4 KiB under %s", mnt);

	/* BENCH_LATENCY_DEBUG=1: mapperd logs where each report's time went */
	mdt_write_config(getenv("BENCH_LATENCY_DEBUG") ? "log_level = debug\ndedup_window = 0\n"
						       : "log_level = info\ndedup_window = 0\n");
	pid_t pid = mdt_start(NULL);
	REQUIRE(mdt_wait_watched(mnt, true, 30) >= 0, "mapperd does not watch %s", mnt);
	/* Steady state: the first error comes after the directory index is
	 * built (classic profile; the modern one needs none).  How long the
	 * build took is printed: until then names are found by searching. */
	double t_index = mdt_wait_dirindex(3600);
	REQUIRE(t_index >= 0, "mapperd's directory index is not ready after an hour");
	printf("index-ready-s %.2f\n", t_index);

	double *lat = calloc((size_t)events, sizeof(double));
	double *rd = calloc((size_t)events, sizeof(double));
	REQUIRE(lat && rd, "out of memory");
	size_t n = 0, misses = 0;
	/* Spread the picks over the tree; skip files whose read does not fail
	 * (an existing bad block elsewhere in the file is fine, the first block
	 * is what we damage). */
	size_t step = ncandidates / (size_t)events > 0 ? ncandidates / (size_t)events : 1;
	for (size_t i = 0; n < (size_t)events && i < ncandidates * 2; i++) {
		const char *path = candidates[(i * step + i / ncandidates) % ncandidates];
		struct stat st;
		struct target t;

		if (stat(path, &st) != 0 || !(t.physical = first_block(path)))
			continue;
		t.ino = st.st_ino;
		if (mdt_count_findings(is_target, &t) > 0)
			continue;	/* this block was damaged already */
		tl_must("dmsetup message %s 0 addbadblock %llu", dust,
			(unsigned long long)(t.physical / 4096));
		tl_evict(path);
		double t_read = tl_mono();
		int err = tl_read_file(path);
		/* the clock starts when the reader has its EIO: the kernel may
		 * report the error before the read returns (retries, readahead) */
		double t0 = tl_mono();

		if (err != EIO) {
			fprintf(stderr, "%s: read gave %s, not EIO; skipped\n", path, strerror(err));
			continue;
		}
		double s = mdt_wait_finding(is_target, &t, t0, 10, NULL);

		if (s < 0) {
			fprintf(stderr, "%s: no finding within 10 s\n", path);
			misses++;
			continue;
		}
		rd[n] = (t0 - t_read) * 1000;
		lat[n++] = s * 1000;
		printf("%zu %s %.1f ms (the read took %.1f ms)\n", n, path, s * 1000, rd[n - 1]);
	}
	long rss = peak_rss_kib(pid);
	int rc = mdt_stop(pid);

	REQUIRE(n > 0, "no event measured");
	fprintf(stderr, "mapperd exit %d; %zu events measured, %zu without a finding in 10 s\n",
		rc, n, misses);
	latency_print("latency-ms", lat, n);
	latency_print("read-ms", rd, n);
	printf("mapperd-peak-rss-kib %ld\n", rss);
	free(lat);
	free(rd);
	for (size_t i = 0; i < ncandidates; i++)
		free(candidates[i]);
	return 0;
}
