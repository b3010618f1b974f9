// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The bounds on what event sources and control clients can make mapperd
 * do: the token bucket each kernel log source and each control user goes
 * through, and the events table that keeps only
 * its newest rows however many reports come in.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "map_store.h"
#include "ratelimit.h"

static void bucket(void)
{
	struct md_ratelimit rl = { 0 };
	double t = 1000.0;
	int taken = 0;

	/* a burst of 30 at once, then nothing */
	for (int i = 0; i < 100; i++)
		taken += md_ratelimit_take(&rl, t, 4.0, 30.0);
	CHECK_INT(taken, 30);
	/* 4 a second after that */
	taken = 0;
	for (int i = 1; i <= 100; i++)
		taken += md_ratelimit_take(&rl, t + i * 0.05, 4.0, 30.0);
	CHECK(taken >= 19 && taken <= 21, "%d taken in 5 s at 4 a second", taken);
	/* a long quiet time refills to the burst, not beyond */
	taken = 0;
	for (int i = 0; i < 100; i++)
		taken += md_ratelimit_take(&rl, t + 3600, 4.0, 30.0);
	CHECK_INT(taken, 30);
}

/* The control socket's use: full tells when a user can be forgotten. */
static void bucket_full(void)
{
	struct md_ratelimit rl = { 0 };
	int n = 0;

	CHECK(md_ratelimit_full(&rl, 1.0, 16, 64), "a new bucket is full");
	while (n < 1000 && md_ratelimit_take(&rl, 1.0, 16, 64))
		n++;
	CHECK_INT(n, 64);
	CHECK(!md_ratelimit_full(&rl, 1.0, 16, 64), "an empty bucket is full");
	/* one second later: 16 more */
	n = 0;
	while (n < 1000 && md_ratelimit_take(&rl, 2.0, 16, 64))
		n++;
	CHECK_INT(n, 16);
	/* a clock that goes back gives nothing */
	CHECK(!md_ratelimit_take(&rl, 1.5, 16, 64), "a token from a clock going back");
	CHECK(!md_ratelimit_full(&rl, 1.5, 16, 64), "full from a clock going back");
	/* long after: full again, and never more than the burst */
	CHECK(md_ratelimit_full(&rl, 100.0, 16, 64), "not full after 98 s");
	n = 0;
	while (n < 1000 && md_ratelimit_take(&rl, 100.0, 16, 64))
		n++;
	CHECK_INT(n, 64);
}

static int count_event(const struct map_event *e, void *arg)
{
	int64_t *v = arg;

	if (!v[0] || e->id < v[0])
		v[0] = e->id;
	v[1]++;
	return 0;
}

/* One report more than the table keeps, then many more. */
static void events_table(void)
{
	char dir[] = "/tmp/mdlimitsXXXXXX", path[64];
	struct map_store *st;
	int64_t seen[2] = { 0, 0 };
	const int kept = 20000, extra = 1500;

	REQUIRE(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/mapper.db", dir);
	REQUIRE(map_store_open(path, 0, &st) == 0, "cannot open %s", path);
	REQUIRE(map_store_begin(st) == 0, "begin");
	for (int i = 0; i < kept + extra; i++) {
		struct map_event e = { .error = EIO };

		e.source = MAP_EVENT_KMSG;
		snprintf(e.detail, sizeof(e.detail), "report %d", i);
		REQUIRE(map_store_event_add(st, &e) == 0, "event %d not stored", i);
	}
	REQUIRE(map_store_commit(st) == 0, "commit");
	CHECK_INT(map_store_events(st, 0, count_event, seen), 0);
	printf("%d reports stored: %lld rows kept, the oldest id %lld\n", kept + extra,
	       (long long)seen[1], (long long)seen[0]);
	CHECK_INT(seen[1], kept);
	CHECK_INT(seen[0], extra + 1);
	map_store_close(st);
	unlink(path);
	snprintf(path, sizeof(path), "%s/mapper.db-wal", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/mapper.db-shm", dir);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	bucket();
	bucket_full();
	events_table();
	return check_done();
}
