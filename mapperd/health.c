// SPDX-License-Identifier: GPL-2.0-or-later
/* In-core health state of an XFS filesystem, through libmap's wrappers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "health.h"

int md_health_geometry(struct map_fs *fs, struct md_health *h)
{
	struct map_fs_health fh;
	int rc = map_fs_health(fs, &fh);

	memset(h, 0, sizeof(*h));
	h->fs_sick = fh.fs_sick;
	h->sick_ags = fh.sick_ags;
	h->ag_sick_union = fh.ag_sick_union;
	return rc;
}

struct sick_walk {
	struct md_health *h;
	size_t max;
};

static int add_inode(const struct map_inode_health *si, void *arg)
{
	struct sick_walk *w = arg;
	struct md_health *h = w->h;
	struct md_sick_inode *v;

	if (h->ninodes >= w->max)
		return 0;
	v = realloc(h->inodes, (h->ninodes + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	h->inodes = v;
	v[h->ninodes++] = (struct md_sick_inode){
		.ino = si->ino, .gen = si->gen, .mode = si->mode, .sick = si->sick,
		.has_attr = si->has_attr,
	};
	return 0;
}

int md_health_inodes(struct map_fs *fs, struct md_health *h, size_t max)
{
	struct sick_walk w = { h, max };

	return map_sick_inodes(fs, add_inode, &w);
}

void md_health_free(struct md_health *h)
{
	free(h->inodes);
	h->inodes = NULL;
	h->ninodes = 0;
}

int md_health_inode(struct map_fs *fs, uint64_t ino, struct md_sick_inode *out)
{
	struct map_inode_health si;
	int rc = map_inode_health(fs, ino, &si);

	if (rc == 0)
		*out = (struct md_sick_inode){
			.ino = si.ino, .gen = si.gen, .mode = si.mode, .sick = si.sick,
			.has_attr = si.has_attr,
		};
	return rc;
}
