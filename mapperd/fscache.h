/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Opening a watched filesystem for each kernel report costs a mount table
 * parse, a libblkid probe and a libudev look-up (10-70 ms in our guest).
 * The cache keeps what a full open learnt, never an open descriptor (that
 * would make umount fail with EBUSY), and opens again from it with
 * map_fs_reopen, which checks that the mount point still shows the same
 * filesystem.  An entry older than a minute still serves a report, and is
 * learnt again (label, device identity) after it: md_fscache_relearn.
 * One thread only (the pipeline's worker).
 */
#ifndef MAPPERD_FSCACHE_H
#define MAPPERD_FSCACHE_H

#include "map.h"

struct md_fscache;

struct md_fscache *md_fscache_new(void);
void md_fscache_free(struct md_fscache *c);
/* Open the filesystem with UUID @uuid mounted at @mountpoint: 0 with *@fsp,
 * -MAP_EUNMOUNTED when something else is mounted there now, or another
 * negative errno. */
int md_fscache_open(struct md_fscache *c, const char *mountpoint, const char *uuid,
		    struct map_fs **fsp);

/* Learn again, with a full open, the entries used after a minute. */
void md_fscache_relearn(struct md_fscache *c);

struct md_fscache_stats {
	uint64_t reopens, full_opens;
};
void md_fscache_get_stats(const struct md_fscache *c, struct md_fscache_stats *out);

#endif
