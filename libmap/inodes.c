// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Inodes: bulkstat walks that survive unreadable inode clusters, inode chunk
 * allocation masks, and opening an inode by handle.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "map_internal.h"

#define CHUNK_INODES	64	/* inodes per inode chunk (inobt record) */
#define INUMBERS_BATCH	256	/* chunks per INUMBERS call */
#define BULKSTAT_BATCH	1024	/* inodes per BULKSTAT call */

int map_bulkstat_call(struct map_fs *fs, struct xfs_bulkstat_req *req, uint64_t ino,
		      uint32_t count)
{
	/* Clear the records too: the ioctl's size covers only the header, so
	 * memory checkers cannot tell that the kernel filled the records. */
	memset(req, 0, XFS_BULKSTAT_REQ_SIZE(count));
	req->hdr.ino = ino;
	req->hdr.icount = count;
	req->hdr.flags = XFS_BULK_IREQ_NREXT64;
	if (ioctl(fs->fd, XFS_IOC_BULKSTAT, req) != 0)
		return -errno;
	return 0;
}

int map_bulkstat_one(struct map_fs *fs, uint64_t ino, struct xfs_bulkstat *bs)
{
	struct {
		struct xfs_bulkstat_req req;
		struct xfs_bulkstat one;
	} buf;
	int rc = map_bulkstat_call(fs, &buf.req, ino, 1);

	if (rc)
		return rc;
	/* Bulkstat answers with the first allocated inode at or after ino. */
	if (buf.req.hdr.ocount != 1 || buf.req.bulkstat[0].bs_ino != ino)
		return -ENOENT;
	*bs = buf.req.bulkstat[0];
	return 0;
}

int map_inumbers_chunk(struct map_fs *fs, uint64_t ino, uint64_t *startino, uint64_t *mask)
{
	struct {
		struct xfs_inumbers_req req;
		struct xfs_inumbers one;
	} buf;
	uint32_t agno, agino;

	/* Start the query at the first inode of the chunk that holds ino. */
	map_geo_ino_split(&fs->info.geo, ino, &agno, &agino);
	memset(&buf, 0, sizeof(buf));
	buf.req.hdr.ino = map_geo_ino(&fs->info.geo, agno, agino & ~(uint32_t)(CHUNK_INODES - 1));
	buf.req.hdr.icount = 1;
	if (ioctl(fs->fd, XFS_IOC_INUMBERS, &buf.req) != 0)
		return -errno;
	if (buf.req.hdr.ocount != 1)
		return -ENOENT;
	if (ino < buf.one.xi_startino || ino >= buf.one.xi_startino + CHUNK_INODES)
		return -ENOENT;
	*startino = buf.one.xi_startino;
	*mask = buf.one.xi_allocmask;
	return 0;
}

struct walk {
	struct map_fs *fs;
	map_bulkstat_fn fn;
	map_bulkstat_bad_fn bad;
	void *arg;
	struct xfs_bulkstat_req *req;
};

/* The next inode at or after @cursor that INUMBERS says is allocated. */
static uint64_t next_allocated(const struct xfs_inumbers *chunks, uint32_t n, uint64_t cursor)
{
	for (uint32_t ci = 0; ci < n; ci++) {
		const struct xfs_inumbers *c = &chunks[ci];

		if (cursor >= c->xi_startino + CHUNK_INODES)
			continue;
		for (uint64_t i = cursor > c->xi_startino ? cursor - c->xi_startino : 0;
		     i < CHUNK_INODES; i++)
			if (c->xi_allocmask & (1ULL << i))
				return c->xi_startino + i;
	}
	return UINT64_MAX;
}

/*
 * Bulkstat the allocated inodes of chunks[0..n).  The kernel fills a batch
 * until it runs out of inodes or meets one it cannot read; then it returns
 * what it had, or the error when it had nothing.  So after a short batch or
 * an error we probe the next inode INUMBERS says is allocated on its own,
 * report it if it is unreadable, and carry on after it.
 */
static int walk_chunks(struct walk *w, const struct xfs_inumbers *chunks, uint32_t n)
{
	uint64_t cursor = chunks[0].xi_startino;
	uint64_t end = chunks[n - 1].xi_startino + CHUNK_INODES;

	while (cursor < end) {
		int rc = map_bulkstat_call(w->fs, w->req, cursor, BULKSTAT_BATCH);

		if (rc == 0) {
			uint32_t got = w->req->hdr.ocount;

			if (got == 0)
				break;
			for (uint32_t i = 0; i < got; i++) {
				const struct xfs_bulkstat *bs = &w->req->bulkstat[i];

				if (bs->bs_ino >= end)
					return 0;
				rc = w->fn(w->fs, bs, w->arg);
				if (rc)
					return rc;
				cursor = bs->bs_ino + 1;
			}
			if (got == BULKSTAT_BATCH)
				continue;
		}

		uint64_t next = next_allocated(chunks, n, cursor);
		if (next == UINT64_MAX || next >= end)
			break;

		struct xfs_bulkstat bs;
		int one = map_bulkstat_one(w->fs, next, &bs);
		if (one == 0) {
			rc = w->fn(w->fs, &bs, w->arg);
			if (rc)
				return rc;
		} else if (one != -ENOENT && w->bad) {
			w->bad(w->fs, next, one, w->arg);
		}
		cursor = next + 1;
	}
	return 0;
}

int map_bulkstat_walk(struct map_fs *fs, uint64_t start, map_bulkstat_fn fn,
		      map_bulkstat_bad_fn bad, void *arg)
{
	return map_bulkstat_walk_range(fs, start, UINT64_MAX, fn, bad, arg);
}

int map_bulkstat_walk_range(struct map_fs *fs, uint64_t start, uint64_t end, map_bulkstat_fn fn,
			    map_bulkstat_bad_fn bad, void *arg)
{
	const struct map_geometry *geo = &fs->info.geo;
	struct xfs_inumbers_req *ireq;
	struct walk w = { .fs = fs, .fn = fn, .bad = bad, .arg = arg };
	uint64_t ino = start;
	int rc = 0;

	ireq = calloc(1, XFS_INUMBERS_REQ_SIZE(INUMBERS_BATCH));
	w.req = calloc(1, XFS_BULKSTAT_REQ_SIZE(BULKSTAT_BATCH));
	if (!ireq || !w.req) {
		rc = -ENOMEM;
		goto out;
	}
	for (;;) {
		memset(&ireq->hdr, 0, sizeof(ireq->hdr));
		ireq->hdr.ino = ino;
		ireq->hdr.icount = INUMBERS_BATCH;
		if (ioctl(fs->fd, XFS_IOC_INUMBERS, ireq) != 0) {
			uint32_t agno, agino;

			/* The inode btree of this AG cannot be read: report
			 * it and go on with the next AG. */
			rc = -errno;
			if (rc == -EINTR || rc == -ENOMEM)
				goto out;
			if (bad)
				bad(fs, ino, rc, arg);
			map_geo_ino_split(geo, ino, &agno, &agino);
			if (agno + 1 >= geo->agcount) {
				rc = 0;
				goto out;
			}
			ino = map_geo_ino(geo, agno + 1, 0);
			rc = 0;
			if (ino >= end)
				break;
			continue;
		}
		/* Only the chunks that start before @end. */
		uint32_t n = 0;
		while (n < ireq->hdr.ocount && ireq->inumbers[n].xi_startino < end)
			n++;
		if (n == 0)
			break;
		rc = walk_chunks(&w, ireq->inumbers, n);
		if (rc)
			goto out;
		if (n < ireq->hdr.ocount)
			break;
		ino = ireq->inumbers[n - 1].xi_startino + CHUNK_INODES;
	}
out:
	free(ireq);
	free(w.req);
	return rc;
}

int map_fs_load_fshandle(struct map_fs *fs)
{
	struct xfs_fsop_handlereq hreq;
	struct xfs_handle h;
	uint32_t len = sizeof(h);

	if (fs->have_fshandle)
		return 0;
	memset(&hreq, 0, sizeof(hreq));
	memset(&h, 0, sizeof(h));
	hreq.fd = (uint32_t)fs->fd;
	hreq.ohandle = &h;
	hreq.ohandlen = &len;
	if (ioctl(fs->fd, XFS_IOC_FD_TO_HANDLE, &hreq) < 0)
		return -errno;
	fs->fshandle = h;
	fs->have_fshandle = true;
	return 0;
}

int map_open_by_ino(struct map_fs *fs, uint64_t ino, uint32_t gen, int flags)
{
	struct xfs_fsop_handlereq hreq;
	struct xfs_handle h;
	int rc = map_fs_load_fshandle(fs);

	if (rc)
		return rc;
	h = fs->fshandle;
	memset(&h.ha_fid, 0, sizeof(h.ha_fid));
	h.ha_fid.fid_len = sizeof(h.ha_fid) - sizeof(h.ha_fid.fid_len);
	h.ha_fid.fid_ino = ino;
	h.ha_fid.fid_gen = gen;
	memset(&hreq, 0, sizeof(hreq));
	hreq.oflags = (uint32_t)(O_RDONLY | O_CLOEXEC | O_NOATIME | flags);
	hreq.ihandle = &h;
	hreq.ihandlen = sizeof(h);
	int fd = ioctl(fs->fd, XFS_IOC_OPEN_BY_HANDLE, &hreq);
	if (fd < 0)
		return -errno;
	return fd;
}

int map_open_inode(struct map_fs *fs, uint64_t ino, uint32_t gen, int flags)
{
	return map_open_by_ino(fs, ino, gen, flags);
}

int map_inode_generation(struct map_fs *fs, uint64_t ino, uint32_t *gen)
{
	struct xfs_bulkstat bs;
	int rc = map_bulkstat_one(fs, ino, &bs);

	if (rc == 0)
		*gen = bs.bs_gen;
	return rc;
}
