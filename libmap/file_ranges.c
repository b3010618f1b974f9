// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Extents of one open file from XFS_IOC_GETBMAPX: a walk shared by the
 * extent index (no rmapbt) and by re-verifying a file after a restore.
 */
#include <errno.h>
#include <stdlib.h>

#include "map_internal.h"

#define BATCH 256

int map_getbmapx_each(int fd, bool attr_fork,
		      int (*fn)(const struct getbmapx *ext, void *arg), void *arg)
{
	struct getbmapx *map = calloc(BATCH + 1, sizeof(*map));
	int rc = 0;

	if (!map)
		return -ENOMEM;
	map[0].bmv_offset = 0;
	map[0].bmv_length = -1;
	map[0].bmv_count = BATCH + 1;
	map[0].bmv_iflags = BMV_IF_NO_HOLES | BMV_IF_PREALLOC | (attr_fork ? BMV_IF_ATTRFORK : 0);
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
			if (map[i].bmv_block >= 0)	/* not a hole or delayed allocation */
				rc = fn(&map[i], arg);
		}
		/* The kernel moved the header past what it returned. */
		if (rc || last || got < BATCH || map[0].bmv_length <= 0)
			break;
	}
	free(map);
	return rc;
}

static int add_written(const struct getbmapx *ext, void *arg)
{
	if (ext->bmv_oflags & BMV_OF_PREALLOC)
		return 0;	/* unwritten: nothing to read back */
	return map_range_add(arg, (uint64_t)ext->bmv_block * 512, (uint64_t)ext->bmv_length * 512);
}

int map_file_ranges(int fd, struct map_range_list *out)
{
	int rc = map_getbmapx_each(fd, false, add_written, out);

	if (rc == 0)
		map_range_merge(out, 0);
	return rc;
}

struct span {
	uint64_t pos, end;		/* file bytes wanted */
	struct map_range_list *out;
	bool unwritten;			/* keep unwritten extents too */
};

static int add_span(const struct getbmapx *ext, void *arg)
{
	const struct span *sp = arg;
	uint64_t off = (uint64_t)ext->bmv_offset * 512, len = (uint64_t)ext->bmv_length * 512;
	uint64_t a = off > sp->pos ? off : sp->pos;
	uint64_t b = off + len < sp->end ? off + len : sp->end;

	if (ext->bmv_offset < 0 || ext->bmv_length <= 0 || a >= b)
		return 0;
	if ((ext->bmv_oflags & BMV_OF_PREALLOC) && !sp->unwritten)
		return 0;
	return map_range_add(sp->out, (uint64_t)ext->bmv_block * 512 + (a - off), b - a);
}

int map_file_span_ranges(int fd, uint64_t pos, uint64_t len, struct map_range_list *out)
{
	struct span sp = { .pos = pos, .end = len > UINT64_MAX - pos ? UINT64_MAX : pos + len,
			   .out = out };
	int rc = map_getbmapx_each(fd, false, add_span, &sp);

	if (rc == 0)
		map_range_merge(out, 0);
	return rc;
}
