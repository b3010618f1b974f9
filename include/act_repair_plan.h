/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Repair: the plan.  The open findings of a filesystem become an
 * ordered list of steps (one scrub type of one object each) such that every
 * step can succeed: a directory cannot be rebuilt before the inode btree
 * that finds its children, an inode before the AG headers that locate it.
 */
#ifndef MAP_ACT_REPAIR_PLAN_H
#define MAP_ACT_REPAIR_PLAN_H

#include <stdbool.h>

#include "map.h"

/* The steps run phase by phase (enum map_scrub_phase), and inside a phase
 * by rank across all findings: the scrub type table (map_scrub_type) holds
 * both. */

/* What came of a step, or of a finding as a whole (worst step wins). */
enum repair_outcome {
	OUTCOME_PENDING,	/* not run (dry run, or stopped) */
	OUTCOME_NOT_NEEDED,	/* the kernel found nothing to rebuild */
	OUTCOME_HEALED,		/* rebuilt and checked clean */
	OUTCOME_LOST,		/* rebuilt, but something was lost: refetch */
	OUTCOME_UNSUPPORTED,	/* cannot be rebuilt online here */
	OUTCOME_FAILED,
};

const char *repair_outcome_name(enum repair_outcome o);

#define PLAN_MAX_TYPES 8	/* scrub types per object: an inode has at most 7 */

struct plan_step {
	uint32_t type;			/* XFS_SCRUB_TYPE_* */
	enum map_scrub_phase phase;
	const char *unsupported;	/* known before running: why not (NULL: try) */
	enum repair_outcome outcome;
	bool rebuilt;			/* the kernel said it rebuilt it */
	char detail[256];
};

struct plan_item {
	struct map_finding f;
	bool unreadable;		/* a device range of it could not be read */
	bool on_lost_sector;		/* an inode whose own record is in that range */
	struct plan_step steps[PLAN_MAX_TYPES];
	int nsteps;
	enum repair_outcome outcome;	/* of the whole finding */
	char lost[256];			/* what was lost, with OUTCOME_LOST */
};

/* What the kernel and the filesystem allow, found once before planning. */
struct repair_caps {
	bool kernel_repairs;		/* the scrub ioctl takes IFLAG_REPAIR */
	const char *kernel_why;		/* why not, when it does not */
	struct map_geometry geo;
};

struct repair_plan {
	struct plan_item *v;
	size_t n;
	size_t data_findings;		/* file data: only a mirror brings it back */
	size_t data_paths;		/* distinct paths among them */
	bool offline_needed;		/* some step can only be done offline */
};

/* Fill @caps for the open filesystem @fd. */
void repair_caps_probe(int fd, const struct map_geometry *geo, struct repair_caps *caps);

/* Add one open finding to the plan (file data is only counted).  -ENOMEM. */
int repair_plan_add(struct repair_plan *p, const struct repair_caps *caps,
		    const struct map_finding *f);
/* Put the items in the order the steps run (by their first phase, those
 * with unreadable sectors first, AG, inode, finding). */
void repair_plan_sort(struct repair_plan *p);
void repair_plan_free(struct repair_plan *p);

/*
 * The members of the plan's JSON object (mapper-json(7), "mapctl repair"),
 * written into the object @j has open: mapctl's output and mapperd's
 * repair-plan reply are the same document.  @mnt prefixes the paths.
 */
void repair_plan_json(struct map_json *j, const struct repair_plan *p,
		      const struct repair_caps *caps, const char *uuid, const char *mnt,
		      bool dry_run);

/* Why a step cannot be done online, and what the administrator can do. */
const char *repair_remedy(const struct repair_caps *caps, const struct plan_step *s);

#endif
