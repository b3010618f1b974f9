// SPDX-License-Identifier: GPL-2.0-or-later
/* GETFSMAP queries over a byte range of the data device. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "map_fsmap.h"
#include "map_internal.h"

#define FSMAP_BATCH 1024

int map_fsmap_query(struct map_fs *fs, uint64_t first, uint64_t last, map_fsmap_fn fn, void *arg)
{
	struct fsmap_head *head;
	int rc = 0;

	head = calloc(1, fsmap_sizeof(FSMAP_BATCH));
	if (!head)
		return -ENOMEM;
	head->fmh_count = FSMAP_BATCH;
	head->fmh_keys[0].fmr_device = fs->info.fsmap_dev;
	head->fmh_keys[0].fmr_physical = first;
	head->fmh_keys[1].fmr_device = fs->info.fsmap_dev;
	head->fmh_keys[1].fmr_physical = last;
	head->fmh_keys[1].fmr_owner = UINT64_MAX;
	head->fmh_keys[1].fmr_offset = UINT64_MAX;
	head->fmh_keys[1].fmr_flags = UINT32_MAX;

	for (;;) {
		if (ioctl(fs->fd, FS_IOC_GETFSMAP, head) != 0) {
			rc = -errno;
			break;
		}
		if (head->fmh_entries == 0)
			break;
		for (uint32_t i = 0; i < head->fmh_entries; i++) {
			const struct fsmap *rec = &head->fmh_recs[i];

			if (rec->fmr_device != fs->info.fsmap_dev)
				continue;
			rc = fn(rec, arg);
			if (rc)
				goto out;
		}
		if (head->fmh_recs[head->fmh_entries - 1].fmr_flags & FMR_OF_LAST)
			break;
		/* Continue after the last record returned. */
		head->fmh_keys[0] = head->fmh_recs[head->fmh_entries - 1];
	}
out:
	free(head);
	return rc;
}

uint32_t map_fsmap_encode_dev(uint32_t major, uint32_t minor)
{
	/* The kernel's "new" dev_t encoding, which GETFSMAP uses. */
	return (minor & 0xff) | (major << 8) | ((minor & ~0xffu) << 12);
}
