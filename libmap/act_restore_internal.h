/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What refetch's copy of a regular file (act_restore_copy.c) shares with its
 * attributes, symbolic links and folders (act_restore_attrs.c): how a step
 * says why it failed, and the checks both make of names and the mirror.
 */
#ifndef MAP_ACT_RESTORE_INTERNAL_H
#define MAP_ACT_RESTORE_INTERNAL_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "act_restore_copy.h"
#include "act_restore_verify.h"

static inline enum restore_result say(enum restore_result rc, char *why, size_t len,
				      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* @text after what @why says. */
static inline void append(char *why, size_t len, const char *text)
{
	size_t used = strlen(why);

	if (used + 1 < len)
		snprintf(why + used, len - used, "%s", text);
}

static inline enum restore_result say(enum restore_result rc, char *why, size_t len,
				      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return rc;
}

/* A write that failed for want of space says so in words people act on. */
static inline enum restore_result write_failed(int err, const char *what, char *why, size_t len)
{
	if (err == ENOSPC || err == EDQUOT)
		return say(RESTORE_FAILED, why, len, "the filesystem is full (%s): %s",
			   err == EDQUOT ? "quota" : "no free space", what);
	return say(RESTORE_FAILED, why, len, "%s: %s", what, map_strerror(err));
}

/* Does @name of @dirfd still hold the inode of @fd? */
static inline bool name_holds(int dirfd, const char *name, int fd)
{
	struct stat a, b;

	return fstatat(dirfd, name, &a, AT_SYMLINK_NOFOLLOW) == 0 && fstat(fd, &b) == 0 &&
	       a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

/* The mirror's object @opath_fd open for reading: without updating its
 * access time where we may (a mirror over NFS with root squashed may not
 * let us). */
static inline int open_mirror(int opath_fd, int flags)
{
	int fd = reopen_read(opath_fd, flags | O_NOATIME);

	return fd == -EPERM ? reopen_read(opath_fd, flags) : fd;
}

/* act_restore_attrs.c */
/* Owner, extended attributes, mode and times of @w (open, not O_PATH)
 * become @m's. */
enum restore_result restore_copy_attrs(int w, int m, const struct stat *ms, char *why,
				       size_t len);
/* What refetch promises besides the bytes: @st (ours) has @ms's type, mode,
 * owner, size (regular files) and modification time, and @fd's extended
 * attributes are @m's (@fd < 0: a symbolic link, none compared). */
enum restore_result restore_compare_attrs(int fd, const struct stat *st, int m,
					  const struct stat *ms, char *why, size_t len);

#endif
