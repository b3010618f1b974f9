/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Byte ranges on the data device (pure). */
#ifndef MAP_RANGES_H
#define MAP_RANGES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- byte ranges on the data device (pure) ---------------------------------- */

struct map_range {
	uint64_t start;
	uint64_t length;
};

struct map_range_list {
	struct map_range *v;
	size_t n, cap;
};

int map_range_add(struct map_range_list *list, uint64_t start, uint64_t length);
/* Sort by start and merge ranges that overlap or lie within @gap bytes. */
void map_range_merge(struct map_range_list *list, uint64_t gap);
uint64_t map_range_total(const struct map_range_list *list);
/* Drop everything below @pos, clipping a range that straddles it. */
void map_range_clip_below(struct map_range_list *list, uint64_t pos);
/* Call @fn, in order, for each part of [start, start+length) that lies in
 * @list (sorted and merged); stops at the first nonzero return and returns it. */
int map_range_intersect(const struct map_range_list *list, uint64_t start, uint64_t length,
			int (*fn)(uint64_t start, uint64_t length, void *arg), void *arg);
void map_range_free(struct map_range_list *list);

/*
 * Cut [start, start+length) into reads of at most @io_size bytes, each
 * aligned to @align where possible; calls @fn for each piece in order and stops
 * at the first nonzero return, which it returns.
 */
int map_range_split(uint64_t start, uint64_t length, uint64_t io_size, uint64_t align,
		    int (*fn)(uint64_t start, uint64_t length, void *arg), void *arg);

#ifdef __cplusplus
}
#endif
#endif /* MAP_RANGES_H */
