// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Path assembly from a directory map: for each directory seen so far, its
 * parent and its name there.  Memory grows with the number of directories.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "map_internal.h"

struct dir_entry {
	uint64_t parent;
	char *name;
	size_t len;
};

struct map_dirmap {
	uint64_t root;
	struct map_inohash *dirs;
};

struct map_dirmap *map_dirmap_new(uint64_t root_ino)
{
	struct map_dirmap *dm = calloc(1, sizeof(*dm));

	if (!dm)
		return NULL;
	dm->root = root_ino;
	dm->dirs = map_inohash_new(sizeof(struct dir_entry));
	if (!dm->dirs) {
		free(dm);
		return NULL;
	}
	return dm;
}

static int free_name(uint64_t ino, void *value, void *arg)
{
	(void)ino;
	(void)arg;
	free(((struct dir_entry *)value)->name);
	return 0;
}

void map_dirmap_free(struct map_dirmap *dm)
{
	if (!dm)
		return;
	map_inohash_each(dm->dirs, free_name, NULL);
	map_inohash_free(dm->dirs);
	free(dm);
}

static int put(struct map_dirmap *dm, uint64_t ino, uint64_t parent, const char *name,
	       size_t len, bool replace)
{
	struct dir_entry *e;

	if (ino == dm->root)
		return 0;
	e = map_inohash_get(dm->dirs, ino, true);
	if (!e)
		return -ENOMEM;
	if (e->name && !replace)
		return 0;	/* a directory has one name; keep the first seen */
	if (e->name && e->parent == parent && e->len == len && memcmp(e->name, name, len) == 0)
		return 0;
	char *copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, name, len);
	copy[len] = '\0';
	free(e->name);
	e->name = copy;
	e->len = len;
	e->parent = parent;
	return 0;
}

int map_dirmap_add(struct map_dirmap *dm, uint64_t ino, uint64_t parent, const char *name,
		   size_t len)
{
	return put(dm, ino, parent, name, len, false);
}

int map_dirmap_set(struct map_dirmap *dm, uint64_t ino, uint64_t parent, const char *name,
		   size_t len)
{
	return put(dm, ino, parent, name, len, true);
}

bool map_dirmap_forget(struct map_dirmap *dm, uint64_t ino, uint64_t parent, const char *name,
		       size_t len)
{
	struct dir_entry *e = map_inohash_get(dm->dirs, ino, false);

	if (!e || !e->name || e->parent != parent || e->len != len ||
	    memcmp(e->name, name, len) != 0)
		return false;
	free(e->name);
	e->name = NULL;		/* the slot stays; a forgotten name reads as unknown */
	e->len = 0;
	return true;
}

struct each_ctx {
	int (*fn)(uint64_t ino, uint64_t parent, const char *name, size_t len, void *arg);
	void *arg;
};

static int each_named(uint64_t ino, void *value, void *arg)
{
	const struct dir_entry *e = value;
	struct each_ctx *c = arg;

	return e->name ? c->fn(ino, e->parent, e->name, e->len, c->arg) : 0;
}

int map_dirmap_each(struct map_dirmap *dm,
		    int (*fn)(uint64_t ino, uint64_t parent, const char *name, size_t len,
			      void *arg), void *arg)
{
	struct each_ctx c = { fn, arg };

	return map_inohash_each(dm->dirs, each_named, &c);
}

static const struct dir_entry *named(const struct map_dirmap *dm, uint64_t ino)
{
	const struct dir_entry *e = map_inohash_get(dm->dirs, ino, false);

	return e && e->name ? e : NULL;
}

bool map_dirmap_known(const struct map_dirmap *dm, uint64_t ino)
{
	return ino == dm->root || named(dm, ino) != NULL;
}

/* First ancestor of @ino (itself included) whose name is unknown, 0 if none. */
uint64_t map_dirmap_missing(const struct map_dirmap *dm, uint64_t ino)
{
	size_t limit = map_inohash_count(dm->dirs) + 1;

	while (ino != dm->root) {
		const struct dir_entry *e = named(dm, ino);

		if (!e)
			return ino;
		if (limit-- == 0)
			return ino;	/* a loop: treat as unknown */
		ino = e->parent;
	}
	return 0;
}

char *map_dirmap_path(const struct map_dirmap *dm, uint64_t ino)
{
	size_t limit = map_inohash_count(dm->dirs) + 1;
	size_t total = 0;
	uint64_t cur = ino;

	/* First pass: length, and whether every ancestor is known. */
	while (cur != dm->root) {
		const struct dir_entry *e = named(dm, cur);

		if (!e || limit-- == 0)
			return NULL;
		total += e->len + 1;
		cur = e->parent;
	}
	size_t slen = total ? total - 1 : 0;	/* no leading slash */
	char *path = malloc(slen + 1);

	if (!path)
		return NULL;
	path[slen] = '\0';
	/* Second pass: fill from the end. */
	for (cur = ino; cur != dm->root;) {
		const struct dir_entry *e = named(dm, cur);

		slen -= e->len;
		memcpy(path + slen, e->name, e->len);
		if (slen)
			path[--slen] = '/';
		cur = e->parent;
	}
	return path;
}

char *map_dirmap_join(const struct map_dirmap *dm, uint64_t dir, const char *name, size_t len)
{
	char *base = map_dirmap_path(dm, dir);
	char *path;

	if (!base)
		return NULL;
	size_t blen = strlen(base);
	path = malloc(blen + 1 + len + 1);
	if (path) {
		memcpy(path, base, blen);
		size_t at = blen;
		if (blen)
			path[at++] = '/';
		memcpy(path + at, name, len);
		path[at + len] = '\0';
	}
	free(base);
	return path;
}
