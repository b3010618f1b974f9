// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Lists of byte ranges on the data device: add, sort, merge, clip, split.
 * Ranges come from the kernel and from users (mapctl locate), so no sum of
 * a start and a length may wrap: a range that would end past 2^64 is refused
 * where it enters, and ends are computed saturating everywhere else.
 */
#include <errno.h>
#include <stdlib.h>

#include "map_ranges.h"

/* One past the last byte of a range, or UINT64_MAX if that would wrap. */
static uint64_t range_end(uint64_t start, uint64_t length)
{
	uint64_t end;

	return __builtin_add_overflow(start, length, &end) ? UINT64_MAX : end;
}

int map_range_add(struct map_range_list *list, uint64_t start, uint64_t length)
{
	uint64_t end;

	if (length == 0)
		return 0;
	if (__builtin_add_overflow(start, length, &end))
		return -ERANGE;
	if (list->n == list->cap) {
		size_t cap = list->cap ? list->cap * 2 : 256;
		struct map_range *v = realloc(list->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		list->v = v;
		list->cap = cap;
	}
	list->v[list->n].start = start;
	list->v[list->n].length = length;
	list->n++;
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct map_range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->length != y->length)
		return x->length < y->length ? -1 : 1;
	return 0;
}

void map_range_merge(struct map_range_list *list, uint64_t gap)
{
	size_t out = 0;

	if (list->n == 0)
		return;
	qsort(list->v, list->n, sizeof(list->v[0]), cmp_range);
	for (size_t i = 1; i < list->n; i++) {
		struct map_range *cur = &list->v[out];
		uint64_t end = range_end(cur->start, cur->length);

		if (list->v[i].start <= range_end(end, gap)) {
			uint64_t e2 = range_end(list->v[i].start, list->v[i].length);

			if (e2 > end)
				cur->length = e2 - cur->start;
		} else {
			list->v[++out] = list->v[i];
		}
	}
	list->n = out + 1;
}

uint64_t map_range_total(const struct map_range_list *list)
{
	uint64_t total = 0;

	for (size_t i = 0; i < list->n; i++)
		total += list->v[i].length;
	return total;
}

void map_range_clip_below(struct map_range_list *list, uint64_t pos)
{
	size_t out = 0;

	for (size_t i = 0; i < list->n; i++) {
		struct map_range r = list->v[i];
		uint64_t end = range_end(r.start, r.length);

		if (end <= pos)
			continue;
		if (r.start < pos) {
			r.length = end - pos;
			r.start = pos;
		}
		list->v[out++] = r;
	}
	list->n = out;
}

int map_range_intersect(const struct map_range_list *list, uint64_t start, uint64_t length,
			int (*fn)(uint64_t start, uint64_t length, void *arg), void *arg)
{
	uint64_t end = range_end(start, length);
	size_t lo = 0, hi = list->n;

	/* The first range that ends after @start. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (range_end(list->v[mid].start, list->v[mid].length) <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < list->n && list->v[i].start < end; i++) {
		uint64_t a = list->v[i].start > start ? list->v[i].start : start;
		uint64_t b = range_end(list->v[i].start, list->v[i].length);
		int rc;

		if (b > end)
			b = end;
		if (a >= b)
			continue;
		rc = fn(a, b - a, arg);
		if (rc)
			return rc;
	}
	return 0;
}

void map_range_free(struct map_range_list *list)
{
	free(list->v);
	list->v = NULL;
	list->n = list->cap = 0;
}

int map_range_split(uint64_t start, uint64_t length, uint64_t io_size, uint64_t align,
		    int (*fn)(uint64_t start, uint64_t length, void *arg), void *arg)
{
	uint64_t end;

	if (__builtin_add_overflow(start, length, &end))
		return -ERANGE;
	if (io_size < align)
		io_size = align;
	if (align > 1)
		io_size -= io_size % align;
	if (io_size == 0)
		return -EINVAL;
	/* Cut at multiples of io_size on the device so that reads of
	 * neighbouring ranges line up with the device's own boundaries.  The
	 * next boundary may lie beyond 2^64: measure the distance to it
	 * instead of computing it. */
	while (start < end) {
		uint64_t piece = io_size - start % io_size;
		int rc;

		if (piece > end - start)
			piece = end - start;
		rc = fn(start, piece, arg);
		if (rc)
			return rc;
		start += piece;
	}
	return 0;
}
