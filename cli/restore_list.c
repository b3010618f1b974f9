// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "restore_list.h"

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

static int add_finding(const struct map_finding *f, void *arg)
{
	struct restore_list *l = arg;

	if (f->mode && !S_ISREG(f->mode)) {
		if (S_ISDIR(f->mode))
			l->skipped_dirs++;
		return 0;	/* directories and links are not copied back */
	}
	if (!strcmp(f->kind, "free") || !strcmp(f->kind, "unknown"))
		return 0;
	for (size_t i = 0; i < f->npaths; i++) {
		struct restore_item *it = find_or_add(l, f->paths[i]);

		if (!it)
			return -ENOMEM;
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
	memset(out, 0, sizeof(*out));
	int rc = map_store_findings(st, fs_id, MAP_FIND_FILES, add_finding, out);
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
