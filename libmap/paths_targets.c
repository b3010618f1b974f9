// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Resolve, what each target is: its mode, link count and generation from
 * bulkstat (one call per target, or one walk of the whole filesystem for a
 * large batch, which lists every directory on the way).
 */
#include <errno.h>
#include <sys/stat.h>

#include "paths_internal.h"

/* More targets than this: one bulkstat walk of the whole filesystem learns
 * every target and lists every directory, instead of a bulkstat call per
 * target and windows around each. */
#define BATCH_WALK	256

static int fill_from_bulkstat(struct resolve *r, struct target *t, const struct xfs_bulkstat *bs)
{
	struct map_paths *p = &r->res[t->index];

	t->filled = true;
	p->gen = bs->bs_gen;
	p->mode = bs->bs_mode;
	p->nlink = bs->bs_nlink;
	if (bs->bs_ino == r->fs->info.root_ino)
		return resolve_add_path(p, "");
	if (bs->bs_nlink == 0)
		p->unlinked = true;
	else
		t->needed = S_ISDIR(bs->bs_mode) ? 1 : bs->bs_nlink;
	return 0;
}

static int fill_target(struct resolve *r, uint64_t ino, struct target *t)
{
	struct map_paths *p = &r->res[t->index];
	struct xfs_bulkstat bs;
	int rc = map_bulkstat_one(r->fs, ino, &bs);

	t->filled = true;
	if (rc == -ENOENT) {
		p->gone = true;
		return 0;
	}
	if (rc) {
		/* The inode cannot be read, so its link count is unknown:
		 * look for names in every directory. */
		p->unreadable = true;
		t->needed = UINT32_MAX;
		return 0;
	}
	return fill_from_bulkstat(r, t, &bs);
}

/* The batch walk: every target it meets, and every directory. */
static int batch_collect(struct map_fs *fs, const struct xfs_bulkstat *bs, void *arg)
{
	struct resolve *r = arg;
	struct target *t = map_inohash_get(r->targets, bs->bs_ino, false);

	(void)fs;
	r->stats->inodes_scanned++;
	if (t && !t->filled) {
		int rc = fill_from_bulkstat(r, t, bs);

		if (rc)
			return rc;
	}
	if (r->ix || !S_ISDIR(bs->bs_mode))
		return 0;
	return resolve_list_dir(r, bs->bs_ino, bs->bs_gen);
}

/* Many targets: one walk, then each target it did not meet on its own (gone,
 * or in an inode chunk the walk could not read). */
static int fill_batch(struct resolve *r)
{
	int rc = map_bulkstat_walk(r->fs, 0, batch_collect, NULL, r);

	if (rc < 0)
		return rc;
	r->listed_all = !r->ix;
	for (size_t i = 0; i < r->ntargets && rc == 0; i++) {
		struct target *t = map_inohash_get(r->targets, r->target_inos[i], false);

		if (!t->filled)
			rc = fill_target(r, r->target_inos[i], t);
	}
	return rc;
}

int resolve_fill_targets(struct resolve *r)
{
	int rc = 0;

	if (r->ntargets > BATCH_WALK)
		return fill_batch(r);
	for (size_t i = 0; i < r->ntargets && rc == 0; i++)
		rc = fill_target(r, r->target_inos[i],
				 map_inohash_get(r->targets, r->target_inos[i], false));
	return rc;
}
