/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The XFS health monitor (Linux 7.x, XFS_IOC_HEALTH_MONITOR), one per
 * watched filesystem, in place of fanotify where the kernel has it: file
 * I/O errors arrive with their exact file range, media errors with their
 * device range, sick and healthy objects, shutdowns, lost-record counts.
 * Only one monitor may be attached to a filesystem: when another process
 * (xfs_healer) has it, or the kernel has none, fanotify is used instead.
 */
#ifndef MAPPERD_HEALTHMON_SOURCE_H
#define MAPPERD_HEALTHMON_SOURCE_H

struct md_daemon;
struct md_fs;

/*
 * Attach a monitor to @fs (no-op when attached).  0, or a negative errno
 * (fs->hmon_state says why, for status): -ENOTTY/-EINVAL the kernel has
 * none, -EEXIST another monitor is attached, -EPERM not allowed.
 */
int md_healthmon_watch(struct md_daemon *d, struct md_fs *fs);
void md_healthmon_unwatch(struct md_daemon *d, struct md_fs *fs);

#endif
