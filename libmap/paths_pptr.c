// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Resolve, with parent pointers: each target's names from
 * GETPARENTS_BY_HANDLE, and its directories' names up to the root the same
 * way; no directory is read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "paths_internal.h"

/* Every (parent, name) of ino/gen from GETPARENTS_BY_HANDLE. */
static int pptr_each(struct resolve *r, uint64_t ino, uint32_t gen,
		     int (*fn)(struct resolve *, uint64_t pino, uint32_t pgen, const char *name,
			       void *), void *arg, bool *is_root)
{
	struct map_xfs_getparents_by_handle req;
	char *buf = malloc(GETDENTS_BUF);
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	memset(&req, 0, sizeof(req));
	req.gph_handle = r->fs->fshandle;
	memset(&req.gph_handle.ha_fid, 0, sizeof(req.gph_handle.ha_fid));
	req.gph_handle.ha_fid.fid_len = sizeof(req.gph_handle.ha_fid) -
					sizeof(req.gph_handle.ha_fid.fid_len);
	req.gph_handle.ha_fid.fid_ino = ino;
	req.gph_handle.ha_fid.fid_gen = gen;
	req.gph_request.gp_buffer = (uintptr_t)buf;
	req.gph_request.gp_bufsize = GETDENTS_BUF;
	*is_root = false;
	for (;;) {
		if (ioctl(r->fs->fd, MAP_XFS_IOC_GETPARENTS_BY_HANDLE, &req) != 0) {
			rc = -errno;
			break;
		}
		if (req.gph_request.gp_oflags & MAP_XFS_GETPARENTS_OFLAG_ROOT)
			*is_root = true;
		for (size_t off = 0; off < GETDENTS_BUF;) {
			struct map_xfs_getparents_rec *rec = (void *)(buf + off);

			if (rec->gpr_reclen == 0)
				break;
			rc = fn(r, rec->gpr_parent.ha_fid.fid_ino, rec->gpr_parent.ha_fid.fid_gen,
				rec->gpr_name, arg);
			if (rc)
				goto out;
			off += rec->gpr_reclen;
		}
		if (req.gph_request.gp_oflags & MAP_XFS_GETPARENTS_OFLAG_DONE)
			break;
		memset(buf, 0, GETDENTS_BUF);
	}
out:
	free(buf);
	return rc;
}

static int pptr_name_dir(struct resolve *r, uint64_t dir, uint32_t gen, int depth);

static int pptr_dir_parent(struct resolve *r, uint64_t pino, uint32_t pgen, const char *name,
			   void *arg)
{
	uint64_t dir = *(uint64_t *)arg;
	int rc = map_dirmap_add(r->dm, dir, pino, name, strlen(name));

	(void)pgen;	/* the parent's generation is learnt by bulkstat if needed */

	return rc ? rc : 1;	/* a directory has one parent: stop */
}

/* Learn the names of @dir and its ancestors up to the root. */
static int pptr_name_dir(struct resolve *r, uint64_t dir, uint32_t gen, int depth)
{
	bool is_root;
	int rc;

	if (map_dirmap_known(r->dm, dir) || depth > 4096)
		return 0;
	rc = pptr_each(r, dir, gen, pptr_dir_parent, &dir, &is_root);
	if (rc < 0)
		return rc;
	uint64_t missing = map_dirmap_missing(r->dm, dir);
	if (missing && missing != dir) {
		struct xfs_bulkstat bs;

		if (map_bulkstat_one(r->fs, missing, &bs) == 0)
			return pptr_name_dir(r, missing, bs.bs_gen, depth + 1);
	}
	return 0;
}

static int pptr_hit(struct resolve *r, uint64_t pino, uint32_t pgen, const char *name, void *arg)
{
	uint64_t ino = *(uint64_t *)arg;
	int rc = resolve_add_hit(r, pino, ino, name, strlen(name));

	if (rc)
		return rc;
	return pptr_name_dir(r, pino, pgen, 0);
}

/* Forget the hits recorded since @mark (a target whose parent pointers could
 * not all be read is looked up again in the directories). */
static void drop_hits(struct resolve *r, size_t mark)
{
	while (r->nhits > mark)
		free(r->hits[--r->nhits].name);
}

/*
 * Each target's names from its parent pointers: a few calls per target, no
 * directory read.  A target whose inode or parent pointers cannot be read
 * (an unreadable inode cluster, a damaged attribute fork), or that has fewer
 * parent pointers than links, is looked for in the directories instead, and
 * the statistics say how many were.
 */
int resolve_pptr(struct resolve *r)
{
	bool fallback = false;

	for (size_t i = 0; i < r->ntargets; i++) {
		uint64_t ino = r->target_inos[i];
		struct target *t = map_inohash_get(r->targets, ino, false);
		struct map_paths *p = &r->res[t->index];
		size_t mark = r->nhits;
		bool is_root;
		int rc = 0;

		if (t->needed == 0 || t->found >= t->needed || ino == r->fs->info.root_ino)
			continue;
		if (!p->unreadable) {
			r->stats->pptr_lookups++;
			rc = pptr_each(r, ino, p->gen, pptr_hit, &ino, &is_root);
			if (rc == -ENOMEM)
				return rc;
		}
		if (p->unreadable || rc < 0 || r->nhits - mark < t->needed) {
			drop_hits(r, mark);
			p->pptr_unreadable = true;
			r->stats->pptr_fallbacks++;
			fallback = true;
			continue;
		}
		t->found = (uint32_t)(r->nhits - mark);
	}
	return fallback ? resolve_by_windows(r) : 0;
}
