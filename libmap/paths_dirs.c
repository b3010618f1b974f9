// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Resolve, by reading directories: the directories are listed (bulkstat, or
 * the directory index) in windows of inode numbers around the targets and
 * read nearest first (getdents64 on a handle), and once a name is found its
 * ancestors are read next, until every target has as many names as links.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths_internal.h"

/* Directories are listed (bulkstat) in windows of inode numbers around the
 * targets, growing eightfold, so a name near its inode is found without
 * reading every inode of the filesystem. */
#define WINDOW_FIRST	4096
#define WALK_STOP	1

static int cmp_dir_key(const void *a, const void *b)
{
	const struct dir_key *x = a, *y = b;

	if (x->distance != y->distance)
		return x->distance < y->distance ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
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

struct dirinfo *resolve_add_dir(struct resolve *r, uint64_t ino)
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

int resolve_list_dir(struct resolve *r, uint64_t ino, uint32_t gen)
{
	if (map_inohash_get(r->dirs, ino, false))
		return 0;

	struct dirinfo *d = resolve_add_dir(r, ino);
	if (!d)
		return -ENOMEM;
	d->gen = gen;
	return 0;
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
	return S_ISDIR(bs->bs_mode) ? resolve_list_dir(r, bs->bs_ino, bs->bs_gen) : 0;
}

int resolve_add_hit(struct resolve *r, uint64_t dir, uint64_t ino, const char *name, size_t len)
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

/* Open directory @dir: by handle, or by the path the map gives it when it
 * was seen only as an entry; -1 when there is no way in. */
static int open_dir(struct resolve *r, uint64_t dir, struct dirinfo *info)
{
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
	if (!info->by_path)
		return map_open_by_ino(r->fs, dir, info->gen, O_DIRECTORY);

	char *path = map_dirmap_path(r->dm, dir);
	int fd;

	if (!path)
		return -1;
	fd = openat(r->fs->fd, path[0] ? path : ".",
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOATIME);
	free(path);
	return fd;
}

/* One entry @de of directory @dir: a name of a target, a subdirectory to
 * list, or a file inode number the index learns. */
static int take_entry(struct resolve *r, uint64_t dir, struct dirinfo *info,
		      const struct dirent64 *de)
{
	size_t len = strlen(de->d_name);

	if (de->d_name[0] == '.' && (len == 1 || (len == 2 && de->d_name[1] == '.'))) {
		if (len == 2)
			info->dotdot = de->d_ino;
		return 0;
	}
	struct target *t = map_inohash_get(r->targets, de->d_ino, false);
	if (t) {
		int rc = resolve_add_hit(r, dir, de->d_ino, de->d_name, len);

		if (rc)
			return rc;
		if (++t->found == t->needed)
			r->unfound--;
	}
	if (de->d_type == DT_DIR ||
	    (de->d_type == DT_UNKNOWN && map_inohash_get(r->dirs, de->d_ino, false))) {
		/* what the directory holds now: it corrects the index too */
		int rc = map_dirmap_set(r->dm, de->d_ino, dir, de->d_name, len);

		if (rc)
			return rc;
		if (!map_inohash_get(r->dirs, de->d_ino, false)) {
			struct dirinfo *d = resolve_add_dir(r, de->d_ino);

			if (!d)
				return -ENOMEM;
			d->by_path = true;
		}
	} else if (r->ix) {
		/* a folder made after the index was built gets a span of file
		 * inode numbers this way */
		map_dirindex_note_read(r->ix, dir, de->d_ino);
	}
	return 0;
}

static int read_dir(struct resolve *r, uint64_t dir, struct dirinfo *info)
{
	char *buf;
	int fd, rc = 0;

	info->read = true;
	r->stats->dirs_read++;
	fd = open_dir(r, dir, info);
	if (fd < 0)
		return 0;	/* unreadable or gone: its names stay unknown */
	buf = malloc(GETDENTS_BUF);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (rc == 0) {
		ssize_t n = getdents64(fd, buf, GETDENTS_BUF);

		if (n <= 0)
			break;	/* end, or a damaged directory block: keep what we have */
		for (ssize_t off = 0; off < n && rc == 0;) {
			const struct dirent64 *de = (const struct dirent64 *)(buf + off);

			off += de->d_reclen;
			rc = take_entry(r, dir, info, de);
		}
	}
	free(buf);
	close(fd);
	return rc;
}

static int count_unfound(uint64_t ino, void *value, void *arg)
{
	const struct target *t = value;

	(void)ino;
	*(size_t *)arg += t->found < t->needed;
	return 0;
}

size_t resolve_unfound(struct resolve *r)
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
		d = resolve_add_dir(r, ino);
		if (d)
			d->gen = bs.bs_gen;
		return d;
	}
	if (map_bulkstat_one(r->fs, ino, &bs) != 0 || !S_ISDIR(bs.bs_mode))
		return NULL;
	d = resolve_add_dir(r, ino);
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
	return resolve_list_dir(r, ino, gen);
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
int resolve_by_windows(struct resolve *r)
{
	struct span *spans = NULL;
	size_t nspans = 0;
	uint64_t window = WINDOW_FIRST;
	bool at_end = false;
	int rc = 0;

	r->unfound = resolve_unfound(r);
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
