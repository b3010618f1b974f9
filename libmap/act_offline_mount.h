/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Mounting a filesystem back at its recorded mount point after mapctl
 * repair --offline, without letting a local user choose where it lands.
 */
#ifndef MAP_ACT_OFFLINE_MOUNT_H
#define MAP_ACT_OFFLINE_MOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Open folder @path (absolute) one name at a time with openat2() and
 * RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS: a symbolic link anywhere on
 * the way is refused, not followed.  Every folder on the way must be owned
 * by root and, unless sticky, writable by nobody else; the last one must be
 * owned by root.  Then whatever the path names later, the descriptor is the
 * folder that was checked.  An O_PATH descriptor, or a negative errno with
 * the reason in @why.
 */
int offline_open_mountpoint(const char *path, char *why, size_t len);

/* What /etc/fstab says about a mount point, for the mount back. */
struct mount_options {
	bool found;		/* fstab has an entry for the mount point */
	uint64_t attr;		/* MOUNT_ATTR_* of its VFS options (nosuid, nodev, ...) */
	char sb_flags[64];	/* its superblock flags as fsconfig names them (sync, ...) */
	char fs[1024];		/* the filesystem's own options (usrquota, logbufs=8, ...) */
	char all[1024];		/* the options as written, for people */
};

/*
 * The options /etc/fstab gives mount point @mnt.  The offline path runs on
 * an unmounted filesystem, so nothing else says what its mount had; without
 * them quotas would no longer be enforced and nosuid, nodev or noexec would
 * be dropped.  0 (o->found false when there is no entry), or a negative
 * errno with the reason in @why (an option that cannot be applied here).
 */
int offline_fstab_options(const char *mnt, struct mount_options *o, char *why, size_t len);

/*
 * Mount the XFS on @device at the folder open at @dirfd (fsopen, fsmount,
 * move_mount onto the descriptor) with options @o (NULL or not found:
 * none), after checking that the new mount is of device @rdev.  0, or a
 * negative errno with the reason in @why.
 */
int offline_mount_at(const char *device, dev_t rdev, int dirfd, const struct mount_options *o,
		     char *why, size_t len);

#endif
