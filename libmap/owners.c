// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Map: who owns a bad byte range.  A GETFSMAP point query names every owner
 * (every reflink sharer too); inode owners are completed with bulkstat and
 * inode chunks are expanded to the inodes whose cores can no longer be read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "map_fsmap.h"
#include "map_internal.h"

static const char *const kind_names[MAP_OWNER_NR] = {
	[MAP_OWNER_FILE] = "file",
	[MAP_OWNER_DIR] = "directory",
	[MAP_OWNER_SYMLINK] = "symlink",
	[MAP_OWNER_XATTR] = "xattr",
	[MAP_OWNER_BMBT] = "extent-map",
	[MAP_OWNER_INODE] = "inode",
	[MAP_OWNER_INODES] = "inode-chunk",
	[MAP_OWNER_FS_HEADERS] = "ag-headers",
	[MAP_OWNER_LOG] = "log",
	[MAP_OWNER_AG_BTREES] = "space-btrees",
	[MAP_OWNER_INOBT] = "inode-btrees",
	[MAP_OWNER_REFCOUNTBT] = "refcount-btree",
	[MAP_OWNER_COW] = "cow-staging",
	[MAP_OWNER_FREE] = "free",
	[MAP_OWNER_UNKNOWN] = "unknown",
};

const char *map_owner_kind_name(enum map_owner_kind kind)
{
	if ((unsigned int)kind >= MAP_OWNER_NR)
		return "?";
	return kind_names[kind];
}

int map_owner_kind_from_name(const char *name)
{
	return map_word_index(kind_names, MAP_OWNER_NR, name);
}

bool map_owner_kind_is_metadata(enum map_owner_kind kind)
{
	return kind != MAP_OWNER_FILE && kind != MAP_OWNER_FREE && kind != MAP_OWNER_UNKNOWN;
}

int map_owner_list_push(struct map_owner_list *list, const struct map_owner *o)
{
	if (list->n == list->cap) {
		size_t cap = list->cap ? list->cap * 2 : 16;
		struct map_owner *v = realloc(list->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		list->v = v;
		list->cap = cap;
	}
	list->v[list->n++] = *o;
	return 0;
}

void map_owner_list_free(struct map_owner_list *list)
{
	free(list->v);
	list->v = NULL;
	list->n = list->cap = 0;
}

static void add_scrub(struct map_owner *o, uint32_t type)
{
	if (o->nr_scrub < sizeof(o->scrub) / sizeof(o->scrub[0]))
		o->scrub[o->nr_scrub++] = type;
}

/* The AG header sectors (SB, AGF, AGFL, AGI in that order) the range touches. */
static void add_header_scrubs(const struct map_geometry *geo, struct map_owner *o)
{
	static const uint32_t header_types[4] = {
		XFS_SCRUB_TYPE_SB, XFS_SCRUB_TYPE_AGF, XFS_SCRUB_TYPE_AGFL, XFS_SCRUB_TYPE_AGI,
	};
	uint64_t agstart = (uint64_t)o->agno * geo->agblocks * geo->blocksize;
	uint64_t sect = geo->sectsize ? geo->sectsize : 512;

	for (uint64_t i = 0; i < 4; i++) {
		uint64_t s = agstart + i * sect;

		if (s < o->physical + o->length && s + sect > o->physical)
			add_scrub(o, header_types[i]);
	}
}

/* Which scrub types check (and, with REPAIR, rebuild) what this owner lost. */
void map_owner_set_scrubs(const struct map_geometry *geo, struct map_owner *o)
{
	o->nr_scrub = 0;
	switch (o->kind) {
	case MAP_OWNER_DIR:
		add_scrub(o, XFS_SCRUB_TYPE_DIR);
		break;
	case MAP_OWNER_SYMLINK:
		add_scrub(o, XFS_SCRUB_TYPE_SYMLINK);
		break;
	case MAP_OWNER_XATTR:
		add_scrub(o, XFS_SCRUB_TYPE_XATTR);
		break;
	case MAP_OWNER_BMBT:
		add_scrub(o, (o->flags & MAP_OWNER_F_ATTR_FORK) ? XFS_SCRUB_TYPE_BMBTA :
								 XFS_SCRUB_TYPE_BMBTD);
		break;
	case MAP_OWNER_INODE:
		add_scrub(o, XFS_SCRUB_TYPE_INODE);
		break;
	case MAP_OWNER_INODES:
		add_scrub(o, XFS_SCRUB_TYPE_INOBT);
		break;
	case MAP_OWNER_FS_HEADERS:
		add_header_scrubs(geo, o);
		break;
	case MAP_OWNER_AG_BTREES:
		add_scrub(o, XFS_SCRUB_TYPE_BNOBT);
		add_scrub(o, XFS_SCRUB_TYPE_CNTBT);
		if (geo->rmapbt)
			add_scrub(o, XFS_SCRUB_TYPE_RMAPBT);
		add_scrub(o, XFS_SCRUB_TYPE_AGFL);
		break;
	case MAP_OWNER_INOBT:
		add_scrub(o, XFS_SCRUB_TYPE_INOBT);
		if (geo->finobt)
			add_scrub(o, XFS_SCRUB_TYPE_FINOBT);
		break;
	case MAP_OWNER_REFCOUNTBT:
	case MAP_OWNER_COW:
		add_scrub(o, XFS_SCRUB_TYPE_REFCNTBT);
		break;
	case MAP_OWNER_FILE:	/* file data: only a good copy brings it back */
	case MAP_OWNER_LOG:	/* the log is not repaired online */
	case MAP_OWNER_FREE:
	case MAP_OWNER_UNKNOWN:
	case MAP_OWNER_NR:
		break;
	}
}

static enum map_owner_kind special_kind(uint64_t owner)
{
	switch (owner) {
	case FMR_OWN_FREE:
		return MAP_OWNER_FREE;
	case XFS_FMR_OWN_FS:
		return MAP_OWNER_FS_HEADERS;
	case XFS_FMR_OWN_LOG:
		return MAP_OWNER_LOG;
	case XFS_FMR_OWN_AG:
		return MAP_OWNER_AG_BTREES;
	case XFS_FMR_OWN_INOBT:
		return MAP_OWNER_INOBT;
	case XFS_FMR_OWN_INODES:
		return MAP_OWNER_INODES;
	case XFS_FMR_OWN_REFC:
		return MAP_OWNER_REFCOUNTBT;
	case XFS_FMR_OWN_COW:
		return MAP_OWNER_COW;
	default:
		return MAP_OWNER_UNKNOWN;
	}
}

int map_owner_from_fsmap(const struct map_geometry *geo, const void *fsmap_rec, uint64_t start,
			 uint64_t length, struct map_owner *o)
{
	const struct fsmap *rec = fsmap_rec;
	uint64_t lo = start > rec->fmr_physical ? start : rec->fmr_physical;
	uint64_t rec_end = rec->fmr_physical + rec->fmr_length;
	uint64_t hi = start + length < rec_end ? start + length : rec_end;

	if (lo >= hi)
		return 0;
	memset(o, 0, sizeof(*o));
	o->physical = lo;
	o->length = hi - lo;
	o->agno = map_geo_byte_to_agno(geo, lo);
	if (rec->fmr_flags & FMR_OF_SPECIAL_OWNER) {
		o->kind = special_kind(rec->fmr_owner);
	} else {
		o->ino = rec->fmr_owner;
		if (rec->fmr_flags & FMR_OF_ATTR_FORK)
			o->flags |= MAP_OWNER_F_ATTR_FORK;
		if (rec->fmr_flags & FMR_OF_EXTENT_MAP) {
			o->kind = MAP_OWNER_BMBT;
		} else {
			o->kind = (rec->fmr_flags & FMR_OF_ATTR_FORK) ? MAP_OWNER_XATTR :
									 MAP_OWNER_FILE;
			/* fmr_offset is where the record starts in the fork. */
			o->offset = rec->fmr_offset + (lo - rec->fmr_physical);
		}
		if (rec->fmr_flags & FMR_OF_SHARED)
			o->flags |= MAP_OWNER_F_SHARED;
		if (rec->fmr_flags & FMR_OF_PREALLOC)
			o->flags |= MAP_OWNER_F_UNWRITTEN;
	}
	map_owner_set_scrubs(geo, o);
	return 1;
}

struct locate {
	struct map_fs *fs;
	uint64_t start, length;
	struct map_owner_list *out;
};

static int locate_rec(const struct fsmap *rec, void *arg)
{
	struct locate *l = arg;
	struct map_owner o;

	if (!map_owner_from_fsmap(&l->fs->info.geo, rec, l->start, l->length, &o))
		return 0;
	if (o.kind == MAP_OWNER_UNKNOWN && !l->fs->info.geo.rmapbt)
		return map_bmap_index_locate(l->fs, o.physical, o.length, l->out);
	return map_owner_list_push(l->out, &o);
}

/* Mode and generation from bulkstat; refine data-fork owners by file type. */
static void complete_inode_owner(struct map_fs *fs, struct map_owner *o)
{
	struct xfs_bulkstat bs;
	int rc = map_bulkstat_one(fs, o->ino, &bs);

	if (rc) {
		o->flags |= MAP_OWNER_F_NO_INODE;
		return;
	}
	o->gen = bs.bs_gen;
	o->mode = bs.bs_mode;
	if (o->kind == MAP_OWNER_FILE) {
		if (S_ISDIR(bs.bs_mode))
			o->kind = MAP_OWNER_DIR;
		else if (S_ISLNK(bs.bs_mode))
			o->kind = MAP_OWNER_SYMLINK;
		map_owner_set_scrubs(&fs->info.geo, o);
	}
}

/*
 * An unreadable inode chunk range: every allocated inode in the clusters it
 * touches is lost to the kernel, because inodes are read a cluster at a time.
 */
static int expand_inode_chunk(struct map_fs *fs, const struct map_owner *chunk,
			      struct map_owner_list *out)
{
	const struct map_geometry *geo = &fs->info.geo;
	size_t n = map_geo_inodes_in_range(geo, chunk->physical, chunk->length, NULL, 0);
	uint64_t *inos = calloc(n ? n : 1, sizeof(*inos));
	uint64_t chunk_start = UINT64_MAX, mask = 0;
	int rc = 0;

	if (!inos)
		return -ENOMEM;
	map_geo_inodes_in_range(geo, chunk->physical, chunk->length, inos, n);
	for (size_t i = 0; i < n && rc == 0; i++) {
		uint64_t ino = inos[i];

		if (chunk_start == UINT64_MAX || ino < chunk_start || ino >= chunk_start + 64) {
			if (map_inumbers_chunk(fs, ino, &chunk_start, &mask) != 0) {
				chunk_start = UINT64_MAX;
				continue;	/* no chunk record: nothing allocated here */
			}
		}
		if (!(mask & (1ULL << (ino - chunk_start))))
			continue;

		struct map_owner o;
		memset(&o, 0, sizeof(o));
		o.kind = MAP_OWNER_INODE;
		o.ino = ino;
		o.agno = chunk->agno;
		o.physical = map_geo_ino_to_byte(geo, ino);
		o.length = geo->inodesize;
		if (o.physical + o.length <= chunk->physical ||
		    o.physical >= chunk->physical + chunk->length)
			o.flags |= MAP_OWNER_F_CLUSTER;
		complete_inode_owner(fs, &o);
		o.kind = MAP_OWNER_INODE;
		map_owner_set_scrubs(geo, &o);
		rc = map_owner_list_push(out, &o);
	}
	free(inos);
	return rc;
}

int map_locate(struct map_fs *fs, uint64_t start, uint64_t length, struct map_owner_list *out)
{
	struct locate l = { fs, start, length, out };
	size_t first = out->n;
	int rc;

	if (length == 0)
		return 0;
	rc = map_fsmap_query(fs, start, start + length - 1, locate_rec, &l);
	if (rc)
		return rc;
	size_t end = out->n;
	for (size_t i = first; i < end && rc == 0; i++) {
		if (out->v[i].ino && out->v[i].kind != MAP_OWNER_INODE)
			complete_inode_owner(fs, &out->v[i]);
		else if (out->v[i].kind == MAP_OWNER_INODES) {
			struct map_owner chunk = out->v[i];

			rc = expand_inode_chunk(fs, &chunk, out);
		}
	}
	return rc;
}
