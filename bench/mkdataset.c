// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench_mkdataset: fill a folder with a benchmark tree, fast.
 *
 * Usage: bench_mkdataset DIR FILES DIRS DATA_MB
 *        bench_mkdataset --links-only DIR FILES DIRS
 *
 * FILES files spread over DIRS folders (two levels: gNN/dNNNN), half of
 * DATA_MB in 10 MiB files (one in a thousand) and half in small files;
 * every 100th file also gets a hard link in another folder and every 200th
 * a reflink copy beside it.  Deterministic (fixed seed).
 *
 * --links-only adds just the hard links and reflinks to a tree of that shape
 * made elsewhere (bench/mkimage: mkfs.xfs -p cannot express either).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t state = 0x2545f4914f6cdd1dULL;

static uint64_t rnd(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

static void die(const char *what, const char *path)
{
	fprintf(stderr, "bench_mkdataset: %s %s: %s\n", what, path, strerror(errno));
	exit(1);
}

static void write_file(const char *path, uint64_t size, char *buf, size_t buflen)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		die("create", path);
	while (size > 0) {
		size_t n = size < buflen ? size : buflen;

		/* new bytes each time, so nothing dedups or compresses */
		for (size_t i = 0; i + 8 <= n; i += 512) {
			uint64_t r = rnd();
			memcpy(buf + i, &r, 8);
		}
		if (write(fd, buf, n) != (ssize_t)n)
			die("write", path);
		size -= n;
	}
	close(fd);
}

static void dir_name(char *out, size_t len, const char *root, long d)
{
	snprintf(out, len, "%s/g%02ld/d%04ld", root, d % 50, d);
}

/* Every 100th file gets a hard link in the folder half the tree away, every
 * 200th a reflink copy beside it. */
static void add_links(const char *root, long f, long dirs, const char *path)
{
	char dir[400], other[600];

	if (f % 100 == 3) {
		dir_name(dir, sizeof(dir), root, (f + dirs / 2) % dirs);
		snprintf(other, sizeof(other), "%s/link%06ld.dat", dir, f);
		if (link(path, other))
			die("link", other);
	}
	if (f % 200 == 5) {
		snprintf(other, sizeof(other), "%s.clone", path);
		int src = open(path, O_RDONLY | O_CLOEXEC);
		int dst = open(other, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (src < 0 || dst < 0 || ioctl(dst, FICLONE, src))
			die("reflink", other);
		close(src);
		close(dst);
	}
}

static int links_only(const char *root, long files, long dirs)
{
	char path[512], dir[400];

	if (files <= 0 || dirs <= 0)
		return 2;
	for (long f = 0; f < files; f++) {
		if (f % 100 != 3 && f % 200 != 5)
			continue;
		dir_name(dir, sizeof(dir), root, f % dirs);
		snprintf(path, sizeof(path), "%s/f%06ld.dat", dir, f);
		add_links(root, f, dirs, path);
	}
	sync();
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "--links-only"))
		return links_only(argv[2], atol(argv[3]), atol(argv[4]));
	if (argc != 5) {
		fprintf(stderr, "usage: bench_mkdataset DIR FILES DIRS DATA_MB\n"
				"       bench_mkdataset --links-only DIR FILES DIRS\n");
		return 2;
	}
	const char *root = argv[1];
	long files = atol(argv[2]), dirs = atol(argv[3]);
	uint64_t data = (uint64_t)atol(argv[4]) << 20;
	long big = files / 1000 ? files / 1000 : 1;
	uint64_t big_size = 10ULL << 20;
	if ((uint64_t)big * big_size > data / 2)
		big = (long)(data / 2 / big_size);
	uint64_t small_avg = (data - (uint64_t)big * big_size) / (uint64_t)(files - big);
	size_t buflen = 1 << 20;
	char *buf = malloc(buflen);
	char path[512], dir[400];

	if (!buf || files <= 0 || dirs <= 0)
		return 2;
	memset(buf, 'x', buflen);
	for (long g = 0; g < 50 && g < dirs; g++) {
		snprintf(path, sizeof(path), "%s/g%02ld", root, g);
		if (mkdir(path, 0755) && errno != EEXIST)
			die("mkdir", path);
	}
	for (long d = 0; d < dirs; d++) {
		dir_name(dir, sizeof(dir), root, d);
		if (mkdir(dir, 0755) && errno != EEXIST)
			die("mkdir", dir);
	}
	for (long f = 0; f < files; f++) {
		dir_name(dir, sizeof(dir), root, f % dirs);
		snprintf(path, sizeof(path), "%s/f%06ld.dat", dir, f);
		uint64_t size = f % (files / big ? files / big : 1) == 7 ?
			big_size : 1 + rnd() % (2 * small_avg);
		write_file(path, size, buf, buflen);
		add_links(root, f, dirs, path);
		if (f % 10000 == 0 && f)
			fprintf(stderr, "  %ld files\n", f);
	}
	free(buf);
	sync();
	return 0;
}
