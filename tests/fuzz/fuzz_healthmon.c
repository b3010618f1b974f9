// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Buffers as read(2) returns them from an XFS health monitor: whatever the
 * bytes, the decoder stays inside the buffer, uses whole records only, and
 * delivers only records whose every field is in range.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "map_healthmon.h"

static void on_record(const struct map_hm_record *r, void *arg)
{
	(*(size_t *)arg)++;
	if (r->domain >= MAP_HM_DOMAIN_NR || r->type >= MAP_HM_TYPE_NR)
		abort();
	switch (r->kind) {
	case MAP_HM_FILE:
		if (!r->ino || !r->length || r->start + r->length < r->start ||
		    r->start + r->length > MAP_HM_MAX_FILE_BYTES || r->error < 1 || r->error > 4095)
			abort();
		break;
	case MAP_HM_MEDIA:
		if (!r->length || r->start + r->length < r->start || r->start % 512)
			abort();
		break;
	case MAP_HM_HEALTH:
		if (!r->mask || (r->domain == MAP_HM_DOMAIN_INODE && !r->ino))
			abort();
		break;
	case MAP_HM_LOST:
		if (!r->lost)
			abort();
		break;
	default:
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *buf = malloc(size ? size : 1);	/* exact size: overreads are caught */
	size_t delivered = 0, used = 0, skipped = 0, n;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	n = map_healthmon_decode(buf, size, &used, &skipped, on_record, &delivered);
	if (n != delivered || used > size || used % sizeof(struct map_hm_raw) ||
	    size - used >= sizeof(struct map_hm_raw) || n + skipped != used / sizeof(struct map_hm_raw))
		abort();
	free(buf);
	return 0;
}
