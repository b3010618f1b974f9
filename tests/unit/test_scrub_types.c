// SPDX-License-Identifier: GPL-2.0-or-later
/* The scrub type table must match the kernel's numbering and scope rules. */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "map.h"
#include "xfs_abi.h"

int main(void)
{
	CHECK_INT(map_scrub_type_count(), 29);
	for (uint32_t t = 0; t < map_scrub_type_count(); t++) {
		const struct map_scrub_type_info *info = map_scrub_type(t);

		REQUIRE(info != NULL, "type %u has no entry", t);
		CHECK(info->type == t, "entry %u holds type %u", t, info->type);
		CHECK(info->name && *info->name, "type %u has no name", t);
		CHECK_INT(map_scrub_type_by_name(info->name), t);
	}
	CHECK(map_scrub_type(29) == NULL, "type 29 is past the end");

	/* Spot checks against the 6.12 ABI numbers and scopes. */
	CHECK_INT(map_scrub_type_by_name("bnobt"), 5);
	CHECK_INT(map_scrub_type_by_name("refcountbt"), 10);
	CHECK_INT(map_scrub_type_by_name("fscounters"), 24);
	CHECK_INT(map_scrub_type_by_name("healthy"), 27);
	CHECK_INT(map_scrub_type_by_name("dirtree"), 28);
	CHECK_INT(map_scrub_type_by_name("nonsense"), -ENOENT);
	CHECK_INT(map_scrub_type(XFS_SCRUB_TYPE_AGI)->scope, MAP_SCOPE_AG);
	CHECK_INT(map_scrub_type(XFS_SCRUB_TYPE_BMBTD)->scope, MAP_SCOPE_INODE);
	CHECK_INT(map_scrub_type(XFS_SCRUB_TYPE_DIRTREE)->scope, MAP_SCOPE_INODE);
	CHECK_INT(map_scrub_type(XFS_SCRUB_TYPE_NLINKS)->scope, MAP_SCOPE_FS);
	CHECK_INT(map_scrub_type(XFS_SCRUB_TYPE_PROBE)->scope, MAP_SCOPE_NONE);

	/* The phase column orders a scan's stages and a repair's steps. */
	uint32_t v[32];
	static const uint32_t ag[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	CHECK_INT(map_scrub_types_in_order(MAP_SCOPE_AG, 0, 0, v, 32), 10);
	CHECK(!memcmp(v, ag, sizeof(ag)), "AG types out of order");
	static const uint32_t walks[] = { XFS_SCRUB_TYPE_NLINKS, XFS_SCRUB_TYPE_QUOTACHECK };
	CHECK_INT(map_scrub_types_in_order(MAP_SCOPE_FS, MAP_SCRUB_F_WALKS_INODES, 0, v, 32), 2);
	CHECK(!memcmp(v, walks, sizeof(walks)), "walk types out of order");
	CHECK_INT(map_scrub_types_in_order(MAP_SCOPE_FS, 0, MAP_SCRUB_F_WALKS_INODES, v, 32), 7);
	CHECK_INT(v[0], XFS_SCRUB_TYPE_RTBITMAP);
	CHECK_INT(v[6], XFS_SCRUB_TYPE_HEALTHY);
	static const uint32_t ino[] = {
		XFS_SCRUB_TYPE_INODE, XFS_SCRUB_TYPE_BMBTD, XFS_SCRUB_TYPE_BMBTA,
		XFS_SCRUB_TYPE_BMBTC, XFS_SCRUB_TYPE_DIR, XFS_SCRUB_TYPE_XATTR,
		XFS_SCRUB_TYPE_SYMLINK, XFS_SCRUB_TYPE_PARENT, XFS_SCRUB_TYPE_DIRTREE,
	};
	CHECK_INT(map_scrub_types_in_order(MAP_SCOPE_INODE, 0, 0, v, 32), 9);
	CHECK(!memcmp(v, ino, sizeof(ino)), "inode types out of order");
	/* Bounded: the count is the whole list's, the copy stops at max. */
	v[3] = 999;
	CHECK_INT(map_scrub_types_in_order(MAP_SCOPE_INODE, 0, 0, v, 3), 9);
	CHECK_INT(v[3], 999);
	/* Repair: directory before xattr, parent before dirtree before nlinks. */
	CHECK(map_scrub_type_cmp(XFS_SCRUB_TYPE_DIR, XFS_SCRUB_TYPE_XATTR) < 0, "dir, xattr");
	CHECK(map_scrub_type_cmp(XFS_SCRUB_TYPE_DIRTREE, XFS_SCRUB_TYPE_NLINKS) < 0,
	      "dirtree, nlinks");
	CHECK(map_scrub_type_cmp(XFS_SCRUB_TYPE_PARENT, XFS_SCRUB_TYPE_DIRTREE) < 0,
	      "parent, dirtree");
	CHECK(map_scrub_type_cmp(XFS_SCRUB_TYPE_AGI, XFS_SCRUB_TYPE_BNOBT) < 0, "agi, bnobt");
	CHECK_STR(map_scrub_phase_name(map_scrub_type(XFS_SCRUB_TYPE_NLINKS)->phase), "links");
	CHECK_STR(map_scrub_phase_name(MAP_PHASE_NR), "?");

	char buf[128];
	CHECK_STR(map_scrub_oflags_str(0, buf, sizeof(buf)), "clean");
	CHECK_STR(map_scrub_oflags_str(XFS_SCRUB_OFLAG_CORRUPT | XFS_SCRUB_OFLAG_XFAIL, buf,
				       sizeof(buf)), "corrupt,xfail");
	CHECK_STR(map_scrub_oflags_str(XFS_SCRUB_OFLAG_NO_REPAIR_NEEDED, buf, sizeof(buf)),
		  "no-repair-needed");

	CHECK_STR(map_strerror(-MAP_ENOTXFS), "not on an XFS filesystem");
	CHECK_STR(map_strerror(-ENOENT), "No such file or directory");
	return check_done();
}
