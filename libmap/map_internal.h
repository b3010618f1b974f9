/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Internals shared between libmap's stages; not installed. */
#ifndef MAP_INTERNAL_H
#define MAP_INTERNAL_H

#include <limits.h>
#include <stdint.h>

#include "map.h"
#include "map_testing.h"
#include "xfs_abi.h"

struct map_bmap_index;

struct map_fs {
	int fd;				/* mount root, O_RDONLY */
	struct map_fs_info info;
	/* the filesystem handle (XFS_IOC_PATH_TO_FSHANDLE), for open-by-handle */
	bool have_fshandle;
	struct xfs_handle fshandle;
	/* without rmapbt: every file's extents, built on first use */
	struct map_bmap_index *bmap_index;
	/* directories known between resolves (not owned; may be NULL) */
	struct map_dirindex *dirindex;
};

/* Free per-filesystem caches (called by map_fs_close). */
void map_fs_release_state(struct map_fs *fs);

/* ---- discover.c ---- */

/* One XFS_IOC_FSGEOMETRY call into @geom (cleared first): 0 or -errno
 * (discover.c). */
int map_fsgeometry_call(int fd, struct xfs_fsop_geom *geom);

/* ---- inodes.c: bulkstat, inumbers, handles ---- */

/* One XFS_IOC_BULKSTAT call: up to @count inodes from @ino into @req
 * (XFS_BULKSTAT_REQ_SIZE(count) bytes, cleared first).  0 or -errno. */
int map_bulkstat_call(struct map_fs *fs, struct xfs_bulkstat_req *req, uint64_t ino,
		      uint32_t count);
/* Bulkstat one inode.  0, -ENOENT if not allocated, or another -errno. */
int map_bulkstat_one(struct map_fs *fs, uint64_t ino, struct xfs_bulkstat *bs);

/*
 * Walk allocated inodes from @start with bulkstat, @fn for each.  An inode
 * chunk the kernel cannot read does not end the walk: the walk steps past it
 * and reports the failure through @bad (may be NULL) with the first inode
 * number it could not read.
 */
typedef int (*map_bulkstat_fn)(struct map_fs *fs, const struct xfs_bulkstat *bs, void *arg);
typedef void (*map_bulkstat_bad_fn)(struct map_fs *fs, uint64_t ino, int error, void *arg);
int map_bulkstat_walk(struct map_fs *fs, uint64_t start, map_bulkstat_fn fn,
		      map_bulkstat_bad_fn bad, void *arg);
/* The same, for inodes in [start, end) only (e.g. one AG). */
int map_bulkstat_walk_range(struct map_fs *fs, uint64_t start, uint64_t end, map_bulkstat_fn fn,
			    map_bulkstat_bad_fn bad, void *arg);

/* Allocation mask of the inode chunk holding @ino from XFS_IOC_INUMBERS:
 * 0 with the chunk start and mask, -ENOENT if no chunk holds it, or -errno. */
int map_inumbers_chunk(struct map_fs *fs, uint64_t ino, uint64_t *startino, uint64_t *mask);

/* Fetch the filesystem handle into fs->fshandle (once). */
int map_fs_load_fshandle(struct map_fs *fs);
/* Open inode @ino/@gen by handle (O_RDONLY | flags); fd or -errno. */
int map_open_by_ino(struct map_fs *fs, uint64_t ino, uint32_t gen, int flags);

/* ---- path_hint.c ---- */
/* The mount root's path as this process sees it ("" for "/"), read once
 * per resolve for map_path_hint: 0, or -ENOENT when it cannot be read. */
int map_path_hint_root(struct map_fs *fs, char root[PATH_MAX + 1]);
/* The path of @ino/@gen relative to the mount root @root, from the dentry
 * cache, checked to lead to @ino: 0 with *relpath (caller frees), -ENOENT
 * when the cache has no usable name, or another -errno. */
int map_path_hint(struct map_fs *fs, const char *root, uint64_t ino, uint32_t gen, char **relpath);

/* ---- file_ranges.c: GETBMAPX ---- */
/* Every mapped extent (no holes, no delayed allocations) of one fork of an
 * open file; a nonzero return from @fn stops the walk and is returned. */
int map_getbmapx_each(int fd, bool attr_fork,
		      int (*fn)(const struct getbmapx *ext, void *arg), void *arg);

/* ---- owners of bad blocks without rmapbt ---- */
int map_bmap_index_locate(struct map_fs *fs, uint64_t start, uint64_t length,
			  struct map_owner_list *out);
void map_bmap_index_free(struct map_bmap_index *idx);

/* ---- owners.c ---- */
void map_owner_set_scrubs(const struct map_geometry *geo, struct map_owner *o);

/* ---- inohash.c: a hash from inode number to a small record ---- */
struct map_inohash;
struct map_inohash *map_inohash_new(size_t value_size);
void map_inohash_free(struct map_inohash *h);
/* The value slot for @ino, created zeroed if @create; NULL if absent (or no memory). */
void *map_inohash_get(struct map_inohash *h, uint64_t ino, bool create);
size_t map_inohash_count(const struct map_inohash *h);
/* Visit every entry; a nonzero return stops and is returned. */
int map_inohash_each(struct map_inohash *h, int (*fn)(uint64_t ino, void *value, void *arg),
		     void *arg);

/* ---- dirmap.c ---- */
bool map_dirmap_known(const struct map_dirmap *dm, uint64_t ino);
/* First ancestor of @ino (itself included) whose name is unknown; 0 if none. */
uint64_t map_dirmap_missing(const struct map_dirmap *dm, uint64_t ino);

/* ---- dirindex.c: for paths.c ---- */
struct map_dirmap *map_dirindex_dirmap(struct map_dirindex *ix);
/* Generation of directory @ino if the index knows it as a live directory. */
bool map_dirindex_gen(const struct map_dirindex *ix, uint64_t ino, uint32_t *gen);
/* @fn for each live directory in [lo, hi); *past_end says whether @hi is
 * beyond every directory known.  A nonzero return from @fn is returned. */
int map_dirindex_each_in(struct map_dirindex *ix, uint64_t lo, uint64_t hi,
			 int (*fn)(uint64_t ino, uint32_t gen, void *arg), void *arg,
			 bool *past_end);
void map_dirindex_count_retry(struct map_dirindex *ix);
void map_dirindex_count_use(struct map_dirindex *ix);
/* For dirindex_events.c: directory @ino (generation @gen) is alive; gone. */
int map_dirindex_note_dir(struct map_dirindex *ix, uint64_t ino, uint32_t gen);
void map_dirindex_note_gone(struct map_dirindex *ix, uint64_t ino);
void map_dirindex_count_event(struct map_dirindex *ix);
/* Names kept for files with several links: add one (no duplicates), forget
 * all of a file's, or look them up (how many; *v valid until the next change). */
struct map_dirindex_link {
	uint64_t dir;
	char *name;
	size_t len;
};
int map_dirindex_add_link(struct map_dirindex *ix, uint64_t ino, uint64_t dir, const char *name,
			  size_t len);
void map_dirindex_forget_links(struct map_dirindex *ix, uint64_t ino);
/* A resolve read file @ino in directory @dir: widen @dir's span with it
 * (unless @ino is known to have several links). */
void map_dirindex_note_read(struct map_dirindex *ix, uint64_t dir, uint64_t ino);
/* @fn for each directory whose files' inode numbers (files with one link),
 * at the build or as resolves read them since, spanned @ino: a place to look first.  [lo, hi] is the span. */
int map_dirindex_covering(struct map_dirindex *ix, uint64_t ino,
			  int (*fn)(uint64_t dir, uint32_t gen, uint64_t lo, uint64_t hi, void *arg),
			  void *arg);
size_t map_dirindex_links(struct map_dirindex *ix, uint64_t ino,
			  const struct map_dirindex_link **v);

/* ---- misc ---- */
/* Open block device @dev with @flags (O_NOATIME is dropped where it is not
 * allowed): through @path while that is still its node, else through the
 * kernel's name for it (/sys/dev/block).  A mount table keeps the device
 * path it was mounted with, which a rename (lvrename, dmsetup rename) leaves
 * missing or gives to another device.  The descriptor, or -errno. */
int map_open_dev_node(dev_t dev, const char *path, int flags);
int map_owner_list_push(struct map_owner_list *list, const struct map_owner *o);
/* Append a copy of @path to a growing array of strings. */
int map_strv_add(char ***v, size_t *n, const char *path);
/* The store's identity of the object a finding is about (its fkey). */
void map_finding_object_key(const struct map_finding *f, char *key, size_t len);
int map_cancelled(const volatile int *cancel);
/* The index of @word in the name table @words (@n entries, as an enum's
 * _name() uses), or -ENOENT: the one lookup behind every _from_name(). */
int map_word_index(const char *const *words, int n, const char *word);
/* snprintf for messages and records, which may be cut short: a long mount
 * point must not make a record fail. */
void map_textf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
