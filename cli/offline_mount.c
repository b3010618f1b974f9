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
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "offline_mount.h"

/* Names on a mount point's path at most (PATH_MAX / 2: "a/" each). */
#define MOUNT_MAX_DEPTH 2048

static void __attribute__((format(printf, 3, 4)))
say_why(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

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
		say_why(why, len, "%.*s is owned by uid %u, not root: its owner decides what "
			"%s names", (int)upto, path, (unsigned int)st->st_uid, path);
		return -EPERM;
	}
	if (!last && (st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX)) {
		say_why(why, len, "%.*s may be written by others (mode %04o): they decide what "
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
		say_why(why, len, "%s is not an absolute path", path);
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
			say_why(why, len, "a name in %s is too long", path);
			return -ENAMETOOLONG;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		p += n;
		bool last = !p[strspn(p, "/")];
		if (!strcmp(name, ".") || !strcmp(name, "..")) {
			close(fd);
			say_why(why, len, "%s holds \".\" or \"..\"", path);
			return -EINVAL;
		}
		int next = open_beneath(fd, name);
		close(fd);
		if (next < 0) {
			say_why(why, len, next == -ELOOP ? "%.*s is a symbolic link (not followed)" :
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
	say_why(why, len, "%s has too many names", path);
	return -ENAMETOOLONG;
}

int offline_mount_at(const char *device, dev_t rdev, int dirfd, char *why, size_t len)
{
	struct stat st;
	int fsfd, mfd = -1, rc = 0;

	fsfd = fsopen("xfs", FSOPEN_CLOEXEC);
	if (fsfd < 0) {
		rc = -errno;
		say_why(why, len, "fsopen xfs: %s", strerror(-rc));
		return rc;
	}
	if (fsconfig(fsfd, FSCONFIG_SET_STRING, "source", device, 0) != 0 ||
	    fsconfig(fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) != 0) {
		rc = -errno;
		say_why(why, len, "mounting %s: %s", device, strerror(-rc));
		goto out;
	}
	mfd = fsmount(fsfd, FSMOUNT_CLOEXEC, 0);
	if (mfd < 0) {
		rc = -errno;
		say_why(why, len, "fsmount %s: %s", device, strerror(-rc));
		goto out;
	}
	/* Still detached: nothing is hidden yet if it is the wrong device. */
	if (fstat(mfd, &st) != 0 || st.st_dev != rdev) {
		rc = -ESTALE;
		say_why(why, len, "%s is no longer the device that was repaired", device);
		goto out;
	}
	if (move_mount(mfd, "", dirfd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0) {
		rc = -errno;
		say_why(why, len, "move_mount: %s", strerror(-rc));
	}
out:
	if (mfd >= 0)
		close(mfd);	/* a detached mount goes with its last descriptor */
	close(fsfd);
	return rc;
}
