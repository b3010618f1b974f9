/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libmap - find damaged data on XFS and name the files it belongs to.
 *
 * Every function returns 0 (or a count) on success and a negative errno, or a
 * negative MAP_E* code, on failure; map_strerror() is the one place that turns
 * those into words.  The library keeps no global state.
 */
#ifndef MAP_H
#define MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- errors ------------------------------------------------------------- */

/* Codes beyond the errno range, returned negated like errnos. */
enum map_error {
	MAP_EBASE = 4096,
	MAP_ENOTXFS,		/* path is not on an XFS filesystem */
	MAP_ENOTMOUNTED,	/* no mount found for the path */
	MAP_ENOSCRUB,		/* kernel has no online scrub */
	MAP_ENOREPAIR,		/* kernel has no online repair */
	MAP_EDBSCHEMA,		/* database schema is newer than this program */
	MAP_EDBCORRUPT,		/* database file is not a usable mapper database */
	MAP_ECANCELED,		/* stopped by the caller */
	MAP_EUNMOUNTED,		/* filesystem went away during the operation */
	MAP_ELAST
};

/* Message for a negative errno or MAP_E* code; never NULL. */
const char *map_strerror(int err);

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


/* ---- discover: an opened, mounted XFS filesystem -------------------------- */

struct map_fs;

/* Geometry from XFS_IOC_FSGEOMETRY, plus values derived from it. */
struct map_geometry {
	uint32_t blocksize;		/* bytes */
	uint32_t sectsize;
	uint32_t inodesize;
	uint32_t dirblocksize;
	uint32_t agcount;
	uint32_t agblocks;		/* blocks per AG (the last AG may be shorter) */
	uint64_t datablocks;		/* blocks in the data device */
	uint64_t logstart;		/* first block of an internal log, 0 if external */
	uint32_t logblocks;
	uint32_t flags;			/* XFS_FSOP_GEOM_FLAGS_* */
	uint32_t sick, checked;		/* fs-wide health bits at open time */
	/* derived */
	uint32_t agblklog;		/* bits of an AG block number in an inode number */
	uint32_t inopblog;		/* log2(inodes per block) */
	uint32_t inode_cluster;		/* bytes the kernel reads an inode cluster in */
	bool v5, finobt, rmapbt, reflink, sparse_inodes, parent, exchange_range;
};

struct map_fs_info {
	char mountpoint[4096];		/* where it is mounted */
	char device[4096];		/* data device node */
	char uuid[40];			/* filesystem UUID (libblkid; geometry as fallback) */
	char label[256];
	char model[128];		/* device identity from libudev / sysfs, "" if unknown */
	char serial[128];
	char wwn[128];
	uint64_t dev;			/* st_dev of the filesystem (the data device) */
	uint64_t root_ino;		/* inode number of the mount root */
	uint32_t fsmap_dev;		/* the same device as GETFSMAP encodes it */
	bool read_only;			/* mounted read-only */
	struct map_geometry geo;
};

/*
 * Open the XFS filesystem that holds @path (any file or folder on it).
 * Fails -MAP_ENOTXFS for other filesystems, -ENOENT for a missing path.
 */
int map_fs_open(const char *path, struct map_fs **fsp);
/*
 * Open again the filesystem @known describes (from map_fs_info of an earlier
 * open), without probing its device again: a few system calls instead of
 * map_fs_open's mount table, libblkid and libudev look-ups.  Its mount point
 * must still show the same filesystem (device, mount root and UUID), else
 * -MAP_EUNMOUNTED (then map_fs_open finds what is there now).  The geometry,
 * health bits and read-only state are read afresh.
 */
int map_fs_reopen(const struct map_fs_info *known, struct map_fs **fsp);
void map_fs_close(struct map_fs *fs);
const struct map_fs_info *map_fs_info(const struct map_fs *fs);
/* An O_RDONLY descriptor of the mount root, owned by @fs (for ioctls). */
int map_fs_fd(const struct map_fs *fs);
/* 0 while the filesystem is still mounted where it was opened, else
 * -MAP_EUNMOUNTED. */
int map_fs_check_mounted(const struct map_fs *fs);
/* Open inode @ino (generation @gen) of @fs by handle, O_RDONLY | @flags;
 * a descriptor or a negative errno (-ESTALE: that inode is gone or reused). */
int map_open_inode(struct map_fs *fs, uint64_t ino, uint32_t gen, int flags);
/* The generation inode @ino has now (bulkstat): 0, -ENOENT when it is not
 * allocated, or another negative errno (-EIO: its cluster cannot be read). */
int map_inode_generation(struct map_fs *fs, uint64_t ino, uint32_t *gen);
/* Fill geometry from a raw struct xfs_fsop_geom (exposed for unit tests). */
void map_geometry_from_xfs(struct map_geometry *geo, const void *xfs_fsop_geom);

/* ---- health: what the kernel already marked sick, since mount (health.c) -- */

struct map_fs_health {
	uint32_t fs_sick;		/* XFS_FSOP_GEOM_SICK_* */
	uint32_t sick_ags;		/* AGs with any XFS_AG_GEOM_SICK_* bit */
	uint32_t ag_sick_union;		/* those bits, of all AGs */
};

struct map_inode_health {
	uint64_t ino;
	uint32_t gen;
	uint32_t mode;
	uint16_t sick;			/* XFS_BS_SICK_* */
	bool has_attr;			/* an attribute fork */
};

/* The filesystem's and every AG's sick bits (one ioctl per AG). */
int map_fs_health(struct map_fs *fs, struct map_fs_health *h);
/* The autofsck property (none, check, optimize, repair) into @buf: 0,
 * -ENODATA when the filesystem has none, -EINVAL when it is not one short
 * word, or another -errno. */
int map_fs_autofsck(const struct map_fs *fs, char *buf, size_t len);
/* One inode's: 0, -ENOENT if it is not allocated, or another -errno. */
int map_inode_health(struct map_fs *fs, uint64_t ino, struct map_inode_health *out);
/* Every allocated inode bulkstat calls sick, @fn for each (nonzero stops
 * the walk and is returned).  0 or -errno. */
int map_sick_inodes(struct map_fs *fs, int (*fn)(const struct map_inode_health *h, void *arg),
		    void *arg);

/* ---- geometry arithmetic (pure) -------------------------------------------- */

/* Inode number of AG-relative inode @agino in AG @agno. */
uint64_t map_geo_ino(const struct map_geometry *geo, uint32_t agno, uint32_t agino);
/* AG number and AG-relative inode number of @ino. */
void map_geo_ino_split(const struct map_geometry *geo, uint64_t ino, uint32_t *agno,
		       uint32_t *agino);
/* Byte address on the data device of inode @ino's core. */
uint64_t map_geo_ino_to_byte(const struct map_geometry *geo, uint64_t ino);
/* AG holding device byte @byte. */
uint32_t map_geo_byte_to_agno(const struct map_geometry *geo, uint64_t byte);
/*
 * Inode numbers whose cores the kernel can no longer read when bytes
 * [start, start+length) of the device are bad: every inode in an inode
 * cluster that overlaps the range.  Writes at most @max numbers into @inos and
 * returns how many there are in total (which may exceed @max).
 */
size_t map_geo_inodes_in_range(const struct map_geometry *geo, uint64_t start, uint64_t length,
			       uint64_t *inos, size_t max);

/* ---- byte ranges on the data device (pure) ---------------------------------- */

struct map_range {
	uint64_t start;
	uint64_t length;
};

struct map_range_list {
	struct map_range *v;
	size_t n, cap;
};

int map_range_add(struct map_range_list *list, uint64_t start, uint64_t length);
/* Sort by start and merge ranges that overlap or lie within @gap bytes. */
void map_range_merge(struct map_range_list *list, uint64_t gap);
uint64_t map_range_total(const struct map_range_list *list);
/* Drop everything below @pos, clipping a range that straddles it. */
void map_range_clip_below(struct map_range_list *list, uint64_t pos);
/* Call @fn, in order, for each part of [start, start+length) that lies in
 * @list (sorted and merged); stops at the first nonzero return and returns it. */
int map_range_intersect(const struct map_range_list *list, uint64_t start, uint64_t length,
			int (*fn)(uint64_t start, uint64_t length, void *arg), void *arg);
void map_range_free(struct map_range_list *list);

/*
 * Cut [start, start+length) into reads of at most @io_size bytes, each
 * aligned to @align where possible; calls @fn for each piece in order and stops
 * at the first nonzero return, which it returns.
 */
int map_range_split(uint64_t start, uint64_t length, uint64_t io_size, uint64_t align,
		    int (*fn)(uint64_t start, uint64_t length, void *arg), void *arg);

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

/* Decode one GETFSMAP record (struct fsmap) against bad range [start,
 * start+length): fills @owner (no bulkstat) and returns 1, or 0 when the record
 * does not overlap the range. */
int map_owner_from_fsmap(const struct map_geometry *geo, const void *fsmap_rec, uint64_t start,
			 uint64_t length, struct map_owner *owner);

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

/*
 * A directory map for path assembly (pure; exposed for unit tests):
 * directories as (ino, parent ino, name in parent) and the root's inode.
 */
struct map_dirmap;
struct map_dirmap *map_dirmap_new(uint64_t root_ino);
void map_dirmap_free(struct map_dirmap *dm);
/* Record that directory @parent holds directory @ino under @name (len bytes). */
int map_dirmap_add(struct map_dirmap *dm, uint64_t ino, uint64_t parent, const char *name,
		   size_t len);
/* Path of directory @ino relative to the root ("" for the root itself), or
 * NULL when an ancestor is unknown or there is a loop; caller frees. */
char *map_dirmap_path(const struct map_dirmap *dm, uint64_t ino);
/* Path of @name inside directory @dir, or NULL; caller frees. */
char *map_dirmap_join(const struct map_dirmap *dm, uint64_t dir, const char *name, size_t len);
/* Record @ino's name, replacing the one known (what a directory read or an
 * event just showed). */
int map_dirmap_set(struct map_dirmap *dm, uint64_t ino, uint64_t parent, const char *name,
		   size_t len);
/* Forget @ino's name if it is @name in @parent; true when it was. */
bool map_dirmap_forget(struct map_dirmap *dm, uint64_t ino, uint64_t parent, const char *name,
		       size_t len);
/* Every named directory; a nonzero return from @fn stops and is returned. */
int map_dirmap_each(struct map_dirmap *dm,
		    int (*fn)(uint64_t ino, uint64_t parent, const char *name, size_t len,
			      void *arg), void *arg);

/*
 * A directory index kept between resolves, for filesystems without parent
 * pointers (dirindex.c, dirindex_events.c): every directory's generation,
 * parent and name, built once in slices and kept current from fanotify
 * directory-entry events.  map_resolve_paths uses it, once ready, to find
 * the directories near a target without bulkstat and to name ancestors
 * without reading them; every path it gives is still checked, and a resolve
 * that falls short of a target's link count is done again without it.
 */
struct map_dirindex;
struct map_dirindex_stats {
	uint64_t dirs;			/* directories known */
	uint64_t builds;		/* builds finished */
	double build_seconds;		/* the last build's working time */
	uint64_t events;		/* directory events applied */
	uint64_t resets;		/* events lost (queue overflow): rebuilt */
	uint64_t retries;		/* resolves redone without the index */
	uint64_t uses;			/* resolves that used it */
};
struct map_dirindex *map_dirindex_new(void);
void map_dirindex_free(struct map_dirindex *ix);
/* Go on building for about @budget seconds: 1 when ready, 0 when there is
 * more to do, or -errno (the build starts again on the next call); -E2BIG:
 * more than 2^21 directories, more than an index may hold. */
int map_dirindex_build(struct map_dirindex *ix, struct map_fs *fs, double budget);
bool map_dirindex_ready(const struct map_dirindex *ix);
/* Forget everything (events were lost); the next build starts over. */
void map_dirindex_reset(struct map_dirindex *ix);
void map_dirindex_get_stats(const struct map_dirindex *ix, struct map_dirindex_stats *st);
/* Let map_resolve_paths on @fs use @ix (NULL: stop); @ix must outlive @fs's use. */
void map_fs_use_dirindex(struct map_fs *fs, struct map_dirindex *ix);
/*
 * The fanotify group that keeps an index current: a filesystem mark for
 * directory-entry events (create, delete, moves) reported with the parent's
 * handle, the name and the child's handle.  Non-blocking fd, or -errno.
 */
int map_dirindex_watch(const char *mountpoint);
/* Apply every event waiting on @fan_fd to @ix: how many applied, or -errno.
 * A queue overflow resets the index. */
int map_dirindex_drain(struct map_dirindex *ix, struct map_fs *fs, int fan_fd);
/* Apply one buffer of fanotify events (what map_dirindex_drain reads):
 * the number of directory events applied, or -EINVAL for a malformed buffer. */
int map_dirindex_apply_events(struct map_dirindex *ix, struct map_fs *fs, const void *buf,
			      size_t len);
/* Inode and generation from an XFS file handle as fanotify reports it
 * (handle type and bytes): 0 or -EINVAL. */
int map_xfs_handle_decode(int type, const unsigned char *h, size_t len, uint64_t *ino,
			  uint32_t *gen);
/* The info records that follow one fanotify event's metadata: @fn for each,
 * with its type and bytes (header included).  -EINVAL when a record's
 * length does not fit, else @fn's first nonzero return, else 0. */
int map_fan_info_each(const void *info, size_t len,
		      int (*fn)(int type, const unsigned char *rec, size_t reclen, void *arg),
		      void *arg);
/* A FID record (fanotify_event_info_fid, then a file_handle): the handle's
 * type and bytes, and what follows them in the record (a DFID_NAME record's
 * name); -EINVAL when they do not fit. */
int map_fan_fid(const unsigned char *rec, size_t reclen, int *type, const unsigned char **handle,
		size_t *hlen, const unsigned char **rest, size_t *restlen);

/* ---- store: SQLite ---------------------------------------------------------- */

struct map_store;

#define MAP_STORE_READONLY	(1u << 0)	/* never create or write */

/* $MAPPER_DB, or /var/lib/mapper/mapper.db. */
const char *map_store_default_path(void);
/*
 * Open (creating it mode 0640, with its folder, unless READONLY) and bring
 * the schema up to date in one transaction.  A file that is not a mapper
 * database gives -MAP_EDBCORRUPT and one from a newer version
 * -MAP_EDBSCHEMA; neither is ever written to.  A READONLY store of an older
 * schema is read as that schema recorded it (no evidence before schema 2)
 * until something that may write opens it.
 */
int map_store_open(const char *path, unsigned int flags, struct map_store **out);
/*
 * Why the last store call of this thread that failed with @rc failed, in
 * words: which file (the database, its -wal or -shm, or the folder that
 * should hold them), the system's reason and SQLite's own message, e.g.
 * "/var/lib/mapper/mapper.db-shm: Permission denied (SQLite: unable to open
 * database file)".  NULL when the last failure returned another code (the
 * caller's error then came from elsewhere, a filesystem).
 */
const char *map_store_error(int rc);
const char *map_store_path(const struct map_store *st);
void map_store_close(struct map_store *st);
int map_store_version(struct map_store *st);
int map_store_begin(struct map_store *st);	/* BEGIN IMMEDIATE */
int map_store_commit(struct map_store *st);
void map_store_rollback(struct map_store *st);
/* PRAGMA integrity_check: 0 when "ok", else -MAP_EDBCORRUPT. */
int map_store_check(struct map_store *st);

struct map_store_fs {
	int64_t id;
	char uuid[40];
	char label[256];
	char mountpoint[4096];
	char device[4096];
	char model[128], serial[128], wwn[128];
	uint32_t blocksize, agcount;
	uint64_t datablocks;
	bool rmapbt, reflink, parent;
	int64_t first_seen, last_seen;
};

/* Insert or refresh the filesystem with info's UUID; its id in *fs_id. */
int map_store_fs_upsert(struct map_store *st, const struct map_fs_info *info, int64_t *fs_id);
int map_store_fs_get(struct map_store *st, int64_t fs_id, struct map_store_fs *out);
int map_store_fs_by_uuid(struct map_store *st, const char *uuid, struct map_store_fs *out);
int map_store_fs_each(struct map_store *st, int (*fn)(const struct map_store_fs *, void *),
		      void *arg);

/* A scan's state and the phase it is in (or resumes at); their names are
 * the store's words (and mapctl's, mapperd's). */
enum map_scan_state {
	MAP_SCAN_RUNNING, MAP_SCAN_INTERRUPTED, MAP_SCAN_COMPLETE, MAP_SCAN_FAILED,
	MAP_SCAN_STATE_NR
};
enum map_scan_phase {
	MAP_SCAN_PHASE_METADATA, MAP_SCAN_PHASE_MEDIA, MAP_SCAN_PHASE_DONE, MAP_SCAN_PHASE_NR
};
const char *map_scan_state_name(enum map_scan_state state);
const char *map_scan_phase_name(enum map_scan_phase phase);
/* The state or phase of that name, or -ENOENT. */
int map_scan_state_from_name(const char *name);
int map_scan_phase_from_name(const char *name);

struct map_scan_row {
	int64_t id, fs_id;
	enum map_scan_state state;
	enum map_scan_phase phase;
	bool do_metadata, do_media;
	int64_t started, finished;	/* unix seconds; finished 0 while not */
	double seconds;
	uint64_t media_position, media_total, media_done, objects;
	int runs, pid;
	char user[64];
	char error[256];
};

/* The newest scan of a filesystem, -ENOENT if none. */
int map_store_scan_latest(struct map_store *st, int64_t fs_id, struct map_scan_row *out);
/* The newest complete scan with media verification, -ENOENT if none. */
int map_store_scan_last_complete(struct map_store *st, int64_t fs_id, struct map_scan_row *out);
/* The newest complete scan that covered @covered (one MAP_COVER_*), -ENOENT if none. */
int map_store_scan_last_covering(struct map_store *st, int64_t fs_id, unsigned int covered,
				 struct map_scan_row *out);
int map_store_scan_insert(struct map_store *st, struct map_scan_row *row);	/* sets id */
int map_store_scan_update(struct map_store *st, const struct map_scan_row *row);

/*
 * ZEROED: repair --offline overwrote the finding's unreadable sectors with
 * zeros (and xfs_repair may have dropped what they held).  A scan reads
 * zeros as good data, so no scan resolves it: only a verified refetch or
 * mapctl resolve closes it.  Like OPEN it is damage still to be dealt with.
 */
enum map_finding_state {
	MAP_STATE_OPEN, MAP_STATE_REFETCHED, MAP_STATE_REPAIRED, MAP_STATE_IGNORED,
	MAP_STATE_RESOLVED, MAP_STATE_ZEROED, MAP_STATE_NR
};
const char *map_state_name(enum map_finding_state state);
int map_state_from_name(const char *name);
/* Findings that still want something done (open and zeroed), of counts by
 * state from map_store_count(). */
int map_counts_open(const int counts[MAP_STATE_NR]);
/* Whether findings in @state still want something done. */
bool map_state_is_open(enum map_finding_state state);

/* Finding kinds beyond map_owner_kind_name()'s. */
#define MAP_FINDING_KIND_PARENT		"parent"	/* parent pointers / dotdot of an inode */
#define MAP_FINDING_KIND_SUMMARY	"summary"	/* filesystem-wide counters, quotas */

/*
 * One damaged object (see map_finding_object_key in finding.c for what makes
 * two sightings the same object) and a summary of its evidence; every
 * sighting is listed by map_store_finding_evidence().
 */
struct map_finding {
	int64_t id, fs_id;
	char source[8];			/* media, scrub, event: the most direct
					 * evidence there is (media over event over
					 * scrub); a new sighting's own source */
	char kind[24];			/* map_owner_kind_name(), "parent" or "summary" */
	bool has_range;
	uint64_t physical, length;	/* device bytes: the first range seen */
	uint64_t ino;			/* 0: not an inode */
	uint32_t gen, mode;
	char fork[8];			/* "", data, attr */
	bool has_offset;
	uint64_t offset;		/* byte offset in the fork */
	int64_t agno;			/* -1: none */
	uint32_t flags;			/* MAP_OWNER_F_* */
	char scrub[96];			/* scrub type names, comma separated: of
					 * every piece of evidence, each once */
	char detail[128];		/* the latest sighting's, if it had one */
	enum map_finding_state state;
	int64_t first_seen, last_seen, first_scan, last_scan;
	size_t npaths;
	char **paths;			/* relative to the mount root */
};

void map_finding_init(struct map_finding *f);
void map_finding_clear(struct map_finding *f);	/* frees the paths */
/* Fill a media/event finding from an owner (and its paths, may be NULL). */
void map_finding_from_owner(struct map_finding *f, const char *source,
			    const struct map_owner *o, const struct map_paths *p);
/* Fill a scrub finding from a scrub result. */
void map_finding_from_scrub(struct map_finding *f, const struct map_scrub_result *r);
/* Add a path (copied). */
int map_finding_add_path(struct map_finding *f, const char *path);

/*
 * Record a sighting of a damaged object by scan @scan_id (0: not during a
 * scan).  The same object of the same filesystem (whatever the source) is
 * the same finding: its evidence row for this source, scrub type and device
 * range is added or refreshed, its scrub types grow to include @f's, its
 * last_seen and paths are updated, and a finding that was closed is opened
 * again (an ignored one stays ignored).  Sets f->id; *is_new (may be NULL)
 * says whether the finding is new.
 */
int map_store_finding_record(struct map_store *st, int64_t scan_id, struct map_finding *f,
			     bool *is_new);

#define MAP_FIND_ALL		(1u << 0)	/* not only open (and zeroed) findings */
#define MAP_FIND_FILES		(1u << 1)	/* only findings with an inode */
#define MAP_FIND_METADATA	(1u << 2)	/* only metadata findings */

/* Findings of one filesystem (fs_id 0: all), oldest first. */
int map_store_findings(struct map_store *st, int64_t fs_id, unsigned int filter,
		       int (*fn)(const struct map_finding *, void *), void *arg);
int map_store_finding_get(struct map_store *st, int64_t id, struct map_finding *out);
/* Replace a finding's paths (n == 0 keeps the old ones). */
int map_store_finding_set_paths(struct map_store *st, int64_t id, char *const *paths, size_t n);
int map_store_finding_set_state(struct map_store *st, int64_t id, enum map_finding_state state);
/* One piece of evidence of a finding. */
struct map_evidence {
	int64_t id, finding_id;
	char source[8];			/* media, scrub, event */
	char scrub[96];			/* the type that reported it (scrub, event), or
					 * the types that check the range (media) */
	bool has_range;
	uint64_t physical, length;	/* unreadable device bytes */
	char detail[128];
	int64_t first_seen, last_seen, last_scan;	/* last_scan 0: not in a scan */
};
/* The evidence of finding @finding_id, oldest first. */
int map_store_finding_evidence(struct map_store *st, int64_t finding_id,
			       int (*fn)(const struct map_evidence *, void *), void *arg);

/*
 * The kernel marked inode @ino (generation @gen: 0 closes nothing) healthy in the
 * aspects named by @scrub (scrub type names, comma separated).  Each open or
 * repaired metadata finding of that inode (no unreadable device range) whose
 * scrub types are all among them becomes resolved, with an actions row
 * (action resolve, user @who, outcome resolved, @detail).  *n: how many.
 * Within the caller's transaction.
 */
int map_store_close_healthy(struct map_store *st, int64_t fs_id, uint64_t ino, uint32_t gen,
			    const char *scrub, const char *who, const char *detail, int *n);
/* What a complete pass of a scan read again (map_store_resolve_unseen). */
#define MAP_COVER_METADATA	(1u << 0)	/* every object scrubbed */
#define MAP_COVER_MEDIA		(1u << 1)	/* every written byte read */
/*
 * After scan @scan_id covered @covered, open (refetched, repaired) findings
 * that it no longer sees become resolved: those with no evidence seen since
 * the scan started, and all of whose evidence a covered pass checks again
 * (device ranges: media; scrub types: metadata).  Count in *n.
 */
int map_store_resolve_unseen(struct map_store *st, int64_t fs_id, int64_t scan_id,
			     unsigned int covered, int *n);
/* Count findings of a filesystem by state. */
int map_store_count(struct map_store *st, int64_t fs_id, int counts[MAP_STATE_NR]);

struct map_action {
	int64_t id, fs_id, finding_id, at;
	char action[16], user[64], outcome[32], detail[256];
};
int map_store_action_add(struct map_store *st, const struct map_action *a);
/* Actions and events of one filesystem (all: fs_id 0), oldest first. */
int map_store_actions(struct map_store *st, int64_t fs_id,
		      int (*fn)(const struct map_action *, void *), void *arg);

struct map_event {
	int64_t id, fs_id, at;
	char source[16];
	uint64_t ino;
	uint32_t gen;
	int error;
	char detail[256];
};
int map_store_event_add(struct map_store *st, const struct map_event *e);
int map_store_events(struct map_store *st, int64_t fs_id,
		     int (*fn)(const struct map_event *, void *), void *arg);

/* ---- store: figures for monitoring (store_stats.c) ---- */

/* A read transaction: everything read until map_store_read_end() is one
 * state of the store, whatever writers do meanwhile. */
int map_store_read_begin(struct map_store *st);
void map_store_read_end(struct map_store *st);

enum map_tally_what {
	MAP_TALLY_OPEN_BY_KIND,		/* open findings; key: kind */
	MAP_TALLY_DAMAGED_INODES,	/* distinct inodes with open findings; every filesystem */
	MAP_TALLY_REPAIRS,		/* repairs of a finding or of summary counters; key: outcome */
	MAP_TALLY_REFETCHES,		/* refetches; key: outcome */
	MAP_TALLY_EVENTS,		/* error reports received; key: source */
};

/* One count of a filesystem's rows (fs_id 0: events of no known filesystem). */
struct map_tally {
	int64_t fs_id;
	char key[64];
	int64_t n;
};

/* The counts of @what, ordered by filesystem then key. */
int map_store_tally(struct map_store *st, enum map_tally_what what,
		    int (*fn)(const struct map_tally *, void *), void *arg);

/* ---- the figures for Prometheus (metrics.c) ---- */

/*
 * The store's figures in the Prometheus text format (0.0.4) on @out, read
 * in one read transaction: open findings by kind, damaged files, the last
 * complete scan of each type, events, repairs and refetches; every sample
 * labelled with its filesystem's uuid and mountpoint (escaped as
 * map_escape_text writes them, then for the format).  The families are
 * listed in mapctl(8), METRICS.  @st NULL (no database yet): every family
 * without samples.  0, or a negative errno (-EIO: @out failed).
 */
int map_metrics_write(struct map_store *st, FILE *out);
/*
 * The same into @path for a textfile collector: @path.tmp (a link or file
 * left there is removed, never written through), mode 0644 whatever the
 * umask, synced, then renamed over @path, so a reader sees the old file or
 * the new one, never a part.  No symbolic link on @path's folders is
 * followed (-ELOOP): a folder of another user on the way could be swapped
 * for a link to one of root's.  @extra (may be NULL) appends families of
 * the caller's own (mapperd's counters) before the file is synced.  0, or
 * a negative errno; @path.tmp is gone.
 */
int map_metrics_write_file(struct map_store *st, const char *path,
			   void (*extra)(FILE *out, void *arg), void *arg);

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

/* ---- files we keep --------------------------------------------------------------- */

/*
 * Make folder @dir (one level, with @mode) unless it exists, then check that
 * it is safe to keep files in: owned by root or the caller, and writable by
 * no one else unless sticky (like /tmp).  0, -EPERM for an unsafe folder,
 * -ENOTDIR, or another negative errno.
 */
int map_dir_ensure(const char *dir, unsigned int mode);

/* ---- sizes people write ------------------------------------------------------------ */

/*
 * A size or rate as mapctl's options and mapperd.conf take it: digits, an
 * optional decimal fraction, and an optional binary suffix K, M, G or T
 * (1024-based, any case, "i" and "B" allowed after it: 4k, 64KiB, 1.5G),
 * or a plain "B".  A fraction needs a suffix and is rounded down to whole
 * bytes.  No sign, no blanks, no exponent.  0, -EINVAL for anything else,
 * -ERANGE above UINT64_MAX.  What 0 means is the caller's (for rates and
 * read limits: no limit; for read sizes: the default).
 */
int map_parse_size(const char *s, uint64_t *bytes);

/*
 * A duration as mapperd.conf and mapctl's options take it: digits and one
 * unit, ms, s, m, h, d or w (a bare number is seconds: 90s, 15m, 12h, 8d,
 * 4w), or "off"/"never" for 0.  0 or -EINVAL (also when it does not fit in
 * 64 bits of milliseconds).  What 0 means is the caller's.
 */
int map_parse_duration(const char *s, int64_t *ms);
/* @ms in the largest unit that divides it, as map_parse_duration reads it
 * back ("1w", "36h", "1500ms", "off" for 0). */
const char *map_duration_str(int64_t ms, char *buf, size_t len);

/* The read size of verify and scans when map_verify_opts.io_size is 0 (public
 * so that mapperd --check-config can say what io_size = 0 means). */
#define MAP_VERIFY_IO_SIZE_DEFAULT (4u << 20)
/* The read sizes mapctl --io-size and mapperd's io_size accept besides 0: a
 * whole 4 KiB block at least; at most 1 GiB, as each read in flight holds a
 * buffer that large. */
#define MAP_VERIFY_IO_SIZE_MIN 4096u
#define MAP_VERIFY_IO_SIZE_MAX (1u << 30)

/* ---- output helpers ---------------------------------------------------------------- */

/* Path text for humans: control characters and invalid UTF-8 as \xNN, backslash
 * as \\.  Caller frees. */
char *map_escape_text(const char *s);
/* @s as one word for a shell, for a command line someone may paste: as it is
 * when only [A-Za-z0-9_@%+=:,./-]; else in '...'; with control characters
 * (those map_escape_text escapes) or invalid UTF-8, $'...' with \xNN.
 * Caller frees. */
char *map_escape_shell(const char *s);
/* Whole path of @rel (stored relative to the mount root; "" is the root)
 * under @mountpoint; caller frees, NULL without memory. */
char *map_join_path(const char *mountpoint, const char *rel);
/* Unix time @t as local "YYYY-MM-DD HH:MM:SS" for people ("never" for 0),
 * in @buf, which is returned. */
const char *map_human_time(int64_t t, char *buf, size_t len);
/* JSON string body without the quotes: each byte of invalid UTF-8 becomes
 * \udcNN (a lone low surrogate, as Python's surrogateescape reads it back),
 * controls become \u00NN.  Lossless.  Caller frees. */
char *map_escape_json(const char *s);

/* JSON on one line, written as it goes through @sink (fwrite to a FILE, an
 * append to a buffer).  Objects and arrays nest; keys are NULL inside
 * arrays; strings are escaped with map_escape_json. */
typedef void (*map_json_sink)(void *ctx, const char *text, size_t len);
struct map_json {
	map_json_sink sink;
	void *ctx;
	int depth;
	bool first[32];
};
void map_json_start(struct map_json *j, map_json_sink sink, void *ctx);
void map_json_obj(struct map_json *j, const char *key);
void map_json_arr(struct map_json *j, const char *key);
void map_json_end_obj(struct map_json *j);
void map_json_end_arr(struct map_json *j);
void map_json_str(struct map_json *j, const char *key, const char *value);
void map_json_int(struct map_json *j, const char *key, int64_t value);
void map_json_uint(struct map_json *j, const char *key, uint64_t value);
void map_json_double(struct map_json *j, const char *key, double value);
void map_json_bool(struct map_json *j, const char *key, bool value);
void map_json_null(struct map_json *j, const char *key);
/* @value, or null when it is NULL or "": absent text is null, never "". */
void map_json_str_or_null(struct map_json *j, const char *key, const char *value);

/*
 * The version of every JSON output of mapctl and mapperd, written first in
 * each top-level object as "output_version":{"command":..,"major":..,
 * "minor":..} (mapper-json(7)).  A minor step only adds fields or values;
 * a major step renames, removes or changes the meaning of one.
 */
#define MAP_JSON_MAJOR 1
#define MAP_JSON_MINOR 0
void map_json_output_version(struct map_json *j, const char *command);
/* @value when @has, else null. */
void map_json_uint_or_null(struct map_json *j, const char *key, bool has, uint64_t value);
/* Unix seconds, or null for 0 (never). */
void map_json_time(struct map_json *j, const char *key, int64_t t);
/* The members of a finding object of mapper-json(7), without its braces;
 * every member is there, what does not apply is null.  Paths are joined to
 * @mountpoint (may be NULL: paths as stored). */
void map_json_finding_members(struct map_json *j, const struct map_finding *f, const char *uuid,
			      const char *mountpoint);

#ifdef __cplusplus
}
#endif
#endif /* MAP_H */
