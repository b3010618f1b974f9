/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pipeline: verify the media, map bad bytes to their owners, resolve
 * owners to paths, and the scan that runs them all into the store.
 */
#ifndef MAP_PIPELINE_H
#define MAP_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "map_fs.h"
#include "map_ranges.h"
#include "map_scrub.h"
#include "map_store.h"

struct map_finding;

#ifdef __cplusplus
extern "C" {
#endif

/* ---- verify media ------------------------------------------------------------ */

/*
 * Written space on the data device according to GETFSMAP: file data, metadata
 * and an internal log; without free space, unwritten extents and CoW staging.
 * Sorted and merged.  Without rmapbt, all allocated space.
 */
int map_written_ranges(struct map_fs *fs, struct map_range_list *out);

struct map_verify_opts {
	uint32_t io_size;		/* bytes per read (default 4 MiB) */
	uint32_t inflight;		/* reads in flight (default 2, at least 2) */
	/* map_verify_written: read written space only, as the reverse mapping
	 * btree tells it (one record per extent: CPU heavy with many files),
	 * instead of all allocated space (the free space btree: cheap; bad
	 * ranges are still reported only where they hit written space) */
	bool written_only;
	int ioprio_class;		/* 0 leave as is, 2 best-effort, 3 idle */
	int ioprio_level;		/* 0..7 for best-effort */
	uint64_t rate;			/* bytes per second, 0 = unlimited */
	/* progress: bytes verified, total bytes, and the device position below
	 * which every range has been verified (a safe resume point) */
	void (*progress)(uint64_t done, uint64_t total, uint64_t position, void *arg);
	/* a bad range, block-size exact, with the error the read got; progress
	 * and bad are never called at the same time, and a position passed to
	 * progress comes after every bad range below it */
	void (*bad)(uint64_t start, uint64_t length, int error, void *arg);
	const volatile int *cancel;
	void *arg;
};

struct map_verify_stats {
	uint64_t bytes_total;		/* bytes in the ranges given */
	uint64_t bytes_verified;	/* of those, read and checked (all, unless stopped) */
	uint64_t bytes_read;		/* bytes read (failed reads split and read again included) */
	uint64_t bytes_bad;
	uint64_t bad_ranges;
	uint64_t reads;
	uint64_t failed_reads;
	double seconds;
};

/*
 * Verify every written byte of the data device at or above @from, finding
 * the written ranges (GETFSMAP, several AGs at once) while the AGs already
 * found are being read.  *written gets every written byte of the device,
 * those below @from included.  Progress totals grow as AGs are found.
 * Unless opts->written_only, "written" here is all allocated space (as
 * without rmapbt): preallocated extents and CoW staging are read and counted
 * too, but a bad range is reported only where it hits written space.
 */
int map_verify_written(struct map_fs *fs, uint64_t from, const struct map_verify_opts *opts,
		       struct map_verify_stats *stats, uint64_t *written);

/* Read every byte of @ranges from the data device with O_DIRECT, splitting a
 * failed read down to the block size.  Returns 0 even when bad ranges were
 * found (they went to opts->bad); negative only when it could not run. */
int map_verify_media(struct map_fs *fs, const struct map_range_list *ranges,
		     const struct map_verify_opts *opts, struct map_verify_stats *stats);

/* ---- map: who owns a byte range ---------------------------------------------- */

enum map_owner_kind {
	MAP_OWNER_FILE,			/* regular file data */
	MAP_OWNER_DIR,			/* directory block */
	MAP_OWNER_SYMLINK,		/* symbolic link target block */
	MAP_OWNER_XATTR,		/* extended attribute block */
	MAP_OWNER_BMBT,			/* extent map (bmbt) block of a fork */
	MAP_OWNER_INODE,		/* an inode core in an unreadable cluster */
	MAP_OWNER_INODES,		/* an inode chunk (the range as a whole) */
	MAP_OWNER_FS_HEADERS,		/* superblock, AGF, AGFL, AGI sectors */
	MAP_OWNER_LOG,			/* the journal */
	MAP_OWNER_AG_BTREES,		/* free space and reverse mapping btrees, AGFL blocks */
	MAP_OWNER_INOBT,		/* inode and free inode btrees */
	MAP_OWNER_REFCOUNTBT,		/* reference count btree */
	MAP_OWNER_COW,			/* copy-on-write staging extent */
	MAP_OWNER_FREE,			/* free space: nothing lost */
	MAP_OWNER_UNKNOWN,		/* in use, owner unknown */
	MAP_OWNER_NR
};

#define MAP_OWNER_F_ATTR_FORK	(1u << 0)	/* attribute fork (xattr, bmbt) */
#define MAP_OWNER_F_SHARED	(1u << 1)	/* reflinked: other owners too */
#define MAP_OWNER_F_UNWRITTEN	(1u << 2)	/* preallocated, never written */
#define MAP_OWNER_F_NO_INODE	(1u << 3)	/* inode could not be read (mode unknown) */
#define MAP_OWNER_F_BY_INDEX	(1u << 4)	/* found through the extent index (no rmapbt) */
#define MAP_OWNER_F_CLUSTER	(1u << 5)	/* inode core outside the bad range, in a
						 * cluster the kernel reads with it */

struct map_owner {
	enum map_owner_kind kind;
	uint32_t flags;			/* MAP_OWNER_F_* */
	uint64_t physical;		/* bad bytes this owner covers: device offset */
	uint64_t length;		/*   and length */
	uint32_t agno;
	uint64_t ino;			/* inode owners; 0 for the others */
	uint32_t gen;
	uint32_t mode;			/* S_IF* | permissions; 0 if unknown */
	uint64_t offset;		/* byte offset in the fork (data/xattr/dir/symlink) */
	uint32_t nr_scrub;		/* scrub types that check and repair it */
	uint32_t scrub[4];
};

struct map_owner_list {
	struct map_owner *v;
	size_t n, cap;
};

const char *map_owner_kind_name(enum map_owner_kind kind);
/* Kind for a name from map_owner_kind_name(), or -ENOENT. */
int map_owner_kind_from_name(const char *name);
bool map_owner_kind_is_metadata(enum map_owner_kind kind);
void map_owner_list_free(struct map_owner_list *list);

/*
 * Every owner of bad device bytes [start, start+length): a GETFSMAP query
 * (or, without rmapbt, the extent index), clipped to the range, with inode
 * owners completed by bulkstat and inode chunks expanded to the inodes whose
 * cores are lost.  Appends to @out.
 */
int map_locate(struct map_fs *fs, uint64_t start, uint64_t length, struct map_owner_list *out);

/* ---- resolve: inode -> every path ---------------------------------------------- */

struct map_paths {
	uint64_t ino;
	uint32_t gen;			/* from bulkstat; 0 if unknown */
	uint32_t mode;
	uint32_t nlink;
	bool unlinked;			/* allocated, open, but no name left */
	bool gone;			/* no longer allocated (or a new generation) */
	bool unreadable;		/* the inode itself cannot be read */
	bool pptr_unreadable;		/* a parent-pointer filesystem, but this
					 * inode's parent pointers could not be read:
					 * its names come from the directories */
	size_t npaths;
	char **paths;			/* relative to the mount root; "" is the root */
};

struct map_resolve_stats {
	uint64_t dirs_total;		/* directories listed (around the targets) */
	uint64_t dirs_read;		/* directories read before every name was found */
	uint64_t inodes_scanned;
	bool used_parent_pointers;
	uint64_t pptr_lookups;		/* targets asked GETPARENTS for their names */
	uint64_t pptr_fallbacks;	/* of those, or unreadable ones, looked up in
					 * the directories instead */
	uint64_t dcache_hits;		/* targets named by the kernel's dentry cache */
	bool used_dirindex;		/* directories listed from the directory index */
	bool dirindex_retried;		/* its answer fell short: done again without it */
};

/*
 * Every path naming each of @inos.  Results come back in the order of @inos;
 * an inode number 0 (an owner that is not an inode) gets an empty result.
 * Without parent pointers, one pass over directories (opened by handle) that
 * stops as soon as every target has all its names; memory grows with the
 * number of directories, not files.  Each path is checked with fstatat before
 * it is returned.
 */
int map_resolve_paths(struct map_fs *fs, const uint64_t *inos, size_t n,
		      struct map_paths **out, struct map_resolve_stats *stats);
void map_paths_free(struct map_paths *paths, size_t n);

/* ---- scan: scrub + verify + map + resolve, into the store ------------------------ */

struct map_scan_progress {
	enum map_scan_phase phase;	/* metadata (objects) or media (bytes) */
	uint64_t done, total;		/* objects (metadata) or bytes (media) */
	uint64_t bad_ranges;		/* found so far in this run */
	double elapsed;			/* seconds in this run */
};

struct map_scan_opts {
	bool metadata;			/* scrub metadata (neither set: both) */
	bool media;			/* verify media */
	bool restart;			/* start over instead of resuming */
	uint32_t io_size, inflight;	/* media reads (see map_verify_opts) */
	int ioprio_class, ioprio_level;
	uint64_t rate;			/* bytes per second, 0 = unlimited */
	unsigned int checkpoint_secs;	/* how often to save progress (default 2) */
	const char *user;		/* recorded with the scan */
	void (*progress)(const struct map_scan_progress *p, void *arg);
	/* each finding recorded (new or seen again) */
	void (*found)(const struct map_finding *f, bool is_new, void *arg);
	const volatile int *cancel;	/* set nonzero to stop at the next checkpoint */
	void *arg;
};

struct map_scan_result {
	int64_t fs_id, scan_id;
	bool resumed;			/* continued an interrupted scan */
	bool metadata_skipped;		/* asked for, but the kernel has no online
					 * scrub: media only (MAP_ENOSCRUB) */
	uint64_t resumed_at;		/* device byte it continued from */
	int new_findings, seen_findings, resolved;
	int open;			/* open findings after the scan */
	struct map_scrub_stats scrub;
	struct map_verify_stats verify;
};

/*
 * Scan @fs and record what it finds in @st.  On a kernel without online
 * scrub the metadata phase is skipped (res->metadata_skipped) and only media
 * is verified; a metadata-only scan then fails -MAP_ENOSCRUB.  One scan per
 * filesystem at a time (-EBUSY otherwise, *holder_pid says who).  An interrupted scan of the
 * same filesystem is resumed from its checkpoint unless opts->restart.  A
 * complete scan resolves open findings it no longer sees.  Cancellation and
 * an unmount stop at a checkpoint (-MAP_ECANCELED, -MAP_EUNMOUNTED) with the
 * scan saved as interrupted.
 */
int map_scan(struct map_store *st, struct map_fs *fs, const struct map_scan_opts *opts,
	     struct map_scan_result *res, int *holder_pid);

/* The scan lock of a filesystem: 0 and an fd to close, or -EBUSY (pid in
 * *holder_pid when known). */
int map_scan_lock(struct map_store *st, const char *uuid, int *holder_pid);

/* Owners and paths of bad device bytes [start, start+length): map_locate()
 * followed by map_resolve_paths() for the inode owners.  *paths (parallel to
 * owners->v) is freed with map_paths_free(*paths, owners->n). */
int map_locate_paths(struct map_fs *fs, uint64_t start, uint64_t length,
		     struct map_owner_list *owners, struct map_paths **paths);

/* Written ranges of one open file (GETBMAPX on the data fork), for
 * re-verifying a file after it was restored. */
int map_file_ranges(int fd, struct map_range_list *out);
/* Device bytes holding the written file bytes [pos, pos+len) of one open file
 * (holes, delayed allocations and unwritten extents have none). */
int map_file_span_ranges(int fd, uint64_t pos, uint64_t len, struct map_range_list *out);

#ifdef __cplusplus
}
#endif
#endif /* MAP_PIPELINE_H */
