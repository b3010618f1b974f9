// SPDX-License-Identifier: GPL-2.0-or-later
/* Repair: turn open findings into ordered steps. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "act_repair_plan.h"
#include "xfs_abi.h"

static const char *const outcome_names[] = {
	[OUTCOME_PENDING] = "planned",
	[OUTCOME_NOT_NEEDED] = "not-needed",
	[OUTCOME_HEALED] = "healed",
	[OUTCOME_LOST] = "lost-data",
	[OUTCOME_UNSUPPORTED] = "unsupported",
	[OUTCOME_FAILED] = "failed",
};

const char *repair_outcome_name(enum repair_outcome o)
{
	return o <= OUTCOME_FAILED ? outcome_names[o] : "?";
}

void repair_caps_probe(int fd, const struct map_geometry *geo, struct repair_caps *caps)
{
	uint32_t oflags = 0;
	int rc = map_scrub_call(fd, XFS_SCRUB_TYPE_PROBE, 0, 0, 0, XFS_SCRUB_IFLAG_REPAIR, &oflags);

	memset(caps, 0, sizeof(*caps));
	caps->geo = *geo;
	caps->kernel_repairs = rc == 0;
	if (rc == -EOPNOTSUPP || rc == -ENOTTY || rc == -MAP_ENOSCRUB)
		caps->kernel_why = "this kernel has no online repair (CONFIG_XFS_ONLINE_REPAIR)";
	else if (rc == -EROFS)
		caps->kernel_why = "the filesystem is mounted read-only";
	else if (rc)
		caps->kernel_why = "the kernel refuses repair requests";
}

/* Why a step cannot run online, known before trying (NULL: try it). */
static const char *known_unsupported(const struct repair_caps *caps, uint32_t type, int64_t agno)
{
	const struct map_geometry *geo = &caps->geo;

	if (!geo->v5)
		return "V4 filesystems cannot be repaired online";
	if (!caps->kernel_repairs)
		return caps->kernel_why;
	if (type == XFS_SCRUB_TYPE_SB && agno <= 0)
		return "the primary superblock is never rebuilt online";
	if ((type == XFS_SCRUB_TYPE_DIR || type == XFS_SCRUB_TYPE_XATTR ||
	     type == XFS_SCRUB_TYPE_SYMLINK || (type == XFS_SCRUB_TYPE_PARENT && geo->parent)) &&
	    !geo->exchange_range)
		return "needs the exchange-range feature, which this filesystem lacks";
	if (type == XFS_SCRUB_TYPE_HEALTHY)
		return "nothing to rebuild: it summarises the others";
	return NULL;
}

const char *repair_remedy(const struct repair_caps *caps, const struct plan_step *s)
{
	if (caps->geo.v5 && !caps->kernel_repairs && caps->kernel_why &&
	    strstr(caps->kernel_why, "read-only"))
		return "remount read-write (mount -o remount,rw), then repair again";
	if (caps->geo.v5 && !caps->kernel_repairs)
		return "boot a kernel built with CONFIG_XFS_ONLINE_REPAIR=y, or take the offline "
		       "path: mapctl repair --offline-plan";
	if (s->type == XFS_SCRUB_TYPE_HEALTHY)
		return "none needed";
	return "take the offline path: mapctl repair --offline-plan (unmounts; xfs_repair)";
}

static int cmp_type(const void *a, const void *b)
{
	return map_scrub_type_cmp(*(const uint32_t *)a, *(const uint32_t *)b);
}

/* A device range that could not be read is behind this finding: the copy
 * in memory may look fine, so the rebuild must be forced. */
static bool finding_unreadable(const struct map_finding *f)
{
	return f->has_range || strstr(f->detail, "Input/output error") ||
	       f->source != MAP_SOURCE_SCRUB;
}

/* Whether inode @ino's record lies in the device range recorded for @f. */
static bool inode_in_range(const struct map_geometry *geo, uint64_t ino,
			   const struct map_finding *f)
{
	unsigned int bits = geo->agblklog + geo->inopblog;
	uint64_t agno = ino >> bits, agino = ino & ((1ULL << bits) - 1);
	uint64_t byte = (agno * geo->agblocks + (agino >> geo->inopblog)) * geo->blocksize +
			(agino & ((1ULL << geo->inopblog) - 1)) * geo->inodesize;

	return f->has_range && byte >= f->physical && byte < f->physical + f->length;
}

int repair_plan_add(struct repair_plan *p, const struct repair_caps *caps,
		    const struct map_finding *f)
{
	uint32_t types[PLAN_MAX_TYPES];
	char names[sizeof(f->scrub)];
	char *save = NULL;
	int n = 0;

	if (!strcmp(f->kind, "file") || !f->scrub[0]) {
		/* File data: nothing for the kernel to rebuild. */
		if (!strcmp(f->kind, "file")) {
			p->data_findings++;
			p->data_paths += f->npaths;
		}
		return 0;
	}
	snprintf(names, sizeof(names), "%s", f->scrub);
	for (char *t = strtok_r(names, ",", &save); t && n < PLAN_MAX_TYPES;
	     t = strtok_r(NULL, ",", &save)) {
		int type = map_scrub_type_by_name(t);
		bool dup = false;

		for (int k = 0; k < n; k++)
			dup |= types[k] == (uint32_t)type;
		if (type >= 0 && !dup)
			types[n++] = (uint32_t)type;
	}
	if (n == 0)
		return 0;
	/* A rebuilt inode comes back without its attributes, and an xattr
	 * salvage drops those of the blocks it cannot read; with them go the
	 * parent pointers stored there: rebuild those after it, from the
	 * directory entries (not-needed if intact). */
	bool has_attrs = false, has_parent = false;
	for (int k = 0; k < n; k++) {
		has_attrs |= types[k] == XFS_SCRUB_TYPE_INODE || types[k] == XFS_SCRUB_TYPE_XATTR;
		has_parent |= types[k] == XFS_SCRUB_TYPE_PARENT;
	}
	if (has_attrs && !has_parent && caps->geo.parent && n < PLAN_MAX_TYPES)
		types[n++] = XFS_SCRUB_TYPE_PARENT;
	qsort(types, (size_t)n, sizeof(types[0]), cmp_type);

	struct plan_item *v = realloc(p->v, (p->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->v = v;
	struct plan_item *it = &p->v[p->n];
	memset(it, 0, sizeof(*it));
	it->f = *f;
	it->f.paths = NULL;
	it->f.npaths = 0;
	for (size_t i = 0; i < f->npaths; i++)
		if (map_finding_add_path(&it->f, f->paths[i]))
			return -ENOMEM;
	it->unreadable = finding_unreadable(f);
	/* The neighbours of a lost inode in its cluster (flagged so by
	 * map_locate) are unreadable only because the cluster is read whole:
	 * the rebuild keeps them as they are. */
	it->on_lost_sector = f->ino && inode_in_range(&caps->geo, f->ino, f) &&
			     !(f->flags & MAP_OWNER_F_CLUSTER);
	for (int k = 0; k < n; k++) {
		struct plan_step *s = &it->steps[k];

		s->type = types[k];
		s->phase = map_scrub_type(types[k])->phase;
		s->unsupported = known_unsupported(caps, types[k], f->agno);
		if (s->unsupported)
			p->offline_needed = true;
	}
	it->nsteps = n;
	p->n++;
	return 0;
}

static int cmp_item(const void *a, const void *b)
{
	const struct plan_item *x = a, *y = b;

	if (x->steps[0].phase != y->steps[0].phase)
		return x->steps[0].phase < y->steps[0].phase ? -1 : 1;
	/* Objects on unreadable sectors first: rebuilding an inode that lies
	 * in a lost sector rewrites its whole cluster, after which the other
	 * inodes of the cluster read again and need nothing. */
	if (x->on_lost_sector != y->on_lost_sector)
		return x->on_lost_sector ? -1 : 1;
	if (x->f.has_range != y->f.has_range)
		return x->f.has_range ? -1 : 1;
	if (x->f.agno != y->f.agno)
		return x->f.agno < y->f.agno ? -1 : 1;
	if (x->f.ino != y->f.ino)
		return x->f.ino < y->f.ino ? -1 : 1;
	return x->f.id < y->f.id ? -1 : x->f.id > y->f.id;
}

void repair_plan_sort(struct repair_plan *p)
{
	if (p->n)
		qsort(p->v, p->n, sizeof(p->v[0]), cmp_item);
}

/* One finding of the plan, with its steps. */
static void json_item(struct map_json *j, const struct plan_item *it,
		      const struct repair_caps *caps, const char *mnt)
{
	map_json_obj(j, NULL);
	map_json_int(j, "finding_id", it->f.id);
	map_json_str(j, "kind", it->f.kind);
	map_json_uint_or_null(j, "ag", it->f.agno >= 0, (uint64_t)it->f.agno);
	map_json_uint_or_null(j, "inode", it->f.ino, it->f.ino);
	map_json_arr(j, "paths");
	for (size_t k = 0; k < it->f.npaths; k++) {
		char *full = map_join_path(mnt, it->f.paths[k]);

		map_json_str(j, NULL, full ? full : it->f.paths[k]);
		free(full);
	}
	map_json_end_arr(j);
	map_json_bool(j, "unreadable", it->unreadable);
	map_json_str(j, "outcome", repair_outcome_name(it->outcome));
	map_json_str_or_null(j, "lost", it->lost);
	map_json_arr(j, "steps");
	for (int k = 0; k < it->nsteps; k++) {
		const struct plan_step *s = &it->steps[k];

		map_json_obj(j, NULL);
		map_json_str(j, "scrub", map_scrub_type(s->type)->name);
		map_json_str(j, "phase", map_scrub_phase_name(s->phase));
		map_json_str(j, "outcome", repair_outcome_name(s->outcome));
		map_json_str_or_null(j, "detail", s->detail);
		map_json_str_or_null(j, "remedy", s->unsupported ||
				     s->outcome == OUTCOME_UNSUPPORTED ? repair_remedy(caps, s) :
				     NULL);
		map_json_end_obj(j);
	}
	map_json_end_arr(j);
	map_json_end_obj(j);
}

void repair_plan_json(struct map_json *j, const struct repair_plan *p,
		      const struct repair_caps *caps, const char *uuid, const char *mnt,
		      bool dry_run)
{
	map_json_str(j, "fs_uuid", uuid);
	map_json_str(j, "mountpoint", mnt);
	map_json_bool(j, "dry_run", dry_run);
	map_json_bool(j, "kernel_repairs", caps->kernel_repairs);
	map_json_arr(j, "findings");
	for (size_t i = 0; i < p->n; i++)
		json_item(j, &p->v[i], caps, mnt);
	map_json_end_arr(j);
	map_json_uint(j, "data_findings", p->data_findings);
}

void repair_plan_free(struct repair_plan *p)
{
	for (size_t i = 0; i < p->n; i++)
		map_finding_clear(&p->v[i].f);
	free(p->v);
	memset(p, 0, sizeof(*p));
}
