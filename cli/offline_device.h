/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The block device under a filesystem, for mapctl repair --offline: where it
 * is mounted, which XFS it holds, and finding and overwriting the sectors of
 * it that cannot be read.
 */
#ifndef MAPCTL_OFFLINE_DEVICE_H
#define MAPCTL_OFFLINE_DEVICE_H

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

/* The XFS UUID in the superblock of @dev (only libblkid's xfs prober, so
 * nothing else on the device is read): 0, or -ENOENT when none can be read. */
int offline_device_uuid(const char *dev, char *uuid, size_t len);

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
