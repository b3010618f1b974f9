// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Repair: the plan run.  Each step asks the kernel to rebuild one scrub type
 * of one object (the scrub ioctl's REPAIR flag) and checks it again; every
 * rebuilt object is checked once more at the end, and each finding's
 * outcome, the worst of its steps, is recorded with the state it leads to.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "map_act.h"
#include "xfs_abi.h"

/* A cancelled scan is retried this often: it settles once the rebuilds
 * before it have been written out. */
#define REPAIR_CANCEL_RETRIES 3

struct collect {
	struct repair_plan *plan;
	const struct repair_caps *caps;
	int64_t only;			/* one finding's id, or 0 */
	bool only_is_data;		/* ... and it is file data */
};

static int collect(const struct map_finding *f, void *arg)
{
	struct collect *c = arg;

	if (c->only && f->id != c->only)
		return 0;
	if (c->only && !strcmp(f->kind, "file"))
		c->only_is_data = true;
	return repair_plan_add(c->plan, c->caps, f);
}

int repair_plan_build(struct map_fs *fs, struct map_store *st, int64_t fs_id, int64_t only,
		      struct repair_plan *plan, struct repair_caps *caps, bool *only_is_data)
{
	repair_caps_probe(map_fs_fd(fs), &map_fs_info(fs)->geo, caps);
	if (geteuid() != 0) {
		/* Only root may ask; the plan still shows what would be tried. */
		caps->kernel_repairs = true;
		caps->kernel_why = NULL;
	}
	return repair_plan_collect(st, fs_id, only, caps, plan, only_is_data);
}

int repair_plan_collect(struct map_store *st, int64_t fs_id, int64_t only,
			const struct repair_caps *caps, struct repair_plan *plan, bool *only_is_data)
{
	struct collect col = { .plan = plan, .caps = caps, .only = only };
	int rc;

	rc = map_store_findings(st, fs_id, 0, collect, &col);
	if (rc)
		return rc;
	*only_is_data = col.only_is_data;
	repair_plan_sort(plan);
	return 0;
}

/*
 * One scrub call on the object of @it.  The kernel takes an inode only with
 * its exact generation, and the one recorded may be stale or unknown (0):
 * an inode whose cluster could not be read had none to record, and a
 * cluster rebuild gives the inodes it rebuilds new generations.  So on
 * ENOENT the call is made once more with the generation the inode has now;
 * a repair only ever rebuilds the metadata of what is there.  (The first
 * call is not wasted: when the cluster could not be read the kernel
 * rebuilds it before it looks at the generation.)
 */
static int scrub_object(struct map_fs *fs, struct plan_item *it, uint32_t type, uint32_t iflags,
			uint32_t *oflags)
{
	const struct map_scrub_type_info *t = map_scrub_type(type);
	uint32_t agno = t->scope == MAP_SCOPE_AG ? (uint32_t)(it->f.agno < 0 ? 0 : it->f.agno) : 0;
	uint64_t ino = t->scope == MAP_SCOPE_INODE ? it->f.ino : 0;
	uint32_t gen = t->scope == MAP_SCOPE_INODE ? it->f.gen : 0, now;
	int rc = map_scrub_call(map_fs_fd(fs), type, agno, ino, gen, iflags, oflags);

	if (rc == -ENOENT && ino && map_inode_generation(fs, ino, &now) == 0 && now != gen) {
		*oflags = 0;
		rc = map_scrub_call(map_fs_fd(fs), type, agno, ino, now, iflags, oflags);
		if (rc != -ENOENT)
			it->f.gen = now;
	}
	return rc;
}

/* Ask the kernel to rebuild one type of one object, then check it again. */
static void run_step(struct map_fs *fs, struct plan_item *it, struct plan_step *s)
{
	const struct map_fs_info *info = map_fs_info(fs);
	const struct map_scrub_type_info *t = map_scrub_type(s->type);
	uint64_t ino = t->scope == MAP_SCOPE_INODE ? it->f.ino : 0;
	/* A block known to be unreadable is rebuilt elsewhere even if the
	 * check cannot see the damage from the copy in memory.  Not needed for
	 * an inode: a cluster that fails to read is never cached, the check
	 * sees it, and the repair rebuilds the cluster's lost inodes. */
	uint32_t iflags = XFS_SCRUB_IFLAG_REPAIR |
			  (it->unreadable && s->type != XFS_SCRUB_TYPE_INODE ?
			   XFS_SCRUB_IFLAG_FORCE_REBUILD : 0);
	uint32_t oflags = 0, after = 0;
	char buf[96];
	int rc;

	if (s->unsupported) {
		s->outcome = OUTCOME_UNSUPPORTED;
		snprintf(s->detail, sizeof(s->detail), "%s: %s", t->name, s->unsupported);
		return;
	}
	if (t->scope == MAP_SCOPE_INODE && !ino) {
		s->outcome = OUTCOME_FAILED;
		snprintf(s->detail, sizeof(s->detail), "%s: no inode recorded", t->name);
		return;
	}
	rc = scrub_object(fs, it, s->type, iflags, &oflags);
	/* A directory or parent rebuild scans every inode; a change during
	 * the scan (our own earlier rebuilds included) cancels it: again. */
	for (int again = 0; rc == -ECANCELED && again < REPAIR_CANCEL_RETRIES; again++)
		rc = scrub_object(fs, it, s->type, iflags, &oflags);
	if (rc == -EOPNOTSUPP) {
		s->outcome = OUTCOME_UNSUPPORTED;
		snprintf(s->detail, sizeof(s->detail), "%s: %s", t->name,
			 !info->geo.rmapbt ? "needs the reverse-mapping btree (rmapbt)"
					   : "this kernel cannot rebuild it online");
		return;
	}
	if (rc == -ENOENT && t->scope == MAP_SCOPE_INODE) {
		/* Not found with any generation: a cluster rebuild found it free,
		 * or the kernel cannot load it; either way the mirror has it. */
		s->outcome = OUTCOME_LOST;
		snprintf(s->detail, sizeof(s->detail), "%s: the kernel finds no inode %llu (ENOENT)",
			 t->name, (unsigned long long)ino);
		if (!it->lost[0])
			snprintf(it->lost, sizeof(it->lost), "the kernel finds no inode there now: "
				 "refetch puts the file back");
		return;
	}
	if (rc == -EIO && s->type == XFS_SCRUB_TYPE_SYMLINK && it->unreadable) {
		/* The kernel will not invent a target it cannot read. */
		s->outcome = OUTCOME_LOST;
		snprintf(s->detail, sizeof(s->detail),
			 "%s: the target is unreadable and left as it is", t->name);
		return;
	}
	if (rc) {
		s->outcome = OUTCOME_FAILED;
		snprintf(s->detail, sizeof(s->detail), "%s: %s", t->name, map_strerror(rc));
		return;
	}
	if (oflags & XFS_SCRUB_OFLAG_NO_REPAIR_NEEDED) {
		s->outcome = OUTCOME_NOT_NEEDED;
		snprintf(s->detail, sizeof(s->detail), "%s: the kernel found nothing to rebuild",
			 t->name);
		return;
	}
	rc = scrub_object(fs, it, s->type, 0, &after);
	if (rc || (after & (XFS_SCRUB_OFLAG_CORRUPT | XFS_SCRUB_OFLAG_XCORRUPT))) {
		s->outcome = OUTCOME_FAILED;
		snprintf(s->detail, sizeof(s->detail), "%s: still damaged after the rebuild (%s)",
			 t->name, rc ? map_strerror(rc) : map_scrub_oflags_str(after, buf, sizeof(buf)));
		return;
	}
	s->outcome = OUTCOME_HEALED;
	s->rebuilt = true;
	snprintf(s->detail, sizeof(s->detail), "%s: rebuilt and checked clean", t->name);
}

/* What a rebuild over unreadable blocks cannot bring back. */
static const char *what_was_lost(const struct plan_item *it, const struct plan_step *s,
				 const struct map_geometry *geo)
{
	if (!it->unreadable)
		return NULL;
	switch (s->type) {
	case XFS_SCRUB_TYPE_INODE:
		/* Its neighbours in the cluster are kept as they were. */
		return it->on_lost_sector ? "the inode was rebuilt: its size, mode, owner and "
					    "times are approximate" : NULL;
	case XFS_SCRUB_TYPE_XATTR:
		return "the extended attributes stored in the unreadable blocks were dropped";
	case XFS_SCRUB_TYPE_SYMLINK:
		return "the symlink target could not be read";
	case XFS_SCRUB_TYPE_DIR:
		/* Parent pointers give back every name; without them, the
		 * children of lost entries go to the orphanage. */
		return geo->parent ? NULL : "names in the unreadable blocks: their files are in "
					    "lost+found";
	default:
		return NULL;
	}
}

/* The outcome of a finding from its steps: the worst one. */
static void settle(struct plan_item *it, const struct map_geometry *geo)
{
	enum repair_outcome worst = OUTCOME_NOT_NEEDED;

	for (int k = 0; k < it->nsteps; k++) {
		struct plan_step *s = &it->steps[k];
		const char *lost = NULL;

		/* An inode on a lost sector that needed nothing was rebuilt
		 * already, with its cluster, by the step of a neighbour. */
		if (s->outcome == OUTCOME_HEALED || s->outcome == OUTCOME_LOST ||
		    (s->outcome == OUTCOME_NOT_NEEDED && s->type == XFS_SCRUB_TYPE_INODE &&
		     it->on_lost_sector))
			lost = what_was_lost(it, s, geo);
		if (lost) {
			if (s->outcome != OUTCOME_LOST) {
				s->outcome = OUTCOME_LOST;
				if (!s->rebuilt)
					snprintf(s->detail, sizeof(s->detail), "%s",
						 "inode: rebuilt with its cluster by an earlier step");
			}
			if (!it->lost[0])
				snprintf(it->lost, sizeof(it->lost), "%s", lost);
		}
		if (s->outcome > worst)
			worst = s->outcome;
	}
	it->outcome = worst;
}

/* Everything rebuilt is checked once more at the end: a later step (a
 * directory rebuild moving children, say) may have disturbed an earlier one. */
static void recheck(struct map_fs *fs, struct plan_item *it)
{
	for (int k = 0; k < it->nsteps; k++) {
		struct plan_step *s = &it->steps[k];
		const struct map_scrub_type_info *t = map_scrub_type(s->type);
		uint32_t after = 0;
		char buf[96];
		int rc;

		if (!s->rebuilt || s->outcome == OUTCOME_FAILED)
			continue;	/* only what this run rebuilt */
		rc = scrub_object(fs, it, s->type, 0, &after);
		if (rc || (after & (XFS_SCRUB_OFLAG_CORRUPT | XFS_SCRUB_OFLAG_XCORRUPT))) {
			s->outcome = OUTCOME_FAILED;
			snprintf(s->detail, sizeof(s->detail), "%s: damaged again at the final check (%s)",
				 t->name, rc ? map_strerror(rc) : map_scrub_oflags_str(after, buf, sizeof(buf)));
		}
	}
}

/*
 * Rebuilding AG headers and btrees leaves the summary counters marked sick;
 * until they are checked the filesystem cannot be unmounted clean.  After a
 * directory rebuild the link counts may be off too.  Ask the kernel to
 * recount (fscounters freezes the filesystem for a moment).
 */
static int recount(const struct repair_run_ops *ops, struct map_fs *fs, struct map_store *st,
		   int64_t fs_id, uint32_t type, const char *why)
{
	const struct map_scrub_type_info *t = map_scrub_type(type);
	uint32_t oflags = 0;
	char detail[160];
	int rc = map_scrub_call(map_fs_fd(fs), type, 0, 0, 0, XFS_SCRUB_IFLAG_REPAIR, &oflags);
	const char *outcome = rc ? "failed" :
			      (oflags & XFS_SCRUB_OFLAG_NO_REPAIR_NEEDED) ? "not-needed" : "repaired";

	snprintf(detail, sizeof(detail), "%s: %s", t->name, rc ? map_strerror(rc) : why);
	if (ops->recount)
		ops->recount(outcome, detail, ops->arg);
	return record_action(st, fs_id, 0, "repair", outcome, detail);
}

const char *repair_step_word(enum repair_outcome o)
{
	return o == OUTCOME_HEALED || o == OUTCOME_LOST ? "repaired" : repair_outcome_name(o);
}

/* One finding's steps, its outcome and the state it leads to, in one
 * transaction: all or nothing. */
static int record_item(struct map_store *st, int64_t fs_id, const struct plan_item *it)
{
	char detail[512];
	int state = -1;
	int rc = map_store_begin(st);

	if (rc)
		return rc;
	for (int k = 0; k < it->nsteps && rc == 0; k++)
		rc = record_action(st, fs_id, it->f.id, "repair", repair_step_word(it->steps[k].outcome),
				   it->steps[k].detail);
	snprintf(detail, sizeof(detail), "%s%s%s", repair_outcome_name(it->outcome),
		 it->lost[0] ? ": " : "", it->lost);
	if (rc == 0)
		rc = record_action(st, fs_id, it->f.id, "repair-result",
				   repair_outcome_name(it->outcome), detail);
	switch (it->outcome) {
	case OUTCOME_NOT_NEEDED: state = MAP_STATE_RESOLVED; break;
	case OUTCOME_HEALED:
	case OUTCOME_LOST: state = MAP_STATE_REPAIRED; break;
	default: break;
	}
	if (rc == 0 && state >= 0)
		rc = map_store_finding_set_state(st, it->f.id, (enum map_finding_state)state);
	return store_finish(st, rc);
}

/* Phase by phase, and in each phase the scrub types in their rank order
 * across all findings. */
int repair_plan_run(struct map_fs *fs, struct map_store *st, int64_t fs_id, struct repair_plan *p,
		    const struct repair_run_ops *ops)
{
	const struct map_geometry *geo = &map_fs_info(fs)->geo;
	bool rebuilt = false, relinked = false;
	int unrecorded = 0;

	for (int ph = 0; ph < MAP_PHASE_NR * MAP_SCRUB_RANKS; ph++) {
		for (size_t i = 0; i < p->n; i++) {
			struct plan_item *it = &p->v[i];

			for (int k = 0; k < it->nsteps; k++) {
				struct plan_step *s = &it->steps[k];

				if ((int)s->phase != ph / MAP_SCRUB_RANKS ||
				    (int)map_scrub_type(s->type)->rank != ph % MAP_SCRUB_RANKS)
					continue;
				run_step(fs, it, s);
				if (s->outcome == OUTCOME_HEALED || s->outcome == OUTCOME_LOST) {
					rebuilt = true;
					relinked |= s->type == XFS_SCRUB_TYPE_DIR ||
						    s->type == XFS_SCRUB_TYPE_PARENT;
				}
				if (ops->step)
					ops->step(it, s, ops->arg);
			}
		}
	}
	for (size_t i = 0; i < p->n; i++) {
		recheck(fs, &p->v[i]);
		settle(&p->v[i], geo);
		int wrc = record_item(st, fs_id, &p->v[i]);

		if (wrc) {
			if (ops->unrecorded)
				ops->unrecorded(p->v[i].f.id, wrc, ops->arg);
			unrecorded++;
		}
	}
	if (relinked && recount(ops, fs, st, fs_id, XFS_SCRUB_TYPE_NLINKS,
				"link counts checked after the directory rebuilds"))
		unrecorded++;
	if (rebuilt && recount(ops, fs, st, fs_id, XFS_SCRUB_TYPE_FSCOUNTERS,
			       "summary counters recounted after the rebuild"))
		unrecorded++;
	return unrecorded;
}
