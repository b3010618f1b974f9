// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A string set with open addressing and linear probing.  It replaced a list
 * searched from the start for every path, which made "mapctl files -0"
 * quadratic: 40k paths took seconds, a million would take hours.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "map_path_set.h"

/* First size: small listings allocate little. */
#define PATH_SET_MIN_CAP 64

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

/* The slot holding @s, or the empty one where it belongs. */
static char **find(char **slot, size_t cap, const char *s)
{
	size_t i = (size_t)hash(s) & (cap - 1);

	while (slot[i] && strcmp(slot[i], s) != 0)
		i = (i + 1) & (cap - 1);
	return &slot[i];
}

static int grow(struct path_set *set)
{
	size_t cap = set->cap ? set->cap * 2 : PATH_SET_MIN_CAP;
	char **slot;

	if (cap > SIZE_MAX / sizeof(*slot))
		return -ENOMEM;
	slot = calloc(cap, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < set->cap; i++)
		if (set->slot[i])
			*find(slot, cap, set->slot[i]) = set->slot[i];
	free(set->slot);
	set->slot = slot;
	set->cap = cap;
	return 0;
}

int path_set_add(struct path_set *set, const char *s)
{
	char **where;

	/* At most half full, so probes stay short and always end. */
	if (set->n + 1 > set->cap / 2) {
		int rc = grow(set);

		if (rc)
			return rc;
	}
	where = find(set->slot, set->cap, s);
	if (*where)
		return 0;
	*where = strdup(s);
	if (!*where)
		return -ENOMEM;
	set->n++;
	return 1;
}

void path_set_free(struct path_set *set)
{
	for (size_t i = 0; i < set->cap; i++)
		free(set->slot[i]);
	free(set->slot);
	set->slot = NULL;
	set->cap = set->n = 0;
}
