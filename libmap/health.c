// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the kernel already knows is sick (in-core health state, since mount):
 * the filesystem's and each AG's geometry sick bits, and bulkstat's
 * per-inode sick flags, for callers that need no XFS ABI of their own.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/xattr.h>

#include "map_internal.h"

#define HEALTH_BATCH 512	/* inodes per BULKSTAT call of the sick walk */

int map_fs_health(struct map_fs *fs, struct map_fs_health *h)
{
	struct xfs_fsop_geom geo;
	int fd = map_fs_fd(fs);
	int rc = map_fsgeometry_call(fd, &geo);

	memset(h, 0, sizeof(*h));
	if (rc)
		return rc;
	h->fs_sick = geo.sick;
	for (uint32_t agno = 0; agno < geo.agcount; agno++) {
		struct xfs_ag_geometry ag;

		memset(&ag, 0, sizeof(ag));
		ag.ag_number = agno;
		if (ioctl(fd, XFS_IOC_AG_GEOMETRY, &ag) != 0)
			return -errno;
		if (ag.ag_sick) {
			h->sick_ags++;
			h->ag_sick_union |= ag.ag_sick;
		}
	}
	return 0;
}

static void health_of(const struct xfs_bulkstat *bs, struct map_inode_health *out)
{
	*out = (struct map_inode_health){
		.ino = bs->bs_ino, .gen = bs->bs_gen, .mode = bs->bs_mode, .sick = bs->bs_sick,
		.has_attr = bs->bs_aextents > 0 || (bs->bs_xflags & FS_XFLAG_HASATTR),
	};
}

int map_inode_health(struct map_fs *fs, uint64_t ino, struct map_inode_health *out)
{
	struct xfs_bulkstat bs;
	int rc = map_bulkstat_one(fs, ino, &bs);

	if (rc == 0)
		health_of(&bs, out);
	return rc;
}

int map_sick_inodes(struct map_fs *fs, int (*fn)(const struct map_inode_health *h, void *arg),
		    void *arg)
{
	struct xfs_bulkstat_req *req = calloc(1, XFS_BULKSTAT_REQ_SIZE(HEALTH_BATCH));
	uint64_t ino = 0;
	int rc = 0;

	if (!req)
		return -ENOMEM;
	while (rc == 0) {
		rc = map_bulkstat_call(fs, req, ino, HEALTH_BATCH);
		if (rc || req->hdr.ocount == 0)
			break;
		for (uint32_t i = 0; i < req->hdr.ocount && rc == 0; i++) {
			struct map_inode_health h;

			if (!req->bulkstat[i].bs_sick)
				continue;
			health_of(&req->bulkstat[i], &h);
			rc = fn(&h, arg);
		}
		ino = req->hdr.ino;	/* the kernel leaves the next inode to look at here */
	}
	free(req);
	return rc;
}

/* xfsprogs 7.x keeps the filesystem's autofsck property (what xfs_healer and
 * xfs_scrub_all may do on their own) in this attribute of the root
 * directory; mkfs.xfs 7.x sets it. */
#define AUTOFSCK_XATTR "trusted.xfs:autofsck"

int map_fs_autofsck(const struct map_fs *fs, char *buf, size_t len)
{
	char v[32];
	ssize_t n;

	if (len < 2)
		return -EINVAL;
	n = fgetxattr(map_fs_fd(fs), AUTOFSCK_XATTR, v, sizeof(v) - 1);
	if (n < 0)
		return errno == ENOTSUP ? -ENODATA : -errno;
	/* Only root can write it; still, a value is shown only if it is one
	 * short lowercase word. */
	if (n == 0 || (size_t)n >= len)
		return -EINVAL;
	for (ssize_t i = 0; i < n; i++)
		if (v[i] < 'a' || v[i] > 'z')
			return -EINVAL;
	memcpy(buf, v, (size_t)n);
	buf[n] = '\0';
	return 0;
}
