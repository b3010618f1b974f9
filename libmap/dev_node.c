// SPDX-License-Identifier: GPL-2.0-or-later
/* A block device's node, checked by its number (map_internal.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "map_internal.h"

/* @path opened with @flags if it is the block device @dev, else -errno. */
static int open_checked(const char *path, dev_t dev, int flags)
{
	struct stat st;
	int fd = open(path, flags | O_CLOEXEC | O_NOCTTY);

	if (fd < 0 && errno == EPERM && (flags & O_NOATIME))
		fd = open(path, (flags & ~O_NOATIME) | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) == 0 && S_ISBLK(st.st_mode) && st.st_rdev == dev)
		return fd;
	close(fd);
	return -ENODEV;
}

int map_open_dev_node(dev_t dev, const char *path, int flags)
{
	char sys[64], line[256], name[200] = "", node[256];
	int fd = -ENODEV, rc;

	if (path && path[0] == '/') {
		fd = open_checked(path, dev, flags);
		if (fd >= 0)
			return fd;
	}
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/uevent", major(dev), minor(dev));
	FILE *f = fopen(sys, "re");
	if (!f)
		return fd;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "DEVNAME=%199s", name) == 1)
			break;
	fclose(f);
	if (!name[0] || strstr(name, ".."))
		return fd;
	snprintf(node, sizeof(node), "/dev/%s", name);
	rc = open_checked(node, dev, flags);
	return rc >= 0 ? rc : fd;
}
