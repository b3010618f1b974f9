// SPDX-License-Identifier: GPL-2.0-or-later
/* Range lists: merge, clip, split into reads. */
#include <errno.h>

#include "check.h"
#include "map_ranges.h"

#define MiB (1024ULL * 1024)

struct pieces {
	uint64_t start[16], length[16];
	int n;
};

static int collect(uint64_t start, uint64_t length, void *arg)
{
	struct pieces *p = arg;

	if (p->n < 16) {
		p->start[p->n] = start;
		p->length[p->n] = length;
	}
	p->n++;
	return 0;
}

/* @p holds exactly the @n pieces @want ({ start, length } each). */
static void expect_parts(const struct pieces *p, const uint64_t want[][2], int n)
{
	REQUIRE(p->n == n, "%d parts, %d expected", p->n, n);
	for (int i = 0; i < n; i++) {
		CHECK_INT(p->start[i], want[i][0]);
		CHECK_INT(p->length[i], want[i][1]);
	}
}

static int stop_at_second(uint64_t start, uint64_t length, void *arg)
{
	(void)start;
	(void)length;
	return ++*(int *)arg == 2 ? 42 : 0;
}

/* Like collect, but gives up after 16 pieces so a runaway split fails the
 * test instead of hanging it. */
static int collect_bounded(uint64_t start, uint64_t length, void *arg)
{
	struct pieces *p = arg;

	collect(start, length, arg);
	return p->n > 16 ? -1 : 0;
}

/* Issue 12, item 9: ranges at the top of the 64-bit space. */
static void test_wrap(void)
{
	const uint64_t top = UINT64_MAX;
	struct map_range_list l = { 0 };
	struct pieces p = { 0 };

	/* Ends near 2^64 without wrapping: one piece, inside the range.  The
	 * next 1 MiB boundary lies past 2^64. */
	CHECK_INT(map_range_split(top - 100, 50, MiB, 4096, collect_bounded, &p), 0);
	CHECK_INT(p.n, 1);
	CHECK(p.start[0] == top - 100 && p.length[0] == 50, "piece %" PRIu64 "+%" PRIu64,
	      p.start[0], p.length[0]);
	/* Up to the very last byte. */
	memset(&p, 0, sizeof(p));
	CHECK_INT(map_range_split(top - MiB, MiB, MiB, 4096, collect_bounded, &p), 0);
	CHECK_INT(p.n, 2);	/* [2^64-1MiB-1, 2^64-1MiB) and the rest */
	uint64_t sum = 0;
	for (int i = 0; i < p.n && i < 16; i++) {
		CHECK(p.start[i] >= top - MiB && p.start[i] + p.length[i] <= top,
		      "piece %d %" PRIu64 "+%" PRIu64 " outside the range", i, p.start[i],
		      p.length[i]);
		sum += p.length[i];
	}
	CHECK_INT(sum, MiB);
	/* start + length wraps: refused, nothing emitted. */
	memset(&p, 0, sizeof(p));
	CHECK_INT(map_range_split(top - 4095, 8192, MiB, 4096, collect_bounded, &p), -ERANGE);
	CHECK_INT(p.n, 0);
	CHECK_INT(map_range_add(&l, top - 4095, 8192), -ERANGE);
	CHECK_INT(l.n, 0);

	/* Merging with a gap at the top does not wrap into small numbers. */
	CHECK_INT(map_range_add(&l, top - 8192, 4096), 0);
	CHECK_INT(map_range_add(&l, 0, 4096), 0);
	map_range_merge(&l, 1 * MiB);
	CHECK_INT(l.n, 2);
	CHECK_INT(map_range_total(&l), 8192);
	map_range_clip_below(&l, top - 4096);
	CHECK_INT(l.n, 0);
	map_range_free(&l);
}

/* Parts of a range inside a sorted, merged list: what verify reports of a
 * bad range found in allocated space (only its written parts). */
static void test_intersect(void)
{
	struct map_range_list w = { 0 };
	struct pieces p = { 0 };

	map_range_add(&w, 4096, 8192);		/* 4096-12288 */
	map_range_add(&w, 20480, 4096);		/* 20480-24576 */
	map_range_add(&w, 40960, 40960);	/* 40960-81920 */
	map_range_merge(&w, 0);

	/* From inside the first to inside the third: three parts, gaps left out. */
	CHECK_INT(map_range_intersect(&w, 8192, 40960, collect, &p), 0);
	expect_parts(&p, (const uint64_t[][2]){ { 8192, 4096 }, { 20480, 4096 }, { 40960, 8192 } },
		     3);

	/* Wholly in a gap, before, after, and empty: nothing. */
	memset(&p, 0, sizeof(p));
	CHECK_INT(map_range_intersect(&w, 12288, 8192, collect, &p), 0);
	CHECK_INT(map_range_intersect(&w, 0, 4096, collect, &p), 0);
	CHECK_INT(map_range_intersect(&w, 81920, 1 * MiB, collect, &p), 0);
	CHECK_INT(map_range_intersect(&w, 8192, 0, collect, &p), 0);
	CHECK_INT(p.n, 0);

	/* Covering everything: the list itself. */
	CHECK_INT(map_range_intersect(&w, 0, 1 * MiB, collect, &p), 0);
	expect_parts(&p, (const uint64_t[][2]){ { 4096, 8192 }, { 20480, 4096 }, { 40960, 40960 } },
		     3);

	/* One block inside a range, and the callback's return stops it. */
	memset(&p, 0, sizeof(p));
	CHECK_INT(map_range_intersect(&w, 61440, 4096, collect, &p), 0);
	REQUIRE(p.n == 1, "%d parts", p.n);
	CHECK_INT(p.start[0], 61440);
	CHECK_INT(p.length[0], 4096);
	int calls = 0;
	CHECK_INT(map_range_intersect(&w, 0, 1 * MiB, stop_at_second, &calls), 42);
	CHECK_INT(calls, 2);

	/* Near 2^64: the end saturates instead of wrapping. */
	struct map_range_list top = { 0 };
	map_range_add(&top, UINT64_MAX - 8192, 4096);
	memset(&p, 0, sizeof(p));
	CHECK_INT(map_range_intersect(&top, UINT64_MAX - 8192, 8192, collect, &p), 0);
	REQUIRE(p.n == 1, "%d parts", p.n);
	CHECK_INT(p.length[0], 4096);

	/* An empty list. */
	struct map_range_list none = { 0 };
	memset(&p, 0, sizeof(p));
	CHECK_INT(map_range_intersect(&none, 0, 1 * MiB, collect, &p), 0);
	CHECK_INT(p.n, 0);
	map_range_free(&top);
	map_range_free(&w);
}

int main(void)
{
	test_wrap();
	test_intersect();

	struct map_range_list l = { 0 };

	/* Out of order, overlapping, adjacent, duplicated (reflink) and apart. */
	map_range_add(&l, 100, 50);	/* 100-150 */
	map_range_add(&l, 0, 10);	/* 0-10 */
	map_range_add(&l, 140, 20);	/* overlaps: 100-160 */
	map_range_add(&l, 160, 40);	/* adjacent: 100-200 */
	map_range_add(&l, 100, 50);	/* duplicate */
	map_range_add(&l, 300, 10);	/* apart */
	map_range_add(&l, 5, 0);	/* empty: ignored */
	CHECK_INT(l.n, 6);
	map_range_merge(&l, 0);
	REQUIRE(l.n == 3, "merged into %zu ranges", l.n);
	CHECK_INT(l.v[0].start, 0);
	CHECK_INT(l.v[0].length, 10);
	CHECK_INT(l.v[1].start, 100);
	CHECK_INT(l.v[1].length, 100);
	CHECK_INT(l.v[2].start, 300);
	CHECK_INT(l.v[2].length, 10);
	CHECK_INT(map_range_total(&l), 120);

	/* A gap of up to 95 bytes merges 0-10 with 100-200 (90 apart), not 300. */
	map_range_merge(&l, 95);
	REQUIRE(l.n == 2, "merged into %zu ranges", l.n);
	CHECK_INT(l.v[0].start, 0);
	CHECK_INT(l.v[0].length, 200);
	CHECK_INT(l.v[1].start, 300);

	/* Clip below a position inside the first range. */
	map_range_clip_below(&l, 150);
	REQUIRE(l.n == 2, "after clip %zu ranges", l.n);
	CHECK_INT(l.v[0].start, 150);
	CHECK_INT(l.v[0].length, 50);
	CHECK_INT(l.v[1].start, 300);
	CHECK_INT(l.v[1].length, 10);
	map_range_clip_below(&l, 305);
	REQUIRE(l.n == 1, "after clip %zu ranges", l.n);
	CHECK_INT(l.v[0].start, 305);
	CHECK_INT(l.v[0].length, 5);
	map_range_clip_below(&l, 1000);
	CHECK_INT(l.n, 0);
	map_range_free(&l);

	/* Reads are cut at multiples of the I/O size on the device. */
	struct pieces p = { .n = 0 };
	CHECK_INT(map_range_split(1 * MiB, 10 * MiB, 4 * MiB, 4096, collect, &p), 0);
	REQUIRE(p.n == 3, "%d pieces", p.n);
	CHECK_INT(p.start[0], 1 * MiB);
	CHECK_INT(p.length[0], 3 * MiB);
	CHECK_INT(p.start[1], 4 * MiB);
	CHECK_INT(p.length[1], 4 * MiB);
	CHECK_INT(p.start[2], 8 * MiB);
	CHECK_INT(p.length[2], 3 * MiB);

	/* An I/O size that is not a multiple of the block size is rounded down. */
	p.n = 0;
	CHECK_INT(map_range_split(0, 20000, 10000, 4096, collect, &p), 0);
	REQUIRE(p.n == 3, "%d pieces", p.n);
	CHECK_INT(p.length[0], 8192);
	CHECK_INT(p.start[2], 16384);
	CHECK_INT(p.length[2], 20000 - 16384);

	/* A callback's nonzero return stops the split and is returned. */
	int calls = 0;
	CHECK_INT(map_range_split(0, 10 * MiB, MiB, 4096, stop_at_second, &calls), 42);
	CHECK_INT(calls, 2);
	return check_done();
}
