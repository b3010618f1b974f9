/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A set of strings, for printing each path once (mapctl files -0). */
#ifndef MAP_PATH_SET_H
#define MAP_PATH_SET_H

#include <stddef.h>

struct path_set {
	char **slot;		/* open addressing; NULL is empty */
	size_t cap;		/* a power of two, or 0 */
	size_t n;
};

/* 1 if @s was added, 0 if it was there already, -ENOMEM.  Expected O(1). */
int path_set_add(struct path_set *set, const char *s);
void path_set_free(struct path_set *set);

#endif
