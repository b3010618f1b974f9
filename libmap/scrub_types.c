// SPDX-License-Identifier: GPL-2.0-or-later
/* Names, scopes and descriptions of the kernel's scrub types (6.12 numbering). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "map.h"
#include "xfs_abi.h"

static const struct map_scrub_type_info scrub_types[MAP_SCRUB_TYPE_NR] = {
	{ XFS_SCRUB_TYPE_PROBE, "probe", MAP_SCOPE_NONE, "scrub capability probe" },
	{ XFS_SCRUB_TYPE_SB, "sb", MAP_SCOPE_AG, "superblock" },
	{ XFS_SCRUB_TYPE_AGF, "agf", MAP_SCOPE_AG, "free space header" },
	{ XFS_SCRUB_TYPE_AGFL, "agfl", MAP_SCOPE_AG, "free list" },
	{ XFS_SCRUB_TYPE_AGI, "agi", MAP_SCOPE_AG, "inode header" },
	{ XFS_SCRUB_TYPE_BNOBT, "bnobt", MAP_SCOPE_AG, "free space by block btree" },
	{ XFS_SCRUB_TYPE_CNTBT, "cntbt", MAP_SCOPE_AG, "free space by length btree" },
	{ XFS_SCRUB_TYPE_INOBT, "inobt", MAP_SCOPE_AG, "inode btree" },
	{ XFS_SCRUB_TYPE_FINOBT, "finobt", MAP_SCOPE_AG, "free inode btree" },
	{ XFS_SCRUB_TYPE_RMAPBT, "rmapbt", MAP_SCOPE_AG, "reverse mapping btree" },
	{ XFS_SCRUB_TYPE_REFCNTBT, "refcountbt", MAP_SCOPE_AG, "reference count btree" },
	{ XFS_SCRUB_TYPE_INODE, "inode", MAP_SCOPE_INODE, "inode record" },
	{ XFS_SCRUB_TYPE_BMBTD, "bmapbtd", MAP_SCOPE_INODE, "data fork mappings" },
	{ XFS_SCRUB_TYPE_BMBTA, "bmapbta", MAP_SCOPE_INODE, "attribute fork mappings" },
	{ XFS_SCRUB_TYPE_BMBTC, "bmapbtc", MAP_SCOPE_INODE, "copy-on-write fork mappings" },
	{ XFS_SCRUB_TYPE_DIR, "directory", MAP_SCOPE_INODE, "directory entries" },
	{ XFS_SCRUB_TYPE_XATTR, "xattr", MAP_SCOPE_INODE, "extended attributes" },
	{ XFS_SCRUB_TYPE_SYMLINK, "symlink", MAP_SCOPE_INODE, "symbolic link target" },
	{ XFS_SCRUB_TYPE_PARENT, "parent", MAP_SCOPE_INODE, "parent pointers" },
	{ XFS_SCRUB_TYPE_RTBITMAP, "rtbitmap", MAP_SCOPE_FS, "realtime bitmap" },
	{ XFS_SCRUB_TYPE_RTSUM, "rtsummary", MAP_SCOPE_FS, "realtime summary" },
	{ XFS_SCRUB_TYPE_UQUOTA, "usrquota", MAP_SCOPE_FS, "user quotas" },
	{ XFS_SCRUB_TYPE_GQUOTA, "grpquota", MAP_SCOPE_FS, "group quotas" },
	{ XFS_SCRUB_TYPE_PQUOTA, "prjquota", MAP_SCOPE_FS, "project quotas" },
	{ XFS_SCRUB_TYPE_FSCOUNTERS, "fscounters", MAP_SCOPE_FS, "summary counters" },
	{ XFS_SCRUB_TYPE_QUOTACHECK, "quotacheck", MAP_SCOPE_FS, "quota usage counters" },
	{ XFS_SCRUB_TYPE_NLINKS, "nlinks", MAP_SCOPE_FS, "inode link counts" },
	{ XFS_SCRUB_TYPE_HEALTHY, "healthy", MAP_SCOPE_FS, "overall health" },
	{ XFS_SCRUB_TYPE_DIRTREE, "dirtree", MAP_SCOPE_INODE, "directory tree structure" },
};

const struct map_scrub_type_info *map_scrub_type(uint32_t type)
{
	if (type >= MAP_SCRUB_TYPE_NR)
		return NULL;
	return &scrub_types[type];
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
