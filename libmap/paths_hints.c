// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Resolve, before any directory is read: a name from the dentry cache for a
 * target with one name (path_hint.c), and from the directory index the
 * names it keeps of files with several links and the directories whose
 * files spanned a target's inode number.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "paths_internal.h"

/*
 * Targets with exactly one name (a file with one link, or a directory) take
 * it from the dentry cache when it is there and checks out: a reader's EIO
 * names a file whose path was just looked up, so the usual event needs no
 * directory read at all.  Files with more links still need the full search,
 * as the cache holds at most the names that were used.
 */
int resolve_take_hints(struct resolve *r)
{
	char root[PATH_MAX + 1];
	int have_root = 0;	/* 1: read, -1: cannot be read */

	/* A batch (a scan's owners) reads the directories anyway; a hint
	 * costs an open by handle and three calls per target, and after a
	 * scan the cache rarely has the names. */
	if (r->ntargets > HINT_MAX)
		return 0;
	for (size_t i = 0; i < r->ntargets; i++) {
		uint64_t ino = r->target_inos[i];
		struct target *t = map_inohash_get(r->targets, ino, false);
		struct map_paths *p = &r->res[t->index];
		char *path;
		int rc;

		if (t->needed != 1 || t->found || p->npaths ||
		    !(S_ISREG(p->mode) || S_ISDIR(p->mode)))
			continue;
		if (!have_root)
			have_root = map_path_hint_root(r->fs, root) == 0 ? 1 : -1;
		if (have_root < 0)
			return 0;	/* no hints at all (no /proc, say) */
		rc = map_path_hint(r->fs, root, ino, p->gen, &path);
		if (rc == -ENOMEM)
			return rc;
		if (rc)
			continue;
		rc = resolve_add_path(p, path);
		free(path);
		if (rc)
			return rc;
		t->found = 1;
		r->stats->dcache_hits++;
	}
	return 0;
}

#define COVERING_MAX	8	/* directories read first for one target */

struct covering {
	uint64_t ino;
	struct {
		uint64_t dir, end;	/* distance from the target to the span's nearer end */
		uint32_t gen;
	} v[COVERING_MAX];
	size_t n;
};

/* Keep the spans with an end nearest the target: a file in a chunk far from
 * its directory's others is usually the last one made there, the span's end;
 * a span that merely passes over the target (a directory with files in two
 * places) comes later. */
static int note_covering(uint64_t dir, uint32_t gen, uint64_t lo, uint64_t hi, void *arg)
{
	struct covering *c = arg;
	uint64_t end = c->ino - lo < hi - c->ino ? c->ino - lo : hi - c->ino;
	size_t at = c->n;

	while (at > 0 && c->v[at - 1].end > end)
		at--;
	if (at == COVERING_MAX)
		return 0;
	if (c->n < COVERING_MAX)
		c->n++;
	memmove(&c->v[at + 1], &c->v[at], (c->n - 1 - at) * sizeof(c->v[0]));
	c->v[at].dir = dir;
	c->v[at].end = end;
	c->v[at].gen = gen;
	return 0;
}

/* A few targets: the directories whose files spanned each one's inode number
 * at the build, nearest end first, are read before any other (order[] from
 * its start). */
int resolve_seed_covering(struct resolve *r)
{
	if (r->ntargets > HINT_MAX)
		return 0;
	for (size_t i = 0; i < r->ntargets; i++) {
		struct target *t = map_inohash_get(r->targets, r->target_inos[i], false);
		struct covering c = { .ino = r->target_inos[i], .n = 0 };

		if (t->found >= t->needed)
			continue;
		int rc = map_dirindex_covering(r->ix, r->target_inos[i], note_covering, &c);
		if (rc)
			return rc;
		for (size_t k = 0; k < c.n; k++) {
			if (map_inohash_get(r->dirs, c.v[k].dir, false))
				continue;
			struct dirinfo *d = resolve_add_dir(r, c.v[k].dir);
			if (!d)
				return -ENOMEM;
			d->gen = c.v[k].gen;
			r->order[r->ndirs - 1].distance = 0;
		}
	}
	return 0;
}

/* Files with several links whose names the index keeps: those names, still
 * to be checked like any other; a kept list that no longer matches the
 * link count is not used (the search finds the names, and they are kept). */
int resolve_take_links(struct resolve *r)
{
	for (size_t i = 0; i < r->ntargets; i++) {
		struct target *t = map_inohash_get(r->targets, r->target_inos[i], false);
		const struct map_dirindex_link *v;
		size_t n;

		if (t->needed < 2 || t->needed == UINT32_MAX || t->found ||
		    S_ISDIR(r->res[t->index].mode))
			continue;
		n = map_dirindex_links(r->ix, r->target_inos[i], &v);
		if (n != t->needed)
			continue;
		for (size_t k = 0; k < n; k++) {
			int rc = resolve_add_hit(r, v[k].dir, r->target_inos[i], v[k].name,
						 v[k].len);

			if (rc)
				return rc;
		}
		t->found = (uint32_t)n;
	}
	return 0;
}
