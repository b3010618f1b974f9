// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Which recorded filesystem a database-only command (status, files, history,
 * events, export) is about: a UUID, the mount point the store last recorded
 * for it, its block device (as mapctl repair --offline takes it), or any
 * path on it while it is mounted.  None of these need the
 * filesystem mounted but the last, so its findings can be read (and a
 * restore planned) while it is unmounted or mounted elsewhere.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mapctl.h"
#include "act_offline_device.h"

/* Candidates named when an argument fits several recorded filesystems or
 * none: a screenful; past it, a count. */
#define CANDIDATES_SHOWN 16

struct mount_match {
	const char *want[2];	/* the argument as given and resolved */
	int n;
	struct map_store_fs first;
	bool list;		/* say each candidate on stderr */
	int listed;
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

static void say_candidate(struct mount_match *m, const struct map_store_fs *fs)
{
	char t[32];

	if (m->listed++ < CANDIDATES_SHOWN)
		fprintf(stderr, "  %s  %s  last seen %s\n", shown(fs->uuid), shown(fs->mountpoint),
			map_human_time(fs->last_seen, t, sizeof(t)));
	else if (m->listed == CANDIDATES_SHOWN + 1)
		fprintf(stderr, "  ... and more\n");
}

static int match_mount(const struct map_store_fs *fs, void *arg)
{
	struct mount_match *m = arg;

	for (size_t i = 0; i < 2; i++) {
		if (m->want[i] && strcmp(fs->mountpoint, m->want[i]) == 0) {
			if (m->n++ == 0)
				m->first = *fs;
			if (m->list)
				say_candidate(m, fs);
			return 0;
		}
	}
	return 0;
}

static int list_all(const struct map_store_fs *fs, void *arg)
{
	say_candidate(arg, fs);
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

/*
 * @dev, a block device: the filesystem whose UUID its superblock holds, else
 * the one last recorded on that device.  1 when @dev is no block device (the
 * caller goes on), 0 found, EXIT_ERROR after saying why not.
 */
static int fs_from_device(const struct ctl *ctl, struct map_store *st, const char *dev,
			  int64_t *fs_id, struct map_store_fs *out)
{
	struct device_match m = { 0 };
	struct offline_probe probe;
	struct stat sb;
	bool xfs;
	int rc;

	if (stat(dev, &sb) != 0 || !S_ISBLK(sb.st_mode))
		return 1;
	xfs = offline_device_probe_path(dev, &probe) == 0 && probe.xfs;
	if (xfs) {
		rc = map_store_fs_by_uuid(st, probe.uuid, out);
		if (rc == 0) {
			*fs_id = out->id;
			return 0;
		}
		if (rc != -ENOENT)
			return fail(ctl, rc, "reading the database");
	}
	m.rdev = sb.st_rdev;
	rc = map_store_fs_each(st, match_device, &m);
	if (rc)
		return fail(ctl, rc, "reading the database");
	if (m.n == 1) {
		*out = m.first;
		*fs_id = out->id;
		return 0;
	}
	if (m.n > 1)
		return fail(ctl, 0, "%s held %d recorded filesystems and its superblock names none: "
			    "give the UUID (mapctl status lists them)", shown(dev), m.n);
	return fail(ctl, 0, "%s: no filesystem of the database is on this device%s", shown(dev),
		    xfs ? "" : " (no XFS superblock could be read on it)");
}

int fs_from_store(const struct ctl *ctl, struct map_store *st, const char *arg, int64_t *fs_id,
		  struct map_store_fs *out)
{
	char uuid[40], given[PATH_MAX], real[PATH_MAX], t[PATH_MAX];
	struct mount_match m = { 0 };
	struct map_fs *live = NULL;
	bool live_known = false, live_root = false;
	int rc;

	*fs_id = 0;
	if (!arg)
		return 0;
	if (uuid_form(arg, uuid, sizeof(uuid))) {
		rc = map_store_fs_by_uuid(st, uuid, out);
		if (rc == 0) {
			*fs_id = out->id;
			return 0;
		}
		if (rc != -ENOENT)
			return fail(ctl, rc, "reading the database");
	}
	rc = fs_from_device(ctl, st, arg, fs_id, out);
	if (rc != 1)
		return rc;

	/* Mounted now?  Then its UUID says which it is, wherever it is. */
	m.want[0] = trimmed(arg, given, sizeof(given));
	if (realpath(arg, t)) {
		m.want[1] = trimmed(t, real, sizeof(real));
		if (map_fs_open(real, &live) == 0) {
			const struct map_fs_info *info = map_fs_info(live);

			live_root = strcmp(info->mountpoint, real) == 0;
			rc = map_store_fs_by_uuid(st, info->uuid, out);
			if (rc && rc != -ENOENT) {
				map_fs_close(live);
				return fail(ctl, rc, "reading the database");
			}
			live_known = rc == 0;
		}
	}
	rc = map_store_fs_each(st, match_mount, &m);
	if (rc) {
		map_fs_close(live);
		return fail(ctl, rc, "reading the database");
	}

	/* The filesystem mounted there now, unless PATH is exactly where
	 * another recorded one was mounted (and this one merely holds the
	 * empty folder it left). */
	if (live_known && (m.n == 0 || live_root)) {
		*fs_id = out->id;
		snprintf(out->mountpoint, sizeof(out->mountpoint), "%s",
			 map_fs_info(live)->mountpoint);
		map_fs_close(live);
		return 0;
	}
	if (m.n == 1) {
		map_fs_close(live);
		*out = m.first;
		*fs_id = out->id;
		return 0;
	}
	if (m.n > 1) {
		map_fs_close(live);
		fail(ctl, 0, "%s was the mount point of %d recorded filesystems: give the UUID of "
		     "one of them:", shown(arg), m.n);
		m.n = 0;
		m.list = true;
		map_store_fs_each(st, match_mount, &m);
		return EXIT_ERROR;
	}
	if (live) {
		rc = fail(ctl, 0, "%s (uuid %s) has never been scanned",
			  shown(map_fs_info(live)->mountpoint), map_fs_info(live)->uuid);
		map_fs_close(live);
		return rc;
	}
	fail(ctl, 0, "%s is neither the UUID nor the recorded mount point of a filesystem in "
	     "the database, nor on a mounted XFS filesystem; recorded are:", shown(arg));
	map_store_fs_each(st, list_all, &m);
	if (m.listed == 0)
		fprintf(stderr, "  (none yet)\n");
	return EXIT_ERROR;
}
