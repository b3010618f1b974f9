/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the kernel already knows is sick (in-core health state, since mount):
 * filesystem and AG geometry sick bits, and bulkstat's per-inode sick flags.
 * Used when fanotify merged several errors into one report, to find where.
 */
#ifndef MAPPERD_HEALTH_H
#define MAPPERD_HEALTH_H

#include <stdbool.h>
#include <stdint.h>

#include "map.h"

struct md_sick_inode {
	uint64_t ino;
	uint32_t gen;
	uint32_t mode;
	uint16_t sick;			/* XFS_BS_SICK_* */
	bool has_attr;
};

struct md_health {
	uint32_t fs_sick;		/* XFS_FSOP_GEOM_SICK_* */
	uint32_t sick_ags;		/* AGs with any XFS_AG_GEOM_SICK_* bit */
	uint32_t ag_sick_union;
	struct md_sick_inode *inodes;	/* every inode bulkstat calls sick */
	size_t ninodes;
};

/* Filesystem and AG sick bits only (cheap: one ioctl per AG). */
int md_health_geometry(struct map_fs *fs, struct md_health *h);
/* Also walk every inode with bulkstat for sick flags (at most @max kept). */
int md_health_inodes(struct map_fs *fs, struct md_health *h, size_t max);
void md_health_free(struct md_health *h);

/* Bulkstat one inode: generation, mode, sick flags; -ENOENT if not allocated. */
int md_health_inode(struct map_fs *fs, uint64_t ino, struct md_sick_inode *out);

#endif
