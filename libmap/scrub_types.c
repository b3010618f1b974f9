// SPDX-License-Identifier: GPL-2.0-or-later
/* Names, scopes and descriptions of the kernel's scrub types (6.12 numbering). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "map.h"
#include "xfs_abi.h"

#define AG MAP_SCOPE_AG
#define FS MAP_SCOPE_FS
#define INO MAP_SCOPE_INODE
#define T(t, n, sc, ph, rk, fl, w) \
	[XFS_SCRUB_TYPE_##t] = { .type = XFS_SCRUB_TYPE_##t, .name = n, .scope = sc, \
				 .phase = MAP_PHASE_##ph, .rank = rk, .flags = fl, .what = w }

/*
 * Every scrub type, with the phase and rank that order both a scan and a
 * repair.  The ranks inside a phase:
 * - AG types in type order: headers, free space, inode btrees, then the
 *   btrees that index the others (cross-references mean something);
 * - contents: a directory is rebuilt before any xattr fork: with parent
 *   pointers the directory comes from the parent pointers of every file,
 *   and the kernel keeps the old entries of a file whose attr fork it cannot
 *   read, while an xattr salvage that runs first drops the parent pointers
 *   of the unreadable leaf for good (or the whole fork, which makes the
 *   directory rebuild refuse);
 * - links: parent pointers before the directory tree is checked, and both
 *   before link counts;
 * - summary: HEALTHY, the highest number there, last of all (it
 *   summarises the others).
 */
static const struct map_scrub_type_info scrub_types[MAP_SCRUB_TYPE_NR] = {
	[XFS_SCRUB_TYPE_PROBE] = { .type = XFS_SCRUB_TYPE_PROBE, .name = "probe",
				   .scope = MAP_SCOPE_NONE, .phase = MAP_PHASE_SUMMARY,
				   .what = "scrub capability probe" },
	T(SB, "sb", AG, AG_HEADERS, 0, 0, "superblock"),
	T(AGF, "agf", AG, AG_HEADERS, 0, 0, "free space header"),
	T(AGFL, "agfl", AG, AG_HEADERS, 0, 0, "free list"),
	T(AGI, "agi", AG, AG_HEADERS, 0, 0, "inode header"),
	T(BNOBT, "bnobt", AG, AG_BTREES, 0, 0, "free space by block btree"),
	T(CNTBT, "cntbt", AG, AG_BTREES, 0, 0, "free space by length btree"),
	T(INOBT, "inobt", AG, AG_BTREES, 0, 0, "inode btree"),
	T(FINOBT, "finobt", AG, AG_BTREES, 0, 0, "free inode btree"),
	T(RMAPBT, "rmapbt", AG, AG_BTREES, 0, 0, "reverse mapping btree"),
	T(REFCNTBT, "refcountbt", AG, AG_BTREES, 0, 0, "reference count btree"),
	T(INODE, "inode", INO, INODES, 0, 0, "inode record"),
	T(BMBTD, "bmapbtd", INO, EXTENT_MAPS, 0, 0, "data fork mappings"),
	T(BMBTA, "bmapbta", INO, EXTENT_MAPS, 0, 0, "attribute fork mappings"),
	T(BMBTC, "bmapbtc", INO, EXTENT_MAPS, 0, 0, "copy-on-write fork mappings"),
	T(DIR, "directory", INO, CONTENTS, 0, 0, "directory entries"),
	T(XATTR, "xattr", INO, CONTENTS, 1, 0, "extended attributes"),
	T(SYMLINK, "symlink", INO, CONTENTS, 1, 0, "symbolic link target"),
	T(PARENT, "parent", INO, LINKS, 0, 0, "parent pointers"),
	T(RTBITMAP, "rtbitmap", FS, SUMMARY, 0, 0, "realtime bitmap"),
	T(RTSUM, "rtsummary", FS, SUMMARY, 0, 0, "realtime summary"),
	T(UQUOTA, "usrquota", FS, SUMMARY, 0, 0, "user quotas"),
	T(GQUOTA, "grpquota", FS, SUMMARY, 0, 0, "group quotas"),
	T(PQUOTA, "prjquota", FS, SUMMARY, 0, 0, "project quotas"),
	T(FSCOUNTERS, "fscounters", FS, SUMMARY, 0, 0, "summary counters"),
	T(QUOTACHECK, "quotacheck", FS, SUMMARY, 0, MAP_SCRUB_F_WALKS_INODES,
	  "quota usage counters"),
	T(NLINKS, "nlinks", FS, LINKS, 2, MAP_SCRUB_F_WALKS_INODES, "inode link counts"),
	T(HEALTHY, "healthy", FS, SUMMARY, 0, 0, "overall health"),
	T(DIRTREE, "dirtree", INO, LINKS, 1, 0, "directory tree structure"),
};

#undef T
#undef AG
#undef FS
#undef INO

static const char *const phase_names[MAP_PHASE_NR] = {
	[MAP_PHASE_AG_HEADERS] = "AG headers",
	[MAP_PHASE_AG_BTREES] = "AG btrees",
	[MAP_PHASE_INODES] = "inodes",
	[MAP_PHASE_EXTENT_MAPS] = "extent maps",
	[MAP_PHASE_CONTENTS] = "contents",
	[MAP_PHASE_LINKS] = "links",
	[MAP_PHASE_SUMMARY] = "summary",
};

const char *map_scrub_phase_name(enum map_scrub_phase p)
{
	return (unsigned int)p < MAP_PHASE_NR ? phase_names[p] : "?";
}

const struct map_scrub_type_info *map_scrub_type(uint32_t type)
{
	if (type >= MAP_SCRUB_TYPE_NR)
		return NULL;
	return &scrub_types[type];
}

int map_scrub_type_cmp(uint32_t a, uint32_t b)
{
	const struct map_scrub_type_info *x = map_scrub_type(a), *y = map_scrub_type(b);

	if (x && y && x->phase != y->phase)
		return x->phase < y->phase ? -1 : 1;
	if (x && y && x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return a < b ? -1 : a > b;
}

size_t map_scrub_types_in_order(enum map_scrub_scope scope, unsigned int flags,
				unsigned int without, uint32_t *types, size_t max)
{
	uint32_t v[MAP_SCRUB_TYPE_NR];
	size_t n = 0;

	/* An insertion sort by (phase, rank, type): the table is short. */
	for (uint32_t t = 0; t < MAP_SCRUB_TYPE_NR; t++) {
		const struct map_scrub_type_info *info = &scrub_types[t];
		size_t at = n;

		if (info->scope != scope || (info->flags & flags) != flags ||
		    (info->flags & without))
			continue;
		while (at > 0 && map_scrub_type_cmp(v[at - 1], t) > 0) {
			v[at] = v[at - 1];
			at--;
		}
		v[at] = t;
		n++;
	}
	memcpy(types, v, (n < max ? n : max) * sizeof(*types));
	return n;
}

int map_scrub_type_by_name(const char *name)
{
	for (uint32_t i = 0; i < MAP_SCRUB_TYPE_NR; i++)
		if (strcmp(scrub_types[i].name, name) == 0)
			return (int)i;
	return -ENOENT;
}

uint32_t map_scrub_type_count(void)
{
	return MAP_SCRUB_TYPE_NR;
}

bool map_scrub_oflags_corrupt(uint32_t oflags)
{
	return oflags & (XFS_SCRUB_OFLAG_CORRUPT | XFS_SCRUB_OFLAG_XCORRUPT);
}

const char *map_scrub_oflags_str(uint32_t oflags, char *buf, size_t len)
{
	static const struct { uint32_t bit; const char *name; } names[] = {
		{ XFS_SCRUB_OFLAG_CORRUPT, "corrupt" },
		{ XFS_SCRUB_OFLAG_PREEN, "preen" },
		{ XFS_SCRUB_OFLAG_XFAIL, "xfail" },
		{ XFS_SCRUB_OFLAG_XCORRUPT, "xcorrupt" },
		{ XFS_SCRUB_OFLAG_INCOMPLETE, "incomplete" },
		{ XFS_SCRUB_OFLAG_WARNING, "warning" },
		{ XFS_SCRUB_OFLAG_NO_REPAIR_NEEDED, "no-repair-needed" },
	};
	size_t used = 0;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(oflags & names[i].bit))
			continue;
		int n = snprintf(buf + used, len - used, "%s%s", used ? "," : "", names[i].name);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
	}
	if (used == 0)
		snprintf(buf, len, "clean");
	return buf;
}
