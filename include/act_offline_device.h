/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The block device under a filesystem, for mapctl repair --offline: where it
 * is mounted, which XFS it holds, and finding and overwriting the sectors of
 * it that cannot be read.
 */
#ifndef MAP_ACT_OFFLINE_DEVICE_H
#define MAP_ACT_OFFLINE_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The largest sector written whole; a bigger physical sector is written in
 * logical sectors. */
#define OFFLINE_MAX_UNIT (64 * 1024)

/*
 * The first mount in /proc/self/mountinfo of device @dev (when nonzero) or at
 * @path (when not NULL): 1 with its mount point and source, 0 if there is
 * none, or a negative errno.
 */
int offline_find_mount(dev_t dev, const char *path, char *target, size_t tlen, char *source,
		       size_t slen);

/*
 * What libblkid finds on a device: every filesystem, RAID, LVM, crypto or
 * swap signature and a partition table, not only XFS.  A device that held
 * XFS once and was reused keeps stray XFS structures (secondary superblocks)
 * that xfs_repair would find and "repair" over the new contents, so anything
 * but a lone XFS signature means: not ours.
 */
struct offline_probe {
	bool xfs;			/* an XFS superblock was found */
	char uuid[40];			/* its UUID */
	char other[64];			/* the first other signature: "ext4 (filesystem)",
					 * "linux_raid_member (raid)", "gpt (partition table)";
					 * "" when none */
	unsigned int read_errors;	/* probers that met an unreadable sector */
};

/* Probe the device open at @fd (read through the page cache; any fd of the
 * device).  0, or a negative errno when it could not be probed at all; a
 * prober that cannot read its sectors is counted and the others go on. */
int offline_device_probe(int fd, struct offline_probe *p);
/* The same by path, for the plan (which may not open the device to write). */
int offline_device_probe_path(const char *dev, struct offline_probe *p);

/*
 * Whether XFS @uuid is mounted from a device other than @rdev (a clone: a
 * copy of the disk, a snapshot): 1 with where and from what, 0 if not, or a
 * negative errno.  Each mounted XFS's UUID is read from its device, found by
 * the mount's source or by /sys/dev/block.
 */
int offline_uuid_mounted_elsewhere(const char *uuid, dev_t rdev, char *target, size_t tlen,
				   char *source, size_t slen);

struct offline_device {
	int fd;
	uint32_t unit;			/* bytes read and written at a time */
	uint64_t size;			/* bytes */
	void *buf, *zeros;		/* aligned for O_DIRECT */
};

/*
 * Open @path with O_DIRECT: to read only (it may be mounted), or with
 * @write to write, O_SYNC and O_EXCL, which fails (-EBUSY) while it is
 * mounted or held by device-mapper, md or LVM.  The unit is the logical
 * sector, or the physical one when it is larger.  0 or a negative errno.
 */
int offline_device_open(struct offline_device *d, const char *path, bool write);
void offline_device_close(struct offline_device *d);

/*
 * Read [start, start+length) (whole units) and call @bad with the offset of
 * each unit that cannot be read; a nonzero return from @bad stops and is
 * returned.  0, or a negative errno when a read could not be made at all.
 */
int offline_device_scan(struct offline_device *d, uint64_t start, uint64_t length,
			int (*bad)(uint64_t pos, void *arg), void *arg);

/* Overwrite the unit at @pos with zeros, then read it back: 1 it reads now,
 * 0 it still cannot be read, or a negative errno when the write failed. */
int offline_device_zero(struct offline_device *d, uint64_t pos);

#endif
