// SPDX-License-Identifier: GPL-2.0-or-later
/* Directory indexes of the watched filesystems (see dirwatch.h). */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"
#include "dirwatch.h"
#include "fscache.h"
#include "log.h"
#include "map.h"

#define MAX_INDEXES 64		/* as many filesystems as one daemon watches, and more */
/* After lost events, the rebuild waits: 10 s, doubling to 10 min while
 * events keep being lost, so a local user who floods a filesystem with
 * directory changes cannot keep the daemon rebuilding. */
#define REBUILD_DELAY_FIRST	10.0
#define REBUILD_DELAY_MAX	600.0

struct slot {
	bool used;
	bool unneeded;			/* parent pointers: names need no index */
	char uuid[40];
	char mountpoint[PATH_MAX];
	int fan;			/* directory events, -1 when none */
	struct map_dirindex *ix;
	uint64_t resets_seen;
	double rebuild_delay;		/* the next one, after lost events */
	double not_before;		/* no building before (monotonic s) */
	double last_reset;
};

struct md_dirwatch {
	struct md_fscache *fscache;	/* not owned */
	struct slot slots[MAX_INDEXES];
};

struct md_dirwatch *md_dirwatch_new(struct md_fscache *fscache)
{
	struct md_dirwatch *w = calloc(1, sizeof(*w));

	if (w)
		w->fscache = fscache;
	for (int i = 0; w && i < MAX_INDEXES; i++)
		w->slots[i].fan = -1;
	return w;
}

static void release(struct slot *s)
{
	if (s->fan >= 0)
		close(s->fan);
	map_dirindex_free(s->ix);
	*s = (struct slot){ .fan = -1 };
}

void md_dirwatch_free(struct md_dirwatch *w)
{
	if (!w)
		return;
	for (int i = 0; i < MAX_INDEXES; i++)
		release(&w->slots[i]);
	free(w);
}

static struct slot *find(struct md_dirwatch *w, const char *uuid)
{
	for (int i = 0; i < MAX_INDEXES; i++)
		if (w->slots[i].used && strcmp(w->slots[i].uuid, uuid) == 0)
			return &w->slots[i];
	return NULL;
}

void md_dirwatch_set(struct md_dirwatch *w, const char *uuid, const char *mountpoint, bool on)
{
	struct slot *s = find(w, uuid);

	if (!on) {
		if (s)
			release(s);
		return;
	}
	if (s && strcmp(s->mountpoint, mountpoint) == 0)
		return;
	if (s)
		release(s);	/* mounted elsewhere now: start over */
	for (int i = 0; i < MAX_INDEXES && !s; i++)
		if (!w->slots[i].used)
			s = &w->slots[i];
	if (!s) {
		log_warn("%s %s: no directory index (more than %d filesystems)", uuid, mountpoint,
			 MAX_INDEXES);
		return;
	}
	s->used = true;
	snprintf(s->uuid, sizeof(s->uuid), "%s", uuid);
	snprintf(s->mountpoint, sizeof(s->mountpoint), "%s", mountpoint);
}

/* Open the slot's filesystem, if it is still the one we mean. */
static struct map_fs *open_fs(struct md_dirwatch *w, struct slot *s)
{
	struct map_fs *fs;

	return md_fscache_open(w->fscache, s->mountpoint, s->uuid, &fs) == 0 ? fs : NULL;
}

/* Events first (the watch is set before the build starts, so nothing done
 * while building is missed), then a slice of building. */
static void keep(struct slot *s, struct map_fs *fs, double budget)
{
	struct map_dirindex_stats st;

	if (!s->ix) {
		if (map_fs_info(fs)->geo.parent) {
			s->unneeded = true;
			return;
		}
		s->fan = map_dirindex_watch(s->mountpoint);
		s->ix = s->fan >= 0 ? map_dirindex_new() : NULL;
		if (!s->ix) {
			log_warn("%s %s: no directory index: %s", s->uuid, s->mountpoint,
				 s->fan < 0 ? map_strerror(s->fan) : "out of memory");
			s->unneeded = true;	/* names still come, by searching */
			return;
		}
	}
	int rc = map_dirindex_drain(s->ix, fs, s->fan);
	if (rc < 0)
		log_warn("%s %s: directory events: %s", s->uuid, s->mountpoint, map_strerror(rc));
	map_dirindex_get_stats(s->ix, &st);
	if (st.resets != s->resets_seen) {
		s->resets_seen = st.resets;
		/* quiet for a long while: start short again */
		if (s->rebuild_delay < REBUILD_DELAY_FIRST ||
		    md_mono() - s->last_reset > 2 * REBUILD_DELAY_MAX)
			s->rebuild_delay = REBUILD_DELAY_FIRST;
		s->last_reset = md_mono();
		s->not_before = md_mono() + s->rebuild_delay;
		log_notice("%s %s: directory events were lost (queue overflow): the directory "
			   "index is built again in %.0f s", s->uuid, s->mountpoint, s->rebuild_delay);
		s->rebuild_delay *= 2;
		if (s->rebuild_delay > REBUILD_DELAY_MAX)
			s->rebuild_delay = REBUILD_DELAY_MAX;
	}
	if (budget <= 0 || map_dirindex_ready(s->ix) || md_mono() < s->not_before)
		return;
	rc = map_dirindex_build(s->ix, fs, budget);
	if (rc == -E2BIG) {
		log_warn("%s %s: no directory index: more directories than it may hold; names "
			 "are found by searching", s->uuid, s->mountpoint);
		close(s->fan);
		s->fan = -1;
		map_dirindex_free(s->ix);
		s->ix = NULL;
		s->unneeded = true;
	} else if (rc < 0) {
		log_warn("%s %s: building the directory index: %s", s->uuid, s->mountpoint,
			 map_strerror(rc));
	} else if (rc == 1) {
		map_dirindex_get_stats(s->ix, &st);
		log_info("%s %s: directory index ready: %" PRIu64 " directories, built in %.2f s "
			 "of work", s->uuid, s->mountpoint, st.dirs, st.build_seconds);
	}
}

bool md_dirwatch_work(struct md_dirwatch *w, double budget)
{
	bool building = false;

	for (int i = 0; i < MAX_INDEXES; i++) {
		struct slot *s = &w->slots[i];
		struct map_fs *fs;

		if (!s->used || s->unneeded)
			continue;
		fs = open_fs(w, s);
		if (!fs)
			continue;	/* unmounted or moving: discovery will say */
		keep(s, fs, budget);
		if (s->ix && !map_dirindex_ready(s->ix) && md_mono() >= s->not_before)
			building = true;
		map_fs_close(fs);
	}
	return building;
}

void md_dirwatch_attach(struct md_dirwatch *w, const char *uuid, struct map_fs *fs)
{
	struct slot *s = find(w, uuid);

	if (!s || s->unneeded || !s->ix)
		return;
	keep(s, fs, 0);
	if (map_dirindex_ready(s->ix))
		map_fs_use_dirindex(fs, s->ix);
}

void md_dirwatch_get_stats(struct md_dirwatch *w, struct md_dirwatch_stats *out)
{
	*out = (struct md_dirwatch_stats){ 0 };
	for (int i = 0; i < MAX_INDEXES; i++) {
		const struct slot *s = &w->slots[i];
		struct map_dirindex_stats st;

		if (s->used && s->unneeded)
			out->unneeded++;
		if (!s->used || !s->ix)
			continue;
		map_dirindex_get_stats(s->ix, &st);
		if (map_dirindex_ready(s->ix))
			out->ready++;
		else
			out->building++;
		out->dirs += st.dirs;
		out->events += st.events;
		out->uses += st.uses;
		out->retries += st.retries;
		out->resets += st.resets;
	}
}
