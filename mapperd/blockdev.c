// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Block devices through sysfs: the kernel name of a filesystem's device,
 * the disk it is a partition of and where the partition starts, so that a
 * logged "dev sda, sector N" can be turned into a place on a filesystem.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "blockdev.h"

static int read_u64(const char *path, uint64_t *v)
{
	char buf[64];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	char *end;
	*v = strtoull(buf, &end, 10);
	return end == buf ? -EINVAL : 0;
}

static void base_name(const char *path, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');

	const char *name = slash ? slash + 1 : path;
	size_t n = strlen(name) < len - 1 ? strlen(name) : len - 1;

	memcpy(out, name, n);
	out[n] = '\0';
}

int blockdev_describe(dev_t dev, struct md_blockdev *out)
{
	char link[PATH_MAX], target[PATH_MAX], path[PATH_MAX + 64];
	uint64_t v = 0;
	ssize_t n;

	memset(out, 0, sizeof(*out));
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(dev), minor(dev));
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	base_name(target, out->name, sizeof(out->name));

	snprintf(path, sizeof(path), "%s/size", link);
	if (read_u64(path, &v) == 0)
		out->sectors = v;
	snprintf(path, sizeof(path), "%s/partition", link);
	if (access(path, F_OK) == 0) {
		/* .../block/sda/sda1: the disk is the parent folder. */
		char *slash = strrchr(target, '/');

		if (slash) {
			*slash = '\0';
			base_name(target, out->disk, sizeof(out->disk));
		}
		snprintf(path, sizeof(path), "%s/start", link);
		if (read_u64(path, &v) == 0)
			out->start = v;
	}
	if (!out->disk[0])
		snprintf(out->disk, sizeof(out->disk), "%s", out->name);
	snprintf(path, sizeof(path), "/sys/block/%s/queue/max_sectors_kb", out->disk);
	out->max_io = read_u64(path, &v) == 0 && v > 0 && v < (1u << 20) ? (uint32_t)v * 1024 : 0;
	return 0;
}
