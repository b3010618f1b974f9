/* SPDX-License-Identifier: GPL-2.0-or-later */
/* GETFSMAP iteration, shared by the verify and map stages. */
#ifndef MAP_FSMAP_H
#define MAP_FSMAP_H

#include <stdint.h>
#include <linux/fsmap.h>

struct map_fs;

/* Called for each record; a nonzero return stops the query and is returned. */
typedef int (*map_fsmap_fn)(const struct fsmap *rec, void *arg);

/* Every record of the data device overlapping bytes [first, last]. */
int map_fsmap_query(struct map_fs *fs, uint64_t first, uint64_t last, map_fsmap_fn fn, void *arg);

uint32_t map_fsmap_encode_dev(uint32_t major, uint32_t minor);

#endif
