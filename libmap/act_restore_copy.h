/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * refetch's copy: one object of a local mirror written into a folder that
 * the O_NOFOLLOW walk checked (act_path_check.c), through that folder's
 * descriptor and the file's own, then compared with the mirror.  See
 * act_restore_copy.c for the order of the steps and why.
 */
#ifndef MAP_ACT_RESTORE_COPY_H
#define MAP_ACT_RESTORE_COPY_H

#include <stddef.h>

#include "map.h"

/* What became of one object (in cmd_refetch.c's words). */
enum restore_result {
	RESTORE_OK,		/* written, and found equal to the mirror after the copy */
	RESTORE_STILL_BAD,	/* written, but its blocks cannot be read back */
	RESTORE_FAILED,		/* not written, or not equal (@why) */
	RESTORE_REFUSED,	/* not written: something moved in our way (@why) */
};

/*
 * Regular file @name of folder @dirfd (O_PATH, checked), from the mirror's
 * regular file @mirror (O_PATH, checked).  @target: the recorded inode
 * there (O_PATH, checked), rewritten in place; or -1: the name is missing
 * and is created.  The old file keeps its bytes until a copy in an unnamed
 * file (O_TMPFILE) of the same folder was read back equal to the mirror.
 */
enum restore_result restore_file(struct map_fs *fs, int dirfd, const char *name, int target,
				 int mirror, char *why, size_t len);

/* Symbolic link @name of folder @dirfd, from the mirror's link @mirror:
 * @target (the damaged link, or -1) is removed and the mirror's written. */
enum restore_result restore_symlink(int dirfd, const char *name, int target, int mirror,
				    char *why, size_t len);

/* Folder @dir (O_PATH), or @name of @dirfd created when @dir is -1: the
 * mirror folder @mirror's owner, mode, times and extended attributes.  Its
 * entries are not copied; they must be readable for RESTORE_OK. */
enum restore_result restore_dir(int dirfd, const char *name, int dir, int mirror, char *why,
				size_t len);

/* Extended attributes of @fd (any descriptor, O_PATH too) cannot be read:
 * its attribute fork is damaged. */
bool xattrs_unreadable(int fd);

#endif
