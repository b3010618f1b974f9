// SPDX-License-Identifier: GPL-2.0-or-later
/* The scrub type table must match the kernel's numbering and scope rules. */
#include <errno.h>

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
