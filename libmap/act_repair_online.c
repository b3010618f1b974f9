// SPDX-License-Identifier: GPL-2.0-or-later
/* Online repair's decisions around the plan (map_act_repair_online.h). */
#include <string.h>

#include "map_act_repair_online.h"

int repair_online_plan(struct map_fs *fs, struct map_store *st, int64_t fs_id, int64_t only,
		       bool dry_run, struct repair_plan *plan, struct repair_caps *caps,
		       enum repair_stop *stop, int *err)
{
	bool only_is_data = false;
	int rc;

	*stop = REPAIR_GO;
	*err = 0;
	/* The kernel repairs only writable filesystems. */
	if (map_fs_info(fs)->read_only && !dry_run)
		*stop = REPAIR_STOP_READ_ONLY;
	else if ((rc = repair_plan_build(fs, st, fs_id, only, plan, caps, &only_is_data)) != 0)
		*stop = REPAIR_STOP_DB, *err = rc;
	else if (only && only_is_data)
		*stop = REPAIR_STOP_ONLY_DATA;
	else if (only && plan->n == 0)
		*stop = REPAIR_STOP_ONLY_NOT_OPEN;
	return *stop == REPAIR_GO ? 0 : -1;
}

void repair_plan_tally(const struct repair_plan *p, struct repair_tally *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < p->n; i++)
		t->by[p->v[i].outcome]++;
}

bool repair_tally_left(const struct repair_tally *t)
{
	return t->by[OUTCOME_UNSUPPORTED] || t->by[OUTCOME_FAILED];
}

const char *repair_plan_remedy(const struct repair_plan *p, const struct repair_caps *caps)
{
	for (size_t i = 0; i < p->n; i++) {
		for (int k = 0; k < p->v[i].nsteps; k++) {
			const struct plan_step *s = &p->v[i].steps[k];
			const char *remedy = NULL;

			if (s->unsupported || s->outcome == OUTCOME_UNSUPPORTED)
				remedy = repair_remedy(caps, s);
			if (remedy)
				return remedy;
		}
	}
	return NULL;
}
