/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Discovery: the mounted XFS filesystems (libmount), kept current by
 * libmount's monitor of the kernel mount table.  Each is keyed by UUID,
 * registered in the store, watched with fanotify and scheduled.
 */
#ifndef MAPPERD_DISCOVERY_H
#define MAPPERD_DISCOVERY_H

struct md_daemon;
struct md_fs;

int md_discovery_start(struct md_daemon *d);
/* Compare the mount table with what we watch; add and drop. */
void md_discovery_refresh(struct md_daemon *d);
/*
 * The root of @fs opened by its mount point for the watch @what, checked to
 * be that filesystem (st_dev, XFS magic): the descriptor, or -EXDEV (logged
 * once, fs->root_mismatch set) when the path leads elsewhere or cannot be
 * opened.
 */
int md_fs_open_root(struct md_fs *fs, const char *what);
/* Health monitor, else fanotify, as configured: for a new filesystem and
 * again, at the next mount change, for one whose mount point misled us. */
void md_fs_watch_sources(struct md_daemon *d, struct md_fs *fs);
/* Drop everything (at exit). */
void md_discovery_stop(struct md_daemon *d);

#endif
