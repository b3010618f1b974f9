/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One recorded filesystem's status as the store tells it (fs_status.c):
 * its last scans, its findings by state and by kind, and whether it is
 * damaged, never verified, or checked too long ago.  mapctl status renders
 * it as text or JSON.
 */
#ifndef MAP_FS_STATUS_H
#define MAP_FS_STATUS_H

#include <stdbool.h>
#include <stdint.h>

#include "map.h"

/* Kinds of open findings counted; more are left out of the counts. */
#define MAP_FS_STATUS_KINDS 32

struct map_fs_status {
	struct map_scan_row last, media;	/* the latest scan, the last complete one */
	bool have_scan, have_media;
	int counts[MAP_STATE_NR];
	int open;
	int64_t complete;		/* newest complete scan of either kind, 0: none */
	bool never, stale;
	const char *state;		/* DAMAGED, UNVERIFIED, OK */
	struct {
		char kind[24];
		int n;
	} kinds[MAP_FS_STATUS_KINDS];	/* open findings by kind, first seen first */
	int nkinds;
	int files, metadata;		/* open findings of file data, of metadata */
};

/* The status of @fs_id; stale when its last complete scan is older than
 * @max_age_ms (0: never stale) at @now (unix seconds).  0 or -errno. */
int map_fs_status_gather(struct map_store *st, int64_t fs_id, int64_t max_age_ms, int64_t now,
			 struct map_fs_status *o);

#endif
