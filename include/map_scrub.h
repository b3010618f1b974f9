/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Online scrub: the scrub types, one call, and every object of a filesystem. */
#ifndef MAP_SCRUB_H
#define MAP_SCRUB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct map_fs;
struct map_geometry;

#ifdef __cplusplus
extern "C" {
#endif

/* ---- scrub types ---------------------------------------------------------- */

enum map_scrub_scope {
	MAP_SCOPE_NONE,		/* PROBE */
	MAP_SCOPE_AG,		/* one allocation group */
	MAP_SCOPE_FS,		/* whole filesystem */
	MAP_SCOPE_INODE,	/* one inode */
};

/*
 * The phases a scan checks and a repair rebuilds in, in the order they run:
 * each phase needs the ones before it (an inode is found through the AG
 * headers and the inode btree; a directory through the inode and its extent
 * map).  A scan checks an AG's types (AG headers, then AG btrees) together,
 * every inode's types in the inode stage, the whole-filesystem ones last.
 */
enum map_scrub_phase {
	MAP_PHASE_AG_HEADERS,	/* sb, agf, agfl, agi */
	MAP_PHASE_AG_BTREES,	/* free space, inode, reverse-mapping, refcount btrees */
	MAP_PHASE_INODES,	/* inode records */
	MAP_PHASE_EXTENT_MAPS,	/* data, attr and CoW fork mappings */
	MAP_PHASE_CONTENTS,	/* directories, xattrs, symlinks */
	MAP_PHASE_LINKS,	/* parent pointers, directory tree, link counts */
	MAP_PHASE_SUMMARY,	/* summary counters, quotas */
	MAP_PHASE_NR
};

/* Where a type runs inside its phase, lower first (0 .. MAP_SCRUB_RANKS - 1);
 * then by type number. */
#define MAP_SCRUB_RANKS 3

/* Whole-filesystem checks that walk every inode themselves (one long call). */
#define MAP_SCRUB_F_WALKS_INODES	(1u << 0)

struct map_scrub_type_info {
	uint32_t type;			/* XFS_SCRUB_TYPE_* */
	const char *name;		/* short stable name, e.g. "bnobt" */
	enum map_scrub_scope scope;
	const char *what;		/* human description */
	enum map_scrub_phase phase;
	unsigned int rank;		/* inside the phase */
	unsigned int flags;		/* MAP_SCRUB_F_* */
};

/* Table entry for a scrub type, or NULL for an unknown type. */
const struct map_scrub_type_info *map_scrub_type(uint32_t type);
/* XFS_SCRUB_TYPE_* for a name, or -ENOENT. */
int map_scrub_type_by_name(const char *name);
/* Number of scrub types this library knows (types are 0..n-1). */
uint32_t map_scrub_type_count(void);
/* The types of scope @scope that have every flag of @flags set and none of
 * @without, in the order they run (phase, rank, type): at most @max into
 * @types; returns how many there are. */
size_t map_scrub_types_in_order(enum map_scrub_scope scope, unsigned int flags,
				unsigned int without, uint32_t *types, size_t max);
/* Whether scrub type @a runs before @b: -1, 0 or 1, for qsort. */
int map_scrub_type_cmp(uint32_t a, uint32_t b);
/* "AG headers", "inodes", ...; "?" when out of range. */
const char *map_scrub_phase_name(enum map_scrub_phase p);

/*
 * One XFS_IOC_SCRUB_METADATA call on the filesystem of @fd.  EBUSY and
 * EDEADLOCK are retried with backoff.  On success *oflags (if not NULL) gets
 * the output flags.  Returns 0 or a negative errno from the kernel.
 */
int map_scrub_call(int fd, uint32_t type, uint32_t agno, uint64_t ino, uint32_t gen,
		   uint32_t iflags, uint32_t *oflags);

/* Text for scrub output flags ("corrupt,xfail"), written into buf. */
const char *map_scrub_oflags_str(uint32_t oflags, char *buf, size_t len);
/* Do scrub output flags say the object is corrupt (or cross-referencing
 * found it so)? */
bool map_scrub_oflags_corrupt(uint32_t oflags);

/* ---- scrub every object ----------------------------------------------------- */

struct map_scrub_result {
	uint32_t type;			/* XFS_SCRUB_TYPE_* */
	uint32_t agno;			/* AG-scoped types */
	uint64_t ino;			/* inode-scoped types */
	uint32_t gen;
	uint32_t oflags;		/* XFS_SCRUB_OFLAG_* (valid when error == 0) */
	int error;			/* 0 or negative errno */
	bool absent;			/* feature not present on this fs (ENOENT) */
};

/* Nonzero return from the callback stops the walk and is returned. */
typedef int (*map_scrub_fn)(const struct map_scrub_result *res, void *arg);

struct map_scrub_opts {
	uint32_t iflags;		/* XFS_SCRUB_IFLAG_REPAIR / FORCE_REBUILD, usually 0 */
	bool skip_inodes;		/* only AG and filesystem scopes */
	bool no_vector;			/* one call at a time even if SCRUBV exists */
	unsigned int threads;		/* inode scrubbing threads; 0: one per CPU */
	/* progress: objects done and an estimate of the total */
	void (*progress)(uint64_t done, uint64_t total, void *arg);
	const volatile int *cancel;	/* set nonzero to stop (-MAP_ECANCELED) */
	void *arg;			/* passed to progress */
};

struct map_scrub_stats {
	uint64_t calls;			/* kernel calls (a vector counts once) */
	uint64_t objects;		/* results produced */
	uint64_t inodes;
	uint64_t corrupt;		/* CORRUPT or XCORRUPT */
	uint64_t errors;		/* errors other than absent features */
	bool vectored;
};

/*
 * Scrub every applicable object (-MAP_ENOSCRUB at once, before any result,
 * when the kernel has no online scrub): per AG headers and btrees, then every inode
 * bulkstat finds (inode core, forks, directory, xattr, symlink, parent), then
 * filesystem-wide summaries, HEALTHY last.  Damage does not stop the walk:
 * every result, good or bad, goes to @fn.  Inodes are checked by several
 * threads (whole AGs each, so in no global order); @fn and the progress
 * callback are called by one thread at a time.
 */
int map_scrub_fs(struct map_fs *fs, const struct map_scrub_opts *opts, map_scrub_fn fn,
		 void *arg, struct map_scrub_stats *stats);

/* Scrub types that apply to an inode of this mode (with or without an
 * attribute fork) on this filesystem, in checking order. */
size_t map_scrub_inode_types(const struct map_geometry *geo, uint32_t mode, bool has_attr,
			     uint32_t *types, size_t max);
/* 0 if the kernel can scrub the filesystem of @fd (XFS_SCRUB_TYPE_PROBE),
 * -MAP_ENOSCRUB if it has no online scrub, or another negative errno. */
int map_scrub_probe(int fd);
/* 1 if the kernel has vectored scrub, 0 if not, or a negative errno. */
int map_scrub_has_vector(int fd);

#ifdef __cplusplus
}
#endif
#endif /* MAP_SCRUB_H */
