// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Resolve: inode numbers to every path that names them.
 *
 * Without parent pointers there is no index from an inode to its names, so we
 * read directories (opened by handle, read with getdents64) until every target
 * has as many names as it has links and every directory on those paths has a
 * known name.  XFS allocates a file's inode near its parent directory's, so
 * directories are read nearest-inode-number first, and once a name is found
 * its ancestors are read next (each directory's ".." says which).  Memory
 * grows with the number of directories, never with the number of files.
 *
 * Before any of that, a target with a single name takes it from the dentry
 * cache when the cache has it (path_hint.c): the usual case for a file whose
 * read just failed (small batches only: a scan's thousands of owners are
 * cheaper to find by reading the directories).
 *
 * With a directory index (dirindex.c: a daemon keeps one between calls), the
 * directories near a target come from it instead of bulkstat, and ancestors
 * are named without reading them; an answer that falls short of a target's
 * link count is redone without it.  Every name is checked against the tree
 * before it is returned: its directory opened by path (no symbolic link
 * followed, no mount crossed) must be the directory it was read from, and the
 * name in it must still lead to the target.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "map_internal.h"

#define GETDENTS_BUF	65536
/* Directories are listed (bulkstat) in windows of inode numbers around the
 * targets, growing eightfold, so a name near its inode is found without
 * reading every inode of the filesystem. */
#define WINDOW_FIRST	4096
#define WALK_STOP	1
/* Names from the dentry cache are tried for batches this small (events). */
#define HINT_MAX	16
/* More targets than this: one bulkstat walk of the whole filesystem learns
 * every target and lists every directory, instead of a bulkstat call per
 * target and windows around each. */
#define BATCH_WALK	256

struct target {
	uint32_t index;		/* slot of this inode in the results */
	uint32_t needed;	/* names wanted; UINT32_MAX when unknown */
	uint32_t found;
	bool filled;		/* mode, links and generation known */
};

struct hit {
	uint64_t dir;
	uint64_t ino;
	char *name;
	size_t len;
	bool checked;		/* it leads to the target now (build_results) */
};

struct dirinfo {
	uint32_t gen;
	bool read;
	bool by_path;		/* seen only as a directory entry: bulkstat could not
				 * list it (e.g. its inode btree is unreadable), so it is
				 * opened by path instead of by handle */
	uint64_t dotdot;	/* parent, once read */
};

struct dir_key {
	uint64_t distance;	/* to the nearest target inode number */
	uint64_t ino;
};

struct resolve {
	struct map_fs *fs;
	struct map_paths *res;
	struct map_inohash *targets;	/* ino -> struct target */
	uint64_t *target_inos;		/* sorted, unique */
	size_t ntargets;
	struct map_inohash *dirs;	/* ino -> struct dirinfo */
	struct dir_key *order;
	size_t ndirs;
	struct map_dirmap *dm;		/* the index's when there is one */
	struct map_dirindex *ix;	/* ready, or NULL */
	struct map_dirindex *record;	/* where to keep the names of files with
					 * several links: ix, or the index a redo heals */
	struct hit *hits;
	size_t nhits;
	size_t nchased;			/* hits[0..nchased) have every ancestor named */
	bool listed_all;		/* every directory is in order[] already */
	size_t unfound;			/* targets with names still missing */
	uint64_t *wanted;		/* directories to read next (a stack) */
	size_t nwanted;
	size_t next;			/* next in order[] to read */
	uint64_t walk_start, walk_end;	/* the bulkstat window being listed */
	struct map_resolve_stats *stats;
};

static int add_path(struct map_paths *p, const char *path)
{
	return map_strv_add(&p->paths, &p->npaths, path);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_dir_key(const void *a, const void *b)
{
	const struct dir_key *x = a, *y = b;

	if (x->distance != y->distance)
		return x->distance < y->distance ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Distance from @ino to the nearest target inode number. */
static uint64_t distance(const struct resolve *r, uint64_t ino)
{
	size_t lo = 0, hi = r->ntargets;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (r->target_inos[mid] < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	uint64_t best = UINT64_MAX;
	if (lo < r->ntargets)
		best = r->target_inos[lo] - ino;
	if (lo > 0 && ino - r->target_inos[lo - 1] < best)
		best = ino - r->target_inos[lo - 1];
	return best;
}

/* ---- the directory list, nearest to the targets first ---- */

static struct dirinfo *add_dir(struct resolve *r, uint64_t ino)
{
	struct dirinfo *d = map_inohash_get(r->dirs, ino, true);

	if (!d)
		return NULL;
	if (r->ndirs % 4096 == 0) {
		struct dir_key *v = realloc(r->order, (r->ndirs + 4096) * sizeof(*v));

		if (!v)
			return NULL;
		r->order = v;
	}
	r->order[r->ndirs].ino = ino;
	r->order[r->ndirs].distance = distance(r, ino);
	r->ndirs++;
	return d;
}

static int collect_dir(struct map_fs *fs, const struct xfs_bulkstat *bs, void *arg)
{
	struct resolve *r = arg;

	(void)fs;
	if (bs->bs_ino >= r->walk_end)
		return WALK_STOP;
	if (bs->bs_ino < r->walk_start)
		return 0;	/* the walk starts at the chunk holding walk_start */
	r->stats->inodes_scanned++;
	if (!S_ISDIR(bs->bs_mode) || map_inohash_get(r->dirs, bs->bs_ino, false))
		return 0;
	struct dirinfo *d = add_dir(r, bs->bs_ino);
	if (!d)
		return -ENOMEM;
	d->gen = bs->bs_gen;
	return 0;
}

/* ---- reading one directory ---- */

static int add_hit(struct resolve *r, uint64_t dir, uint64_t ino, const char *name, size_t len)
{
	if (r->nhits % 64 == 0) {
		struct hit *v = realloc(r->hits, (r->nhits + 64) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->hits = v;
	}
	struct hit *h = &r->hits[r->nhits];
	h->name = malloc(len + 1);
	if (!h->name)
		return -ENOMEM;
	memcpy(h->name, name, len);
	h->name[len] = '\0';
	h->len = len;
	h->dir = dir;
	h->ino = ino;
	h->checked = false;
	r->nhits++;
	return 0;
}

static int read_dir(struct resolve *r, uint64_t dir, struct dirinfo *info)
{
	char *buf;
	int fd, rc = 0;

	info->read = true;
	r->stats->dirs_read++;
	/* Seen only as an entry so far: bulkstat can usually still give its
	 * generation, and a handle needs no ancestor to be named yet (reading
	 * it by path now, before its ancestors are known, would lose it). */
	if (info->by_path) {
		struct xfs_bulkstat bs;

		if (map_bulkstat_one(r->fs, dir, &bs) == 0 && S_ISDIR(bs.bs_mode)) {
			info->gen = bs.bs_gen;
			info->by_path = false;
		}
	}
	if (info->by_path) {
		char *path = map_dirmap_path(r->dm, dir);

		if (!path)
			return 0;	/* no way in: its names stay unknown */
		fd = openat(r->fs->fd, path[0] ? path : ".",
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOATIME);
		free(path);
	} else {
		fd = map_open_by_ino(r->fs, dir, info->gen, O_DIRECTORY);
	}
	if (fd < 0)
		return 0;	/* unreadable or gone: its names stay unknown */
	buf = malloc(GETDENTS_BUF);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t n = getdents64(fd, buf, GETDENTS_BUF);

		if (n <= 0)
			break;	/* end, or a damaged directory block: keep what we have */
		for (ssize_t off = 0; off < n;) {
			struct dirent64 *de = (struct dirent64 *)(buf + off);
			size_t len = strlen(de->d_name);

			off += de->d_reclen;
			if (de->d_name[0] == '.' && (len == 1 || (len == 2 && de->d_name[1] == '.'))) {
				if (len == 2)
					info->dotdot = de->d_ino;
				continue;
			}
			struct target *t = map_inohash_get(r->targets, de->d_ino, false);
			if (t) {
				rc = add_hit(r, dir, de->d_ino, de->d_name, len);
				if (rc)
					goto out;
				if (++t->found == t->needed)
					r->unfound--;
			}
			if (de->d_type == DT_DIR ||
			    (de->d_type == DT_UNKNOWN && map_inohash_get(r->dirs, de->d_ino, false))) {
				/* what the directory holds now: it corrects the index too */
				rc = map_dirmap_set(r->dm, de->d_ino, dir, de->d_name, len);
				if (rc)
					goto out;
				if (!map_inohash_get(r->dirs, de->d_ino, false)) {
					struct dirinfo *d = add_dir(r, de->d_ino);

					if (!d) {
						rc = -ENOMEM;
						goto out;
					}
					d->by_path = true;
				}
			} else if (r->ix) {
				/* a folder made after the index was built gets a
				 * span of file inode numbers this way */
				map_dirindex_note_read(r->ix, dir, de->d_ino);
			}
		}
	}
out:
	free(buf);
	close(fd);
	return rc;
}

/* ---- when to stop ---- */

static int count_unfound(uint64_t ino, void *value, void *arg)
{
	const struct target *t = value;

	(void)ino;
	*(size_t *)arg += t->found < t->needed;
	return 0;
}

static size_t unfound(struct resolve *r)
{
	size_t n = 0;

	map_inohash_each(r->targets, count_unfound, &n);
	return n;
}

static int want(struct resolve *r, uint64_t dir)
{
	uint64_t *v = r->wanted;

	if ((r->nwanted & 63) == 0)
		v = realloc(r->wanted, (r->nwanted + 64) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	r->wanted = v;
	r->wanted[r->nwanted++] = dir;
	return 0;
}

/* A directory outside the windows listed so far: ask bulkstat about it. */
static struct dirinfo *learn_dir(struct resolve *r, uint64_t ino)
{
	struct dirinfo *d = map_inohash_get(r->dirs, ino, false);
	struct xfs_bulkstat bs;

	if (d)
		return d;
	if (r->ix && map_dirindex_gen(r->ix, ino, &bs.bs_gen)) {
		d = add_dir(r, ino);
		if (d)
			d->gen = bs.bs_gen;
		return d;
	}
	if (map_bulkstat_one(r->fs, ino, &bs) != 0 || !S_ISDIR(bs.bs_mode))
		return NULL;
	d = add_dir(r, ino);
	if (d)
		d->gen = bs.bs_gen;
	return d;
}

/*
 * For each directory holding a name we found, make sure its ancestors get
 * named: queue the first ancestor whose name is unknown if we have not read
 * it (to learn its ".."), else its parent (to learn its name).  Returns 1
 * while some ancestor is still unknown and can still be learnt.
 */
static int chase_ancestors(struct resolve *r)
{
	int pending = 0;

	r->nwanted = 0;
	for (size_t i = r->nchased; i < r->nhits; i++) {
		uint64_t missing = map_dirmap_missing(r->dm, r->hits[i].dir);
		struct dirinfo *d;

		if (!missing) {
			/* named for good (names are only ever replaced): move it
			 * into the prefix that is not looked at again */
			struct hit h = r->hits[i];

			r->hits[i] = r->hits[r->nchased];
			r->hits[r->nchased++] = h;
			continue;
		}
		d = learn_dir(r, missing);
		if (!d)
			continue;	/* not a directory we can open: cannot learn more */
		if (!d->read) {
			if (want(r, missing))
				return -ENOMEM;
			pending = 1;
			continue;
		}
		struct dirinfo *p = d->dotdot ? learn_dir(r, d->dotdot) : NULL;
		if (p && !p->read) {
			if (want(r, d->dotdot))
				return -ENOMEM;
			pending = 1;
		}
	}
	return pending;
}

/* Read listed directories, nearest first, until every name is found and
 * named (1) or every listed directory has been read (0). */
static int scan_dirs(struct resolve *r)
{
	int rc;

	for (;;) {
		rc = chase_ancestors(r);
		if (rc < 0)
			return rc;
		if (rc == 0 && r->unfound == 0)
			return 1;	/* every name found and every ancestor named */

		uint64_t dir = 0;
		if (r->nwanted) {
			dir = r->wanted[r->nwanted - 1];
		} else {
			while (r->next < r->ndirs) {
				struct dirinfo *d = map_inohash_get(r->dirs, r->order[r->next].ino,
								    false);

				if (!d->read) {
					dir = r->order[r->next].ino;
					break;
				}
				r->next++;
			}
		}
		if (!dir)
			return 0;	/* read everything listed so far */
		rc = read_dir(r, dir, map_inohash_get(r->dirs, dir, false));
		if (rc)
			return rc;
	}
}

/* List the directories with inode numbers in [lo, hi).  *at_end says whether
 * the listing reached the last inode. */
static int index_dir(uint64_t ino, uint32_t gen, void *arg)
{
	struct resolve *r = arg;

	r->stats->inodes_scanned++;
	if (map_inohash_get(r->dirs, ino, false))
		return 0;
	struct dirinfo *d = add_dir(r, ino);
	if (!d)
		return -ENOMEM;
	d->gen = gen;
	return 0;
}

static int list_window(struct resolve *r, uint64_t lo, uint64_t hi, bool *at_end)
{
	int rc;

	if (r->ix)
		return map_dirindex_each_in(r->ix, lo, hi, index_dir, r, at_end);
	r->walk_start = lo;
	r->walk_end = hi;
	rc = map_bulkstat_walk(r->fs, lo, collect_dir, NULL, r);
	if (rc < 0)
		return rc;
	*at_end = rc != WALK_STOP;
	return 0;
}

struct span {
	uint64_t lo, hi;	/* inode numbers [lo, hi) */
};

/* Add [lo, hi) to the sorted, disjoint list of listed spans: the spans it
 * touches become one. */
static int cover(struct span **v, size_t *n, uint64_t lo, uint64_t hi)
{
	struct span *w = *v;
	size_t a = 0, b = *n;

	while (a < b) {		/* a: the first span that ends at or after lo */
		size_t mid = (a + b) / 2;

		if (w[mid].hi < lo)
			a = mid + 1;
		else
			b = mid;
	}
	b = a;			/* b: one past the last span that starts by hi */
	while (b < *n && w[b].lo <= hi)
		b++;
	if (a == b) {		/* touches nothing: insert */
		if ((*n & 63) == 0) {
			w = realloc(w, (*n + 64) * sizeof(*w));
			if (!w)
				return -ENOMEM;
			*v = w;
		}
		memmove(w + a + 1, w + a, (*n - a) * sizeof(*w));
		w[a] = (struct span){ lo, hi };
		(*n)++;
		return 0;
	}
	if (w[a].lo < lo)
		lo = w[a].lo;
	if (w[b - 1].hi > hi)
		hi = w[b - 1].hi;
	w[a] = (struct span){ lo, hi };
	memmove(w + a + 1, w + b, (*n - b) * sizeof(*w));
	*n -= b - a - 1;
	return 0;
}

/* List the parts of [lo, hi) not listed yet. */
static int scan_uncovered(struct resolve *r, struct span **spans, size_t *nspans, uint64_t lo,
			  uint64_t hi, bool *at_end)
{
	uint64_t cur = lo;
	size_t first = 0, last = *nspans;
	int rc = 0;

	while (first < last) {	/* the first span that ends after lo */
		size_t mid = (first + last) / 2;

		if ((*spans)[mid].hi <= lo)
			first = mid + 1;
		else
			last = mid;
	}
	for (size_t i = first; i <= *nspans && cur < hi && rc == 0; i++) {
		uint64_t next_lo = i < *nspans ? (*spans)[i].lo : UINT64_MAX;
		uint64_t next_hi = i < *nspans ? (*spans)[i].hi : UINT64_MAX;

		if (next_hi <= cur)
			continue;
		uint64_t gap_hi = next_lo < hi ? next_lo : hi;
		if (cur < gap_hi) {
			bool end = false;

			rc = list_window(r, cur, gap_hi, &end);
			if (end)
				*at_end = true;
		}
		cur = next_hi;
	}
	if (rc == 0)
		rc = cover(spans, nspans, lo, hi);
	return rc;
}

/*
 * Windows of inode numbers around each target whose names are still
 * missing, growing eightfold each round, until every name is found or every
 * inode has been listed.  Targets far apart get windows of their own.
 */
static int scan_by_windows(struct resolve *r)
{
	struct span *spans = NULL;
	size_t nspans = 0;
	uint64_t window = WINDOW_FIRST;
	bool at_end = false;
	int rc = 0;

	r->unfound = unfound(r);
	if (r->listed_all) {
		qsort(r->order, r->ndirs, sizeof(*r->order), cmp_dir_key);
		rc = scan_dirs(r);
		return rc < 0 ? rc : 0;
	}
	for (;;) {
		size_t seg = r->ndirs;
		bool any = false;

		for (size_t i = 0; i < r->ntargets && rc == 0; i++) {
			uint64_t t = r->target_inos[i];
			struct target *tg = map_inohash_get(r->targets, t, false);

			if (tg->found >= tg->needed)
				continue;
			any = true;
			uint64_t lo = t > window ? t - window : 0;
			uint64_t hi = UINT64_MAX - t > window ? t + 1 + window : UINT64_MAX;
			rc = scan_uncovered(r, &spans, &nspans, lo, hi, &at_end);
		}
		if (rc || !any)
			break;	/* error, or nothing left to look for */
		/* Read this round's new directories, nearest to a target first. */
		qsort(r->order + seg, r->ndirs - seg, sizeof(*r->order), cmp_dir_key);
		rc = scan_dirs(r);
		if (rc)
			break;	/* error, or every name found and named */
		/* Names still missing (or ancestors unnamed, which reading more
		 * directories cannot fix) once everything is listed: done. */
		if (nspans == 1 && spans[0].lo == 0 && (spans[0].hi == UINT64_MAX || at_end))
			break;
		if (window > UINT64_MAX / 8) {
			seg = r->ndirs;
			rc = scan_uncovered(r, &spans, &nspans, 0, UINT64_MAX, &at_end);
			if (rc == 0) {
				qsort(r->order + seg, r->ndirs - seg, sizeof(*r->order), cmp_dir_key);
				rc = scan_dirs(r);
			}
			break;
		}
		window *= 8;
	}
	free(spans);
	return rc < 0 ? rc : 0;
}

/* ---- results ---- */

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
static int build_results(struct resolve *r)
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
			rc = add_path(&r->res[t->index], path);
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

/* ---- with parent pointers ---- */

/* Every (parent, name) of ino/gen from GETPARENTS_BY_HANDLE. */
static int pptr_each(struct resolve *r, uint64_t ino, uint32_t gen,
		     int (*fn)(struct resolve *, uint64_t pino, uint32_t pgen, const char *name,
			       void *), void *arg, bool *is_root)
{
	struct map_xfs_getparents_by_handle req;
	char *buf = malloc(GETDENTS_BUF);
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	memset(&req, 0, sizeof(req));
	req.gph_handle = r->fs->fshandle;
	memset(&req.gph_handle.ha_fid, 0, sizeof(req.gph_handle.ha_fid));
	req.gph_handle.ha_fid.fid_len = sizeof(req.gph_handle.ha_fid) -
					sizeof(req.gph_handle.ha_fid.fid_len);
	req.gph_handle.ha_fid.fid_ino = ino;
	req.gph_handle.ha_fid.fid_gen = gen;
	req.gph_request.gp_buffer = (uintptr_t)buf;
	req.gph_request.gp_bufsize = GETDENTS_BUF;
	*is_root = false;
	for (;;) {
		if (ioctl(r->fs->fd, MAP_XFS_IOC_GETPARENTS_BY_HANDLE, &req) != 0) {
			rc = -errno;
			break;
		}
		if (req.gph_request.gp_oflags & MAP_XFS_GETPARENTS_OFLAG_ROOT)
			*is_root = true;
		for (size_t off = 0; off < GETDENTS_BUF;) {
			struct map_xfs_getparents_rec *rec = (void *)(buf + off);

			if (rec->gpr_reclen == 0)
				break;
			rc = fn(r, rec->gpr_parent.ha_fid.fid_ino, rec->gpr_parent.ha_fid.fid_gen,
				rec->gpr_name, arg);
			if (rc)
				goto out;
			off += rec->gpr_reclen;
		}
		if (req.gph_request.gp_oflags & MAP_XFS_GETPARENTS_OFLAG_DONE)
			break;
		memset(buf, 0, GETDENTS_BUF);
	}
out:
	free(buf);
	return rc;
}

static int pptr_name_dir(struct resolve *r, uint64_t dir, uint32_t gen, int depth);

static int pptr_dir_parent(struct resolve *r, uint64_t pino, uint32_t pgen, const char *name,
			   void *arg)
{
	uint64_t dir = *(uint64_t *)arg;
	int rc = map_dirmap_add(r->dm, dir, pino, name, strlen(name));

	(void)pgen;	/* the parent's generation is learnt by bulkstat if needed */

	return rc ? rc : 1;	/* a directory has one parent: stop */
}

/* Learn the names of @dir and its ancestors up to the root. */
static int pptr_name_dir(struct resolve *r, uint64_t dir, uint32_t gen, int depth)
{
	bool is_root;
	int rc;

	if (map_dirmap_known(r->dm, dir) || depth > 4096)
		return 0;
	rc = pptr_each(r, dir, gen, pptr_dir_parent, &dir, &is_root);
	if (rc < 0)
		return rc;
	uint64_t missing = map_dirmap_missing(r->dm, dir);
	if (missing && missing != dir) {
		struct xfs_bulkstat bs;

		if (map_bulkstat_one(r->fs, missing, &bs) == 0)
			return pptr_name_dir(r, missing, bs.bs_gen, depth + 1);
	}
	return 0;
}

static int pptr_hit(struct resolve *r, uint64_t pino, uint32_t pgen, const char *name, void *arg)
{
	uint64_t ino = *(uint64_t *)arg;
	int rc = add_hit(r, pino, ino, name, strlen(name));

	if (rc)
		return rc;
	return pptr_name_dir(r, pino, pgen, 0);
}

/* Forget the hits recorded since @mark (a target whose parent pointers could
 * not all be read is looked up again in the directories). */
static void drop_hits(struct resolve *r, size_t mark)
{
	while (r->nhits > mark)
		free(r->hits[--r->nhits].name);
}

/*
 * Each target's names from its parent pointers: a few calls per target, no
 * directory read.  A target whose inode or parent pointers cannot be read
 * (an unreadable inode cluster, a damaged attribute fork), or that has fewer
 * parent pointers than links, is looked for in the directories instead, and
 * the statistics say how many were.
 */
static int resolve_pptr(struct resolve *r)
{
	bool fallback = false;

	for (size_t i = 0; i < r->ntargets; i++) {
		uint64_t ino = r->target_inos[i];
		struct target *t = map_inohash_get(r->targets, ino, false);
		struct map_paths *p = &r->res[t->index];
		size_t mark = r->nhits;
		bool is_root;
		int rc = 0;

		if (t->needed == 0 || t->found >= t->needed || ino == r->fs->info.root_ino)
			continue;
		if (!p->unreadable) {
			r->stats->pptr_lookups++;
			rc = pptr_each(r, ino, p->gen, pptr_hit, &ino, &is_root);
			if (rc == -ENOMEM)
				return rc;
		}
		if (p->unreadable || rc < 0 || r->nhits - mark < t->needed) {
			drop_hits(r, mark);
			p->pptr_unreadable = true;
			r->stats->pptr_fallbacks++;
			fallback = true;
			continue;
		}
		t->found = (uint32_t)(r->nhits - mark);
	}
	return fallback ? scan_by_windows(r) : 0;
}

/* ---- entry point ---- */

/*
 * Targets with exactly one name (a file with one link, or a directory) take
 * it from the dentry cache when it is there and checks out: a reader's EIO
 * names a file whose path was just looked up, so the usual event needs no
 * directory read at all.  Files with more links still need the full search,
 * as the cache holds at most the names that were used.
 */
static int take_hints(struct resolve *r)
{
	char root[PATH_MAX + 1];
	int have_root = 0;	/* 1: read, -1: cannot be read */

	/* A batch (a scan's owners) reads the directories anyway; a hint
	 * costs an open by handle and three calls per target, and after a
	 * scan the cache rarely has the names. */
	if (r->ntargets > HINT_MAX)
		return 0;
	for (size_t i = 0; i < r->ntargets; i++) {
		uint64_t ino = r->target_inos[i];
		struct target *t = map_inohash_get(r->targets, ino, false);
		struct map_paths *p = &r->res[t->index];
		char *path;
		int rc;

		if (t->needed != 1 || t->found || p->npaths ||
		    !(S_ISREG(p->mode) || S_ISDIR(p->mode)))
			continue;
		if (!have_root)
			have_root = map_path_hint_root(r->fs, root) == 0 ? 1 : -1;
		if (have_root < 0)
			return 0;	/* no hints at all (no /proc, say) */
		rc = map_path_hint(r->fs, root, ino, p->gen, &path);
		if (rc == -ENOMEM)
			return rc;
		if (rc)
			continue;
		rc = add_path(p, path);
		free(path);
		if (rc)
			return rc;
		t->found = 1;
		r->stats->dcache_hits++;
	}
	return 0;
}

static int fill_from_bulkstat(struct resolve *r, struct target *t, const struct xfs_bulkstat *bs)
{
	struct map_paths *p = &r->res[t->index];

	t->filled = true;
	p->gen = bs->bs_gen;
	p->mode = bs->bs_mode;
	p->nlink = bs->bs_nlink;
	if (bs->bs_ino == r->fs->info.root_ino)
		return add_path(p, "");
	if (bs->bs_nlink == 0)
		p->unlinked = true;
	else
		t->needed = S_ISDIR(bs->bs_mode) ? 1 : bs->bs_nlink;
	return 0;
}

#define COVERING_MAX	8	/* directories read first for one target */

struct covering {
	uint64_t ino;
	struct {
		uint64_t dir, end;	/* distance from the target to the span's nearer end */
		uint32_t gen;
	} v[COVERING_MAX];
	size_t n;
};

/* Keep the spans with an end nearest the target: a file in a chunk far from
 * its directory's others is usually the last one made there, the span's end;
 * a span that merely passes over the target (a directory with files in two
 * places) comes later. */
static int note_covering(uint64_t dir, uint32_t gen, uint64_t lo, uint64_t hi, void *arg)
{
	struct covering *c = arg;
	uint64_t end = c->ino - lo < hi - c->ino ? c->ino - lo : hi - c->ino;
	size_t at = c->n;

	while (at > 0 && c->v[at - 1].end > end)
		at--;
	if (at == COVERING_MAX)
		return 0;
	if (c->n < COVERING_MAX)
		c->n++;
	memmove(&c->v[at + 1], &c->v[at], (c->n - 1 - at) * sizeof(c->v[0]));
	c->v[at].dir = dir;
	c->v[at].end = end;
	c->v[at].gen = gen;
	return 0;
}

/* A few targets: the directories whose files spanned each one's inode number
 * at the build, nearest end first, are read before any other (order[] from
 * its start). */
static int seed_covering(struct resolve *r)
{
	if (r->ntargets > HINT_MAX)
		return 0;
	for (size_t i = 0; i < r->ntargets; i++) {
		struct target *t = map_inohash_get(r->targets, r->target_inos[i], false);
		struct covering c = { .ino = r->target_inos[i], .n = 0 };

		if (t->found >= t->needed)
			continue;
		int rc = map_dirindex_covering(r->ix, r->target_inos[i], note_covering, &c);
		if (rc)
			return rc;
		for (size_t k = 0; k < c.n; k++) {
			if (map_inohash_get(r->dirs, c.v[k].dir, false))
				continue;
			struct dirinfo *d = add_dir(r, c.v[k].dir);
			if (!d)
				return -ENOMEM;
			d->gen = c.v[k].gen;
			r->order[r->ndirs - 1].distance = 0;
		}
	}
	return 0;
}

/* Files with several links whose names the index keeps: those names, still
 * to be checked like any other; a kept list that no longer matches the
 * link count is not used (the search finds the names, and they are kept). */
static int take_links(struct resolve *r)
{
	for (size_t i = 0; i < r->ntargets; i++) {
		struct target *t = map_inohash_get(r->targets, r->target_inos[i], false);
		const struct map_dirindex_link *v;
		size_t n;

		if (t->needed < 2 || t->needed == UINT32_MAX || t->found ||
		    S_ISDIR(r->res[t->index].mode))
			continue;
		n = map_dirindex_links(r->ix, r->target_inos[i], &v);
		if (n != t->needed)
			continue;
		for (size_t k = 0; k < n; k++) {
			int rc = add_hit(r, v[k].dir, r->target_inos[i], v[k].name, v[k].len);

			if (rc)
				return rc;
		}
		t->found = (uint32_t)n;
	}
	return 0;
}

static int fill_target(struct resolve *r, uint64_t ino, struct target *t)
{
	struct map_paths *p = &r->res[t->index];
	struct xfs_bulkstat bs;
	int rc = map_bulkstat_one(r->fs, ino, &bs);

	t->filled = true;
	if (rc == -ENOENT) {
		p->gone = true;
		return 0;
	}
	if (rc) {
		/* The inode cannot be read, so its link count is unknown:
		 * look for names in every directory. */
		p->unreadable = true;
		t->needed = UINT32_MAX;
		return 0;
	}
	return fill_from_bulkstat(r, t, &bs);
}

/* The batch walk: every target it meets, and every directory. */
static int batch_collect(struct map_fs *fs, const struct xfs_bulkstat *bs, void *arg)
{
	struct resolve *r = arg;
	struct target *t = map_inohash_get(r->targets, bs->bs_ino, false);

	(void)fs;
	r->stats->inodes_scanned++;
	if (t && !t->filled) {
		int rc = fill_from_bulkstat(r, t, bs);

		if (rc)
			return rc;
	}
	if (r->ix || !S_ISDIR(bs->bs_mode) || map_inohash_get(r->dirs, bs->bs_ino, false))
		return 0;
	struct dirinfo *d = add_dir(r, bs->bs_ino);
	if (!d)
		return -ENOMEM;
	d->gen = bs->bs_gen;
	return 0;
}

/* Many targets: one walk, then each target it did not meet on its own (gone,
 * or in an inode chunk the walk could not read). */
static int fill_batch(struct resolve *r)
{
	int rc = map_bulkstat_walk(r->fs, 0, batch_collect, NULL, r);

	if (rc < 0)
		return rc;
	r->listed_all = !r->ix;
	for (size_t i = 0; i < r->ntargets && rc == 0; i++) {
		struct target *t = map_inohash_get(r->targets, r->target_inos[i], false);

		if (!t->filled)
			rc = fill_target(r, r->target_inos[i], t);
	}
	return rc;
}

static int copy_name(uint64_t ino, uint64_t parent, const char *name, size_t len, void *arg)
{
	return map_dirmap_set(arg, ino, parent, name, len);
}

/* One resolve; with @ix, directories come from the index; names learnt
 * are copied into @heal when given. */
static int resolve_once(struct map_fs *fs, struct map_dirindex *ix, const uint64_t *inos,
			size_t n, struct map_paths **out, struct map_resolve_stats *stats,
			struct map_dirindex *heal)
{
	struct resolve r;
	int rc = 0;

	memset(&r, 0, sizeof(r));
	r.fs = fs;
	r.stats = stats;
	r.ix = ix;
	r.record = ix ? ix : heal;
	*out = NULL;
	r.res = calloc(n ? n : 1, sizeof(*r.res));
	r.targets = map_inohash_new(sizeof(struct target));
	r.target_inos = malloc((n ? n : 1) * sizeof(uint64_t));
	r.dirs = map_inohash_new(sizeof(struct dirinfo));
	r.dm = ix ? map_dirindex_dirmap(ix) : map_dirmap_new(fs->info.root_ino);
	if (!r.res || !r.targets || !r.target_inos || !r.dirs || !r.dm) {
		rc = -ENOMEM;
		goto out;
	}

	/* One target per distinct inode; duplicates are copied at the end. */
	for (size_t i = 0; i < n; i++) {
		r.res[i].ino = inos[i];
		if (inos[i] == 0 || map_inohash_get(r.targets, inos[i], false))
			continue;	/* not an inode, or a duplicate */
		struct target *t = map_inohash_get(r.targets, inos[i], true);
		if (!t) {
			rc = -ENOMEM;
			goto out;
		}
		t->index = (uint32_t)i;
		r.target_inos[r.ntargets++] = inos[i];
	}
	qsort(r.target_inos, r.ntargets, sizeof(uint64_t), cmp_u64);
	if (r.ntargets > BATCH_WALK) {
		rc = fill_batch(&r);
	} else {
		for (size_t i = 0; i < r.ntargets && rc == 0; i++)
			rc = fill_target(&r, r.target_inos[i],
					 map_inohash_get(r.targets, r.target_inos[i], false));
	}
	if (rc)
		goto out;

	rc = take_hints(&r);
	if (rc == 0 && ix)
		rc = take_links(&r);
	if (rc == 0 && ix)
		rc = seed_covering(&r);
	if (rc)
		goto out;
	if (unfound(&r) != 0) {
		if (!ix && fs->info.geo.parent && map_fs_load_fshandle(fs) == 0) {
			r.stats->used_parent_pointers = true;
			rc = resolve_pptr(&r);
		} else {
			rc = scan_by_windows(&r);
		}
		/* listed, or found only by name */
		r.stats->dirs_total = r.ndirs;
		if (rc)
			goto out;
	}
	if (r.nhits) {
		rc = build_results(&r);
		if (rc)
			goto out;
	}

	for (size_t i = 0; i < n; i++) {
		struct target *t = map_inohash_get(r.targets, inos[i], false);
		struct map_paths *p = &r.res[i];

		if (!t)
			continue;
		if (t->index != i) {	/* a duplicate: copy the first one's answer */
			const struct map_paths *src = &r.res[t->index];

			*p = *src;
			p->paths = NULL;
			p->npaths = 0;
			for (size_t k = 0; k < src->npaths && rc == 0; k++)
				rc = add_path(p, src->paths[k]);
		} else if (p->npaths > 1) {
			qsort(p->paths, p->npaths, sizeof(char *), cmp_str);
		}
	}
out:
	for (size_t i = 0; i < r.nhits; i++)
		free(r.hits[i].name);
	free(r.hits);
	free(r.wanted);
	free(r.order);
	free(r.target_inos);
	map_inohash_free(r.targets);
	map_inohash_free(r.dirs);
	if (rc == 0 && heal && map_dirindex_ready(heal))
		rc = map_dirmap_each(r.dm, copy_name, map_dirindex_dirmap(heal));
	if (!ix)
		map_dirmap_free(r.dm);
	if (rc) {
		map_paths_free(r.res, n);
		return rc;
	}
	*out = r.res;
	return 0;
}

/* Fewer names than links for an inode that can be read: the index misled
 * the search (or the filesystem hides a name; looking again settles it). */
static bool short_of_names(const struct map_paths *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i].ino == 0 || p[i].gone || p[i].unreadable || p[i].unlinked)
			continue;
		if (p[i].npaths < (S_ISDIR(p[i].mode) ? 1 : p[i].nlink))
			return true;
	}
	return false;
}

int map_resolve_paths(struct map_fs *fs, const uint64_t *inos, size_t n,
		      struct map_paths **out, struct map_resolve_stats *stats)
{
	struct map_dirindex *ix = fs->dirindex;
	struct map_resolve_stats dummy;
	int rc;

	if (!stats)
		stats = &dummy;
	memset(stats, 0, sizeof(*stats));
	if (!map_dirindex_ready(ix) || fs->info.geo.parent)
		return resolve_once(fs, NULL, inos, n, out, stats, NULL);
	stats->used_dirindex = true;
	map_dirindex_count_use(ix);
	rc = resolve_once(fs, ix, inos, n, out, stats, NULL);
	if (rc || !short_of_names(*out, n))
		return rc;
	map_paths_free(*out, n);
	map_dirindex_count_retry(ix);
	memset(stats, 0, sizeof(*stats));
	stats->used_dirindex = true;
	stats->dirindex_retried = true;
	return resolve_once(fs, NULL, inos, n, out, stats, ix);
}

void map_paths_free(struct map_paths *paths, size_t n)
{
	if (!paths)
		return;
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < paths[i].npaths; k++)
			free(paths[i].paths[k]);
		free(paths[i].paths);
	}
	free(paths);
}
