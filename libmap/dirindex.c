// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A directory index kept between resolves, for filesystems without parent
 * pointers: each directory's generation (to open it by handle), its parent
 * and its name there.  Memory grows with the number of directories only.
 *
 * It is built once, in slices a caller can interleave with other work: a
 * bulkstat walk lists the directories, then each directory is read once to
 * learn its subdirectories' names.
 *
 * Files with more than one link are the other case a single directory read
 * cannot settle: their names may be anywhere.  The index keeps every name of
 * such files too (the walk says which they are, the reads find their names),
 * up to LINKS_MAX files; a resolve checks each before use and records what a
 * full search found for a file it did not know.  dirindex_events.c keeps it current from
 * fanotify directory-entry events.  Nothing here is an answer by itself:
 * paths.c checks every path built from it and redoes a resolve without it
 * when its answer falls short.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "map_internal.h"

#define READ_BUF	65536
#define RECENT_MAX	4096	/* directories added since the last sort */
#define WALK_STOP	1
#define LINKS_MAX	(1u << 20)	/* files with several links whose names are kept */
/* An index is for a tree a daemon can hold: past this many directories
 * (some 300 MiB) building or growing it fails with -E2BIG. */
#define DIRS_MAX	(1u << 21)

struct ixdir {
	uint32_t gen;
	bool live;
	uint64_t lo, hi;	/* file inode numbers seen in it (0, 0: none) */
};

/* The names of one file with several links. */
struct linkset {
	size_t n, cap;
	struct map_dirindex_link *v;
};

enum phase { IX_EMPTY, IX_LISTING, IX_READING, IX_READY };

struct map_dirindex {
	enum phase phase;
	struct map_dirmap *dm;
	struct map_inohash *dirs;	/* ino -> struct ixdir */
	struct map_inohash *links;	/* file ino -> struct linkset * */
	uint64_t *sorted;		/* directory inode numbers, sorted */
	size_t nsorted, capsorted;
	uint64_t *recent;		/* added since the sort, unsorted */
	size_t nrecent;
	uint64_t cursor;		/* listing: next inode number */
	size_t read_next;		/* reading: next in sorted[] */
	double deadline;
	uint64_t slice_inodes;		/* listed in this slice */
	struct map_dirindex_stats stats;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct map_dirindex *map_dirindex_new(void)
{
	return calloc(1, sizeof(struct map_dirindex));
}

static void free_links(struct linkset *ls)
{
	for (size_t i = 0; ls && i < ls->n; i++)
		free(ls->v[i].name);
	if (ls)
		free(ls->v);
	free(ls);
}

static int free_linkset(uint64_t ino, void *value, void *arg)
{
	(void)ino;
	(void)arg;
	free_links(*(struct linkset **)value);
	return 0;
}

static void clear(struct map_dirindex *ix)
{
	if (ix->links)
		map_inohash_each(ix->links, free_linkset, NULL);
	map_inohash_free(ix->links);
	ix->links = NULL;
	map_dirmap_free(ix->dm);
	map_inohash_free(ix->dirs);
	free(ix->sorted);
	free(ix->recent);
	ix->dm = NULL;
	ix->dirs = NULL;
	ix->sorted = ix->recent = NULL;
	ix->nsorted = ix->capsorted = ix->nrecent = 0;
	ix->phase = IX_EMPTY;
	ix->stats.dirs = 0;
}

void map_dirindex_free(struct map_dirindex *ix)
{
	if (!ix)
		return;
	clear(ix);
	free(ix);
}

void map_dirindex_reset(struct map_dirindex *ix)
{
	if (ix->phase != IX_EMPTY)
		ix->stats.resets++;
	clear(ix);
}

bool map_dirindex_ready(const struct map_dirindex *ix)
{
	return ix && ix->phase == IX_READY;
}

void map_dirindex_get_stats(const struct map_dirindex *ix, struct map_dirindex_stats *st)
{
	*st = ix->stats;
}

struct map_dirmap *map_dirindex_dirmap(struct map_dirindex *ix)
{
	return ix->dm;
}

void map_dirindex_count_retry(struct map_dirindex *ix)
{
	ix->stats.retries++;
}

void map_dirindex_count_use(struct map_dirindex *ix)
{
	ix->stats.uses++;
}

void map_dirindex_count_event(struct map_dirindex *ix)
{
	ix->stats.events++;
}

void map_fs_use_dirindex(struct map_fs *fs, struct map_dirindex *ix)
{
	fs->dirindex = ix;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int push_sorted(struct map_dirindex *ix, uint64_t ino)
{
	if (ix->nsorted == ix->capsorted) {
		size_t cap = ix->capsorted ? ix->capsorted * 2 : 4096;
		uint64_t *v = realloc(ix->sorted, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		ix->sorted = v;
		ix->capsorted = cap;
	}
	ix->sorted[ix->nsorted++] = ino;
	return 0;
}

/* Fold the recent additions into sorted[], dropping directories that died. */
static int fold_recent(struct map_dirindex *ix)
{
	size_t out = 0;

	for (size_t i = 0; i < ix->nrecent; i++) {
		int rc = push_sorted(ix, ix->recent[i]);

		if (rc)
			return rc;
	}
	ix->nrecent = 0;
	qsort(ix->sorted, ix->nsorted, sizeof(uint64_t), cmp_u64);
	for (size_t i = 0; i < ix->nsorted; i++) {
		const struct ixdir *d = map_inohash_get(ix->dirs, ix->sorted[i], false);

		if (d && d->live && (out == 0 || ix->sorted[out - 1] != ix->sorted[i]))
			ix->sorted[out++] = ix->sorted[i];
	}
	ix->nsorted = out;
	return 0;
}

/* A directory, new or back from the dead; listed once in sorted[] or recent[]. */
static int add_dir(struct map_dirindex *ix, uint64_t ino, uint32_t gen, bool during_listing)
{
	struct ixdir *d = map_inohash_get(ix->dirs, ino, false);
	bool listed = d != NULL;

	if ((!d || !d->live) && ix->stats.dirs >= DIRS_MAX)
		return -E2BIG;
	if (!d)
		d = map_inohash_get(ix->dirs, ino, true);
	if (!d)
		return -ENOMEM;
	if (d->live && d->gen == gen)
		return 0;
	if (!d->live)
		ix->stats.dirs++;
	d->gen = gen;
	d->live = true;
	if (listed)
		return 0;	/* still in sorted[] or recent[] */
	if (during_listing)
		return push_sorted(ix, ino);	/* the walk goes in inode order */
	if (ix->nrecent == RECENT_MAX) {
		int rc = fold_recent(ix);

		if (rc)
			return rc;
	}
	if (!ix->recent) {
		ix->recent = malloc(RECENT_MAX * sizeof(uint64_t));
		if (!ix->recent)
			return -ENOMEM;
	}
	ix->recent[ix->nrecent++] = ino;
	return 0;
}

/* For the event code: a directory seen alive, or gone. */
int map_dirindex_note_dir(struct map_dirindex *ix, uint64_t ino, uint32_t gen)
{
	if (ix->phase == IX_EMPTY)
		return 0;
	return add_dir(ix, ino, gen, false);
}

void map_dirindex_note_gone(struct map_dirindex *ix, uint64_t ino)
{
	struct ixdir *d = ix->dirs ? map_inohash_get(ix->dirs, ino, false) : NULL;

	if (d && d->live) {
		d->live = false;
		ix->stats.dirs--;
	}
}

/* ---- files with several links ---- */

int map_dirindex_add_link(struct map_dirindex *ix, uint64_t ino, uint64_t dir, const char *name,
			  size_t len)
{
	struct linkset **slot = map_inohash_get(ix->links, ino, false);

	if (!slot) {
		if (map_inohash_count(ix->links) >= LINKS_MAX)
			return 0;
		slot = map_inohash_get(ix->links, ino, true);
		if (!slot)
			return -ENOMEM;
	}
	struct linkset *ls = *slot;
	if (!ls) {
		ls = calloc(1, sizeof(*ls));
		if (!ls)
			return -ENOMEM;
		*slot = ls;
	}
	for (size_t i = 0; i < ls->n; i++)
		if (ls->v[i].dir == dir && ls->v[i].len == len && !memcmp(ls->v[i].name, name, len))
			return 0;
	if (ls->n == ls->cap) {
		size_t cap = ls->cap ? ls->cap * 2 : 2;
		struct map_dirindex_link *v = realloc(ls->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		ls->v = v;
		ls->cap = cap;
	}
	char *copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, name, len);
	copy[len] = '\0';
	ls->v[ls->n++] = (struct map_dirindex_link){ .dir = dir, .name = copy, .len = len };
	return 0;
}

void map_dirindex_forget_links(struct map_dirindex *ix, uint64_t ino)
{
	struct linkset **slot = ix->links ? map_inohash_get(ix->links, ino, false) : NULL;

	if (slot && *slot) {
		free_links(*slot);
		*slot = NULL;
	}
}

size_t map_dirindex_links(struct map_dirindex *ix, uint64_t ino,
			  const struct map_dirindex_link **v)
{
	struct linkset **slot = ix->links ? map_inohash_get(ix->links, ino, false) : NULL;

	if (!slot || !*slot)
		return 0;
	*v = (*slot)->v;
	return (*slot)->n;
}

bool map_dirindex_gen(const struct map_dirindex *ix, uint64_t ino, uint32_t *gen)
{
	const struct ixdir *d = ix->dirs ? map_inohash_get(ix->dirs, ino, false) : NULL;

	if (!d || !d->live)
		return false;
	*gen = d->gen;
	return true;
}

int map_dirindex_each_in(struct map_dirindex *ix, uint64_t lo, uint64_t hi,
			 int (*fn)(uint64_t ino, uint32_t gen, void *arg), void *arg,
			 bool *past_end)
{
	size_t a = 0, b = ix->nsorted;
	uint64_t max = 0;
	int rc = 0;

	while (a < b) {
		size_t mid = (a + b) / 2;

		if (ix->sorted[mid] < lo)
			a = mid + 1;
		else
			b = mid;
	}
	for (size_t i = a; i < ix->nsorted && ix->sorted[i] < hi && rc == 0; i++) {
		const struct ixdir *d = map_inohash_get(ix->dirs, ix->sorted[i], false);

		if (d && d->live)
			rc = fn(ix->sorted[i], d->gen, arg);
	}
	for (size_t i = 0; i < ix->nrecent && rc == 0; i++) {
		const struct ixdir *d = map_inohash_get(ix->dirs, ix->recent[i], false);

		if (ix->recent[i] > max)
			max = ix->recent[i];
		if (ix->recent[i] >= lo && ix->recent[i] < hi && d && d->live)
			rc = fn(ix->recent[i], d->gen, arg);
	}
	if (ix->nsorted && ix->sorted[ix->nsorted - 1] > max)
		max = ix->sorted[ix->nsorted - 1];
	*past_end = hi > max;
	return rc;
}

/* ---- building ---- */

static int list_one(struct map_fs *fs, const struct xfs_bulkstat *bs, void *arg)
{
	struct map_dirindex *ix = arg;

	(void)fs;
	if (bs->bs_ino < ix->cursor)
		return 0;	/* the walk restarts at the chunk holding the cursor */
	/* Stop when the time is up, but only after some progress: a slice
	 * that stopped at its first inode would never end the walk. */
	if (++ix->slice_inodes % 256 == 0 && now() > ix->deadline) {
		ix->cursor = bs->bs_ino;
		return WALK_STOP;
	}
	ix->cursor = bs->bs_ino + 1;
	if (!S_ISDIR(bs->bs_mode)) {
		/* a file with several links: its names are gathered below */
		if (bs->bs_nlink > 1 && map_inohash_count(ix->links) < LINKS_MAX &&
		    !map_inohash_get(ix->links, bs->bs_ino, true))
			return -ENOMEM;
		return 0;
	}
	return add_dir(ix, bs->bs_ino, bs->bs_gen, true);
}

/* XFS puts a file's inode near its directory's, but a directory whose inode
 * chunk filled up gets its later files in chunks far away, past other
 * directories: the range of file inode numbers each directory held at the
 * build says where to look first. */
static void note_file(struct map_dirindex *ix, uint64_t dir, uint64_t ino)
{
	struct ixdir *d = map_inohash_get(ix->dirs, dir, false);

	if (!d)
		return;
	if (!d->lo || ino < d->lo)
		d->lo = ino;
	if (ino > d->hi)
		d->hi = ino;
}

void map_dirindex_note_read(struct map_dirindex *ix, uint64_t dir, uint64_t ino)
{
	if (!ix->links || !map_inohash_get(ix->links, ino, false))
		note_file(ix, dir, ino);
}

int map_dirindex_covering(struct map_dirindex *ix, uint64_t ino,
			  int (*fn)(uint64_t dir, uint32_t gen, uint64_t lo, uint64_t hi, void *arg),
			  void *arg)
{
	int rc = 0;

	for (size_t i = 0; i < ix->nsorted + ix->nrecent && rc == 0; i++) {
		uint64_t dir = i < ix->nsorted ? ix->sorted[i] : ix->recent[i - ix->nsorted];
		const struct ixdir *d = map_inohash_get(ix->dirs, dir, false);

		if (d && d->live && d->lo && d->lo <= ino && ino <= d->hi)
			rc = fn(dir, d->gen, d->lo, d->hi, arg);
	}
	return rc;
}

/* Read one directory for the names of its subdirectories. */
static int read_names(struct map_dirindex *ix, struct map_fs *fs, uint64_t dir, char *buf)
{
	uint32_t gen;
	int fd, rc = 0;

	if (!map_dirindex_gen(ix, dir, &gen))
		return 0;
	fd = map_open_by_ino(fs, dir, gen, O_DIRECTORY);
	if (fd < 0)
		return fd == -ENOMEM ? fd : 0;	/* gone or unreadable: no names from it */
	for (;;) {
		ssize_t n = getdents64(fd, buf, READ_BUF);

		if (n <= 0)
			break;
		for (ssize_t off = 0; off < n && rc == 0;) {
			struct dirent64 *de = (struct dirent64 *)(buf + off);
			size_t len = strlen(de->d_name);

			off += de->d_reclen;
			if (de->d_name[0] == '.' && (len == 1 || (len == 2 && de->d_name[1] == '.')))
				continue;
			if (de->d_type == DT_DIR ||
			    (de->d_type == DT_UNKNOWN && map_dirindex_gen(ix, de->d_ino, &gen)))
				rc = map_dirmap_set(ix->dm, de->d_ino, dir, de->d_name, len);
			else if (map_inohash_get(ix->links, de->d_ino, false))
				rc = map_dirindex_add_link(ix, de->d_ino, dir, de->d_name, len);
			else
				note_file(ix, dir, de->d_ino);	/* a link elsewhere would
								 * widen its span */
		}
		if (rc)
			break;
	}
	close(fd);
	return rc;
}

int map_dirindex_build(struct map_dirindex *ix, struct map_fs *fs, double budget)
{
	double start = now();
	int rc = 0;

	ix->deadline = start + budget;
	ix->slice_inodes = 0;
	if (ix->phase == IX_READY)
		return 1;
	if (ix->phase == IX_EMPTY) {
		ix->dm = map_dirmap_new(fs->info.root_ino);
		ix->dirs = map_inohash_new(sizeof(struct ixdir));
		ix->links = map_inohash_new(sizeof(struct linkset *));
		if (!ix->dm || !ix->dirs || !ix->links) {
			clear(ix);
			return -ENOMEM;
		}
		ix->cursor = 0;
		ix->read_next = 0;
		ix->stats.build_seconds = 0;
		ix->phase = IX_LISTING;
	}
	if (ix->phase == IX_LISTING) {
		rc = map_bulkstat_walk(fs, ix->cursor, list_one, NULL, ix);
		if (rc < 0)
			goto fail;
		if (rc == WALK_STOP) {
			ix->stats.build_seconds += now() - start;
			return 0;
		}
		rc = fold_recent(ix);
		if (rc)
			goto fail;
		ix->phase = IX_READING;
	}
	char *buf = malloc(READ_BUF);
	if (!buf) {
		rc = -ENOMEM;
		goto fail;
	}
	while (ix->read_next < ix->nsorted && rc == 0) {
		if (now() > ix->deadline)
			break;
		rc = read_names(ix, fs, ix->sorted[ix->read_next++], buf);
	}
	free(buf);
	if (rc)
		goto fail;
	ix->stats.build_seconds += now() - start;
	if (ix->read_next < ix->nsorted)
		return 0;
	ix->phase = IX_READY;
	ix->stats.builds++;
	return 1;
fail:
	clear(ix);
	return rc;
}
