// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Owners without a reverse-mapping btree: GETFSMAP can then only say "in use,
 * owner unknown", so we build an index of every file's extents (GETBMAPX on
 * the data and attribute forks of every inode, opened by handle) and look bad
 * ranges up in it.  This reads every inode once and holds every extent in
 * memory: the slow path, used only when the filesystem has no rmapbt.
 * Extent-map (bmbt) blocks and symbolic link blocks are not visible this way.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "map_internal.h"

struct bmap_extent {
	uint64_t physical;	/* bytes */
	uint64_t length;
	uint64_t offset;	/* bytes in the fork */
	uint64_t ino;
	uint32_t gen;
	uint32_t mode;
	uint32_t flags;		/* MAP_OWNER_F_ATTR_FORK, _UNWRITTEN, _SHARED */
};

struct map_bmap_index {
	struct bmap_extent *v;
	size_t n, cap;
	uint64_t max_length;
};

static int index_push(struct map_bmap_index *idx, const struct bmap_extent *e)
{
	if (idx->n == idx->cap) {
		size_t cap = idx->cap ? idx->cap * 2 : 4096;
		struct bmap_extent *v = realloc(idx->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		idx->v = v;
		idx->cap = cap;
	}
	idx->v[idx->n++] = *e;
	if (e->length > idx->max_length)
		idx->max_length = e->length;
	return 0;
}

struct fork_walk {
	struct map_bmap_index *idx;
	const struct xfs_bulkstat *bs;
	bool attr;
};

static int index_extent(const struct getbmapx *m, void *arg)
{
	struct fork_walk *w = arg;
	struct bmap_extent e = {
		.physical = (uint64_t)m->bmv_block * 512,
		.length = (uint64_t)m->bmv_length * 512,
		.offset = (uint64_t)m->bmv_offset * 512,
		.ino = w->bs->bs_ino,
		.gen = w->bs->bs_gen,
		.mode = w->bs->bs_mode,
		.flags = (w->attr ? MAP_OWNER_F_ATTR_FORK : 0) |
			 ((m->bmv_oflags & BMV_OF_PREALLOC) ? MAP_OWNER_F_UNWRITTEN : 0) |
			 ((m->bmv_oflags & BMV_OF_SHARED) ? MAP_OWNER_F_SHARED : 0),
	};

	return index_push(w->idx, &e);
}

static int index_fork(struct map_bmap_index *idx, int fd, const struct xfs_bulkstat *bs,
		      bool attr)
{
	struct fork_walk w = { idx, bs, attr };

	return map_getbmapx_each(fd, attr, index_extent, &w);
}

static int index_inode(struct map_fs *fs, const struct xfs_bulkstat *bs, void *arg)
{
	struct map_bmap_index *idx = arg;
	int fd;

	if (bs->bs_blocks == 0 || !(S_ISREG(bs->bs_mode) || S_ISDIR(bs->bs_mode)))
		return 0;
	fd = map_open_by_ino(fs, bs->bs_ino, bs->bs_gen, S_ISDIR(bs->bs_mode) ? O_DIRECTORY : 0);
	if (fd < 0)
		return 0;	/* gone or unreadable: nothing to index */
	int rc = index_fork(idx, fd, bs, false);
	if (rc == 0 && bs->bs_aextents)
		rc = index_fork(idx, fd, bs, true);
	close(fd);
	return rc == -ENOMEM ? rc : 0;
}

static int cmp_extent(const void *a, const void *b)
{
	const struct bmap_extent *x = a, *y = b;

	if (x->physical != y->physical)
		return x->physical < y->physical ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static int build_index(struct map_fs *fs)
{
	struct map_bmap_index *idx = calloc(1, sizeof(*idx));
	int rc;

	if (!idx)
		return -ENOMEM;
	rc = map_bulkstat_walk(fs, 0, index_inode, NULL, idx);
	if (rc) {
		map_bmap_index_free(idx);
		return rc;
	}
	qsort(idx->v, idx->n, sizeof(*idx->v), cmp_extent);
	fs->bmap_index = idx;
	return 0;
}

int map_bmap_index_locate(struct map_fs *fs, uint64_t start, uint64_t length,
			  struct map_owner_list *out)
{
	struct map_bmap_index *idx;
	uint64_t end = start + length;
	size_t before = out->n;
	int rc;

	if (!fs->bmap_index) {
		rc = build_index(fs);
		if (rc)
			return rc;
	}
	idx = fs->bmap_index;

	/* First extent starting at or after the end, then back over every
	 * extent that can still reach into the range. */
	size_t lo = 0, hi = idx->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (idx->v[mid].physical < end)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		const struct bmap_extent *e = &idx->v[i];

		if (e->physical + idx->max_length <= start)
			break;
		uint64_t a = e->physical > start ? e->physical : start;
		uint64_t b = e->physical + e->length < end ? e->physical + e->length : end;
		if (a >= b)
			continue;

		struct map_owner o;
		memset(&o, 0, sizeof(o));
		o.physical = a;
		o.length = b - a;
		o.agno = map_geo_byte_to_agno(&fs->info.geo, a);
		o.ino = e->ino;
		o.gen = e->gen;
		o.mode = e->mode;
		o.offset = e->offset + (a - e->physical);
		o.flags = e->flags | MAP_OWNER_F_BY_INDEX;
		if (e->flags & MAP_OWNER_F_ATTR_FORK)
			o.kind = MAP_OWNER_XATTR;
		else if (S_ISDIR(e->mode))
			o.kind = MAP_OWNER_DIR;
		else
			o.kind = MAP_OWNER_FILE;
		map_owner_set_scrubs(&fs->info.geo, &o);
		rc = map_owner_list_push(out, &o);
		if (rc)
			return rc;
	}
	if (out->n == before) {
		/* In use, but not by any file we could see: metadata. */
		struct map_owner o;

		memset(&o, 0, sizeof(o));
		o.kind = MAP_OWNER_UNKNOWN;
		o.physical = start;
		o.length = length;
		o.agno = map_geo_byte_to_agno(&fs->info.geo, start);
		return map_owner_list_push(out, &o);
	}
	return 0;
}

void map_bmap_index_free(struct map_bmap_index *idx)
{
	if (!idx)
		return;
	free(idx->v);
	free(idx);
}
