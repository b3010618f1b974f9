// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Findings: what the store records about one damaged object.  A media read,
 * a kernel event and a scrub check that concern the same object (an inode, a
 * directory, the inode btrees of an AG, a range of a file's data) are one
 * finding with several pieces of evidence; map_finding_object_key() says
 * which object a sighting is about.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map_internal.h"

void map_finding_init(struct map_finding *f)
{
	memset(f, 0, sizeof(*f));
	f->agno = -1;
}

void map_finding_clear(struct map_finding *f)
{
	for (size_t i = 0; i < f->npaths; i++)
		free(f->paths[i]);
	free(f->paths);
	f->paths = NULL;
	f->npaths = 0;
}

int map_finding_add_path(struct map_finding *f, const char *path)
{
	return map_strv_add(&f->paths, &f->npaths, path);
}

static void scrub_names(char *dst, size_t len, const uint32_t *types, uint32_t n)
{
	size_t used = 0;

	dst[0] = '\0';
	for (uint32_t i = 0; i < n; i++) {
		const struct map_scrub_type_info *t = map_scrub_type(types[i]);
		int w = snprintf(dst + used, len - used, "%s%s", used ? "," : "", t ? t->name : "?");

		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
	}
}

void map_finding_from_owner(struct map_finding *f, enum map_finding_source source,
			    const struct map_owner *o, const struct map_paths *p)
{
	map_finding_init(f);
	f->source = source;
	snprintf(f->kind, sizeof(f->kind), "%s", map_owner_kind_name(o->kind));
	f->has_range = true;
	f->physical = o->physical;
	f->length = o->length;
	f->ino = o->ino;
	f->gen = o->gen;
	f->mode = o->mode;
	if (p && p->ino == o->ino) {
		if (!f->gen)
			f->gen = p->gen;
		if (!f->mode)
			f->mode = p->mode;
		for (size_t i = 0; i < p->npaths; i++)
			map_finding_add_path(f, p->paths[i]);
	}
	switch (o->kind) {
	case MAP_OWNER_FILE:
	case MAP_OWNER_DIR:
	case MAP_OWNER_SYMLINK:
	case MAP_OWNER_XATTR:
		f->has_offset = true;
		f->offset = o->offset;
		/* fall through */
	case MAP_OWNER_BMBT:
		snprintf(f->fork, sizeof(f->fork), "%s",
			 (o->flags & MAP_OWNER_F_ATTR_FORK) ? "attr" : "data");
		break;
	default:
		break;
	}
	f->agno = o->agno;
	f->flags = o->flags;
	scrub_names(f->scrub, sizeof(f->scrub), o->scrub, o->nr_scrub);
}

/* The owner kind whose damage a scrub type reports. */
static const char *scrub_kind(uint32_t type)
{
	switch (type) {
	case XFS_SCRUB_TYPE_SB:
	case XFS_SCRUB_TYPE_AGF:
	case XFS_SCRUB_TYPE_AGFL:
	case XFS_SCRUB_TYPE_AGI:
		return map_owner_kind_name(MAP_OWNER_FS_HEADERS);
	case XFS_SCRUB_TYPE_BNOBT:
	case XFS_SCRUB_TYPE_CNTBT:
	case XFS_SCRUB_TYPE_RMAPBT:
		return map_owner_kind_name(MAP_OWNER_AG_BTREES);
	case XFS_SCRUB_TYPE_INOBT:
	case XFS_SCRUB_TYPE_FINOBT:
		return map_owner_kind_name(MAP_OWNER_INOBT);
	case XFS_SCRUB_TYPE_REFCNTBT:
		return map_owner_kind_name(MAP_OWNER_REFCOUNTBT);
	case XFS_SCRUB_TYPE_INODE:
		return map_owner_kind_name(MAP_OWNER_INODE);
	case XFS_SCRUB_TYPE_BMBTD:
	case XFS_SCRUB_TYPE_BMBTA:
	case XFS_SCRUB_TYPE_BMBTC:
		return map_owner_kind_name(MAP_OWNER_BMBT);
	case XFS_SCRUB_TYPE_DIR:
	case XFS_SCRUB_TYPE_DIRTREE:
		return map_owner_kind_name(MAP_OWNER_DIR);
	case XFS_SCRUB_TYPE_PARENT:
		/* An inode's parent pointers (or a directory's dotdot): not the
		 * directory's entries, and on a file not a directory at all. */
		return MAP_FINDING_KIND_PARENT;
	case XFS_SCRUB_TYPE_XATTR:
		return map_owner_kind_name(MAP_OWNER_XATTR);
	case XFS_SCRUB_TYPE_SYMLINK:
		return map_owner_kind_name(MAP_OWNER_SYMLINK);
	default:
		return MAP_FINDING_KIND_SUMMARY;
	}
}

void map_finding_from_scrub(struct map_finding *f, const struct map_scrub_result *r)
{
	const struct map_scrub_type_info *t = map_scrub_type(r->type);
	char flags[96];

	map_finding_init(f);
	f->source = MAP_SOURCE_SCRUB;
	snprintf(f->kind, sizeof(f->kind), "%s", scrub_kind(r->type));
	snprintf(f->scrub, sizeof(f->scrub), "%s", t ? t->name : "?");
	if (t && t->scope == MAP_SCOPE_AG)
		f->agno = r->agno;
	if (t && t->scope == MAP_SCOPE_INODE) {
		f->ino = r->ino;
		f->gen = r->gen;
	}
	if (r->error)
		snprintf(f->detail, sizeof(f->detail), "error: %s", map_strerror(r->error));
	else
		snprintf(f->detail, sizeof(f->detail), "%s",
			 map_scrub_oflags_str(r->oflags, flags, sizeof(flags)));
}

/* Kinds whose object is a whole inode's structure of that kind. */
static bool kind_is_per_inode(const char *kind)
{
	static const char *const kinds[] = {
		"inode", "extent-map", "directory", "xattr", "symlink", MAP_FINDING_KIND_PARENT,
	};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(kind, kinds[i]) == 0)
			return true;
	return false;
}

/* Kinds whose object is one structure of an allocation group. */
static bool kind_is_per_ag(const char *kind)
{
	static const char *const kinds[] = {
		"ag-headers", "space-btrees", "inode-btrees", "refcount-btree", "cow-staging",
	};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(kind, kinds[i]) == 0)
			return true;
	return false;
}

/*
 * The damaged object a finding is about, as the text that identifies it in
 * the store across sources and scans (sql/002_finding_objects.sql builds the
 * same strings when it merges a schema-1 database: keep the two in step).
 *
 *  - file data: the inode, fork, offset and device range, as before: two bad
 *    ranges of one file are two findings, each restored on its own;
 *  - inode core, extent maps (all forks of one inode: rebuilt after the
 *    inode and before its contents, so kept apart from both), directory
 *    (entries and tree place: dir, dirtree, bad directory blocks), xattrs,
 *    symlink target, parent pointers / dotdot: one object per inode;
 *  - AG headers (sb, agf, agfl, agi), space btrees, inode btrees (inobt and
 *    finobt), refcount btree, CoW staging: one object per AG;
 *  - the summary counters (fscounters, quotacheck, nlinks: each is recounted
 *    from the rest) are one object, other filesystem-wide types one each;
 *  - anything else (an inode chunk with no inode left, space of unknown
 *    owner): its AG and device range.
 * Not the source, the scrub type or the generation.
 */
void map_finding_object_key(const struct map_finding *f, char *key, size_t len)
{
	if (strcmp(f->kind, "file") == 0 && f->ino) {
		snprintf(key, len, "file|%lld|%s|%lld|%lld|%lld", (long long)f->ino, f->fork,
			 f->has_offset ? (long long)f->offset : -1LL,
			 f->has_range ? (long long)f->physical : -1LL,
			 f->has_range ? (long long)f->length : -1LL);
	} else if (kind_is_per_inode(f->kind) && f->ino) {
		snprintf(key, len, "%s|%lld", f->kind, (long long)f->ino);
	} else if (kind_is_per_ag(f->kind) && f->agno >= 0) {
		snprintf(key, len, "%s|%lld", f->kind, (long long)f->agno);
	} else if (strcmp(f->kind, "log") == 0) {
		snprintf(key, len, "log");
	} else if (strcmp(f->kind, MAP_FINDING_KIND_SUMMARY) == 0) {
		bool counters = !strcmp(f->scrub, "fscounters") || !strcmp(f->scrub, "quotacheck") ||
				!strcmp(f->scrub, "nlinks");

		snprintf(key, len, "summary|%s", counters ? "counters" : f->scrub);
	} else {
		snprintf(key, len, "%s|%lld|%lld|%lld", f->kind, (long long)f->agno,
			 f->has_range ? (long long)f->physical : -1LL,
			 f->has_range ? (long long)f->length : -1LL);
	}
}
