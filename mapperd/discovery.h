/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Discovery: the mounted XFS filesystems (libmount), kept current by
 * libmount's monitor of the kernel mount table.  Each is keyed by UUID,
 * registered in the store, watched with fanotify and scheduled.
 */
#ifndef MAPPERD_DISCOVERY_H
#define MAPPERD_DISCOVERY_H

struct md_daemon;

int md_discovery_start(struct md_daemon *d);
/* Compare the mount table with what we watch; add and drop. */
void md_discovery_refresh(struct md_daemon *d);
/* Drop everything (at exit). */
void md_discovery_stop(struct md_daemon *d);

#endif
