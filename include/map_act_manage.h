/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A finding closed by hand (mapctl resolve, ignore), on the record
 * (act_manage.c). */
#ifndef MAP_ACT_MANAGE_H
#define MAP_ACT_MANAGE_H

#include <stdint.h>

#include "map.h"

/*
 * Set finding @id to @state and record who did it (@action, the old state
 * and @note as its detail), both or neither.  0 with the finding as it was
 * in @was (the caller clears it); -ENOENT when there is no such finding, or
 * another negative errno (@was holds nothing then).
 */
int finding_set_state_recorded(struct map_store *st, int64_t id, enum map_finding_state state,
			       const char *action, const char *note, struct map_finding *was);

#endif
