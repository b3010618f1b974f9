/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libmap internals the tests drive directly: on the include path of libmap
 * and of the tests, never of mapctl or mapperd.  Not an API.
 */
#ifndef MAP_TESTING_H
#define MAP_TESTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "act_path_check.h"
#include "map_fs.h"
#include "map_pipeline.h"
#include "map_ranges.h"
#include "map_store_sql.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fill geometry from a raw struct xfs_fsop_geom (exposed for unit tests). */
void map_geometry_from_xfs(struct map_geometry *geo, const void *xfs_fsop_geom);

/* Decode one GETFSMAP record (struct fsmap) against bad range [start,
 * start+length): fills @owner (no bulkstat) and returns 1, or 0 when the record
 * does not overlap the range. */
int map_owner_from_fsmap(const struct map_geometry *geo, const void *fsmap_rec, uint64_t start,
			 uint64_t length, struct map_owner *owner);

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

/* ---- scrub.c ---- */

/*
 * Inodes in use for the metadata scan's estimate, from XFS_IOC_FSCOUNTS'
 * allocated and free counts.  The kernel reads both per-CPU counters
 * without summing them, so while inodes are made or freed the free count
 * can run ahead of the allocated one: then 0, not 2^64 less a little
 * (which the progress line printed as "of ~18446744073709551601 objects").
 */
uint64_t map_inodes_in_use(uint64_t allocino, uint64_t freeino);

/* ---- read_parts.c: reads issued together (native AIO) ---- */
#define MAP_READ_PARTS_MAX 32
/* Read the @n parts (at most MAP_READ_PARTS_MAX, sorted, block aligned) of
 * O_DIRECT descriptor @fd at once; @buf holds from parts[0].start to the
 * last part's end.  0 with err[i] = 0 or the positive errno of part i's
 * read, or -errno when the reads could not be issued or collected (the
 * caller reads them one by one; err[] then says nothing). */
int map_read_parts(int fd, char *buf, const struct map_range *parts, int n, int *err);

#ifdef __cplusplus
}
#endif
#endif /* MAP_TESTING_H */
