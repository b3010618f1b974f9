/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An opened, mounted XFS filesystem: discover, its geometry, what the kernel
 * already marked sick. */
#ifndef MAP_FS_H
#define MAP_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- discover: an opened, mounted XFS filesystem -------------------------- */

struct map_fs;

/* Geometry from XFS_IOC_FSGEOMETRY, plus values derived from it. */
struct map_geometry {
	uint32_t blocksize;		/* bytes */
	uint32_t sectsize;
	uint32_t inodesize;
	uint32_t dirblocksize;
	uint32_t agcount;
	uint32_t agblocks;		/* blocks per AG (the last AG may be shorter) */
	uint64_t datablocks;		/* blocks in the data device */
	uint64_t logstart;		/* first block of an internal log, 0 if external */
	uint32_t logblocks;
	uint32_t flags;			/* XFS_FSOP_GEOM_FLAGS_* */
	uint32_t sick, checked;		/* fs-wide health bits at open time */
	/* derived */
	uint32_t agblklog;		/* bits of an AG block number in an inode number */
	uint32_t inopblog;		/* log2(inodes per block) */
	uint32_t inode_cluster;		/* bytes the kernel reads an inode cluster in */
	bool v5, finobt, rmapbt, reflink, sparse_inodes, parent, exchange_range;
};

struct map_fs_info {
	char mountpoint[4096];		/* where it is mounted */
	char device[4096];		/* data device node */
	char uuid[40];			/* filesystem UUID (libblkid; geometry as fallback) */
	char label[256];
	char model[128];		/* device identity from libudev / sysfs, "" if unknown */
	char serial[128];
	char wwn[128];
	uint64_t dev;			/* st_dev of the filesystem (the data device) */
	uint64_t root_ino;		/* inode number of the mount root */
	uint32_t fsmap_dev;		/* the same device as GETFSMAP encodes it */
	bool read_only;			/* mounted read-only */
	struct map_geometry geo;
};

/*
 * Open the XFS filesystem that holds @path (any file or folder on it).
 * Fails -MAP_ENOTXFS for other filesystems, -ENOENT for a missing path.
 */
int map_fs_open(const char *path, struct map_fs **fsp);
/*
 * Open again the filesystem @known describes (from map_fs_info of an earlier
 * open), without probing its device again: a few system calls instead of
 * map_fs_open's mount table, libblkid and libudev look-ups.  Its mount point
 * must still show the same filesystem (device, mount root and UUID), else
 * -MAP_EUNMOUNTED (then map_fs_open finds what is there now).  The geometry,
 * health bits and read-only state are read afresh.
 */
int map_fs_reopen(const struct map_fs_info *known, struct map_fs **fsp);
void map_fs_close(struct map_fs *fs);
const struct map_fs_info *map_fs_info(const struct map_fs *fs);
/* An O_RDONLY descriptor of the mount root, owned by @fs (for ioctls). */
int map_fs_fd(const struct map_fs *fs);
/* 0 while the filesystem is still mounted where it was opened, else
 * -MAP_EUNMOUNTED. */
int map_fs_check_mounted(const struct map_fs *fs);
/* Open inode @ino (generation @gen) of @fs by handle, O_RDONLY | @flags;
 * a descriptor or a negative errno (-ESTALE: that inode is gone or reused). */
int map_open_inode(struct map_fs *fs, uint64_t ino, uint32_t gen, int flags);
/* The generation inode @ino has now (bulkstat): 0, -ENOENT when it is not
 * allocated, or another negative errno (-EIO: its cluster cannot be read). */
int map_inode_generation(struct map_fs *fs, uint64_t ino, uint32_t *gen);

/* ---- health: what the kernel already marked sick, since mount (health.c) -- */

struct map_fs_health {
	uint32_t fs_sick;		/* XFS_FSOP_GEOM_SICK_* */
	uint32_t sick_ags;		/* AGs with any XFS_AG_GEOM_SICK_* bit */
	uint32_t ag_sick_union;		/* those bits, of all AGs */
};

struct map_inode_health {
	uint64_t ino;
	uint32_t gen;
	uint32_t mode;
	uint16_t sick;			/* XFS_BS_SICK_* */
	bool has_attr;			/* an attribute fork */
};

/* The filesystem's and every AG's sick bits (one ioctl per AG). */
int map_fs_health(struct map_fs *fs, struct map_fs_health *h);
/* The autofsck property (none, check, optimize, repair) into @buf: 0,
 * -ENODATA when the filesystem has none, -EINVAL when it is not one short
 * word, or another -errno. */
int map_fs_autofsck(const struct map_fs *fs, char *buf, size_t len);
/* One inode's: 0, -ENOENT if it is not allocated, or another -errno. */
int map_inode_health(struct map_fs *fs, uint64_t ino, struct map_inode_health *out);
/* Every allocated inode bulkstat calls sick, @fn for each (nonzero stops
 * the walk and is returned).  0 or -errno. */
int map_sick_inodes(struct map_fs *fs, int (*fn)(const struct map_inode_health *h, void *arg),
		    void *arg);

/* ---- geometry arithmetic (pure) -------------------------------------------- */

/* Inode number of AG-relative inode @agino in AG @agno. */
uint64_t map_geo_ino(const struct map_geometry *geo, uint32_t agno, uint32_t agino);
/* AG number and AG-relative inode number of @ino. */
void map_geo_ino_split(const struct map_geometry *geo, uint64_t ino, uint32_t *agno,
		       uint32_t *agino);
/* Byte address on the data device of inode @ino's core. */
uint64_t map_geo_ino_to_byte(const struct map_geometry *geo, uint64_t ino);
/* AG holding device byte @byte. */
uint32_t map_geo_byte_to_agno(const struct map_geometry *geo, uint64_t byte);
/*
 * Inode numbers whose cores the kernel can no longer read when bytes
 * [start, start+length) of the device are bad: every inode in an inode
 * cluster that overlaps the range.  Writes at most @max numbers into @inos and
 * returns how many there are in total (which may exceed @max).
 */
size_t map_geo_inodes_in_range(const struct map_geometry *geo, uint64_t start, uint64_t length,
			       uint64_t *inos, size_t max);

#ifdef __cplusplus
}
#endif
#endif /* MAP_FS_H */
