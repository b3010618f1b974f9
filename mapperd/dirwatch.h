/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Directory indexes of the watched filesystems without parent pointers
 * (libmap's map_dirindex), so that naming a file whose name is not in the
 * dentry cache costs a directory read or two, not a search that grows with
 * the tree.  Each is built in short slices between reports and kept current
 * from its own fanotify group of directory events.  Used by the pipeline's
 * worker thread only: nothing here locks.
 */
#ifndef MAPPERD_DIRWATCH_H
#define MAPPERD_DIRWATCH_H

#include <stdbool.h>
#include <stdint.h>

struct map_fs;
struct md_dirwatch;

/* Sums over the filesystems (status json "directory_index"). */
struct md_dirwatch_stats {
	uint64_t ready, building;	/* filesystems */
	uint64_t unneeded;		/* filesystems named without an index */
	uint64_t dirs, events, uses, retries, resets;
};

struct md_fscache;
/* @fscache opens the filesystems (shared with the pipeline, same thread). */
struct md_dirwatch *md_dirwatch_new(struct md_fscache *fscache);
void md_dirwatch_free(struct md_dirwatch *w);
/* Start (@on) or stop keeping an index of filesystem @uuid at @mountpoint. */
void md_dirwatch_set(struct md_dirwatch *w, const char *uuid, const char *mountpoint, bool on);
/* Apply waiting directory events and build for about @budget seconds in
 * all; true while some index is still being built. */
bool md_dirwatch_work(struct md_dirwatch *w, double budget);
/* Bring @uuid's index up to date and let resolves on @fs use it if it is
 * ready (@fs is the filesystem @uuid, open for one report). */
void md_dirwatch_attach(struct md_dirwatch *w, const char *uuid, struct map_fs *fs);
void md_dirwatch_get_stats(struct md_dirwatch *w, struct md_dirwatch_stats *out);

#endif
