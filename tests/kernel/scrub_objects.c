// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "map_scrub.h"
#include "scrub_objects.h"
#include "vmtest.h"
#include "xfs_abi.h"

/* The order cross-referencing wants within an AG. */
static const uint32_t ag_types[] = {
	XFS_SCRUB_TYPE_SB,	XFS_SCRUB_TYPE_AGF,	XFS_SCRUB_TYPE_AGFL,
	XFS_SCRUB_TYPE_AGI,	XFS_SCRUB_TYPE_BNOBT,	XFS_SCRUB_TYPE_CNTBT,
	XFS_SCRUB_TYPE_INOBT,	XFS_SCRUB_TYPE_FINOBT,	XFS_SCRUB_TYPE_RMAPBT,
	XFS_SCRUB_TYPE_REFCNTBT,
};

static const uint32_t inode_types[] = {
	XFS_SCRUB_TYPE_INODE,	XFS_SCRUB_TYPE_BMBTD,	XFS_SCRUB_TYPE_BMBTA,
	XFS_SCRUB_TYPE_BMBTC,	XFS_SCRUB_TYPE_DIR,	XFS_SCRUB_TYPE_XATTR,
	XFS_SCRUB_TYPE_SYMLINK,	XFS_SCRUB_TYPE_PARENT,	XFS_SCRUB_TYPE_DIRTREE,
};

static const uint32_t fs_types[] = {
	XFS_SCRUB_TYPE_RTBITMAP,   XFS_SCRUB_TYPE_RTSUM,  XFS_SCRUB_TYPE_UQUOTA,
	XFS_SCRUB_TYPE_GQUOTA,	   XFS_SCRUB_TYPE_PQUOTA, XFS_SCRUB_TYPE_FSCOUNTERS,
	XFS_SCRUB_TYPE_QUOTACHECK, XFS_SCRUB_TYPE_NLINKS, XFS_SCRUB_TYPE_HEALTHY,
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

size_t kt_scrub_objects(uint32_t agcount, const struct kt_population *pop,
			struct kt_object *out, size_t max)
{
	size_t n = 0;

#define ADD(t, ag, s)                                                              \
	do {                                                                       \
		if (n < max)                                                       \
			out[n] = (struct kt_object){ .type = (t), .agno = (ag),    \
				.sample = (s),                                     \
				.ino = (s) >= 0 ? pop->sample[(s)].ino : 0,        \
				.gen = (s) >= 0 ? pop->sample[(s)].gen : 0 };      \
		n++;                                                               \
	} while (0)

	ADD(XFS_SCRUB_TYPE_PROBE, 0, -1);
	for (uint32_t ag = 0; ag < agcount; ag++)
		for (size_t i = 0; i < N(ag_types); i++)
			ADD(ag_types[i], ag, -1);
	for (int s = 0; s < KT_NSAMPLES; s++)
		for (size_t i = 0; i < N(inode_types); i++)
			ADD(inode_types[i], 0, s);
	for (size_t i = 0; i < N(fs_types); i++)
		ADD(fs_types[i], 0, -1);
#undef ADD
	return n;
}

const char *kt_object_name(const struct kt_object *o, const struct kt_population *pop)
{
	static char buf[160];
	const struct map_scrub_type_info *info = map_scrub_type(o->type);
	const char *name = info ? info->name : "?";

	if (info && info->scope == MAP_SCOPE_AG)
		snprintf(buf, sizeof(buf), "%s ag %u", name, o->agno);
	else if (o->sample >= 0)
		snprintf(buf, sizeof(buf), "%s: %s", name, pop->sample[o->sample].label);
	else
		snprintf(buf, sizeof(buf), "%s", name);
	return buf;
}

int kt_scrub(int fd, const struct kt_object *o, uint32_t iflags, uint32_t *oflags)
{
	*oflags = 0;
	return map_scrub_call(fd, o->type, o->agno, o->ino, o->gen, iflags, oflags);
}

const char *kt_absent_reason(const struct kt_object *o, const struct kt_population *pop)
{
	int s = o->sample;
	mode_t mode = s >= 0 ? pop->sample[s].mode : 0;
	bool xattrs = s == KT_XATTR_SHORT || s == KT_XATTR_LEAF || s == KT_XATTR_REMOTE;

	switch (o->type) {
	case XFS_SCRUB_TYPE_RTBITMAP:
	case XFS_SCRUB_TYPE_RTSUM:
		return "kernel without CONFIG_XFS_RT";
	case XFS_SCRUB_TYPE_DIRTREE:
		if (!vt_modern())
			return "no parent pointers (mkfs.xfs 6.1 cannot make them)";
		return S_ISDIR(mode) ? NULL : "not a directory";
	case XFS_SCRUB_TYPE_BMBTA:
		/* with parent pointers, every inode but the root keeps its
		 * names in its attribute fork */
		if (vt_modern() && s != KT_ROOT)
			return NULL;
		return xattrs ? NULL : "no attribute fork";
	case XFS_SCRUB_TYPE_BMBTC:
		return s == KT_SHARED_FILE ? NULL : "no CoW fork";
	case XFS_SCRUB_TYPE_XATTR:
		if (vt_modern() && s != KT_ROOT)
			return NULL;	/* its parent pointers */
		return xattrs ? NULL : "no extended attributes";
	case XFS_SCRUB_TYPE_DIR:
		return S_ISDIR(mode) ? NULL : "not a directory";
	case XFS_SCRUB_TYPE_SYMLINK:
		return S_ISLNK(mode) ? NULL : "not a symlink";
	case XFS_SCRUB_TYPE_PARENT:
		/* without parent pointers only a directory's ".." is checked */
		if (vt_modern())
			return NULL;
		return S_ISDIR(mode) ? NULL : "not a directory, no parent pointers";
	default:
		return NULL;
	}
}

void kt_repair_stats(const char *fs_name, const char *type, unsigned int *attempts,
		     unsigned int *successes)
{
	char path[256], line[256], name[32];
	unsigned int tries, fixed;
	FILE *fp;

	*attempts = *successes = ~0u;
	snprintf(path, sizeof(path), "/sys/kernel/debug/xfs/%s/scrub/stats", fs_name);
	fp = fopen(path, "r");
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		/* name invocations clean corrupt preen xfail xcorrupt incomplete
		 * warning retries checktime_us repair_invocations repair_success
		 * repairtime_us */
		if (sscanf(line, "%31s %*u %*u %*u %*u %*u %*u %*u %*u %*u %*u %u %u", name,
			   &tries, &fixed) == 3 && strcmp(name, type) == 0) {
			*attempts = tries;
			*successes = fixed;
		}
	}
	fclose(fp);
}

const char *kt_errno_name(int rc)
{
	static char buf[32];

	switch (rc) {
	case 0: return "0";
	case -ENOENT: return "-ENOENT";
	case -EOPNOTSUPP: return "-EOPNOTSUPP";
	case -EINVAL: return "-EINVAL";
	case -EBUSY: return "-EBUSY";
	case -EROFS: return "-EROFS";
	case -EDEADLOCK: return "-EDEADLOCK";
	case -ENOSPC: return "-ENOSPC";
	case -EIO: return "-EIO";
	default:
		snprintf(buf, sizeof(buf), "-%d (%s)", -rc, strerror(-rc));
		return buf;
	}
}
