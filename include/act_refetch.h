/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * refetch: put back from a mirror what the damage (or a repair) took.  See
 * act_refetch.c for what is checked before anything is written.
 */
#ifndef MAP_ACT_REFETCH_H
#define MAP_ACT_REFETCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "act_refetch_dir.h"
#include "act_restore_list.h"
#include "map.h"

/* The orphanage: where xfs_repair and online repair put files whose name
 * was lost, each named by its inode number. */
#define ORPHANAGE "lost+found"

/* Best first: a finding gets the worst outcome of its paths. */
enum refetch_outcome { OUT_RESTORED, OUT_REMOVED, OUT_STILL_BAD, OUT_FAILED, OUT_REFUSED, OUT_NR };
enum refetch_what { W_FILE, W_SYMLINK, W_DIR };

/* One path to put back: a row of the run, for the renderer too. */
struct refetch_entry {
	struct restore_item *it;
	enum refetch_what what;
	enum refetch_outcome outcome;
	bool sent;		/* passed the checks: written (or would be) */
	bool missing;		/* not there before: recreated */
	bool in_place;		/* an existing file or folder rewritten in its inode */
	bool split;		/* one of several names of a file the mirror has apart */
	dev_t mirror_dev;	/* one of several names: the mirror's file they all are */
	ino_t mirror_ino;	/* (0: not one of several names) */
	uint64_t orphan_ino;	/* lost+found/<ino> held this inode, 0 if not */
	bool orphan_removed;
	char detail[512];	/* why, for people */
	char orphan_note[512];
	char put_back[1024];	/* a folder: its entries put back (act_refetch_dir.c) */
};

/* One run; the caller sets fs, from, dry_run and the callback. */
struct refetch {
	struct map_fs *fs;
	const char *mnt, *from;
	int rootfd;
	uint64_t dev;
	int mirror_fd;		/* the mirror's root (O_PATH) */
	bool dry_run;
	struct restore_list list;	/* what the store says to put back */
	struct refetch_entry *e;	/* one per item of list, in its order */
	size_t n;
	struct put_back_set put_back;	/* files put back in folders */
	struct orphan_report orphans;	/* lost+found compared with them */
	/* A finding whose outcome could not be recorded (@err). */
	void (*unrecorded)(int64_t finding_id, int err, void *arg);
	void *arg;
};

/* The word for an outcome, as recorded and printed. */
const char *refetch_outcome_name(enum refetch_outcome o);

/* rsync reads "HOST:PATH", "HOST::MOD" and "rsync://" as remote; anything
 * else, or a ':' after the first '/', is a local path. */
bool refetch_is_local(const char *from);

/* Open the mirror r->from (O_PATH): 0 or -errno. */
int refetch_open_mirror(struct refetch *r);

/* The mirror on the filesystem it would restore (the same device, a bind
 * mount of it, or a clone with its UUID) holds the same damage. */
bool refetch_mirror_is_this_fs(const struct refetch *r);

/* What the store says to put back for @fs_id, files, links and folders:
 * r->list, and r->n paths.  0 or -errno. */
int refetch_load(struct refetch *r, struct map_store *st, int64_t fs_id);

/*
 * Check every path, in path order (a folder that comes back comes before
 * what is in it), and unless r->dry_run write it from the mirror through
 * the checked descriptors.  Each entry gets its outcome.  0 or -ENOMEM.
 */
int refetch_paths(struct refetch *r);

/* Each folder restored gets the mirror's entries it lacks, then lost+found
 * loses the orphans that are copies of them.  0 or -errno. */
int refetch_put_back(struct refetch *r);

/* Record an action per finding (the worst outcome of its paths); its state
 * becomes refetched when every path of it was restored.  The number of
 * findings whose outcome could not be recorded (see r->unrecorded). */
int refetch_record(struct refetch *r, struct map_store *st, int64_t fs_id);

/* Everything a run holds; @r may be used again after refetch_free(). */
void refetch_free(struct refetch *r);

#endif
