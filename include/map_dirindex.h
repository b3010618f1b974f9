/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The directory index of filesystems without parent pointers, and the
 * fanotify records that keep it current. */
#ifndef MAP_DIRINDEX_H
#define MAP_DIRINDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct map_fs;

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif
#endif /* MAP_DIRINDEX_H */
