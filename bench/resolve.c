// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench_resolve: how long libmap takes to name N damaged inodes.
 *
 * Usage: bench_resolve [--dirindex] [--each] MOUNTPOINT INODE_LIST
 *
 * Reads inode numbers (decimal, one a line) from INODE_LIST, asks
 * map_resolve_paths() for every path of each, as a scan does for the owners
 * of bad blocks, and prints
 *   "resolve INODES SECONDS PATHS DIRS_READ DIRS_TOTAL PPTR_LOOKUPS"
 * timing only the resolve call.  Exits 1 when an inode gets no path (every
 * listed inode is a linked regular file, so each must have one).
 *
 * --dirindex: build the directory index first (as mapperd keeps it for a
 * filesystem without parent pointers) and print
 *   "dirindex DIRECTORIES SECONDS"
 * --each: name the inodes one at a time, as mapperd does one report at a
 * time, each with the dentry and inode caches dropped first (no name from
 * the dentry cache), and print
 *   "each INODES P50_MS P99_MS MAX_MS MAX_DIRS_READ RETRIES"
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void drop_caches(void)
{
	FILE *f = fopen("/proc/sys/vm/drop_caches", "w");

	sync();
	if (!f || fputs("2\n", f) < 0 || fclose(f) != 0) {
		perror("bench_resolve: /proc/sys/vm/drop_caches");
		exit(2);
	}
}

/* One inode at a time, caches dropped before each: the latency table. */
static int each(struct map_fs *fs, const uint64_t *inos, size_t n)
{
	double *ms = malloc((n ? n : 1) * sizeof(*ms));
	uint64_t max_reads = 0, retries = 0;
	size_t unnamed = 0;

	if (!ms)
		return 2;
	for (size_t i = 0; i < n; i++) {
		struct map_resolve_stats st;
		struct map_paths *p;

		drop_caches();
		double t0 = now();
		int err = map_resolve_paths(fs, &inos[i], 1, &p, &st);

		ms[i] = (now() - t0) * 1000;
		if (err) {
			fprintf(stderr, "bench_resolve: inode %" PRIu64 ": %s\n", inos[i],
				map_strerror(err));
			free(ms);
			return 2;
		}
		unnamed += p->npaths == 0;
		if (getenv("BENCH_RESOLVE_VERBOSE"))
			fprintf(stderr, "inode %" PRIu64 ": %.2f ms, %zu names, %u links, %" PRIu64
				" folders read, %" PRIu64 " hints\n", inos[i], ms[i], p->npaths,
				p->nlink, st.dirs_read, st.dcache_hits);
		if (st.dirs_read > max_reads)
			max_reads = st.dirs_read;
		retries += st.dirindex_retried;
		map_paths_free(p, 1);
	}
	qsort(ms, n, sizeof(*ms), cmp_double);
	if (n)
		printf("each %zu %.2f %.2f %.2f %" PRIu64 " %" PRIu64 "\n", n, ms[n / 2],
		       ms[(n * 99 + 99) / 100 - 1], ms[n - 1], max_reads, retries);
	free(ms);
	return unnamed ? 1 : 0;
}

int main(int argc, char **argv)
{
	bool use_index = false, one_by_one = false;

	while (argc > 1 && argv[1][0] == '-') {
		if (!strcmp(argv[1], "--dirindex"))
			use_index = true;
		else if (!strcmp(argv[1], "--each"))
			one_by_one = true;
		else
			break;
		argv++;
		argc--;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: bench_resolve [--dirindex] [--each] MOUNTPOINT INODE_LIST\n");
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
	struct map_dirindex *ix = NULL;

	if (use_index) {
		struct map_dirindex_stats ixs;
		double t = now();

		ix = map_dirindex_new();
		err = ix ? map_dirindex_build(ix, fs, 1e9) : -ENOMEM;
		if (err != 1) {
			fprintf(stderr, "bench_resolve: building the directory index: %s\n",
				map_strerror(err));
			return 2;
		}
		map_dirindex_get_stats(ix, &ixs);
		printf("dirindex %" PRIu64 " %.3f\n", ixs.dirs, now() - t);
		map_fs_use_dirindex(fs, ix);
	}
	if (one_by_one) {
		int rc = each(fs, inos, n);

		map_fs_close(fs);
		map_dirindex_free(ix);
		free(inos);
		return rc;
	}
	struct map_paths *paths = NULL;
	struct map_resolve_stats stats = { 0 };
	double t0 = now();

	err = map_resolve_paths(fs, inos, n, &paths, &stats);
	double seconds = now() - t0;

	if (err) {
		fprintf(stderr, "bench_resolve: resolving %zu inodes: %s\n", n, map_strerror(err));
		map_fs_close(fs);
		map_dirindex_free(ix);
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
	map_dirindex_free(ix);
	free(inos);
	return unnamed ? 1 : 0;
}
