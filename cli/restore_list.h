/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The damaged files a mirror can give back: shared by export and refetch. */
#ifndef MAPCTL_RESTORE_LIST_H
#define MAPCTL_RESTORE_LIST_H

#include <stddef.h>
#include <stdint.h>

#include "map.h"

struct restore_item {
	char *path;		/* relative to the mount root */
	int64_t *findings;	/* open findings this file clears */
	size_t nfindings;
};

struct restore_list {
	struct restore_item *v;
	size_t n;
	size_t skipped_dirs;	/* damaged directories: not restorable by copy */
};

/* Open findings of regular files (or inodes of unknown type) with a name:
 * one item per distinct path, in path order. */
int restore_list_build(struct map_store *st, int64_t fs_id, struct restore_list *out);
void restore_list_free(struct restore_list *l);

#endif
