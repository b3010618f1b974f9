// SPDX-License-Identifier: GPL-2.0-or-later
/* Small helpers shared by the stages. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

int map_strv_add(char ***v, size_t *n, const char *path)
{
	char **grown = realloc(*v, (*n + 1) * sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	*v = grown;
	grown[*n] = strdup(path);
	if (!grown[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}
