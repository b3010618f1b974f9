// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The event pipeline's findings: what one report turned into, as bad device
 * bytes mapped to their owners and paths, or inodes scrub calls corrupt.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "log.h"
#include "pipeline_internal.h"

static int outcome_add(struct outcome *o, struct map_finding *f)
{
	struct map_finding *v = realloc(o->v, (o->n + 1) * sizeof(*v));

	if (!v) {
		map_finding_clear(f);
		return -ENOMEM;
	}
	o->v = v;
	v[o->n++] = *f;		/* takes the paths */
	return 0;
}

void pipeline_outcome_free(struct outcome *o)
{
	for (size_t i = 0; i < o->n; i++)
		map_finding_clear(&o->v[i]);
	free(o->v);
	memset(o, 0, sizeof(*o));
}

static bool have_finding(const struct outcome *o, uint64_t ino, const char *kind,
			 uint64_t physical)
{
	for (size_t i = 0; i < o->n; i++)
		if (o->v[i].ino == ino && strcmp(o->v[i].kind, kind) == 0 &&
		    o->v[i].physical == physical)
			return true;
	return false;
}

/* Owners and paths of bad device bytes, as findings. */
static int locate_range(struct map_fs *fs, uint64_t start, uint64_t length, struct outcome *o)
{
	struct map_owner_list owners = { 0 };
	struct map_paths *paths = NULL;
	double t0 = md_mono();
	int rc = map_locate_paths(fs, start, length, &owners, &paths);

	log_debug("%s: located %" PRIu64 "+%" PRIu64 ": %zu owners in %.3f s", map_fs_info(fs)->uuid,
		  start, length, owners.n, md_mono() - t0);
	for (size_t k = 0; rc == 0 && k < owners.n; k++) {
		const struct map_owner *ow = &owners.v[k];
		struct map_finding f;

		if (ow->kind == MAP_OWNER_FREE) {
			log_info("%s: bad bytes %" PRIu64 "+%" PRIu64 " are free space: nothing lost",
				 map_fs_info(fs)->uuid, ow->physical, ow->length);
			continue;
		}
		if (ow->kind == MAP_OWNER_INODES && owners.n > 1)
			continue;	/* its inodes are recorded one by one */
		if (have_finding(o, ow->ino, map_owner_kind_name(ow->kind), ow->physical))
			continue;
		map_finding_from_owner(&f, MAP_SOURCE_EVENT, ow, paths ? &paths[k] : NULL);
		rc = outcome_add(o, &f);
	}
	map_paths_free(paths, owners.n);
	map_owner_list_free(&owners);
	return rc;
}

/* Every range a read proved bad, counted and mapped to its owners. */
int pipeline_locate_bad(struct map_fs *fs, const struct map_range_list *bad, struct outcome *o)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < bad->n; i++) {
		o->bad_ranges++;
		rc = locate_range(fs, bad->v[i].start, bad->v[i].length, o);
	}
	return rc;
}

/* Ask the kernel's scrub about one inode; corrupt results become findings. */
int pipeline_scrub_inode(struct map_fs *fs, const struct md_sick_inode *si, struct outcome *o)
{
	const struct map_fs_info *info = map_fs_info(fs);
	uint32_t types[16];
	size_t n = map_scrub_inode_types(&info->geo, si->mode, si->has_attr, types, 16);
	struct map_paths *paths = NULL;
	size_t first = o->n;
	int rc = 0;

	/* Without online scrub every call fails ENOTTY: that says nothing
	 * about the inode, and must not become a finding. */
	if (map_scrub_probe(map_fs_fd(fs)) == -MAP_ENOSCRUB)
		return 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct map_scrub_result r = { .type = types[i], .ino = si->ino, .gen = si->gen };

		r.error = map_scrub_call(map_fs_fd(fs), types[i], 0, si->ino, si->gen, 0, &r.oflags);
		if (r.error == -ENOENT || r.error == -EBUSY || r.error == -EOPNOTSUPP)
			continue;
		if (!r.error && !map_scrub_oflags_corrupt(r.oflags))
			continue;
		struct map_finding f;

		map_finding_from_scrub(&f, &r);
		f.source = MAP_SOURCE_EVENT;
		f.mode = si->mode;
		rc = outcome_add(o, &f);
	}
	if (rc || o->n == first)
		return rc;
	if (map_resolve_paths(fs, &si->ino, 1, &paths, NULL) == 0) {
		for (size_t i = first; i < o->n; i++)
			for (size_t k = 0; k < paths[0].npaths; k++)
				map_finding_add_path(&o->v[i], paths[0].paths[k]);
		map_paths_free(paths, 1);
	}
	return 0;
}
