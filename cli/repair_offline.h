/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mapctl repair --offline-plan / --offline: the guided path for damage the
 * kernel cannot heal online.  xfs_repair stops at the first unreadable sector
 * it needs, so the sectors the database recorded as unreadable are read again
 * and those that still fail are overwritten with zeros on the unmounted
 * device; then xfs_repair runs and the filesystem is mounted back, and
 * mapctl refetch puts back from a mirror what xfs_repair removed.
 */
#ifndef MAPCTL_REPAIR_OFFLINE_H
#define MAPCTL_REPAIR_OFFLINE_H

#include <stdbool.h>
#include <stdio.h>

#include "act_offline.h"
#include "mapctl.h"

/* mapctl repair --offline-plan / --offline: see mapctl(8). */
struct offline_opts {
	const char *target;	/* device, or a mountpoint/path recorded in the db */
	bool plan_only;
	bool yes;
	bool no_mount;
	const char *uuid;	/* --uuid: the filesystem meant, when the device
				 * shows no XFS superblock */
	bool json;
};

int repair_offline(struct ctl *ctl, const struct offline_opts *o);	/* returns an EXIT_* status */

/* The plan and the result for people and programs (repair_offline_show.c). */
void offline_print_plan(const struct offline_plan *p, FILE *out);
void offline_json_plan(const struct offline_plan *p, FILE *out);
void offline_json_result(const struct offline_plan *p, const struct offline_overwrite *ow,
			 const struct xfs_repair_result *xr, bool ran_repair, const char *mounted);

#endif
