/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The damaged files a mirror can give back: shared by export and refetch. */
#ifndef MAP_ACT_RESTORE_LIST_H
#define MAP_ACT_RESTORE_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "map.h"

struct restore_item {
	char *path;		/* relative to the mount root */
	int64_t *findings;	/* open findings this file clears */
	size_t nfindings;
	uint64_t ino;		/* the recorded inode (0: unknown) */
	uint32_t gen;
	uint32_t mode;		/* S_IF* of the recorded inode, 0 if unknown */
	bool conflict;		/* findings name different inodes for this path */
};

struct restore_list {
	struct restore_item *v;
	size_t n;
	size_t skipped_dirs;	/* damaged directories: not restorable by copy */
};

/* Open and repaired findings (a repair may have lost something) of regular
 * files, or inodes of unknown type, with a name: one item per distinct path,
 * in path order. */
int restore_list_build(struct map_store *st, int64_t fs_id, struct restore_list *out);

/* Also symbolic links and directories (RESTORE_*), for refetch. */
#define RESTORE_SYMLINKS	(1u << 0)
#define RESTORE_DIRS		(1u << 1)
int restore_list_build_kinds(struct map_store *st, int64_t fs_id, unsigned int kinds,
			     struct restore_list *out);
void restore_list_free(struct restore_list *l);

#endif
