// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Which recorded filesystem a database-only command (status, files, history,
 * events, export) is about (fs_pick in libmap), and why not, in words.
 */
#include <errno.h>

#include "mapctl.h"
#include "map_act_fs_pick.h"

/* Candidates named when an argument fits several recorded filesystems or
 * none: a screenful; past it, a count. */
#define CANDIDATES_SHOWN 16

static int say_candidate(const struct map_store_fs *fs, void *arg)
{
	int *listed = arg;
	char t[32];

	if ((*listed)++ < CANDIDATES_SHOWN)
		fprintf(stderr, "  %s  %s  last seen %s\n", shown(fs->uuid), shown(fs->mountpoint),
			map_human_time(fs->last_seen, t, sizeof(t)));
	else if (*listed == CANDIDATES_SHOWN + 1)
		fprintf(stderr, "  ... and more\n");
	return 0;
}

/* Why @arg names no single recorded filesystem (@r): EXIT_ERROR. */
static int not_picked(const struct ctl *ctl, struct map_store *st, const char *arg,
		      const struct fs_pick *r)
{
	int listed = 0;

	switch (r->end) {
	case FS_PICK_FOUND:
	case FS_PICK_DB:
		break;
	case FS_PICK_DEVICE_SEVERAL:
		return fail(ctl, 0, "%s held %d recorded filesystems and its superblock names none: "
			    "give the UUID (mapctl status lists them)", shown(arg), r->n);
	case FS_PICK_DEVICE_NONE:
		return fail(ctl, 0, "%s: no filesystem of the database is on this device%s",
			    shown(arg), r->xfs ? "" : " (no XFS superblock could be read on it)");
	case FS_PICK_MOUNT_SEVERAL:
		fail(ctl, 0, "%s was the mount point of %d recorded filesystems: give the UUID of "
		     "one of them:", shown(arg), r->n);
		fs_pick_each_at(st, arg, say_candidate, &listed);
		return EXIT_ERROR;
	case FS_PICK_NEVER_SCANNED:
		return fail(ctl, 0, "%s (uuid %s) has never been scanned", shown(r->live_mountpoint),
			    r->live_uuid);
	case FS_PICK_UNKNOWN:
		fail(ctl, 0, "%s is neither the UUID nor the recorded mount point of a filesystem "
		     "in the database, nor on a mounted XFS filesystem; recorded are:", shown(arg));
		map_store_fs_each(st, say_candidate, &listed);
		if (listed == 0)
			fprintf(stderr, "  (none yet)\n");
		return EXIT_ERROR;
	}
	return fail(ctl, r->err, "reading the database");
}

int fs_from_store(const struct ctl *ctl, struct map_store *st, const char *arg, int64_t *fs_id,
		  struct map_store_fs *out)
{
	struct fs_pick r;

	*fs_id = 0;
	if (!arg)
		return 0;
	if (fs_pick(st, arg, &r) != 0)
		return not_picked(ctl, st, arg, &r);
	*out = r.fs;
	*fs_id = out->id;
	return 0;
}
