/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The first report of a filesystem after mapperd starts cost about 0.2 s in
 * our guest where later ones cost 30 ms: the full open (mount table, libblkid,
 * libudev), the first GETFSMAP, bulkstat and path lookup, the store's
 * statements compiled and its pages read, and the code of all of them paged
 * in, the first direct read (its threads, the device opened).  When watching
 * starts, the pipeline's worker goes through those steps once on the
 * filesystem's root directory and rehearses the store write
 * (rolled back), so that the first report costs what later ones do.  One
 * inode's worth of work, whatever the filesystem's size; nothing is written.
 * The pipeline's worker thread only.
 */
#ifndef MAPPERD_WARMUP_H
#define MAPPERD_WARMUP_H

#include "dbwriter.h"
#include "fscache.h"

/* Reads @ranges of @fs's data device as a report's check does (the caller's,
 * so that its failed reads are known to be its own). */
typedef void (*md_warmup_read_fn)(struct map_fs *fs, const struct map_range_list *ranges,
				  void *arg);

void md_warmup_fs(struct md_fscache *c, struct md_dbwriter *db, md_warmup_read_fn read, void *arg,
		  const char *uuid, const char *mountpoint);

#endif
