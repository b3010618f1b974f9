/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libmap's act stage: what mapctl refetch and mapctl repair do about the
 * findings the pipeline stored, for any program that links libmap (mapctl
 * today, mapperd's read-only repair plan next).  Negative errno or MAP_E*
 * on failure, like the rest of libmap; the words are the caller's.
 */
#ifndef MAP_ACT_H
#define MAP_ACT_H

#include <stdbool.h>
#include <stdint.h>

#include "act_offline.h"
#include "act_refetch.h"
#include "act_repair_plan.h"
#include "map.h"

/* ---- the record of what was done (act_record.c) ---- */

/* Record what was done about a finding (finding_id 0: the filesystem),
 * by the invoking user. */
int record_action(struct map_store *st, int64_t fs_id, int64_t finding_id, const char *action,
		  const char *outcome, const char *detail);

/* End a transaction begun with map_store_begin(): commit when @rc is 0,
 * roll back otherwise.  0, or the first error (@rc, or the commit's). */
int store_finish(struct map_store *st, int rc);

/* The invoking user, for the record ("root", "alice (uid 1000)"), in a
 * buffer of the library's that the next call overwrites (one per process). */
const char *user_name(void);

/* ---- online repair (act_repair_plan.c, act_repair.c) ---- */

/*
 * The plan for the open findings of @fs (@only: just that finding, or 0),
 * in the order its steps run; @caps says what this kernel allows (as root:
 * for another user the plan shows what root would try).  *@only_is_data
 * when @only is file data, which no repair rebuilds.  0 or -errno; the
 * caller frees @plan with repair_plan_free() either way.
 */
int repair_plan_build(struct map_fs *fs, struct map_store *st, int64_t fs_id, int64_t only,
		      struct repair_plan *plan, struct repair_caps *caps, bool *only_is_data);
/* The same with @caps already probed (repair_caps_probe()): no call of
 * the kernel, only the store is read. */
int repair_plan_collect(struct map_store *st, int64_t fs_id, int64_t only,
			const struct repair_caps *caps, struct repair_plan *plan, bool *only_is_data);

/* What a plan run tells as it goes; any of them may be NULL. */
struct repair_run_ops {
	/* A step has run: its outcome and detail are set. */
	void (*step)(const struct plan_item *it, const struct plan_step *s, void *arg);
	/* A filesystem-wide recount after the rebuilds (link counts, summary
	 * counters): the word recorded for it and its detail. */
	void (*recount)(const char *outcome, const char *detail, void *arg);
	/* A finding whose outcome could not be recorded (@err). */
	void (*unrecorded)(int64_t finding_id, int err, void *arg);
	void *arg;
};

/*
 * Ask the kernel to rebuild every step of @p, recheck what was rebuilt,
 * settle and record each finding's outcome with the state it leads to
 * (one transaction per finding), then recount what the rebuilds touched.
 * Returns how many outcomes could not be recorded.
 */
int repair_plan_run(struct map_fs *fs, struct map_store *st, int64_t fs_id, struct repair_plan *p,
		    const struct repair_run_ops *ops);

/* The word recorded for a step's outcome (history keeps the words it
 * always had: healed and lost-data are "repaired"). */
const char *repair_step_word(enum repair_outcome o);

/* ---- refetch: act_refetch.h (the run and its rows), act_refetch.c ---- */

/* ---- the offline path: act_offline.h, act_offline_*.c ---- */

#endif
