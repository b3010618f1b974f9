// SPDX-License-Identifier: GPL-2.0-or-later
/* What full opens of watched filesystems learnt (see fscache.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "fscache.h"

#define ENTRIES		64	/* as many filesystems as one daemon watches */
#define RELEARN_AFTER	60.0	/* seconds */

struct entry {
	bool used;
	bool stale;			/* used after RELEARN_AFTER: learn it again */
	double learnt;			/* monotonic s */
	double last_used;
	char mountpoint[PATH_MAX];	/* as asked */
	struct map_fs_info info;
};

struct md_fscache {
	struct entry e[ENTRIES];
	struct md_fscache_stats stats;
};

struct md_fscache *md_fscache_new(void)
{
	return calloc(1, sizeof(struct md_fscache));
}

void md_fscache_free(struct md_fscache *c)
{
	free(c);
}

static struct entry *find(struct md_fscache *c, const char *mountpoint)
{
	for (int i = 0; i < ENTRIES; i++)
		if (c->e[i].used && strcmp(c->e[i].mountpoint, mountpoint) == 0)
			return &c->e[i];
	return NULL;
}

/* A free entry, else the one used longest ago. */
static struct entry *slot_for(struct md_fscache *c)
{
	struct entry *old = &c->e[0];

	for (int i = 0; i < ENTRIES; i++) {
		if (!c->e[i].used)
			return &c->e[i];
		if (c->e[i].last_used < old->last_used)
			old = &c->e[i];
	}
	return old;
}

/* Whatever is mounted at @mountpoint now. */
static int open_any(struct md_fscache *c, const char *mountpoint, struct map_fs **fsp)
{
	struct entry *e = find(c, mountpoint);
	double now = md_mono();
	int rc;

	*fsp = NULL;
	if (strlen(mountpoint) >= sizeof(e->mountpoint))
		return -ENAMETOOLONG;
	if (e) {
		/* An old entry serves the report all the same (the reopen checks
		 * the device, root and UUID; what may have changed is only
		 * descriptive) and is learnt again after it: a full open costs
		 * tens of milliseconds. */
		rc = map_fs_reopen(&e->info, fsp);
		if (rc == 0) {
			e->last_used = now;
			e->stale = now - e->learnt >= RELEARN_AFTER;
			c->stats.reopens++;
			return 0;
		}
		e->used = false;	/* something else is there now: learn it */
	}
	rc = map_fs_open(mountpoint, fsp);
	if (rc) {
		if (e)
			e->used = false;
		return rc;
	}
	c->stats.full_opens++;
	if (!e)
		e = slot_for(c);
	*e = (struct entry){ .used = true, .learnt = now, .last_used = now };
	strcpy(e->mountpoint, mountpoint);
	e->info = *map_fs_info(*fsp);
	return 0;
}

int md_fscache_open(struct md_fscache *c, const char *mountpoint, const char *uuid,
		    struct map_fs **fsp)
{
	int rc = open_any(c, mountpoint, fsp);

	if (rc == 0 && strcmp(map_fs_info(*fsp)->uuid, uuid) != 0) {
		map_fs_close(*fsp);
		*fsp = NULL;
		rc = -MAP_EUNMOUNTED;
	}
	return rc;
}

void md_fscache_relearn(struct md_fscache *c)
{
	for (int i = 0; i < ENTRIES; i++) {
		struct entry *e = &c->e[i];
		char mountpoint[PATH_MAX];
		struct map_fs *fs;

		if (!e->used || !e->stale)
			continue;
		strcpy(mountpoint, e->mountpoint);
		e->used = false;	/* learnt again, or gone */
		if (open_any(c, mountpoint, &fs) == 0)
			map_fs_close(fs);
	}
}

void md_fscache_get_stats(const struct md_fscache *c, struct md_fscache_stats *out)
{
	*out = c->stats;
}
