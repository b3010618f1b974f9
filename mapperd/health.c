// SPDX-License-Identifier: GPL-2.0-or-later
/* In-core health state of an XFS filesystem: geometry sick bits, bulkstat. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "health.h"
#include "xfs_abi.h"

#define BULKSTAT_BATCH 512

int md_health_geometry(struct map_fs *fs, struct md_health *h)
{
	struct xfs_fsop_geom geo;
	int fd = map_fs_fd(fs);

	memset(h, 0, sizeof(*h));
	memset(&geo, 0, sizeof(geo));
	if (ioctl(fd, XFS_IOC_FSGEOMETRY, &geo) != 0)
		return -errno;
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

static int add_inode(struct md_health *h, const struct xfs_bulkstat *bs)
{
	struct md_sick_inode *v = realloc(h->inodes, (h->ninodes + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	h->inodes = v;
	v[h->ninodes++] = (struct md_sick_inode){
		.ino = bs->bs_ino, .gen = bs->bs_gen, .mode = bs->bs_mode, .sick = bs->bs_sick,
		.has_attr = bs->bs_aextents > 0 || (bs->bs_xflags & FS_XFLAG_HASATTR),
	};
	return 0;
}

int md_health_inodes(struct map_fs *fs, struct md_health *h, size_t max)
{
	struct xfs_bulkstat_req *req = calloc(1, XFS_BULKSTAT_REQ_SIZE(BULKSTAT_BATCH));
	int rc = 0;

	if (!req)
		return -ENOMEM;
	uint64_t ino = 0;
	for (;;) {
		memset(&req->hdr, 0, sizeof(req->hdr));
		req->hdr.ino = ino;
		req->hdr.icount = BULKSTAT_BATCH;
		if (ioctl(map_fs_fd(fs), XFS_IOC_BULKSTAT, req) != 0) {
			rc = -errno;
			break;
		}
		if (req->hdr.ocount == 0)
			break;
		for (uint32_t i = 0; i < req->hdr.ocount && rc == 0; i++)
			if (req->bulkstat[i].bs_sick && h->ninodes < max)
				rc = add_inode(h, &req->bulkstat[i]);
		if (rc)
			break;
		ino = req->hdr.ino;	/* the kernel leaves the next inode to look at here */
	}
	free(req);
	return rc;
}

void md_health_free(struct md_health *h)
{
	free(h->inodes);
	h->inodes = NULL;
	h->ninodes = 0;
}

int md_health_inode(struct map_fs *fs, uint64_t ino, struct md_sick_inode *out)
{
	struct xfs_bulkstat_req *req = calloc(1, XFS_BULKSTAT_REQ_SIZE(1));
	int rc = 0;

	if (!req)
		return -ENOMEM;
	req->hdr.ino = ino;
	req->hdr.icount = 1;
	if (ioctl(map_fs_fd(fs), XFS_IOC_BULKSTAT, req) != 0)
		rc = -errno;
	else if (req->hdr.ocount != 1 || req->bulkstat[0].bs_ino != ino)
		rc = -ENOENT;
	if (rc == 0) {
		const struct xfs_bulkstat *bs = &req->bulkstat[0];

		*out = (struct md_sick_inode){
			.ino = bs->bs_ino, .gen = bs->bs_gen, .mode = bs->bs_mode,
			.sick = bs->bs_sick,
			.has_attr = bs->bs_aextents > 0 || (bs->bs_xflags & FS_XFLAG_HASATTR),
		};
	}
	free(req);
	return rc;
}
