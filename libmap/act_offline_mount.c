// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Mounting back after mapctl repair --offline.  The recorded mount point is
 * a string; between the scan that recorded it and now, anyone who can write
 * a folder on that path may have made it name something else: a symbolic
 * link to /etc, or another folder renamed into its place.  mount(2) with the
 * string would follow it and hide that folder under the filesystem while
 * the record says it is mounted where it was.
 *
 * So the path is walked one name at a time with openat2() refusing every
 * symbolic link, each folder on the way must be one only root can change
 * (owned by root, and not writable by others unless sticky: in a sticky
 * folder nobody else may rename or remove root's entries), and the mount is
 * made onto the descriptor of the checked folder with the new mount API, so
 * no name is looked up again after the check.
 *
 * It gets the options /etc/fstab gives that mount point: the filesystem was
 * unmounted for the repair, so nothing else remembers them, and a mount
 * without them would stop enforcing quotas and drop nosuid, nodev or noexec
 * on a volume where users own folders.
 */
#include <errno.h>
#include <fcntl.h>
#include <libmount.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "act_offline_mount.h"
#include "map_internal.h"

/* Names on a mount point's path at most (PATH_MAX / 2: "a/" each). */
#define MOUNT_MAX_DEPTH 2048

/* One name, a folder, no link of any kind: RESOLVE_NO_SYMLINKS refuses a
 * symbolic link as the name itself too (ELOOP), as long as O_NOFOLLOW is
 * not given (with O_PATH that would open the link). */
static int open_beneath(int dirfd, const char *name)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_BENEATH,
	};
	long fd = syscall(SYS_openat2, dirfd, name, &how, sizeof(how));

	return fd < 0 ? -errno : (int)fd;
}

/* @st: the folder reached by the names up to @upto of @path. */
static int check_folder(const struct stat *st, const char *path, size_t upto, bool last,
			char *why, size_t len)
{
	if (st->st_uid != 0) {
		map_textf(why, len, "%.*s is owned by uid %u, not root: its owner decides what "
			"%s names", (int)upto, path, (unsigned int)st->st_uid, path);
		return -EPERM;
	}
	if (!last && (st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX)) {
		map_textf(why, len, "%.*s may be written by others (mode %04o): they decide what "
			"%s names", (int)upto, path, (unsigned int)(st->st_mode & 07777), path);
		return -EPERM;
	}
	return 0;
}

int offline_open_mountpoint(const char *path, char *why, size_t len)
{
	char name[256];
	struct stat st;
	int fd, rc;

	if (path[0] != '/') {
		map_textf(why, len, "%s is not an absolute path", path);
		return -EINVAL;
	}
	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = fstat(fd, &st) != 0 ? -errno : check_folder(&st, "/", 1, false, why, len);
	if (rc) {
		close(fd);
		return rc;
	}
	const char *p = path;
	for (int depth = 0; depth < MOUNT_MAX_DEPTH; depth++) {
		while (*p == '/')
			p++;
		if (!*p)
			return fd;
		size_t n = strcspn(p, "/");
		if (n >= sizeof(name)) {
			close(fd);
			map_textf(why, len, "a name in %s is too long", path);
			return -ENAMETOOLONG;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		p += n;
		bool last = !p[strspn(p, "/")];
		if (!strcmp(name, ".") || !strcmp(name, "..")) {
			close(fd);
			map_textf(why, len, "%s holds \".\" or \"..\"", path);
			return -EINVAL;
		}
		int next = open_beneath(fd, name);
		close(fd);
		if (next < 0) {
			map_textf(why, len, next == -ELOOP ? "%.*s is a symbolic link (not followed)" :
				next == -ENOTDIR ? "%.*s is not a folder" : "%.*s cannot be opened",
				(int)(p - path), path);
			return next;
		}
		fd = next;
		if (fstat(fd, &st) != 0) {
			rc = -errno;
			close(fd);
			return rc;
		}
		rc = check_folder(&st, path, (size_t)(p - path), last, why, len);
		if (rc) {
			close(fd);
			return rc;
		}
	}
	close(fd);
	map_textf(why, len, "%s has too many names", path);
	return -ENAMETOOLONG;
}

/* VFS flags of an fstab entry: each becomes a mount attribute or a
 * superblock flag; anything else is not applied, so it is refused. */
static const struct {
	unsigned long ms;
	uint64_t attr;
	const char *sb;
} vfs_flags[] = {
	{ MS_RDONLY, MOUNT_ATTR_RDONLY, NULL },
	{ MS_NOSUID, MOUNT_ATTR_NOSUID, NULL },
	{ MS_NODEV, MOUNT_ATTR_NODEV, NULL },
	{ MS_NOEXEC, MOUNT_ATTR_NOEXEC, NULL },
	{ MS_NOATIME, MOUNT_ATTR_NOATIME, NULL },
	{ MS_STRICTATIME, MOUNT_ATTR_STRICTATIME, NULL },
	{ MS_NODIRATIME, MOUNT_ATTR_NODIRATIME, NULL },
	{ MS_RELATIME, 0, NULL },	/* the default */
	{ MS_SYNCHRONOUS, 0, "sync" },
	{ MS_DIRSYNC, 0, "dirsync" },
	{ MS_LAZYTIME, 0, "lazytime" },
};

int offline_fstab_options(const char *mnt, struct mount_options *o, char *why, size_t len)
{
	struct libmnt_table *tb = mnt_new_table();
	struct libmnt_fs *fs;
	unsigned long flags = 0;
	int rc;

	memset(o, 0, sizeof(*o));
	if (!tb)
		return -ENOMEM;
	rc = mnt_table_parse_fstab(tb, NULL);
	if (rc == -ENOENT)
		rc = 0;		/* no fstab at all */
	fs = rc == 0 ? mnt_table_find_target(tb, mnt, MNT_ITER_BACKWARD) : NULL;
	if (rc) {
		map_textf(why, len, "/etc/fstab cannot be read: %s", map_strerror(rc));
		goto out;
	}
	if (!fs)
		goto out;
	const char *vfs = mnt_fs_get_vfs_options(fs), *fso = mnt_fs_get_fs_options(fs);
	const char *all = mnt_fs_get_options(fs);

	snprintf(o->all, sizeof(o->all), "%s", all ? all : "defaults");
	if (vfs && mnt_optstr_get_flags(vfs, &flags, mnt_get_builtin_optmap(MNT_LINUX_MAP)) != 0) {
		rc = -EINVAL;
		map_textf(why, len, "the options /etc/fstab gives %s (%s) cannot be read", mnt, o->all);
		goto out;
	}
	if (snprintf(o->fs, sizeof(o->fs), "%s", fso ? fso : "") >= (int)sizeof(o->fs)) {
		rc = -E2BIG;
		map_textf(why, len, "the options /etc/fstab gives %s are too long", mnt);
		goto out;
	}
	for (size_t i = 0; i < sizeof(vfs_flags) / sizeof(vfs_flags[0]); i++) {
		if (!(flags & vfs_flags[i].ms))
			continue;
		flags &= ~vfs_flags[i].ms;
		o->attr |= vfs_flags[i].attr;
		if (vfs_flags[i].sb)
			snprintf(o->sb_flags + strlen(o->sb_flags),
				 sizeof(o->sb_flags) - strlen(o->sb_flags), "%s%s",
				 o->sb_flags[0] ? "," : "", vfs_flags[i].sb);
	}
	if (flags) {
		rc = -EINVAL;
		map_textf(why, len, "/etc/fstab gives %s options mapctl does not apply (%s): mount it "
			"yourself", mnt, o->all);
		goto out;
	}
	o->found = true;
out:
	mnt_unref_table(tb);
	return rc;
}

/* Each option of @optstr (name or name=value) set on @fsfd. */
static int set_options(int fsfd, const char *optstr, char *why, size_t len)
{
	char *p = (char *)optstr, *name, *value;
	size_t nsz, vsz;

	/* Each turn consumes one option: at most strlen(optstr) turns. */
	while (mnt_optstr_next_option(&p, &name, &nsz, &value, &vsz) == 0) {
		char n[256], v[768];

		if (nsz >= sizeof(n) || (value && vsz >= sizeof(v))) {
			map_textf(why, len, "an option is too long");
			return -E2BIG;
		}
		memcpy(n, name, nsz);
		n[nsz] = '\0';
		if (value) {
			memcpy(v, value, vsz);
			v[vsz] = '\0';
		}
		if ((value ? fsconfig(fsfd, FSCONFIG_SET_STRING, n, v, 0) :
			     fsconfig(fsfd, FSCONFIG_SET_FLAG, n, NULL, 0)) != 0) {
			int rc = -errno;

			map_textf(why, len, "option %s%s%s: %s", n, value ? "=" : "", value ? v : "",
				map_strerror(rc));
			return rc;
		}
	}
	return 0;
}

int offline_mount_at(const char *device, dev_t rdev, int dirfd, const struct mount_options *o,
		     char *why, size_t len)
{
	struct stat st;
	int fsfd, mfd = -1, rc = 0;
	bool opts = o && o->found;

	fsfd = fsopen("xfs", FSOPEN_CLOEXEC);
	if (fsfd < 0) {
		rc = -errno;
		map_textf(why, len, "fsopen xfs: %s", map_strerror(rc));
		return rc;
	}
	if (fsconfig(fsfd, FSCONFIG_SET_STRING, "source", device, 0) != 0) {
		rc = -errno;
		map_textf(why, len, "mounting %s: %s", device, map_strerror(rc));
		goto out;
	}
	if (opts && ((rc = set_options(fsfd, o->sb_flags, why, len)) != 0 ||
		     (rc = set_options(fsfd, o->fs, why, len)) != 0))
		goto out;
	if (fsconfig(fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) != 0) {
		rc = -errno;
		map_textf(why, len, "mounting %s: %s", device, map_strerror(rc));
		goto out;
	}
	mfd = fsmount(fsfd, FSMOUNT_CLOEXEC, opts ? (unsigned int)o->attr : 0);
	if (mfd < 0) {
		rc = -errno;
		map_textf(why, len, "fsmount %s: %s", device, map_strerror(rc));
		goto out;
	}
	/* Still detached: nothing is hidden yet if it is the wrong device. */
	if (fstat(mfd, &st) != 0 || st.st_dev != rdev) {
		rc = -ESTALE;
		map_textf(why, len, "%s is no longer the device that was repaired", device);
		goto out;
	}
	if (move_mount(mfd, "", dirfd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0) {
		rc = -errno;
		map_textf(why, len, "move_mount: %s", map_strerror(rc));
	}
out:
	if (mfd >= 0)
		close(mfd);	/* a detached mount goes with its last descriptor */
	close(fsfd);
	return rc;
}
