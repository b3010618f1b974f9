// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "act_restore_list.h"

static struct restore_item *find_or_add(struct restore_list *l, const char *path)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].path, path) == 0)
			return &l->v[i];
	struct restore_item *v = realloc(l->v, (l->n + 1) * sizeof(*v));
	if (!v)
		return NULL;
	l->v = v;
	memset(&l->v[l->n], 0, sizeof(l->v[0]));
	l->v[l->n].path = strdup(path);
	if (!l->v[l->n].path)
		return NULL;
	return &l->v[l->n++];
}

struct build {
	struct restore_list *l;
	unsigned int kinds;
};

static int add_finding(const struct map_finding *f, void *arg)
{
	struct build *b = arg;
	struct restore_list *l = b->l;

	/* A repaired finding may have lost what sat in its unreadable blocks
	 * (a rebuilt inode's attributes, dropped xattrs, a freed inode's
	 * file): the mirror puts that back too.  So does a zeroed one. */
	if (!map_state_is_open(f->state) && f->state != MAP_STATE_REPAIRED)
		return 0;
	if (f->mode && !S_ISREG(f->mode)) {
		bool want = (S_ISLNK(f->mode) && (b->kinds & RESTORE_SYMLINKS)) ||
			    (S_ISDIR(f->mode) && (b->kinds & RESTORE_DIRS));

		if (S_ISDIR(f->mode) && !want)
			l->skipped_dirs++;
		if (!want)
			return 0;	/* not copied back */
	}
	if (!strcmp(f->kind, "free") || !strcmp(f->kind, "unknown"))
		return 0;
	for (size_t i = 0; i < f->npaths; i++) {
		struct restore_item *it = find_or_add(l, f->paths[i]);

		if (!it)
			return -ENOMEM;
		/* A generation of 0 is "not known" (a scrub finding may lack it). */
		if (it->nfindings && f->ino && it->ino &&
		    (it->ino != f->ino || (it->gen && f->gen && it->gen != f->gen)))
			it->conflict = true;
		if (f->ino && !it->ino)
			it->ino = f->ino;
		if (f->ino == it->ino && !it->gen)
			it->gen = f->gen;
		if (f->mode && !it->mode)
			it->mode = f->mode & S_IFMT;
		int64_t *v = realloc(it->findings, (it->nfindings + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		it->findings = v;
		it->findings[it->nfindings++] = f->id;
	}
	return 0;
}

static int cmp_item(const void *a, const void *b)
{
	return strcmp(((const struct restore_item *)a)->path, ((const struct restore_item *)b)->path);
}

int restore_list_build(struct map_store *st, int64_t fs_id, struct restore_list *out)
{
	return restore_list_build_kinds(st, fs_id, 0, out);
}

int restore_list_build_kinds(struct map_store *st, int64_t fs_id, unsigned int kinds,
			     struct restore_list *out)
{
	struct build b = { .l = out, .kinds = kinds };

	memset(out, 0, sizeof(*out));
	int rc = map_store_findings(st, fs_id, MAP_FIND_ALL | MAP_FIND_FILES, add_finding, &b);
	if (rc == 0 && out->n > 1)
		qsort(out->v, out->n, sizeof(out->v[0]), cmp_item);
	return rc;
}

void restore_list_free(struct restore_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].findings);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}
