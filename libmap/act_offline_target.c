// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Which filesystem and device the administrator means by the name given to
 * mapctl repair --offline(-plan), and whether the device opened for writing
 * is still that one.  A device is known by the XFS UUID in its superblock,
 * or, when that cannot be read (it may be the unreadable sector), only by
 * --uuid and only as the filesystem recorded on it.  A device holding any
 * other signature was reused: xfs_repair would find stray XFS structures
 * in it and write over what it holds now.  Refusals are data (struct
 * offline_why); the words are the caller's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "act_offline.h"

struct fs_match {
	const char *mountpoint;		/* match by recorded mount point, or */
	dev_t rdev;			/* by recorded device */
	struct map_store_fs best;
	bool found;
};

static int match_fs(const struct map_store_fs *fs, void *arg)
{
	struct fs_match *m = arg;
	struct stat st;

	if (m->mountpoint && strcmp(fs->mountpoint, m->mountpoint) != 0)
		return 0;
	if (!m->mountpoint && (stat(fs->device, &st) != 0 || !S_ISBLK(st.st_mode) ||
			       st.st_rdev != m->rdev))
		return 0;
	/* The one seen last: the device or mount point was reused since. */
	if (!m->found || fs->last_seen > m->best.last_seen) {
		m->best = *fs;
		m->found = true;
	}
	return 0;
}

/* Refuse: @kind, with errno @err (0: none) and name @path (may be NULL). */
static int refuse(struct offline_why *w, enum offline_why_kind kind, int err, const char *path)
{
	w->kind = kind;
	w->err = err;
	snprintf(w->path, sizeof(w->path), "%s", path ? path : "");
	return err ? err : -EPERM;
}

static int target_device(struct offline_plan *p, const char *dev, struct offline_why *w)
{
	struct offline_target *t = &p->t;
	struct stat st;

	if (stat(dev, &st) != 0)
		return refuse(w, OFFLINE_WHY_ERRNO, -errno, dev);
	if (!S_ISBLK(st.st_mode))
		return refuse(w, OFFLINE_WHY_NOT_BLOCK, 0, dev);
	/* An absolute name, so that no tool takes it for an option. */
	if (dev[0] == '/')
		snprintf(t->device, sizeof(t->device), "%s", dev);
	else if (!realpath(dev, t->device))
		return refuse(w, OFFLINE_WHY_ERRNO, -errno, dev);
	t->rdev = st.st_rdev;
	return 0;
}

/* What is on the device, or why it cannot be told: read errors count as
 * "no signature" (the superblock's sector may be the unreadable one). */
static void probe_target(struct offline_plan *p)
{
	if (offline_device_probe_path(p->t.device, &p->probe) != 0)
		memset(&p->probe, 0, sizeof(p->probe));
}

/* No XFS superblock on the device: only --uuid says which filesystem it is
 * meant to be, and it must be the one recorded on this device. */
static int identify_by_option(struct offline_plan *p, const struct offline_ask *a,
			      const struct map_store_fs *last, struct offline_why *w)
{
	struct offline_target *t = &p->t;
	struct stat st;
	int rc;

	if (!a->uuid) {
		if (a->plan_only && last) {
			t->sfs = *last;	/* the plan only reads: show the last one recorded */
			return 0;
		}
		if (!last)
			return refuse(w, OFFLINE_WHY_NO_SB, 0, NULL);
		w->last = *last;
		return refuse(w, OFFLINE_WHY_NO_SB_LAST, 0, NULL);
	}
	rc = map_store_fs_by_uuid(p->st, a->uuid, &t->sfs);
	if (rc == -ENOENT)
		return refuse(w, OFFLINE_WHY_UUID_UNKNOWN, 0, NULL);
	if (rc)
		return refuse(w, OFFLINE_WHY_DB, rc, NULL);
	if (stat(t->sfs.device, &st) != 0 || !S_ISBLK(st.st_mode) || st.st_rdev != t->rdev)
		return refuse(w, OFFLINE_WHY_UUID_ELSEWHERE, 0, NULL);
	return 0;
}

/* A device given by name: which recorded filesystem it holds. */
static int identify_device(struct offline_plan *p, const struct offline_ask *a,
			   struct offline_why *w)
{
	struct offline_target *t = &p->t;
	struct fs_match m = { .rdev = t->rdev };
	int rc;

	probe_target(p);
	if (p->probe.other[0])
		return refuse(w, OFFLINE_WHY_OTHER, 0, NULL);
	if (p->probe.xfs) {
		if (a->uuid && strcasecmp(a->uuid, p->probe.uuid) != 0)
			return refuse(w, OFFLINE_WHY_XFS_NOT_UUID, 0, NULL);
		rc = map_store_fs_by_uuid(p->st, p->probe.uuid, &t->sfs);
		if (rc == -ENOENT)
			return refuse(w, OFFLINE_WHY_NEVER_SCANNED, 0, NULL);
		if (rc)
			return refuse(w, OFFLINE_WHY_DB, rc, NULL);
		t->by_uuid = true;
		return 0;
	}
	rc = map_store_fs_each(p->st, match_fs, &m);
	if (rc)
		return refuse(w, OFFLINE_WHY_DB, rc, NULL);
	return identify_by_option(p, a, m.found ? &m.best : NULL, w);
}

/* The device recorded for a mount point given by name (@real): it must
 * hold that filesystem (or nothing readable, and --uuid says it). */
static int identify_recorded(struct offline_plan *p, const struct offline_ask *a,
			     const char *real, struct offline_why *w)
{
	struct offline_target *t = &p->t;
	struct map_store_fs rec = t->sfs;

	probe_target(p);
	if (p->probe.other[0])
		return refuse(w, OFFLINE_WHY_OTHER, 0, NULL);
	if (p->probe.xfs) {
		if (strcmp(p->probe.uuid, t->sfs.uuid) != 0)
			return refuse(w, OFFLINE_WHY_RECORDED_OTHER, 0, real);
		t->by_uuid = true;
		return 0;
	}
	return identify_by_option(p, a, &rec, w);
}

/* A path of a mounted filesystem: the one recorded with its UUID, shown
 * where it is mounted now. */
static int identify_mounted(struct offline_plan *p, const char *path, struct offline_why *w)
{
	struct offline_target *t = &p->t;
	struct map_fs *fs;
	int rc = map_fs_open(path, &fs);

	if (rc)
		return refuse(w, OFFLINE_WHY_FS_OPEN, rc, path);
	rc = map_store_fs_by_uuid(p->st, map_fs_info(fs)->uuid, &t->sfs);
	if (rc == -ENOENT) {
		snprintf(w->last.uuid, sizeof(w->last.uuid), "%s", map_fs_info(fs)->uuid);
		snprintf(w->last.mountpoint, sizeof(w->last.mountpoint), "%s",
			 map_fs_info(fs)->mountpoint);
		rc = refuse(w, OFFLINE_WHY_PATH_NOT_SCANNED, 0, NULL);
	} else if (rc) {
		rc = refuse(w, OFFLINE_WHY_DB, rc, NULL);
	} else {
		t->fs_id = t->sfs.id;
		snprintf(t->sfs.mountpoint, sizeof(t->sfs.mountpoint), "%s",
			 map_fs_info(fs)->mountpoint);
	}
	map_fs_close(fs);
	return rc;
}

/* A path that is not a block device: a recorded mount point nothing is
 * mounted on now, or any path of a mounted filesystem. */
static int resolve_path(struct offline_plan *p, const struct offline_ask *a,
			const struct stat *st, struct offline_why *w)
{
	struct offline_target *t = &p->t;
	char real[PATH_MAX], mnt[PATH_MAX], src[PATH_MAX];
	struct fs_match m = { 0 };
	int rc;

	if (!realpath(a->target, real))
		return refuse(w, OFFLINE_WHY_ERRNO, -errno, a->target);
	m.mountpoint = real;
	rc = map_store_fs_each(p->st, match_fs, &m);
	if (rc)
		return refuse(w, OFFLINE_WHY_DB, rc, NULL);
	if (m.found && offline_find_mount(0, real, mnt, sizeof(mnt), src, sizeof(src)) == 0) {
		/* Where a recorded filesystem was mounted, and is no more. */
		t->sfs = m.best;
		t->fs_id = t->sfs.id;
		rc = target_device(p, t->sfs.device, w);
		if (rc == 0)
			rc = identify_recorded(p, a, real, w);
		t->fs_id = t->sfs.id;	/* --uuid may have named it */
		return rc;
	}
	rc = identify_mounted(p, a->target, w);
	if (rc)
		return rc;
	/* Its device: the source of the mount of st_dev. */
	if (offline_find_mount(st->st_dev, NULL, mnt, sizeof(mnt), src, sizeof(src)) != 1 ||
	    target_device(p, src[0] == '/' ? src : t->sfs.device, w) != 0)
		return refuse(w, OFFLINE_WHY_NO_DEVICE, 0, a->target);
	if (t->rdev != st->st_dev)
		return refuse(w, OFFLINE_WHY_NOT_DEVICE_OF, 0, a->target);
	t->by_uuid = true;	/* identify_mounted matched the mounted UUID */
	return 0;
}

int offline_resolve_target(struct offline_plan *p, const struct offline_ask *a,
			   struct offline_why *w)
{
	struct offline_target *t = &p->t;
	char src[PATH_MAX];
	struct stat st;
	int rc;

	memset(w, 0, sizeof(*w));
	if (stat(a->target, &st) != 0)
		return refuse(w, OFFLINE_WHY_NO_SUCH, 0, a->target);
	if (S_ISBLK(st.st_mode)) {
		rc = target_device(p, a->target, w);
		if (rc == 0)
			rc = identify_device(p, a, w);
		t->fs_id = t->sfs.id;
	} else {
		rc = resolve_path(p, a, &st, w);
	}
	if (rc)
		return rc;
	rc = offline_find_mount(t->rdev, NULL, t->mounted_at, sizeof(t->mounted_at), src,
				sizeof(src));
	if (rc < 0)
		return refuse(w, OFFLINE_WHY_MOUNTINFO, rc, NULL);
	if (rc == 0)
		t->mounted_at[0] = '\0';
	return 0;
}

int offline_refuse_clone(const struct offline_plan *p, struct offline_why *w)
{
	char src[PATH_MAX];
	int rc;

	memset(w, 0, sizeof(*w));
	rc = offline_uuid_mounted_elsewhere(p->t.sfs.uuid, p->t.rdev, w->path, sizeof(w->path),
					    src, sizeof(src));
	if (rc < 0)
		return refuse(w, OFFLINE_WHY_MOUNTINFO, rc, NULL);
	if (rc > 0) {
		snprintf(w->source, sizeof(w->source), "%s", src);
		w->kind = OFFLINE_WHY_CLONE;
		return -EPERM;
	}
	return 0;
}

int offline_check_open_device(struct offline_plan *p, struct offline_why *w)
{
	struct offline_probe now;
	char path[64];
	struct stat st;
	int fd, rc;

	memset(w, 0, sizeof(*w));
	if (fstat(p->dev.fd, &st) != 0 || !S_ISBLK(st.st_mode) || st.st_rdev != p->t.rdev)
		return refuse(w, OFFLINE_WHY_CHANGED_OPENING, 0, NULL);
	/* The same open device, read through the page cache for libblkid. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p->dev.fd);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return refuse(w, OFFLINE_WHY_READ_DEVICE, -errno, NULL);
	rc = offline_device_probe(fd, &now);
	close(fd);
	if (rc == 0 && now.other[0]) {
		p->probe = now;
		return refuse(w, OFFLINE_WHY_OTHER, 0, NULL);
	}
	if (rc == 0 ? (now.xfs != p->t.by_uuid || (now.xfs && strcmp(now.uuid, p->t.sfs.uuid) != 0))
		    : p->t.by_uuid)
		return refuse(w, OFFLINE_WHY_CHANGED, 0, NULL);
	return offline_refuse_clone(p, w);
}
