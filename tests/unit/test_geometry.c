// SPDX-License-Identifier: GPL-2.0-or-later
/* Inode numbers and their disk addresses from the geometry. */
#include "check.h"
#include "map.h"
#include "map_testing.h"
#include "xfs_abi.h"

/* 4 KiB blocks, 512-byte inodes, 16384 blocks per AG, aligned inode chunks. */
static void make_geometry(struct map_geometry *geo, bool ialign)
{
	struct xfs_fsop_geom g;

	memset(&g, 0, sizeof(g));
	g.blocksize = 4096;
	g.sectsize = 512;
	g.inodesize = 512;
	g.agblocks = 16384;
	g.agcount = 4;
	g.datablocks = 65536;
	g.flags = XFS_FSOP_GEOM_FLAGS_V5SB | XFS_FSOP_GEOM_FLAGS_FINOBT |
		  XFS_FSOP_GEOM_FLAGS_RMAPBT | XFS_FSOP_GEOM_FLAGS_REFLINK |
		  (ialign ? XFS_FSOP_GEOM_FLAGS_IALIGN : 0);
	map_geometry_from_xfs(geo, &g);
}

int main(void)
{
	struct map_geometry geo;
	uint32_t agno, agino;
	uint64_t inos[128];

	make_geometry(&geo, true);
	CHECK_INT(geo.agblklog, 14);
	CHECK_INT(geo.inopblog, 3);
	CHECK_INT(geo.inode_cluster, 16384);	/* 8 KiB scaled by 512/256 */
	CHECK(geo.rmapbt && geo.reflink && geo.finobt && geo.v5, "feature flags");
	CHECK(!geo.parent && !geo.exchange_range, "no parent pointers or exchange-range");

	/* AG 1, AG inode 100: (1 << (14 + 3)) | 100. */
	CHECK_INT(map_geo_ino(&geo, 1, 100), 131172);
	map_geo_ino_split(&geo, 131172, &agno, &agino);
	CHECK_INT(agno, 1);
	CHECK_INT(agino, 100);
	/* AG inode 100 = block 12, slot 4: ((16384 + 12) * 4096) + 4 * 512. */
	CHECK_INT(map_geo_ino_to_byte(&geo, 131172), 67160064);
	CHECK_INT(map_geo_byte_to_agno(&geo, 67160064), 1);
	CHECK_INT(map_geo_byte_to_agno(&geo, 16384ULL * 4096 - 1), 0);

	/* One bad block (AG 1 block 13): the whole 4-block cluster 12..15,
	 * AG inodes 96..127, is unreadable. */
	uint64_t bad = (16384ULL + 13) * 4096;
	size_t n = map_geo_inodes_in_range(&geo, bad, 4096, inos, 128);
	REQUIRE(n == 32, "%zu inodes", n);
	CHECK_INT(inos[0], 131072 + 96);
	CHECK_INT(inos[31], 131072 + 127);

	/* One 512-byte sector is enough to lose the cluster. */
	CHECK_INT(map_geo_inodes_in_range(&geo, bad + 1024, 512, inos, 128), 32);

	/* Two blocks straddling clusters 12..15 and 16..19: 64 inodes. */
	n = map_geo_inodes_in_range(&geo, (16384ULL + 15) * 4096, 8192, inos, 128);
	REQUIRE(n == 64, "%zu inodes", n);
	CHECK_INT(inos[0], 131072 + 96);
	CHECK_INT(inos[63], 131072 + 159);

	/* The count is exact even when the buffer is too small. */
	CHECK_INT(map_geo_inodes_in_range(&geo, bad, 4096, inos, 4), 32);
	CHECK_INT(map_geo_inodes_in_range(&geo, bad, 0, inos, 4), 0);

	/* Without aligned chunks the kernel reads 8 KiB clusters: 2 blocks. */
	make_geometry(&geo, false);
	CHECK_INT(geo.inode_cluster, 8192);
	n = map_geo_inodes_in_range(&geo, bad, 4096, inos, 128);
	REQUIRE(n == 16, "%zu inodes", n);
	CHECK_INT(inos[0], 131072 + 96);	/* blocks 12..13 */
	return check_done();
}
