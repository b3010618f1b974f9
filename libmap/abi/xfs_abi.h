/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The XFS ioctl ABI as of Linux 6.12.
 *
 * Debian 12's xfslibs-dev describes the 6.1 ABI; the few 6.12 additions that we
 * use are declared here from the kernel's documented layout, with their sizes
 * checked at compile time.  Nothing here is copied from kernel headers.
 */
#ifndef MAP_XFS_ABI_H
#define MAP_XFS_ABI_H

#include <stdint.h>
#include <sys/ioctl.h>
#include <xfs/xfs.h>
#include <linux/fsmap.h>

/* Scrub types added after 6.1. */
#ifndef XFS_SCRUB_TYPE_QUOTACHECK
#define XFS_SCRUB_TYPE_QUOTACHECK	25	/* quota counters */
#define XFS_SCRUB_TYPE_NLINKS		26	/* inode link counts */
#define XFS_SCRUB_TYPE_HEALTHY		27	/* clean bill of health */
#define XFS_SCRUB_TYPE_DIRTREE		28	/* directory tree structure */
#endif
#define MAP_SCRUB_TYPE_NR		29

#ifndef XFS_SCRUB_IFLAG_FORCE_REBUILD
#define XFS_SCRUB_IFLAG_FORCE_REBUILD	(1u << 8)
#endif

/* Vectored scrub (XFS_IOC_SCRUBV_METADATA, 6.10+). */
#define MAP_SCRUB_TYPE_BARRIER		0xFFFFFFFFu
struct map_xfs_scrub_vec {
	uint32_t sv_type;
	uint32_t sv_flags;
	int32_t sv_ret;
	uint32_t sv_reserved;
};
struct map_xfs_scrub_vec_head {
	uint64_t svh_ino;
	uint32_t svh_gen;
	uint32_t svh_agno;
	uint32_t svh_flags;
	uint16_t svh_rest_us;
	uint16_t svh_nr;
	uint64_t svh_reserved;
	uint64_t svh_vectors;
};
_Static_assert(sizeof(struct map_xfs_scrub_vec) == 16, "xfs_scrub_vec is 16 bytes");
_Static_assert(sizeof(struct map_xfs_scrub_vec_head) == 40, "xfs_scrub_vec_head is 40 bytes");
#define MAP_XFS_IOC_SCRUBV_METADATA	_IOWR('X', 64, struct map_xfs_scrub_vec_head)

/* Geometry flags added after 6.1. */
#ifndef XFS_FSOP_GEOM_FLAGS_EXCHANGE_RANGE
#define XFS_FSOP_GEOM_FLAGS_EXCHANGE_RANGE (1u << 24)
#endif
#ifndef XFS_FSOP_GEOM_FLAGS_PARENT
#define XFS_FSOP_GEOM_FLAGS_PARENT	(1u << 25)
#endif

/* Parent pointers (XFS_IOC_GETPARENTS, 6.10+). */
struct map_xfs_getparents_rec {
	struct xfs_handle gpr_parent;
	uint32_t gpr_reclen;
	uint32_t gpr_reserved;
	char gpr_name[];
};
struct map_xfs_getparents {
	struct xfs_attrlist_cursor gp_cursor;
	uint16_t gp_iflags;
	uint16_t gp_oflags;
	uint32_t gp_bufsize;
	uint64_t gp_reserved;
	uint64_t gp_buffer;
};
struct map_xfs_getparents_by_handle {
	struct xfs_handle gph_handle;
	struct map_xfs_getparents gph_request;
};
_Static_assert(sizeof(struct map_xfs_getparents) == 40, "xfs_getparents is 40 bytes");
_Static_assert(sizeof(struct map_xfs_getparents_by_handle) == 64,
	       "xfs_getparents_by_handle is 64 bytes");
#define MAP_XFS_GETPARENTS_OFLAG_ROOT	(1u << 0)
#define MAP_XFS_GETPARENTS_OFLAG_DONE	(1u << 1)
#define MAP_XFS_IOC_GETPARENTS		_IOWR('X', 62, struct map_xfs_getparents)
#define MAP_XFS_IOC_GETPARENTS_BY_HANDLE _IOWR('X', 63, struct map_xfs_getparents_by_handle)

#endif /* MAP_XFS_ABI_H */
