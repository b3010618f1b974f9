// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench_resolve: how long libmap takes to name N damaged inodes.
 *
 * Usage: bench_resolve MOUNTPOINT INODE_LIST
 *
 * Reads inode numbers (decimal, one a line) from INODE_LIST, asks
 * map_resolve_paths() for every path of each, as a scan does for the owners
 * of bad blocks, and prints
 *   "resolve INODES SECONDS PATHS DIRS_READ DIRS_TOTAL PPTR_LOOKUPS"
 * timing only the resolve call.  Exits 1 when an inode gets no path (every
 * listed inode is a linked regular file, so each must have one).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "map.h"

/* A bench of a million files picks at most this many; the bound keeps a
 * mistaken list from eating the guest's memory. */
#define MAX_INODES 1000000

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: bench_resolve MOUNTPOINT INODE_LIST\n");
		return 2;
	}
	FILE *list = fopen(argv[2], "r");
	uint64_t *inos = malloc(MAX_INODES * sizeof(*inos));
	size_t n = 0;
	uint64_t ino;

	if (!list || !inos) {
		perror(argv[2]);
		return 2;
	}
	while (n < MAX_INODES && fscanf(list, "%" SCNu64, &ino) == 1)
		inos[n++] = ino;
	if (!feof(list) && n == MAX_INODES) {
		fprintf(stderr, "bench_resolve: more than %d inodes in %s\n", MAX_INODES, argv[2]);
		return 2;
	}
	fclose(list);

	struct map_fs *fs;
	int err = map_fs_open(argv[1], &fs);

	if (err) {
		fprintf(stderr, "bench_resolve: %s: %s\n", argv[1], map_strerror(err));
		return 2;
	}
	struct map_paths *paths = NULL;
	struct map_resolve_stats stats = { 0 };
	double t0 = now();

	err = map_resolve_paths(fs, inos, n, &paths, &stats);
	double seconds = now() - t0;

	if (err) {
		fprintf(stderr, "bench_resolve: resolving %zu inodes: %s\n", n, map_strerror(err));
		map_fs_close(fs);
		return 2;
	}
	size_t npaths = 0, unnamed = 0;

	for (size_t i = 0; i < n; i++) {
		npaths += paths[i].npaths;
		if (paths[i].npaths == 0) {
			if (unnamed++ < 5)
				fprintf(stderr, "bench_resolve: inode %" PRIu64 " has no path\n",
					inos[i]);
		}
	}
	printf("resolve %zu %.3f %zu %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", n, seconds, npaths,
	       stats.dirs_read, stats.dirs_total, stats.pptr_lookups);
	map_paths_free(paths, n);
	map_fs_close(fs);
	free(inos);
	return unnamed ? 1 : 0;
}
