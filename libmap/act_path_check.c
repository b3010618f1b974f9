// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The O_NOFOLLOW walk behind act_path_check.h.  Every folder is opened relative
 * to the one before it, so what is checked is what a later *at() call on
 * pc->dirfd uses: a folder renamed or swapped for a symbolic link after the
 * check cannot redirect those calls.  (A program given the path as a string,
 * like rsync, resolves it again; see cmd_refetch.c.)
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "map.h"

#include "act_path_check.h"

int path_inode_gen(int fd, uint64_t *ino, uint32_t *gen)
{
	/* XFS handles are at most 24 bytes (64-bit inode, generation, parent). */
	union {
		struct file_handle fh;
		char buf[sizeof(struct file_handle) + 64];
	} h;
	int mount_id;

	h.fh.handle_bytes = sizeof(h.buf) - sizeof(struct file_handle);
	if (name_to_handle_at(fd, "", &h.fh, &mount_id, AT_EMPTY_PATH) != 0)
		return -errno;
	return map_xfs_handle_decode(h.fh.handle_type, h.fh.f_handle, h.fh.handle_bytes, ino, gen);
}

const char *path_last_name(const char *rel)
{
	const char *slash = strrchr(rel, '/');

	return slash ? slash + 1 : rel;
}

void path_check_close(struct path_check *pc)
{
	if (pc->fd >= 0)
		close(pc->fd);
	if (pc->dirfd >= 0)
		close(pc->dirfd);
	pc->fd = pc->dirfd = -1;
}

/* Stop the walk at @name (NULL: the mount root) for @reason. */
static enum path_state stop(struct path_check *pc, enum path_state state, int err,
			    const char *name, const char *reason)
{
	pc->state = state;
	pc->err = err;
	snprintf(pc->why, sizeof(pc->why), "'%s' %s%s%s", name ? name : ".", reason,
		 err ? ": " : "", err ? map_strerror(-err) : "");
	return state;
}

/* One folder further down: @name of pc->dirfd becomes pc->dirfd
 * (PATH_SAME), or the walk stops there (the state it stops with). */
static enum path_state enter_folder(struct path_check *pc, const char *name, uint64_t dev)
{
	int next = openat(pc->dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (next < 0) {
		int err = -errno;
		struct stat st;

		if (err == -ENOENT)
			return stop(pc, PATH_MISSING, 0, name, "(a folder) no longer exists");
		/* O_NOFOLLOW on a symbolic link: ELOOP (then the link itself
		 * was there, whatever a look now finds), or ENOTDIR. */
		if (err == -ELOOP || (fstatat(pc->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
				      S_ISLNK(st.st_mode)))
			return stop(pc, PATH_SYMLINK, 0, name, "(a folder) is now a "
				    "symbolic link");
		if (err == -ENOTDIR)
			return stop(pc, PATH_NOTDIR, 0, name, "is no longer a folder");
		return stop(pc, PATH_ERROR, err, name, "(a folder)");
	}
	close(pc->dirfd);
	pc->dirfd = next;
	if (fstat(pc->dirfd, &pc->dir_st) != 0)
		return stop(pc, PATH_ERROR, -errno, name, "(a folder)");
	if (dev && (uint64_t)pc->dir_st.st_dev != dev)
		return stop(pc, PATH_XDEV, 0, name, "(a folder) is on another filesystem");
	return PATH_SAME;
}

/* The last name, @name of pc->dirfd: is it the recorded inode @ino of
 * generation @gen (0: any; @ino 0: any inode)? */
static enum path_state check_last(struct path_check *pc, const char *name, uint64_t dev,
				  uint64_t ino, uint32_t gen)
{
	pc->fd = openat(pc->dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (pc->fd < 0) {
		if (errno == ENOENT)
			return stop(pc, PATH_MISSING, 0, name, "no longer exists");
		return stop(pc, PATH_ERROR, -errno, name, "cannot be opened");
	}
	if (fstat(pc->fd, &pc->st) != 0)
		return stop(pc, PATH_ERROR, -errno, name, "cannot be opened");
	if (dev && (uint64_t)pc->st.st_dev != dev)
		return stop(pc, PATH_XDEV, 0, name, "is on another filesystem");
	if (!ino) {
		pc->state = PATH_SAME;	/* any inode will do (and may not be on XFS) */
		return pc->state;
	}
	/* The descriptor pins the inode: its generation cannot change under
	 * us, and its handle says it without reading the inode btree. */
	uint64_t hino;
	int rc = path_inode_gen(pc->fd, &hino, &pc->gen);
	if (rc == 0 && hino != (uint64_t)pc->st.st_ino)
		rc = -ESTALE;
	if (rc)
		return stop(pc, PATH_ERROR, rc, name, "(its generation)");
	if ((uint64_t)pc->st.st_ino != ino || (gen && pc->gen != gen)) {
		pc->state = PATH_OTHER;
		snprintf(pc->why, sizeof(pc->why), "'%s' is now inode %llu generation %u, not the "
			 "recorded %llu generation %u", name, (unsigned long long)pc->st.st_ino,
			 pc->gen, (unsigned long long)ino, gen);
		return pc->state;
	}
	pc->state = PATH_SAME;
	return pc->state;
}

enum path_state path_check(int rootfd, uint64_t dev, const char *rel, uint64_t ino, uint32_t gen,
			   struct path_check *pc)
{
	char name[NAME_MAX + 1];
	const char *p = rel;

	memset(pc, 0, sizeof(*pc));
	pc->fd = -1;
	pc->dirfd = openat(rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (pc->dirfd < 0)
		return stop(pc, PATH_ERROR, -errno, NULL, "(the mount root)");
	if (fstat(pc->dirfd, &pc->dir_st) != 0)
		return stop(pc, PATH_ERROR, -errno, NULL, "(the mount root)");
	/* One component per turn: at most strlen(rel) turns. */
	for (;;) {
		const char *slash = strchr(p, '/');
		size_t len = slash ? (size_t)(slash - p) : strlen(p);

		if (len == 0 || len > NAME_MAX || (len == 1 && p[0] == '.') ||
		    (len == 2 && p[0] == '.' && p[1] == '.'))
			return stop(pc, PATH_BADNAME, 0, NULL, "(not a recorded path: an empty, "
				    "'.' or '..' component, or a name too long)");
		memcpy(name, p, len);
		name[len] = '\0';
		if (!slash)
			break;
		enum path_state state = enter_folder(pc, name, dev);
		if (state != PATH_SAME)
			return state;
		p = slash + 1;
	}
	pc->parent_exists = true;
	return check_last(pc, name, dev, ino, gen);
}
