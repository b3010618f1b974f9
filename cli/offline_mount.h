/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Mounting a filesystem back at its recorded mount point after mapctl
 * repair --offline, without letting a local user choose where it lands.
 */
#ifndef MAPCTL_OFFLINE_MOUNT_H
#define MAPCTL_OFFLINE_MOUNT_H

#include <stddef.h>
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

/*
 * Mount the XFS on @device at the folder open at @dirfd (fsopen, fsmount,
 * move_mount onto the descriptor), after checking that the new mount is of
 * device @rdev.  0, or a negative errno with the reason in @why.
 */
int offline_mount_at(const char *device, dev_t rdev, int dirfd, char *why, size_t len);

#endif
