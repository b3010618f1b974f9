// SPDX-License-Identifier: GPL-2.0-or-later
/* A watched filesystem made ready for its first report (see warmup.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"
#include "log.h"
#include "warmup.h"

/*
 * The steps of a file report, on the root directory: its written blocks
 * (none, or a few), a read of the block that holds its inode, the owner of
 * the inode's bytes (GETFSMAP over one inode, bulkstat of one inode) and,
 * with parent pointers, that owner's path.  Without them naming walks the
 * directories (or waits for the directory index), which is the size of the
 * filesystem, not of one inode: the root is then given its path, "/", by
 * hand.  The finding it makes, @f, is only rehearsed.
 */
static int locate_root(struct map_fs *fs, md_warmup_read_fn read, void *arg,
		       struct map_finding *f)
{
	const struct map_fs_info *info = map_fs_info(fs);
	uint64_t bs = info->geo.blocksize, at = map_geo_ino_to_byte(&info->geo, info->root_ino);
	struct map_range_list block = { 0 };
	struct map_owner_list owners = { 0 };
	struct map_paths *paths = NULL;
	bool named = info->geo.parent;
	int fd, rc;

	fd = map_open_inode(fs, info->root_ino, 0, 0);
	if (fd >= 0) {
		struct map_range_list r = { 0 };

		map_file_span_ranges(fd, 0, info->geo.blocksize, &r);
		map_range_free(&r);
		close(fd);
	}
	if (bs && map_range_add(&block, at / bs * bs, bs) == 0)
		read(fs, &block, arg);
	map_range_free(&block);
	if (named)
		rc = map_locate_paths(fs, at, info->geo.inodesize, &owners, &paths);
	else
		rc = map_locate(fs, at, info->geo.inodesize, &owners);
	for (size_t k = 0; rc == 0 && k < owners.n; k++) {
		if (owners.v[k].ino != info->root_ino)
			continue;
		map_finding_from_owner(f, MAP_SOURCE_EVENT, &owners.v[k], paths ? &paths[k] : NULL);
		if (!named)
			map_finding_add_path(f, "/");
		break;
	}
	map_paths_free(paths, owners.n);
	map_owner_list_free(&owners);
	return rc;
}

void md_warmup_fs(struct md_fscache *c, struct md_dbwriter *db, md_warmup_read_fn read, void *arg,
		  const char *uuid, const char *mountpoint)
{
	struct md_spool_entry e = { .have_info = true };
	struct map_finding f;
	struct map_fs *fs;
	double t0 = md_mono(), t1, t2;
	int rc;

	map_finding_init(&f);
	rc = md_fscache_open(c, mountpoint, uuid, &fs);
	if (rc) {
		log_debug("%s %s: not made ready for reports: %s", uuid, mountpoint,
			  map_strerror(rc));
		return;
	}
	t1 = md_mono();
	e.info = *map_fs_info(fs);
	rc = locate_root(fs, read, arg, &f);
	map_fs_close(fs);
	t2 = md_mono();
	if (rc == 0 && f.kind[0]) {
		e.v = &f;
		e.n = 1;
	}
	e.row = (struct map_event){ .ino = e.info.root_ino, .error = EIO,
				    .source = MAP_EVENT_HEALTHMON };
	snprintf(e.row.detail, sizeof(e.row.detail), "rehearsal, rolled back");
	md_dbwriter_rehearse(db, &e);
	map_finding_clear(&f);
	log_debug("%s %s: ready for reports: open %.3f s, locate %.3f s (%s), store %.3f s", uuid,
		  mountpoint, t1 - t0, t2 - t1, rc ? map_strerror(rc) : "ok", md_mono() - t2);
}
