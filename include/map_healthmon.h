/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The XFS health monitor of Linux 7.x (XFS_IOC_HEALTH_MONITOR): a descriptor
 * that reads 64-byte records of what the kernel learnt about a filesystem's
 * health — file ranges whose I/O failed, device ranges with media errors,
 * objects marked sick or healthy, a shutdown, the unmount, lost records.
 *
 * The ABI is defined here, not taken from xfslibs-dev (older releases, e.g.
 * Debian 12's, do not have it).  Numbers from Linux 7.2's
 * fs/xfs/libxfs/xfs_fs.h; the read side from fs/xfs/xfs_healthmon.c.
 */
#ifndef MAP_HEALTHMON_H
#define MAP_HEALTHMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>

/* ---- the kernel's ABI ---- */

/* Argument of the ioctl: 32 bytes, flags then a format byte, zeroes. */
struct map_hm_ioc_arg {
	uint64_t flags;
	uint8_t format;
	uint8_t pad[23];
};
#define MAP_HM_FLAG_VERBOSE	(1ULL << 0)	/* every health change, not only news */
#define MAP_HM_FORMAT_V0	0

#define MAP_XFS_IOC_HEALTH_MONITOR	_IOW('X', 68, struct map_hm_ioc_arg)

/* Domains (what a record is about). */
enum {
	MAP_HM_DOMAIN_MOUNT = 0,
	MAP_HM_DOMAIN_FS = 1,
	MAP_HM_DOMAIN_AG = 2,
	MAP_HM_DOMAIN_INODE = 3,
	MAP_HM_DOMAIN_RTGROUP = 4,
	MAP_HM_DOMAIN_DATADEV = 5,
	MAP_HM_DOMAIN_RTDEV = 6,
	MAP_HM_DOMAIN_LOGDEV = 7,
	MAP_HM_DOMAIN_FILERANGE = 8,
	MAP_HM_DOMAIN_NR
};

/* Types (what happened). */
enum {
	MAP_HM_TYPE_RUNNING = 0,
	MAP_HM_TYPE_LOST = 1,
	MAP_HM_TYPE_UNMOUNT = 2,
	MAP_HM_TYPE_SICK = 3,
	MAP_HM_TYPE_CORRUPT = 4,
	MAP_HM_TYPE_HEALTHY = 5,
	MAP_HM_TYPE_SHUTDOWN = 6,
	MAP_HM_TYPE_MEDIA_ERROR = 7,
	MAP_HM_TYPE_BUFREAD = 8,
	MAP_HM_TYPE_BUFWRITE = 9,
	MAP_HM_TYPE_DIOREAD = 10,
	MAP_HM_TYPE_DIOWRITE = 11,
	MAP_HM_TYPE_DATALOST = 12,
	MAP_HM_TYPE_NR
};

/* One record as read(2) returns it (format V0). */
struct map_hm_raw {
	uint32_t domain;
	uint32_t type;
	uint64_t time_ns;		/* since the epoch */
	union {
		uint64_t lost_count;			/* LOST */
		uint32_t shutdown_reasons;		/* SHUTDOWN */
		uint32_t fs_mask;			/* FS: XFS_FSOP_GEOM_SICK_* */
		struct { uint32_t mask, gno; } group;	/* AG, RTGROUP */
		struct { uint32_t mask, gen; uint64_t ino; } inode;	/* XFS_BS_SICK_* */
		struct { uint64_t daddr, bbcount; } media;	/* 512-byte sectors */
		struct {
			uint64_t pos, len, ino;
			uint32_t gen, error;		/* positive errno */
		} file;
	} e;
	uint64_t pad[2];
};

_Static_assert(sizeof(struct map_hm_ioc_arg) == 32, "XFS_IOC_HEALTH_MONITOR argument");
_Static_assert(sizeof(struct map_hm_raw) == 64, "health monitor record");
_Static_assert(offsetof(struct map_hm_raw, time_ns) == 8, "health monitor record");
_Static_assert(offsetof(struct map_hm_raw, e) == 16, "health monitor record");
_Static_assert(offsetof(struct map_hm_raw, e.group.gno) == 20, "health monitor record");
_Static_assert(offsetof(struct map_hm_raw, e.inode.gen) == 20, "health monitor record");
_Static_assert(offsetof(struct map_hm_raw, e.inode.ino) == 24, "health monitor record");
_Static_assert(offsetof(struct map_hm_raw, e.media.bbcount) == 24, "health monitor record");
_Static_assert(offsetof(struct map_hm_raw, e.file.len) == 24, "health monitor record");
_Static_assert(offsetof(struct map_hm_raw, e.file.ino) == 32, "health monitor record");
_Static_assert(offsetof(struct map_hm_raw, e.file.gen) == 40, "health monitor record");
_Static_assert(offsetof(struct map_hm_raw, e.file.error) == 44, "health monitor record");
_Static_assert(offsetof(struct map_hm_raw, pad) == 48, "health monitor record");
_Static_assert(MAP_XFS_IOC_HEALTH_MONITOR == 0x40205844, "XFS_IOC_HEALTH_MONITOR");

/* ---- what we make of it ---- */

enum map_hm_kind {
	MAP_HM_RUNNING,		/* the monitor's first record */
	MAP_HM_LOST,		/* lost: records the kernel could not queue */
	MAP_HM_UNMOUNT,		/* the filesystem is going: the last record */
	MAP_HM_SHUTDOWN,	/* reasons: XFS_HEALTH_SHUTDOWN_* bits */
	MAP_HM_HEALTH,		/* sick, corrupt or healthy: domain, mask, gno / ino+gen */
	MAP_HM_MEDIA,		/* domain (DATADEV, RTDEV, LOGDEV), start+length in bytes */
	MAP_HM_FILE,		/* ino+gen, file bytes pos+len, error */
};

struct map_hm_record {
	enum map_hm_kind kind;
	uint32_t domain, type;		/* the kernel's numbers, checked */
	uint64_t time_ns;
	uint64_t lost;			/* LOST: >= 1 */
	uint32_t reasons;		/* SHUTDOWN */
	uint32_t mask;			/* HEALTH: non-zero */
	uint32_t gno;			/* HEALTH of AG / RTGROUP */
	uint64_t ino;			/* HEALTH of INODE, FILE: non-zero */
	uint32_t gen;
	uint64_t start, length;		/* MEDIA: device bytes; FILE: file bytes; length > 0 */
	int error;			/* FILE: positive errno, 1..4095 */
};

/* Largest file offset the kernel can report (MAX_LFS_FILESIZE on 64 bits). */
#define MAP_HM_MAX_FILE_BYTES	((uint64_t)INT64_MAX)

/*
 * Ask for a health monitor of the filesystem whose root directory is open as
 * @root_fd.  Returns the monitor's descriptor (close-on-exec, non-blocking)
 * or a negative errno: -ENOTTY or -EINVAL when the kernel has no monitor,
 * -EEXIST when another process (xfs_healer) has one on this filesystem,
 * -EPERM without CAP_SYS_ADMIN in the initial namespace or on a non-root fd.
 */
int map_healthmon_open(int root_fd);

/*
 * Decode @len bytes read from a monitor: @fn for each whole record that is
 * valid (known domain and type together, every field in range); the others
 * are counted in *skipped and never delivered.  *used: bytes consumed (whole
 * records; a partial record at the end is left for the caller to complete).
 * Returns the number of records delivered.
 */
size_t map_healthmon_decode(const void *buf, size_t len, size_t *used, size_t *skipped,
			    void (*fn)(const struct map_hm_record *r, void *arg), void *arg);

/* Check one raw record; 0 and @out filled, or -EINVAL. */
int map_healthmon_parse(const struct map_hm_raw *raw, struct map_hm_record *out);

/* Names for logs: "sick", "bufread", "datadev"... ("?" when unknown). */
const char *map_healthmon_type_name(uint32_t type);
/* The scrub type names (comma separated, into @buf of @len bytes) of the
 * inode aspects in XFS_BS_SICK_* @mask; unknown bits are left out.  Returns
 * the length written. */
size_t map_healthmon_inode_scrub(uint32_t mask, char *buf, size_t len);
const char *map_healthmon_domain_name(uint32_t domain);

#endif
