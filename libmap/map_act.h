/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libmap's act stage: what mapctl refetch and mapctl repair do about the
 * findings the pipeline stored, for any program that links libmap (mapctl
 * today, mapperd's read-only repair plan next).  Negative errno or MAP_E*
 * on failure, like the rest of libmap; the words are the caller's.
 */
#ifndef MAP_ACT_H
#define MAP_ACT_H

#include <stdint.h>

#include "map.h"

/* ---- the record of what was done (act_record.c) ---- */

/* Record what was done about a finding (finding_id 0: the filesystem),
 * by the invoking user. */
int record_action(struct map_store *st, int64_t fs_id, int64_t finding_id, const char *action,
		  const char *outcome, const char *detail);

/* End a transaction begun with map_store_begin(): commit when @rc is 0,
 * roll back otherwise.  0, or the first error (@rc, or the commit's). */
int store_finish(struct map_store *st, int rc);

/* The invoking user, for the record ("root", "alice (uid 1000)"). */
const char *user_name(void);

#endif
