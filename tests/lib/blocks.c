// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where a file's bytes are on the device, asked of the kernel (FIEMAP for
 * file data, XFS_IOC_GETBMAPX for any fork of any inode, directories
 * included): the ground truth a test damages and compares with, never the
 * code under test.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <xfs/xfs.h>

#include "check.h"
#include "testlib.h"

int tl_file_extent(const char *path, uint64_t offset, uint64_t *physical, uint32_t *flags)
{
	struct {
		struct fiemap fm;
		struct fiemap_extent ext[32];
	} req;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	memset(&req, 0, sizeof(req));
	req.fm.fm_start = offset;
	req.fm.fm_length = 1;
	req.fm.fm_flags = FIEMAP_FLAG_SYNC;
	req.fm.fm_extent_count = 32;
	int rc = ioctl(fd, FS_IOC_FIEMAP, &req) == 0 ? -ENOENT : -errno;
	close(fd);
	for (uint32_t i = 0; rc == -ENOENT && i < req.fm.fm_mapped_extents; i++) {
		const struct fiemap_extent *e = &req.ext[i];

		if (offset >= e->fe_logical && offset < e->fe_logical + e->fe_length) {
			*physical = e->fe_physical + (offset - e->fe_logical);
			if (flags)
				*flags = e->fe_flags;
			rc = 0;
		}
	}
	return rc;
}

uint64_t tl_file_physical(const char *path, uint64_t offset)
{
	uint64_t physical = 0;
	int rc = tl_file_extent(path, offset, &physical, NULL);

	if (rc) {
		fprintf(stderr, "FAIL: no device byte for byte %llu of %s: %s\n",
			(unsigned long long)offset, path,
			rc == -ENOENT ? "no extent holds it" : strerror(-rc));
		exit(1);
	}
	return physical;
}

uint64_t tl_fork_physical(const char *path, uint64_t offset, bool attr_fork)
{
	enum { NMAP = 64 };
	struct getbmapx map[NMAP + 1];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int64_t sector = (int64_t)(offset / 512);

	REQUIRE(fd >= 0, "open %s: %s", path, strerror(errno));
	memset(map, 0, sizeof(map));
	map[0].bmv_length = -1;
	map[0].bmv_count = NMAP + 1;
	map[0].bmv_iflags = BMV_IF_NO_HOLES | (attr_fork ? BMV_IF_ATTRFORK : 0);
	REQUIRE(ioctl(fd, XFS_IOC_GETBMAPX, map) == 0, "GETBMAPX %s: %s", path, strerror(errno));
	close(fd);
	for (int i = 1; i <= map[0].bmv_entries; i++)
		if (map[i].bmv_block >= 0 && sector >= map[i].bmv_offset &&
		    sector < map[i].bmv_offset + map[i].bmv_length)
			return (uint64_t)(map[i].bmv_block + sector - map[i].bmv_offset) * 512 +
			       offset % 512;
	REQUIRE(0, "%s has no %s block at byte %llu (entries %d)", path,
		attr_fork ? "attribute" : "data", (unsigned long long)offset, map[0].bmv_entries);
	return 0;
}
