// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Files: opened or the test stops, written with content a seed makes again,
 * reflinked, read whole, checksummed; sysfs and procfs knobs written.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "check.h"
#include "testlib.h"

ssize_t tl_slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, len - 1, f) : 0;

	buf[n] = '\0';
	if (!f)
		return -1;
	fclose(f);
	return (ssize_t)n;
}

char *tl_slurp_alloc(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t n = 0;

	REQUIRE(f, "%s: %s", path, strerror(errno));
	REQUIRE(fseek(f, 0, SEEK_END) == 0, "seek");
	long size = ftell(f);
	REQUIRE(size >= 0, "ftell");
	rewind(f);
	buf = malloc((size_t)size + 1);
	REQUIRE(buf, "malloc");
	n = fread(buf, 1, (size_t)size, f);
	buf[n] = '\0';
	fclose(f);
	if (len)
		*len = n;
	return buf;
}

int tl_open(const char *path, int flags)
{
	int fd = open(path, flags, 0644);

	REQUIRE(fd >= 0, "open %s: %s", path, strerror(errno));
	return fd;
}

/* xorshift64: reproducible file content without storing it. */
static uint64_t next_word(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

void tl_write_file(const char *path, size_t size, unsigned int seed, bool sync)
{
	static uint64_t buf[8192];
	uint64_t state = 0x9e3779b97f4a7c15ull ^ ((uint64_t)seed << 20 | seed);
	int fd = tl_open(path, O_WRONLY | O_CREAT | O_TRUNC);

	while (size > 0) {
		size_t chunk = size < sizeof(buf) ? size : sizeof(buf);

		for (size_t i = 0; i < (chunk + 7) / 8; i++)
			buf[i] = next_word(&state);
		REQUIRE(write(fd, buf, chunk) == (ssize_t)chunk, "write %s: %s", path,
			strerror(errno));
		size -= chunk;
	}
	if (sync)
		REQUIRE(fsync(fd) == 0, "fsync %s: %s", path, strerror(errno));
	close(fd);
}

void tl_reflink(const char *src, const char *dst)
{
	int s = tl_open(src, O_RDONLY);
	int d = tl_open(dst, O_WRONLY | O_CREAT | O_TRUNC);

	REQUIRE(ioctl(d, FICLONE, s) == 0, "FICLONE %s -> %s: %s", src, dst, strerror(errno));
	close(s);
	close(d);
}

char *tl_checksums(const char *dir)
{
	return tl_out_alloc("cd %s && find . -type f -print0 | sort -z | xargs -0 -r sha256sum",
			    dir);
}

void tl_write_str(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_TRUNC);

	REQUIRE(fd >= 0, "open %s: %s", path, strerror(errno));
	REQUIRE(write(fd, value, strlen(value)) == (ssize_t)strlen(value), "write '%s' to %s: %s",
		value, path, strerror(errno));
	close(fd);
}

void tl_write_block(int fd, off_t blk, char fill)
{
	char block[4096];

	memset(block, fill, sizeof(block));
	REQUIRE(pwrite(fd, block, sizeof(block), blk * (off_t)sizeof(block)) ==
			(ssize_t)sizeof(block),
		"write block %lld: %s", (long long)blk, strerror(errno));
}
