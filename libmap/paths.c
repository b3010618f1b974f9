// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Resolve: inode numbers to every path that names them (the orchestrator).
 *
 * Without parent pointers there is no index from an inode to its names, so we
 * read directories (opened by handle, read with getdents64) until every target
 * has as many names as it has links and every directory on those paths has a
 * known name.  XFS allocates a file's inode near its parent directory's, so
 * directories are read nearest-inode-number first, and once a name is found
 * its ancestors are read next (each directory's ".." says which).  Memory
 * grows with the number of directories, never with the number of files.
 *
 * Before any of that, a target with a single name takes it from the dentry
 * cache when the cache has it (path_hint.c): the usual case for a file whose
 * read just failed (small batches only: a scan's thousands of owners are
 * cheaper to find by reading the directories).
 *
 * With a directory index (dirindex.c: a daemon keeps one between calls), the
 * directories near a target come from it instead of bulkstat, and ancestors
 * are named without reading them; an answer that falls short of a target's
 * link count is redone without it.  Every name is checked against the tree
 * before it is returned: its directory opened by path (no symbolic link
 * followed, no mount crossed) must be the directory it was read from, and the
 * name in it must still lead to the target.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "paths_internal.h"

int resolve_add_path(struct map_paths *p, const char *path)
{
	return map_strv_add(&p->paths, &p->npaths, path);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int copy_name(uint64_t ino, uint64_t parent, const char *name, size_t len, void *arg)
{
	return map_dirmap_set(arg, ino, parent, name, len);
}

/* The state of one resolve for @n inodes; -ENOMEM (then resolve_free()). */
static int resolve_init(struct resolve *r, struct map_fs *fs, struct map_dirindex *ix,
			size_t n, struct map_resolve_stats *stats, struct map_dirindex *heal)
{
	memset(r, 0, sizeof(*r));
	r->fs = fs;
	r->stats = stats;
	r->ix = ix;
	r->record = ix ? ix : heal;
	r->res = calloc(n ? n : 1, sizeof(*r->res));
	r->targets = map_inohash_new(sizeof(struct target));
	r->target_inos = malloc((n ? n : 1) * sizeof(uint64_t));
	r->dirs = map_inohash_new(sizeof(struct dirinfo));
	r->dm = ix ? map_dirindex_dirmap(ix) : map_dirmap_new(fs->info.root_ino);
	if (!r->res || !r->targets || !r->target_inos || !r->dirs || !r->dm)
		return -ENOMEM;
	return 0;
}

/* Everything of @r but the results (r->res, the caller's or freed by it):
 * the one place a resolve's state is freed. */
static void resolve_free(struct resolve *r)
{
	for (size_t i = 0; i < r->nhits; i++)
		free(r->hits[i].name);
	free(r->hits);
	free(r->wanted);
	free(r->order);
	free(r->target_inos);
	map_inohash_free(r->targets);
	map_inohash_free(r->dirs);
	if (!r->ix)
		map_dirmap_free(r->dm);
}

/* One target per distinct inode, sorted; duplicates are copied at the end. */
static int add_targets(struct resolve *r, const uint64_t *inos, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		r->res[i].ino = inos[i];
		if (inos[i] == 0 || map_inohash_get(r->targets, inos[i], false))
			continue;	/* not an inode, or a duplicate */
		struct target *t = map_inohash_get(r->targets, inos[i], true);
		if (!t)
			return -ENOMEM;
		t->index = (uint32_t)i;
		r->target_inos[r->ntargets++] = inos[i];
	}
	qsort(r->target_inos, r->ntargets, sizeof(uint64_t), cmp_u64);
	return 0;
}

/* The strategies in turn: what is known before reading a directory, then
 * parent pointers or the directories themselves, then the check. */
static int find_names(struct resolve *r)
{
	int rc = resolve_fill_targets(r);

	if (rc == 0)
		rc = resolve_take_hints(r);
	if (rc == 0 && r->ix)
		rc = resolve_take_links(r);
	if (rc == 0 && r->ix)
		rc = resolve_seed_covering(r);
	if (rc == 0 && resolve_unfound(r) != 0) {
		if (!r->ix && r->fs->info.geo.parent && map_fs_load_fshandle(r->fs) == 0) {
			r->stats->used_parent_pointers = true;
			rc = resolve_pptr(r);
		} else {
			rc = resolve_by_windows(r);
		}
		/* listed, or found only by name */
		r->stats->dirs_total = r->ndirs;
	}
	if (rc == 0 && r->nhits)
		rc = resolve_build_results(r);
	return rc;
}

/* A duplicate inode gets a copy of the first one's answer; names sorted. */
static int finish_results(struct resolve *r, const uint64_t *inos, size_t n)
{
	int rc = 0;

	for (size_t i = 0; i < n && rc == 0; i++) {
		struct target *t = map_inohash_get(r->targets, inos[i], false);
		struct map_paths *p = &r->res[i];

		if (!t)
			continue;
		if (t->index != i) {
			const struct map_paths *src = &r->res[t->index];

			*p = *src;
			p->paths = NULL;
			p->npaths = 0;
			for (size_t k = 0; k < src->npaths && rc == 0; k++)
				rc = resolve_add_path(p, src->paths[k]);
		} else if (p->npaths > 1) {
			qsort(p->paths, p->npaths, sizeof(char *), cmp_str);
		}
	}
	return rc;
}

/* One resolve; with @ix, directories come from the index; names learnt
 * are copied into @heal when given. */
static int resolve_once(struct map_fs *fs, struct map_dirindex *ix, const uint64_t *inos,
			size_t n, struct map_paths **out, struct map_resolve_stats *stats,
			struct map_dirindex *heal)
{
	struct resolve r;
	int rc = resolve_init(&r, fs, ix, n, stats, heal);

	*out = NULL;
	if (rc == 0)
		rc = add_targets(&r, inos, n);
	if (rc == 0)
		rc = find_names(&r);
	if (rc == 0)
		rc = finish_results(&r, inos, n);
	if (rc == 0 && heal && map_dirindex_ready(heal))
		rc = map_dirmap_each(r.dm, copy_name, map_dirindex_dirmap(heal));
	resolve_free(&r);
	if (rc) {
		map_paths_free(r.res, n);
		return rc;
	}
	*out = r.res;
	return 0;
}

/* Fewer names than links for an inode that can be read: the index misled
 * the search (or the filesystem hides a name; looking again settles it). */
static bool short_of_names(const struct map_paths *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i].ino == 0 || p[i].gone || p[i].unreadable || p[i].unlinked)
			continue;
		if (p[i].npaths < (S_ISDIR(p[i].mode) ? 1 : p[i].nlink))
			return true;
	}
	return false;
}

int map_resolve_paths(struct map_fs *fs, const uint64_t *inos, size_t n,
		      struct map_paths **out, struct map_resolve_stats *stats)
{
	struct map_dirindex *ix = fs->dirindex;
	struct map_resolve_stats dummy;
	int rc;

	if (!stats)
		stats = &dummy;
	memset(stats, 0, sizeof(*stats));
	if (!map_dirindex_ready(ix) || fs->info.geo.parent)
		return resolve_once(fs, NULL, inos, n, out, stats, NULL);
	stats->used_dirindex = true;
	map_dirindex_count_use(ix);
	rc = resolve_once(fs, ix, inos, n, out, stats, NULL);
	if (rc || !short_of_names(*out, n))
		return rc;
	map_paths_free(*out, n);
	map_dirindex_count_retry(ix);
	memset(stats, 0, sizeof(*stats));
	stats->used_dirindex = true;
	stats->dirindex_retried = true;
	return resolve_once(fs, NULL, inos, n, out, stats, ix);
}

void map_paths_free(struct map_paths *paths, size_t n)
{
	if (!paths)
		return;
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < paths[i].npaths; k++)
			free(paths[i].paths[k]);
		free(paths[i].paths);
	}
	free(paths);
}
