/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fanotify FAN_FS_ERROR: one notification group per watched filesystem
 * (a filesystem mark; it does not keep the filesystem busy).  Each report
 * names the first error, how many were merged into it, and the inode's
 * file handle when the kernel had one.
 */
#ifndef MAPPERD_FANOTIFY_SOURCE_H
#define MAPPERD_FANOTIFY_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct md_daemon;
struct md_fs;

struct md_fan_report {
	int error;			/* positive errno (0 if the record was missing) */
	uint32_t count;			/* errors merged into this report */
	bool overflow;			/* the kernel's queue overflowed: errors were lost */
	bool has_inode;
	uint64_t ino;
	uint32_t gen;
	int handle_type;		/* -1 when no handle record */
};

/* Start watching @fs (no-op when already watched).  0 or negative errno. */
int md_fanotify_watch(struct md_daemon *d, struct md_fs *fs);
void md_fanotify_unwatch(struct md_daemon *d, struct md_fs *fs);

/*
 * Decode a buffer read from a fanotify descriptor: @fn for each error
 * report.  Returns the number of reports, or -EINVAL for a malformed buffer
 * (reports before the damage are still delivered).
 */
int md_fanotify_decode(const void *buf, size_t len,
		       void (*fn)(const struct md_fan_report *r, void *arg), void *arg);

#endif
