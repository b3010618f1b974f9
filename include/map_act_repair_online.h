/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Online repair's decisions around the plan (act_repair_online.c): whether
 * a plan can be made for what was asked, what came of a run in numbers, and
 * which remedy to name for what cannot be done online.  The question, the
 * progress and the words are the caller's.
 */
#ifndef MAP_ACT_REPAIR_ONLINE_H
#define MAP_ACT_REPAIR_ONLINE_H

#include <stdbool.h>
#include <stdint.h>

#include "map_act.h"

/* Why no plan was made for what was asked. */
enum repair_stop {
	REPAIR_GO,
	REPAIR_STOP_READ_ONLY,		/* mounted read-only (and not a dry run) */
	REPAIR_STOP_DB,			/* @err reading the database */
	REPAIR_STOP_ONLY_DATA,		/* --finding names file data */
	REPAIR_STOP_ONLY_NOT_OPEN,	/* --finding names no open metadata finding */
};

/* The outcomes of a plan's findings, counted. */
struct repair_tally {
	int by[OUTCOME_FAILED + 1];
};

/*
 * The plan for @fs's open findings (@only: just that one, or 0), checked
 * against what was asked; @dry_run makes no change, so a read-only mount
 * may be planned.  0, or -1 with why in *@stop (and *@err).  The caller
 * frees @plan with repair_plan_free() either way.
 */
int repair_online_plan(struct map_fs *fs, struct map_store *st, int64_t fs_id, int64_t only,
		       bool dry_run, struct repair_plan *plan, struct repair_caps *caps,
		       enum repair_stop *stop, int *err);

void repair_plan_tally(const struct repair_plan *p, struct repair_tally *t);

/* Findings left unsupported or failed: the run did not heal everything. */
bool repair_tally_left(const struct repair_tally *t);

/* The remedy for the first step that cannot be done online (unsupported in
 * the plan, or by the kernel when it ran) and has one; NULL if none. */
const char *repair_plan_remedy(const struct repair_plan *p, const struct repair_caps *caps);

#endif
