// SPDX-License-Identifier: GPL-2.0-or-later
/* Which recorded filesystem an argument names (map_act_fs_pick.h). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "act_offline_device.h"
#include "map_act_fs_pick.h"

/* Recorded filesystems whose last mount point is one of @want. */
struct mount_match {
	const char *want[2];	/* the argument as given and resolved */
	int n;
	struct map_store_fs first;
	int (*fn)(const struct map_store_fs *fs, void *arg);	/* each, when set */
	void *fn_arg;
};

/* @s without trailing slashes ("/" stays), in @buf. */
static const char *trimmed(const char *s, char *buf, size_t len)
{
	size_t n = strlen(s);

	while (n > 1 && s[n - 1] == '/')
		n--;
	snprintf(buf, len, "%.*s", (int)n, s);
	return buf;
}

static int match_mount(const struct map_store_fs *fs, void *arg)
{
	struct mount_match *m = arg;

	for (size_t i = 0; i < 2; i++) {
		if (m->want[i] && strcmp(fs->mountpoint, m->want[i]) == 0) {
			if (m->n++ == 0)
				m->first = *fs;
			return m->fn ? m->fn(fs, m->fn_arg) : 0;
		}
	}
	return 0;
}

/* @s in the form of a UUID (8-4-4-4-12 hex digits), in lower case in @buf. */
static bool uuid_form(const char *s, char *buf, size_t len)
{
	size_t n = strlen(s);

	if (n != 36 || len <= n)
		return false;
	for (size_t i = 0; i < n; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != '-' : !isxdigit((unsigned char)s[i]))
			return false;
		buf[i] = (char)tolower((unsigned char)s[i]);
	}
	buf[n] = '\0';
	return true;
}

struct device_match {
	dev_t rdev;
	int n;
	struct map_store_fs first;
};

/* A recorded device that is the same block device (by number: the name
 * recorded may be another of its names, /dev/mapper/x for /dev/dm-0). */
static int match_device(const struct map_store_fs *fs, void *arg)
{
	struct device_match *m = arg;
	struct stat sb;

	if (fs->device[0] && stat(fs->device, &sb) == 0 && S_ISBLK(sb.st_mode) &&
	    sb.st_rdev == m->rdev && m->n++ == 0)
		m->first = *fs;
	return 0;
}

/* r->end set (not FOUND): the errno fs_pick returns. */
static int not_found(struct fs_pick *r, enum fs_pick_end end, int err)
{
	r->end = end;
	r->err = err;
	return err ? err : -ENOENT;
}

/*
 * @dev, a block device: the filesystem whose UUID its superblock holds, else
 * the one last recorded on that device.  1 when @dev is no block device (the
 * caller goes on), else as fs_pick.
 */
static int pick_device(struct map_store *st, const char *dev, struct fs_pick *r)
{
	struct device_match m = { 0 };
	struct offline_probe probe;
	struct stat sb;
	int rc;

	if (stat(dev, &sb) != 0 || !S_ISBLK(sb.st_mode))
		return 1;
	r->xfs = offline_device_probe_path(dev, &probe) == 0 && probe.xfs;
	if (r->xfs) {
		rc = map_store_fs_by_uuid(st, probe.uuid, &r->fs);
		if (rc == 0)
			return 0;
		if (rc != -ENOENT)
			return not_found(r, FS_PICK_DB, rc);
	}
	m.rdev = sb.st_rdev;
	rc = map_store_fs_each(st, match_device, &m);
	if (rc)
		return not_found(r, FS_PICK_DB, rc);
	if (m.n == 1) {
		r->fs = m.first;
		return 0;
	}
	r->n = m.n;
	return not_found(r, m.n > 1 ? FS_PICK_DEVICE_SEVERAL : FS_PICK_DEVICE_NONE, 0);
}

/* What is mounted at or holds @real now: whether it is recorded (*@known,
 * its record in r->fs) and whether @real is its root.  0 or -errno. */
static int pick_live(struct map_store *st, const char *real, struct map_fs **live,
		     bool *known, bool *root, struct fs_pick *r)
{
	const struct map_fs_info *info;
	int rc;

	if (map_fs_open(real, live) != 0)
		return 0;
	info = map_fs_info(*live);
	*root = strcmp(info->mountpoint, real) == 0;
	rc = map_store_fs_by_uuid(st, info->uuid, &r->fs);
	if (rc && rc != -ENOENT)
		return rc;
	*known = rc == 0;
	snprintf(r->live_mountpoint, sizeof(r->live_mountpoint), "%s", info->mountpoint);
	snprintf(r->live_uuid, sizeof(r->live_uuid), "%s", info->uuid);
	return 0;
}

/* @arg as a path: the filesystem mounted there now, or the one recorded
 * as last mounted there. */
static int pick_path(struct map_store *st, const char *arg, struct fs_pick *r)
{
	char given[PATH_MAX], real[PATH_MAX], t[PATH_MAX];
	struct mount_match m = { 0 };
	struct map_fs *live = NULL;
	bool live_known = false, live_root = false, mounted;
	int rc = 0;

	/* Mounted now?  Then its UUID says which it is, wherever it is. */
	m.want[0] = trimmed(arg, given, sizeof(given));
	if (realpath(arg, t)) {
		m.want[1] = trimmed(t, real, sizeof(real));
		rc = pick_live(st, real, &live, &live_known, &live_root, r);
	}
	if (rc == 0)
		rc = map_store_fs_each(st, match_mount, &m);
	mounted = live != NULL;
	map_fs_close(live);
	if (rc)
		return not_found(r, FS_PICK_DB, rc);
	/* The filesystem mounted there now, unless PATH is exactly where
	 * another recorded one was mounted (and this one merely holds the
	 * empty folder it left). */
	if (live_known && (m.n == 0 || live_root)) {
		snprintf(r->fs.mountpoint, sizeof(r->fs.mountpoint), "%s", r->live_mountpoint);
		return 0;
	}
	if (m.n == 1) {
		r->fs = m.first;
		return 0;
	}
	r->n = m.n;
	if (m.n > 1)
		return not_found(r, FS_PICK_MOUNT_SEVERAL, 0);
	return not_found(r, mounted ? FS_PICK_NEVER_SCANNED : FS_PICK_UNKNOWN, 0);
}

int fs_pick(struct map_store *st, const char *arg, struct fs_pick *r)
{
	char uuid[40];
	int rc;

	memset(r, 0, sizeof(*r));
	if (uuid_form(arg, uuid, sizeof(uuid))) {
		rc = map_store_fs_by_uuid(st, uuid, &r->fs);
		if (rc == 0)
			return 0;
		if (rc != -ENOENT)
			return not_found(r, FS_PICK_DB, rc);
	}
	rc = pick_device(st, arg, r);
	if (rc != 1)
		return rc;
	return pick_path(st, arg, r);
}

int fs_pick_each_at(struct map_store *st, const char *arg,
		    int (*fn)(const struct map_store_fs *fs, void *arg), void *fn_arg)
{
	char given[PATH_MAX], real[PATH_MAX], t[PATH_MAX];
	struct mount_match m = { .fn = fn, .fn_arg = fn_arg };

	m.want[0] = trimmed(arg, given, sizeof(given));
	if (realpath(arg, t))
		m.want[1] = trimmed(t, real, sizeof(real));
	return map_store_fs_each(st, match_mount, &m);
}
