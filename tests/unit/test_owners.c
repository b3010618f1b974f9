// SPDX-License-Identifier: GPL-2.0-or-later
/* Decoding GETFSMAP records into owners of a bad range. */
#include "check.h"
#include "map.h"
#include "map_testing.h"
#include "xfs_abi.h"

#define KiB 1024ULL
#define MiB (1024ULL * 1024)

static struct map_geometry geo;

static struct fsmap rec(uint64_t phys, uint64_t len, uint64_t owner, uint64_t off, uint32_t flags)
{
	struct fsmap r;

	memset(&r, 0, sizeof(r));
	r.fmr_physical = phys;
	r.fmr_length = len;
	r.fmr_owner = owner;
	r.fmr_offset = off;
	r.fmr_flags = flags;
	return r;
}

int main(void)
{
	struct xfs_fsop_geom g;
	struct map_owner o;
	struct fsmap r;

	memset(&g, 0, sizeof(g));
	g.blocksize = 4096;
	g.sectsize = 512;
	g.inodesize = 512;
	g.agblocks = 16384;
	g.agcount = 4;
	g.flags = XFS_FSOP_GEOM_FLAGS_V5SB | XFS_FSOP_GEOM_FLAGS_FINOBT |
		  XFS_FSOP_GEOM_FLAGS_RMAPBT | XFS_FSOP_GEOM_FLAGS_REFLINK |
		  XFS_FSOP_GEOM_FLAGS_IALIGN;
	map_geometry_from_xfs(&geo, &g);

	/* Data: a 256 KiB extent of inode 133 at file offset 64 KiB; one bad
	 * block 8 KiB into it is file offset 72 KiB. */
	r = rec(1 * MiB, 256 * KiB, 133, 64 * KiB, 0);
	REQUIRE(map_owner_from_fsmap(&geo, &r, 1 * MiB + 8 * KiB, 4 * KiB, &o) == 1, "overlap");
	CHECK_INT(o.kind, MAP_OWNER_FILE);
	CHECK_INT(o.ino, 133);
	CHECK_INT(o.physical, 1 * MiB + 8 * KiB);
	CHECK_INT(o.length, 4 * KiB);
	CHECK_INT(o.offset, 72 * KiB);
	CHECK_INT(o.flags, 0);
	CHECK_INT(o.nr_scrub, 0);	/* lost data is not repairable */
	CHECK_INT(o.agno, 0);

	/* A bad range that starts before the record is clipped to it. */
	REQUIRE(map_owner_from_fsmap(&geo, &r, 1 * MiB - 4 * KiB, 8 * KiB, &o) == 1, "overlap");
	CHECK_INT(o.physical, 1 * MiB);
	CHECK_INT(o.length, 4 * KiB);
	CHECK_INT(o.offset, 64 * KiB);
	/* ... and one that ends after it. */
	REQUIRE(map_owner_from_fsmap(&geo, &r, 1 * MiB + 252 * KiB, 64 * KiB, &o) == 1, "overlap");
	CHECK_INT(o.length, 4 * KiB);
	CHECK_INT(o.offset, 316 * KiB);
	/* No overlap at all. */
	CHECK_INT(map_owner_from_fsmap(&geo, &r, 2 * MiB, 4 * KiB, &o), 0);
	CHECK_INT(map_owner_from_fsmap(&geo, &r, 1 * MiB - 4 * KiB, 4 * KiB, &o), 0);

	/* Shared (reflinked) and unwritten extents keep their flags. */
	r = rec(1 * MiB, 256 * KiB, 134, 0, FMR_OF_SHARED);
	map_owner_from_fsmap(&geo, &r, 1 * MiB, 4 * KiB, &o);
	CHECK_INT(o.flags, MAP_OWNER_F_SHARED);
	r = rec(1 * MiB, 256 * KiB, 134, 0, FMR_OF_PREALLOC);
	map_owner_from_fsmap(&geo, &r, 1 * MiB, 4 * KiB, &o);
	CHECK_INT(o.flags, MAP_OWNER_F_UNWRITTEN);

	/* Attribute fork data block; extent map blocks of both forks. */
	r = rec(3 * MiB, 4 * KiB, 140, 8 * KiB, FMR_OF_ATTR_FORK);
	map_owner_from_fsmap(&geo, &r, 3 * MiB, 4 * KiB, &o);
	CHECK_INT(o.kind, MAP_OWNER_XATTR);
	CHECK_INT(o.offset, 8 * KiB);
	REQUIRE(o.nr_scrub == 1, "xattr scrubs");
	CHECK_INT(o.scrub[0], XFS_SCRUB_TYPE_XATTR);
	r = rec(3 * MiB, 4 * KiB, 140, 0, FMR_OF_EXTENT_MAP);
	map_owner_from_fsmap(&geo, &r, 3 * MiB, 4 * KiB, &o);
	CHECK_INT(o.kind, MAP_OWNER_BMBT);
	CHECK_INT(o.scrub[0], XFS_SCRUB_TYPE_BMBTD);
	r = rec(3 * MiB, 4 * KiB, 140, 0, FMR_OF_EXTENT_MAP | FMR_OF_ATTR_FORK);
	map_owner_from_fsmap(&geo, &r, 3 * MiB, 4 * KiB, &o);
	CHECK_INT(o.kind, MAP_OWNER_BMBT);
	CHECK_INT(o.flags, MAP_OWNER_F_ATTR_FORK);
	CHECK_INT(o.scrub[0], XFS_SCRUB_TYPE_BMBTA);

	/* Special owners, in AG 2 (which starts at byte 2 * 16384 * 4096). */
	uint64_t ag2 = 2ULL * 16384 * 4096;
	r = rec(ag2 + 64 * KiB, 4 * KiB, XFS_FMR_OWN_INOBT, 0, FMR_OF_SPECIAL_OWNER);
	map_owner_from_fsmap(&geo, &r, ag2 + 64 * KiB, 4 * KiB, &o);
	CHECK_INT(o.kind, MAP_OWNER_INOBT);
	CHECK_INT(o.agno, 2);
	CHECK_INT(o.ino, 0);
	REQUIRE(o.nr_scrub == 2, "inobt scrubs: %u", o.nr_scrub);
	CHECK_INT(o.scrub[0], XFS_SCRUB_TYPE_INOBT);
	CHECK_INT(o.scrub[1], XFS_SCRUB_TYPE_FINOBT);

	/* AG headers: the superblock sector alone, then the whole first block. */
	r = rec(ag2, 4 * KiB, XFS_FMR_OWN_FS, 0, FMR_OF_SPECIAL_OWNER);
	map_owner_from_fsmap(&geo, &r, ag2, 512, &o);
	CHECK_INT(o.kind, MAP_OWNER_FS_HEADERS);
	REQUIRE(o.nr_scrub == 1, "sb only: %u", o.nr_scrub);
	CHECK_INT(o.scrub[0], XFS_SCRUB_TYPE_SB);
	map_owner_from_fsmap(&geo, &r, ag2 + 1024, 512, &o);
	REQUIRE(o.nr_scrub == 1, "agfl only: %u", o.nr_scrub);
	CHECK_INT(o.scrub[0], XFS_SCRUB_TYPE_AGFL);
	map_owner_from_fsmap(&geo, &r, ag2, 4 * KiB, &o);
	REQUIRE(o.nr_scrub == 4, "all headers: %u", o.nr_scrub);
	CHECK_INT(o.scrub[3], XFS_SCRUB_TYPE_AGI);

	static const struct {
		uint64_t owner;
		enum map_owner_kind kind;
		uint32_t first_scrub;
	} specials[] = {
		{ XFS_FMR_OWN_LOG, MAP_OWNER_LOG, 0 },
		{ XFS_FMR_OWN_AG, MAP_OWNER_AG_BTREES, XFS_SCRUB_TYPE_BNOBT },
		{ XFS_FMR_OWN_INODES, MAP_OWNER_INODES, XFS_SCRUB_TYPE_INOBT },
		{ XFS_FMR_OWN_REFC, MAP_OWNER_REFCOUNTBT, XFS_SCRUB_TYPE_REFCNTBT },
		{ XFS_FMR_OWN_COW, MAP_OWNER_COW, XFS_SCRUB_TYPE_REFCNTBT },
		{ FMR_OWN_FREE, MAP_OWNER_FREE, 0 },
		{ FMR_OWN_UNKNOWN, MAP_OWNER_UNKNOWN, 0 },
	};
	for (size_t i = 0; i < sizeof(specials) / sizeof(specials[0]); i++) {
		r = rec(ag2 + MiB, MiB, specials[i].owner, 0, FMR_OF_SPECIAL_OWNER);
		REQUIRE(map_owner_from_fsmap(&geo, &r, ag2 + MiB, 4 * KiB, &o) == 1, "overlap");
		CHECK_INT(o.kind, specials[i].kind);
		CHECK_INT(o.nr_scrub ? o.scrub[0] : 0, specials[i].first_scrub);
		CHECK_INT(map_owner_kind_from_name(map_owner_kind_name(o.kind)), o.kind);
	}
	CHECK(map_owner_kind_is_metadata(MAP_OWNER_INOBT), "inobt is metadata");
	CHECK(!map_owner_kind_is_metadata(MAP_OWNER_FILE), "file data is not metadata");
	CHECK(map_owner_kind_is_metadata(MAP_OWNER_DIR), "directories are metadata");
	return check_done();
}
