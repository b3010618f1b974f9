/* SPDX-License-Identifier: GPL-2.0-or-later */
/* After a refetch: is what was written back whole, and equal to the mirror? */
#ifndef MAP_ACT_RESTORE_VERIFY_H
#define MAP_ACT_RESTORE_VERIFY_H

#include <stddef.h>
#include <sys/types.h>

#include "map.h"

/* Reopen an O_PATH descriptor for reading (through /proc/self/fd, so no
 * path is resolved again).  A descriptor or -errno. */
int reopen_read(int opath_fd, int flags);

/* Read every written byte of regular file @fd from the device: 0 clean,
 * 1 still bad, or -errno if it cannot be checked. */
int verify_file_media(struct map_fs *fs, int fd);

/* Every extended attribute of @fd (a regular file or folder opened for
 * reading) can be read; with @mirror_fd >= 0 the names and values equal the
 * mirror's.  0 yes, 1 no (with @why), -errno. */
int verify_xattrs(int fd, int mirror_fd, char *why, size_t len);

/* Every entry of folder @fd (open for reading) can be read: 0 yes, 1 no
 * (with @why).  rsync rewrites a folder's attributes, never its blocks. */
int verify_dir_entries(int fd, char *why, size_t len);

/* The target of symbolic link @fd (O_PATH) can be read; with @mirror_fd >= 0
 * it equals the mirror link's.  0 yes, 1 no (with @why), -errno. */
int verify_symlink(int fd, int mirror_fd, char *why, size_t len);

/* Is orphan @orphan_fd the restored file @restored_fd or a damaged copy of
 * it: same size, every block of the orphan that can be read equal?  Both
 * open for reading.  1 yes, 0 no (with @why), -errno. */
int orphan_matches(int orphan_fd, int restored_fd, char *why, size_t len);

/* Read @n bytes at @off, retrying short reads and EINTR (fewer only at the
 * end of the file): the count, or -errno. */
ssize_t pread_full(int fd, char *buf, size_t n, off_t off);

#endif
