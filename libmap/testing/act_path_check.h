/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Is this recorded path still the recorded inode, reached without a symbolic
 * link or another filesystem on the way?  Asked before mapctl writes to a path
 * as root, because any local user may have moved a folder they own and put a
 * symbolic link in its place since the scan recorded the path.
 */
#ifndef MAP_ACT_PATH_CHECK_H
#define MAP_ACT_PATH_CHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

enum path_state {
	PATH_SAME,		/* a clean walk to the recorded inode */
	PATH_MISSING,		/* a clean walk up to a name that does not exist */
	PATH_SYMLINK,		/* a folder on the way is a symbolic link */
	PATH_XDEV,		/* a folder on the way is on another filesystem */
	PATH_NOTDIR,		/* a folder on the way is not a folder */
	PATH_OTHER,		/* the last name is another inode (or generation) */
	PATH_BADNAME,		/* an empty, "." or ".." component: never recorded */
	PATH_ERROR,		/* could not be walked (err) */
};

struct path_check {
	enum path_state state;
	int err;		/* -errno for PATH_ERROR */
	int dirfd;		/* the last folder reached (O_PATH), or -1 */
	int fd;			/* the last name (O_PATH | O_NOFOLLOW) if it exists, or -1 */
	bool parent_exists;	/* PATH_MISSING: only the last name is missing */
	struct stat dir_st;	/* of dirfd */
	struct stat st;		/* of fd */
	uint32_t gen;		/* of fd */
	char why[400];		/* for people, when not PATH_SAME (a name is <= 255) */
};

/*
 * Walk @rel (relative to @rootfd, the mount root of the filesystem with
 * st_dev @dev; 0: any filesystem, for a mirror that may span several or be
 * an overlay) one name at a time with O_NOFOLLOW, every folder an
 * O_DIRECTORY open of the previous one.  @ino and @gen are the recorded
 * inode (ino 0: any inode will do; gen 0: not recorded, the inode number
 * alone is compared).  Fills @pc (close it with
 * path_check_close) and returns pc->state.
 */
enum path_state path_check(int rootfd, uint64_t dev, const char *rel, uint64_t ino, uint32_t gen,
			   struct path_check *pc);
void path_check_close(struct path_check *pc);

/* The last name of @rel (after its last '/'). */
const char *path_last_name(const char *rel);

/* Inode number and generation of @fd (any descriptor, O_PATH too, of a
 * file on XFS) from its file handle: the in-memory inode answers, so no
 * inode btree is read.  0 or -errno. */
int path_inode_gen(int fd, uint64_t *ino, uint32_t *gen);

#endif
