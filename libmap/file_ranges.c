// SPDX-License-Identifier: GPL-2.0-or-later
/* The written extents of one open file, for re-verifying it after a restore. */
#include <errno.h>
#include <stdlib.h>

#include "map_internal.h"

#define BATCH 256

int map_file_ranges(int fd, struct map_range_list *out)
{
	struct getbmapx *map = calloc(BATCH + 1, sizeof(*map));
	int rc = 0;

	if (!map)
		return -ENOMEM;
	map[0].bmv_offset = 0;
	map[0].bmv_length = -1;
	map[0].bmv_count = BATCH + 1;
	map[0].bmv_iflags = BMV_IF_NO_HOLES | BMV_IF_PREALLOC;
	for (;;) {
		if (ioctl(fd, XFS_IOC_GETBMAPX, map) != 0) {
			rc = -errno;
			break;
		}
		int got = map[0].bmv_entries;
		bool last = got == 0;

		for (int i = 1; i <= got && rc == 0; i++) {
			if (map[i].bmv_oflags & BMV_OF_LAST)
				last = true;
			if (map[i].bmv_block < 0 || (map[i].bmv_oflags & BMV_OF_PREALLOC))
				continue;	/* hole, delayed or unwritten */
			rc = map_range_add(out, (uint64_t)map[i].bmv_block * 512,
					   (uint64_t)map[i].bmv_length * 512);
		}
		if (rc || last || got < BATCH || map[0].bmv_length <= 0)
			break;
	}
	free(map);
	if (rc == 0)
		map_range_merge(out, 0);
	return rc;
}
