// SPDX-License-Identifier: GPL-2.0-or-later
/* A finding closed by hand, on the record (map_act_manage.h). */
#include <stdio.h>

#include "map_act.h"
#include "map_act_manage.h"

int finding_set_state_recorded(struct map_store *st, int64_t id, enum map_finding_state state,
			       const char *action, const char *note, struct map_finding *was)
{
	char detail[256];
	int rc = map_store_finding_get(st, id, was);

	if (rc)
		return rc;
	snprintf(detail, sizeof(detail), "was %s%s%s", map_state_name(was->state),
		 note[0] ? "; " : "", note);
	rc = map_store_begin(st);
	if (rc == 0) {
		rc = map_store_finding_set_state(st, id, state);
		if (rc == 0)
			rc = record_action(st, was->fs_id, id, action, map_state_name(state), detail);
		rc = store_finish(st, rc);
	}
	if (rc)
		map_finding_clear(was);
	return rc;
}
