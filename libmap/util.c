// SPDX-License-Identifier: GPL-2.0-or-later
/* Small helpers shared by the stages. */
#include "map_internal.h"

int map_cancelled(const volatile int *cancel)
{
	return cancel && *cancel;
}

void map_fs_release_state(struct map_fs *fs)
{
	map_bmap_index_free(fs->bmap_index);
	fs->bmap_index = NULL;
}
