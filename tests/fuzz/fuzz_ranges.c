// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Byte range arithmetic with values from anywhere in 64 bits (the kernel's
 * extents, a user's `mapctl locate` offsets): adding, merging, clipping and
 * splitting into reads never wraps, never loses or invents a byte, and
 * never emits a piece outside its range.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "map_ranges.h"

/* Pieces checked per split: enough to cross several boundaries; a split
 * into more is stopped by the callback (and must stop). */
#define MAX_PIECES 4096

struct input {
	const uint8_t *p;
	size_t left;
};

static uint64_t take(struct input *in)
{
	uint64_t v = 0;
	size_t n = in->left < 8 ? in->left : 8;

	memcpy(&v, in->p, n);
	in->p += n;
	in->left -= n;
	return v;
}

/* Values near the interesting places: 0, small, near 2^64. */
static uint64_t shape(uint64_t v)
{
	switch (v & 3) {
	case 0: return v >> 2;
	case 1: return (v >> 2) & 0xfffff;
	case 2: return UINT64_MAX - ((v >> 2) & 0xfffff);
	default: return (v >> 2) << 12;
	}
}

struct split {
	uint64_t start, end, io_size, next;
	int pieces;
};

static int on_piece(uint64_t start, uint64_t length, void *arg)
{
	struct split *s = arg;

	if (start != s->next || length == 0 || length > s->io_size || start < s->start ||
	    length > s->end - start)
		abort();
	s->next = start + length;
	return ++s->pieces >= MAX_PIECES ? 1 : 0;
}

static void check_split(uint64_t start, uint64_t length, uint64_t io_size, uint64_t align)
{
	struct split s = { .start = start, .end = start + length, .next = start };
	uint64_t eff = io_size < align ? align : io_size;

	if (align > 1)
		eff -= eff % align;
	s.io_size = eff;
	int rc = map_range_split(start, length, io_size, align, on_piece, &s);
	if (start + length < start) {
		if (rc != -ERANGE || s.pieces)
			abort();	/* a wrapping range is refused whole */
		return;
	}
	if (eff == 0) {
		if (rc != -EINVAL)
			abort();
		return;
	}
	if (rc == 0 && s.next != s.end)
		abort();		/* every byte, once */
	if (rc != 0 && (rc != 1 || s.pieces != MAX_PIECES))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	struct map_range_list l = { 0 };
	uint64_t sum = 0;
	bool sum_fits = true;

	check_split(shape(take(&in)), shape(take(&in)), shape(take(&in)), take(&in) & 0xffff);

	uint64_t gap = shape(take(&in)), clip = shape(take(&in));
	while (in.left >= 16 && l.n < 512) {
		uint64_t start = shape(take(&in)), length = shape(take(&in));
		int rc = map_range_add(&l, start, length);

		if (start + length < start) {
			if (rc != -ERANGE)
				abort();
		} else if (rc == 0) {
			if (__builtin_add_overflow(sum, length, &sum))
				sum_fits = false;
		} else {
			abort();
		}
	}
	map_range_merge(&l, gap);
	uint64_t total = map_range_total(&l);
	for (size_t i = 0; i < l.n; i++) {
		const struct map_range *r = &l.v[i];

		if (r->length == 0 || r->start + r->length < r->start)
			abort();
		if (i && r->start <= l.v[i - 1].start + l.v[i - 1].length)
			abort();	/* sorted, apart */
	}
	if (gap == 0 && sum_fits && total > sum)
		abort();		/* merging without a gap only drops overlap */
	map_range_clip_below(&l, clip);
	for (size_t i = 0; i < l.n; i++)
		if (l.v[i].start < clip || l.v[i].length == 0)
			abort();
	if (l.n)
		check_split(l.v[0].start, l.v[0].length, gap | 1, 512);
	map_range_free(&l);
	return 0;
}
