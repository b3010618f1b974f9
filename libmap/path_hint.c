// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A path from the kernel's dentry cache, as a hint.
 *
 * A file that just failed a read was opened by path a moment ago, so its
 * dentry is usually still cached and connected; a directory opened by handle
 * is always connected (the kernel walks its ".." entries).  Opening the inode
 * by handle with O_PATH (no open of the file itself: no lease break, no
 * fsnotify event) and reading /proc/self/fd/N gives that path in O(1).  A
 * disconnected dentry, an unlinked name or a path outside our mount gives
 * nothing, and every hint is checked with fstatat against the inode number
 * before it is used, so a hint can only make an answer faster, not wrong.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "map_internal.h"

/* The target of /proc/self/fd/@fd into @buf (@size bytes, NUL-terminated):
 * its length, or -1 when it cannot be read or does not fit. */
static ssize_t fd_path(int fd, char *buf, size_t size)
{
	char link[32];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, size);
	if (n <= 0 || (size_t)n >= size)
		return -1;
	buf[n] = '\0';
	return n;
}

int map_path_hint_root(struct map_fs *fs, char root[PATH_MAX + 1])
{
	ssize_t rlen = fd_path(fs->fd, root, PATH_MAX + 1);

	if (rlen < 0)
		return -ENOENT;
	if (rlen == 1)
		root[0] = '\0';	/* "/": paths below it start right after it */
	return 0;
}

int map_path_hint(struct map_fs *fs, const char *root, uint64_t ino, uint32_t gen, char **relpath)
{
	char path[PATH_MAX + 1];
	size_t rlen = strlen(root);
	ssize_t plen;
	const char *rel;
	struct stat st;
	int fd, rc = -ENOENT;

	*relpath = NULL;
	fd = map_open_by_ino(fs, ino, gen, O_PATH);
	if (fd < 0)
		return fd;
	plen = fd_path(fd, path, sizeof(path));
	close(fd);
	if (plen < 0)
		return -ENOENT;
	/* The file must lie below the mount root ("" for "/", or "/a/b"). */
	if ((size_t)plen <= rlen + 1 || memcmp(path, root, rlen) != 0 || path[rlen] != '/')
		return -ENOENT;
	rel = path + rlen + 1;
	/* " (deleted)" names, disconnected dentries and renamed-away paths all
	 * fail here: the name must still lead to this very inode. */
	if (fstatat(fs->fd, rel, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_ino != ino)
		return -ENOENT;
	*relpath = strdup(rel);
	if (!*relpath)
		rc = -ENOMEM;
	else
		rc = 0;
	return rc;
}
