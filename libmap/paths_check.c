// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Resolve, the answer: every name found is checked against the tree as it
 * is now (its directory opened by path, no symbolic link followed, no mount
 * crossed, must be the directory it was read from, and the name in it must
 * still lead to the target) before it becomes a path of the result.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <linux/openat2.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "paths_internal.h"

/*
 * Directory @dir opened by the path the map gives it, every component a real
 * directory of this filesystem (no symbolic link followed, no mount crossed),
 * and checked to be @dir: an O_PATH fd, or -1.
 */
static int open_dir_path(struct resolve *r, uint64_t dir, dev_t dev)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
			   RESOLVE_NO_XDEV,
	};
	char *path = map_dirmap_path(r->dm, dir);
	struct stat st;
	int fd;

	if (!path)
		return -1;	/* an ancestor could not be named */
	fd = (int)syscall(SYS_openat2, r->fs->fd, path[0] ? path : ".", &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS)
		fd = openat(r->fs->fd, path[0] ? path : ".",
			    O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || st.st_ino != dir || st.st_dev != dev) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A name is only reported if it still leads to the same inode. */
static bool name_checks_out(int dfd, const char *name, uint64_t ino)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return st.st_ino == ino;
	/* An inode the kernel cannot read still has its name in the directory. */
	return errno == EIO || errno == EUCLEAN || errno == EBADMSG;
}

static int cmp_hit_dir(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;

	return x->dir < y->dir ? -1 : x->dir > y->dir;
}

/*
 * A target bulkstat could not read may still be reachable by path (bulkstat
 * goes through the inode btree, a path lookup does not): take its mode, link
 * count and generation from the file itself.
 */
static void fill_from_path(struct resolve *r, struct map_paths *p)
{
	struct stat st;
	int fd;

	if (!p->unreadable || p->npaths == 0)
		return;
	if (fstatat(r->fs->fd, p->paths[0], &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_ino != p->ino)
		return;
	p->unreadable = false;
	p->mode = st.st_mode;
	p->nlink = (uint32_t)st.st_nlink;
	fd = openat(r->fs->fd, p->paths[0], O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOATIME |
		    O_NONBLOCK | (S_ISLNK(st.st_mode) ? O_PATH : 0));
	if (fd >= 0) {
		int gen;

		if (!S_ISLNK(st.st_mode) && ioctl(fd, FS_IOC_GETVERSION, &gen) == 0)
			p->gen = (uint32_t)gen;
		close(fd);
	}
}

/* A name found twice (a parent pointer and a directory entry of a target
 * that fell back, or two hard links read through different routes) is one. */
static bool has_path(const struct map_paths *p, const char *path)
{
	for (size_t k = 0; k < p->npaths; k++)
		if (strcmp(p->paths[k], path) == 0)
			return true;
	return false;
}

/* Files with several links whose names are all known now: the index keeps
 * them, so the next call needs no directory read for them. */
static int record_links(struct resolve *r)
{
	for (size_t i = 0; i < r->nhits; i++) {
		const struct hit *h = &r->hits[i];
		struct target *t = map_inohash_get(r->targets, h->ino, false);
		const struct map_paths *p = &r->res[t->index];

		if (S_ISDIR(p->mode) || p->nlink < 2 || p->npaths != p->nlink)
			continue;
		if (i == 0 || h->ino != r->hits[i - 1].ino)
			map_dirindex_forget_links(r->record, h->ino);
		if (h->checked) {
			int rc = map_dirindex_add_link(r->record, h->ino, h->dir, h->name, h->len);

			if (rc)
				return rc;
		}
	}
	return 0;
}

static int cmp_hit_ino(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* Every name found, checked against the tree as it is now: each directory
 * once by its path, then each name in it. */
int resolve_build_results(struct resolve *r)
{
	struct stat root;
	int dfd = -1;

	if (fstat(r->fs->fd, &root) != 0)
		return -errno;
	qsort(r->hits, r->nhits, sizeof(*r->hits), cmp_hit_dir);
	for (size_t i = 0; i < r->nhits; i++) {
		struct hit *h = &r->hits[i];
		struct target *t = map_inohash_get(r->targets, h->ino, false);
		char *path;
		int rc = 0;

		if (i == 0 || h->dir != r->hits[i - 1].dir) {
			if (dfd >= 0)
				close(dfd);
			dfd = open_dir_path(r, h->dir, root.st_dev);
		}
		if (dfd < 0 || !name_checks_out(dfd, h->name, h->ino))
			continue;
		h->checked = true;
		path = map_dirmap_join(r->dm, h->dir, h->name, h->len);
		if (!path)
			continue;
		if (!has_path(&r->res[t->index], path))
			rc = resolve_add_path(&r->res[t->index], path);
		free(path);
		if (rc) {
			close(dfd);
			return rc;
		}
	}
	if (dfd >= 0)
		close(dfd);
	for (size_t i = 0; i < r->ntargets; i++) {
		struct target *t = map_inohash_get(r->targets, r->target_inos[i], false);

		fill_from_path(r, &r->res[t->index]);
	}
	if (!r->record)
		return 0;
	qsort(r->hits, r->nhits, sizeof(*r->hits), cmp_hit_ino);
	return record_links(r);
}
