/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Findings the host unit tests put into a real store, and mapctl run on it. */
#ifndef MAPPER_STORE_FIXTURE_H
#define MAPPER_STORE_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "map_store.h"
#include "testlib.h"

/*
 * Record a media finding of @kind for inode @ino (mode @mode) under @path,
 * one 4 KiB device range at ino * 4096 (file data also at file offset 0);
 * its ID.  Stops the test if the store refuses it.
 */
int64_t sf_add_finding(struct map_store *st, int64_t fs_id, const char *kind, uint64_t ino,
		       uint32_t mode, const char *path);

/*
 * Run "[PREFIX; ]MAPCTL ARGS" with tl_run, its output files in @dir.  The
 * result is static: valid until the next call.
 */
struct tl_run *sf_run_mapctl(const char *mapctl, const char *dir, const char *prefix,
			     const char *args);

#endif
