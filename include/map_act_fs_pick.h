/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which recorded filesystem an argument names, for the commands that read
 * only the store (mapctl status, files, history, events, export): a UUID,
 * the mount point last recorded for it, its block device, or any path on it
 * while it is mounted.  None of these but the last needs it mounted, so its
 * findings can be read while it is unmounted or mounted elsewhere.  The
 * words for each outcome are the caller's.
 */
#ifndef MAP_ACT_FS_PICK_H
#define MAP_ACT_FS_PICK_H

#include <stdbool.h>

#include "map.h"

enum fs_pick_end {
	FS_PICK_FOUND,		/* fs */
	FS_PICK_DB,		/* @err reading the database */
	FS_PICK_DEVICE_SEVERAL,	/* the device held @n recorded filesystems, and its
				 * superblock names none */
	FS_PICK_DEVICE_NONE,	/* none recorded on the device (@xfs: its XFS
				 * superblock could be read) */
	FS_PICK_MOUNT_SEVERAL,	/* the mount point of @n recorded filesystems */
	FS_PICK_NEVER_SCANNED,	/* on the mounted fs, never scanned: live_* */
	FS_PICK_UNKNOWN,	/* no UUID, recorded mount point, device or mounted XFS */
};

struct fs_pick {
	enum fs_pick_end end;
	int err;
	int n;
	bool xfs;
	struct map_store_fs fs;		/* FOUND: its record; mountpoint: where it
					 * is mounted now when it is */
	char live_mountpoint[4096];	/* NEVER_SCANNED */
	char live_uuid[40];
};

/* The recorded filesystem @arg names (above), in @r.  0 when found, else
 * -ENOENT (or @r->err) with why in @r->end. */
int fs_pick(struct map_store *st, const char *arg, struct fs_pick *r);

/* Call @fn for each recorded filesystem whose last mount point is @arg as
 * given or resolved (FS_PICK_MOUNT_SEVERAL's candidates).  0 or -errno. */
int fs_pick_each_at(struct map_store *st, const char *arg,
		    int (*fn)(const struct map_store_fs *fs, void *arg), void *fn_arg);

#endif
