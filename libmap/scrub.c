// SPDX-License-Identifier: GPL-2.0-or-later
/* Metadata scrub through XFS_IOC_SCRUB_METADATA. */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "map.h"
#include "xfs_abi.h"

/* Busy objects (EBUSY) and lock inversions the kernel gave up on (EDEADLOCK)
 * usually clear within milliseconds; back off up to about two seconds. */
#define SCRUB_RETRIES	8

int map_scrub_call(int fd, uint32_t type, uint32_t agno, uint64_t ino, uint32_t gen,
		   uint32_t iflags, uint32_t *oflags)
{
	struct timespec delay = { 0, 1000000 };	/* 1 ms, doubling */

	for (int attempt = 0;; attempt++) {
		struct xfs_scrub_metadata sm;

		memset(&sm, 0, sizeof(sm));
		sm.sm_type = type;
		sm.sm_flags = iflags;
		sm.sm_agno = agno;
		sm.sm_ino = ino;
		sm.sm_gen = gen;
		if (ioctl(fd, XFS_IOC_SCRUB_METADATA, &sm) == 0) {
			if (oflags)
				*oflags = sm.sm_flags & ~iflags;
			return 0;
		}
		int err = errno;
		if ((err != EBUSY && err != EDEADLOCK) || attempt >= SCRUB_RETRIES)
			return -err;
		nanosleep(&delay, NULL);
		delay.tv_nsec *= 2;
		if (delay.tv_nsec >= 1000000000L) {
			delay.tv_sec += 1;
			delay.tv_nsec -= 1000000000L;
		}
	}
}
