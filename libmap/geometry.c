// SPDX-License-Identifier: GPL-2.0-or-later
/* Inode numbers and device addresses from the filesystem geometry. */
#include "map_fs.h"

uint64_t map_geo_ino(const struct map_geometry *geo, uint32_t agno, uint32_t agino)
{
	return ((uint64_t)agno << (geo->agblklog + geo->inopblog)) | agino;
}

void map_geo_ino_split(const struct map_geometry *geo, uint64_t ino, uint32_t *agno,
		       uint32_t *agino)
{
	unsigned int bits = geo->agblklog + geo->inopblog;

	*agno = (uint32_t)(ino >> bits);
	*agino = (uint32_t)(ino & ((1ULL << bits) - 1));
}

uint64_t map_geo_ino_to_byte(const struct map_geometry *geo, uint64_t ino)
{
	uint32_t agno, agino;

	map_geo_ino_split(geo, ino, &agno, &agino);
	uint64_t agbno = agino >> geo->inopblog;
	uint64_t slot = agino & ((1u << geo->inopblog) - 1);
	return ((uint64_t)agno * geo->agblocks + agbno) * geo->blocksize + slot * geo->inodesize;
}

uint32_t map_geo_byte_to_agno(const struct map_geometry *geo, uint64_t byte)
{
	return (uint32_t)(byte / geo->blocksize / geo->agblocks);
}

size_t map_geo_inodes_in_range(const struct map_geometry *geo, uint64_t start, uint64_t length,
			       uint64_t *inos, size_t max)
{
	uint64_t cluster_blocks = geo->inode_cluster / geo->blocksize;
	uint64_t first, last;
	size_t total = 0;

	if (length == 0)
		return 0;
	if (cluster_blocks == 0)
		cluster_blocks = 1;
	first = start / geo->blocksize;
	last = (start + length - 1) / geo->blocksize;

	/* Walk AG by AG: cluster alignment is relative to the AG start. */
	for (uint64_t fsb = first; fsb <= last;) {
		uint32_t agno = (uint32_t)(fsb / geo->agblocks);
		uint64_t agstart = (uint64_t)agno * geo->agblocks;
		uint64_t a0 = fsb - agstart;
		uint64_t a1 = (last < agstart + geo->agblocks ? last : agstart + geo->agblocks - 1) - agstart;

		a0 -= a0 % cluster_blocks;
		a1 += cluster_blocks - 1 - a1 % cluster_blocks;
		if (a1 >= geo->agblocks)
			a1 = geo->agblocks - 1;
		for (uint64_t b = a0; b <= a1; b++) {
			for (uint32_t slot = 0; slot < (1u << geo->inopblog); slot++) {
				if (total < max)
					inos[total] = map_geo_ino(geo, agno,
								  (uint32_t)((b << geo->inopblog) | slot));
				total++;
			}
		}
		fsb = agstart + geo->agblocks;
	}
	return total;
}
