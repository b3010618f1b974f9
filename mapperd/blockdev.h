/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Block devices as sysfs and the kernel log name them. */
#ifndef MAPPERD_BLOCKDEV_H
#define MAPPERD_BLOCKDEV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct md_blockdev {
	char name[64];			/* kernel name: "sda1", "dm-0", "nullb0" */
	char disk[64];			/* the whole disk: "sda" (== name if not a partition) */
	uint64_t start;			/* first sector of the partition on the disk, 512 B */
	uint64_t sectors;		/* size in 512-byte sectors */
	uint32_t max_io;		/* largest request in bytes (queue/max_sectors_kb) */
};

/* Describe block device @dev from /sys/dev/block/MAJ:MIN. */
int blockdev_describe(dev_t dev, struct md_blockdev *out);

#endif
