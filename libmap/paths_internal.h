/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Resolve (paths.c and its strategies, paths_*.c): the state of one resolve
 * shared by the orchestrator (paths.c), what each target is
 * (paths_targets.c), the names known before any directory is read
 * (paths_hints.c), parent pointers (paths_pptr.c), reading directories
 * (paths_dirs.c) and the checked answer (paths_check.c).  Private to libmap.
 */
#ifndef MAP_PATHS_INTERNAL_H
#define MAP_PATHS_INTERNAL_H

#include "map_internal.h"

#define GETDENTS_BUF	65536
/* Names from the dentry cache are tried, and the directory index's covering
 * spans read first, for batches this small (events). */
#define HINT_MAX	16

struct target {
	uint32_t index;		/* slot of this inode in the results */
	uint32_t needed;	/* names wanted; UINT32_MAX when unknown */
	uint32_t found;
	bool filled;		/* mode, links and generation known */
};

struct hit {
	uint64_t dir;
	uint64_t ino;
	char *name;
	size_t len;
	bool checked;		/* it leads to the target now (build_results) */
};

struct dirinfo {
	uint32_t gen;
	bool read;
	bool by_path;		/* seen only as a directory entry: bulkstat could not
				 * list it (e.g. its inode btree is unreadable), so it is
				 * opened by path instead of by handle */
	uint64_t dotdot;	/* parent, once read */
};

struct dir_key {
	uint64_t distance;	/* to the nearest target inode number */
	uint64_t ino;
};

struct resolve {
	struct map_fs *fs;
	struct map_paths *res;
	struct map_inohash *targets;	/* ino -> struct target */
	uint64_t *target_inos;		/* sorted, unique */
	size_t ntargets;
	struct map_inohash *dirs;	/* ino -> struct dirinfo */
	struct dir_key *order;
	size_t ndirs;
	struct map_dirmap *dm;		/* the index's when there is one */
	struct map_dirindex *ix;	/* ready, or NULL */
	struct map_dirindex *record;	/* where to keep the names of files with
					 * several links: ix, or the index a redo heals */
	struct hit *hits;
	size_t nhits;
	size_t nchased;			/* hits[0..nchased) have every ancestor named */
	bool listed_all;		/* every directory is in order[] already */
	size_t unfound;			/* targets with names still missing */
	uint64_t *wanted;		/* directories to read next (a stack) */
	size_t nwanted;
	size_t next;			/* next in order[] to read */
	uint64_t walk_start, walk_end;	/* the bulkstat window being listed */
	struct map_resolve_stats *stats;
};

/* paths.c */
int resolve_add_path(struct map_paths *p, const char *path);

/* paths_targets.c: each target's mode, links and generation (bulkstat). */
int resolve_fill_targets(struct resolve *r);

/* paths_hints.c */
int resolve_take_hints(struct resolve *r);
int resolve_take_links(struct resolve *r);
int resolve_seed_covering(struct resolve *r);

/* paths_pptr.c */
int resolve_pptr(struct resolve *r);

/* paths_dirs.c */
struct dirinfo *resolve_add_dir(struct resolve *r, uint64_t ino);
/* Directory @ino of generation @gen listed, unless it is already; -ENOMEM. */
int resolve_list_dir(struct resolve *r, uint64_t ino, uint32_t gen);
int resolve_add_hit(struct resolve *r, uint64_t dir, uint64_t ino, const char *name, size_t len);
size_t resolve_unfound(struct resolve *r);
int resolve_by_windows(struct resolve *r);

/* paths_check.c */
int resolve_build_results(struct resolve *r);

#endif
