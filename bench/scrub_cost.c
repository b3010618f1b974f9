// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench_scrub_cost MOUNT [EVERY]: where a metadata scan's time goes.
 *
 * Calls every scrub type a scan uses one at a time, not vectored, and sums
 * the time of each: the per-AG types for every AG, the per-inode types (as
 * map_scrub_inode_types picks them) for every EVERY-th inode bulkstat
 * returns (default 1: all), then the whole-filesystem types.  Prints a table
 * of calls, total seconds and milliseconds per call for each type.  One call
 * per type repeats the inode look-up a vectored call does once, so the sum is
 * a little more than a scan's kernel time; the shares are what it is for.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "map.h"
#include "xfs_abi.h"

#define BATCH 1024

struct cost {
	double seconds;
	unsigned long calls, failed;
};

static struct cost *costs;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void timed(int fd, uint32_t type, uint32_t agno, uint64_t ino, uint32_t gen)
{
	double t = now();
	int rc = map_scrub_call(fd, type, agno, ino, gen, 0, NULL);

	costs[type].seconds += now() - t;
	costs[type].calls++;
	if (rc && rc != -ENOENT && rc != -EOPNOTSUPP)
		costs[type].failed++;
}

/* Every type of one scope (AG or whole filesystem), in table order. */
static double scope_types(int fd, enum map_scrub_scope scope, uint32_t agno)
{
	double t = now();

	for (uint32_t type = 0; type < map_scrub_type_count(); type++) {
		const struct map_scrub_type_info *ti = map_scrub_type(type);

		if (ti && ti->scope == scope && type != XFS_SCRUB_TYPE_PROBE)
			timed(fd, type, agno, 0, 0);
	}
	return now() - t;
}

int main(int argc, char **argv)
{
	struct map_fs *fs;
	unsigned long every = 1, seen = 0, done = 0;
	double t_ag = 0, t_ino, t_fs;

	if (argc < 2 || argc > 3 || (argc == 3 && (every = strtoul(argv[2], NULL, 10)) == 0)) {
		fprintf(stderr, "usage: bench_scrub_cost MOUNT [EVERY]\n");
		return 2;
	}
	int rc = map_fs_open(argv[1], &fs);
	if (rc < 0) {
		fprintf(stderr, "bench_scrub_cost: %s: %s\n", argv[1], strerror(-rc));
		return 1;
	}
	const struct map_geometry *geo = &map_fs_info(fs)->geo;
	int fd = map_fs_fd(fs);

	costs = calloc(map_scrub_type_count(), sizeof(*costs));
	struct xfs_bulkstat_req *req = calloc(1, sizeof(*req) + BATCH * sizeof(struct xfs_bulkstat));
	if (!costs || !req)
		return 1;
	for (uint32_t ag = 0; ag < geo->agcount; ag++)
		t_ag += scope_types(fd, MAP_SCOPE_AG, ag);
	t_ino = now();
	req->hdr.icount = BATCH;
	for (;;) {
		if (ioctl(fd, XFS_IOC_BULKSTAT, req) != 0) {
			perror("bench_scrub_cost: bulkstat");
			return 1;
		}
		if (req->hdr.ocount == 0)
			break;
		for (uint32_t i = 0; i < req->hdr.ocount; i++) {
			const struct xfs_bulkstat *bs = &req->bulkstat[i];
			uint32_t types[16];

			if (seen++ % every)
				continue;
			done++;
			size_t n = map_scrub_inode_types(geo, bs->bs_mode,
							 bs->bs_forkoff != 0 || bs->bs_aextents != 0,
							 types, 16);
			for (size_t k = 0; k < n; k++)
				timed(fd, types[k], 0, bs->bs_ino, bs->bs_gen);
		}
	}
	t_ino = now() - t_ino;
	t_fs = scope_types(fd, MAP_SCOPE_FS, 0);
	printf("inodes %lu, timed %lu (every %lu); AG types %.2f s, inode types %.2f s, "
	       "filesystem types %.2f s\n", seen, done, every, t_ag, t_ino, t_fs);
	printf("%-12s %9s %9s %9s %7s\n", "type", "calls", "total s", "ms/call", "failed");
	for (uint32_t type = 0; type < map_scrub_type_count(); type++) {
		const struct cost *c = &costs[type];

		if (c->calls)
			printf("%-12s %9lu %9.2f %9.3f %7lu\n", map_scrub_type(type)->name, c->calls,
			       c->seconds, 1e3 * c->seconds / (double)c->calls, c->failed);
	}
	free(req);
	free(costs);
	map_fs_close(fs);
	return 0;
}
