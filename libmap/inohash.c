// SPDX-License-Identifier: GPL-2.0-or-later
/* Open-addressing hash table from inode number (never 0 on XFS) to a fixed-size value. */
#include <stdlib.h>
#include <string.h>

#include "map_internal.h"

struct map_inohash {
	size_t value_size;
	size_t slot_size;
	size_t cap;		/* power of two */
	size_t count;
	unsigned char *slots;	/* each: uint64_t key, then the value */
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static unsigned char *slot(const struct map_inohash *h, size_t i)
{
	return h->slots + i * h->slot_size;
}

struct map_inohash *map_inohash_new(size_t value_size)
{
	struct map_inohash *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->value_size = value_size;
	h->slot_size = (sizeof(uint64_t) + value_size + 7) & ~(size_t)7;
	h->cap = 64;
	h->slots = calloc(h->cap, h->slot_size);
	if (!h->slots) {
		free(h);
		return NULL;
	}
	return h;
}

void map_inohash_free(struct map_inohash *h)
{
	if (!h)
		return;
	free(h->slots);
	free(h);
}

static int grow(struct map_inohash *h)
{
	struct map_inohash bigger = *h;

	bigger.cap = h->cap * 2;
	bigger.slots = calloc(bigger.cap, h->slot_size);
	if (!bigger.slots)
		return -1;
	for (size_t i = 0; i < h->cap; i++) {
		uint64_t key;

		memcpy(&key, slot(h, i), sizeof(key));
		if (!key)
			continue;
		size_t j = mix(key) & (bigger.cap - 1);
		while (*(uint64_t *)(void *)slot(&bigger, j))
			j = (j + 1) & (bigger.cap - 1);
		memcpy(slot(&bigger, j), slot(h, i), h->slot_size);
	}
	free(h->slots);
	h->slots = bigger.slots;
	h->cap = bigger.cap;
	return 0;
}

void *map_inohash_get(struct map_inohash *h, uint64_t ino, bool create)
{
	if (ino == 0)
		return NULL;
	if (create && (h->count + 1) * 4 > h->cap * 3 && grow(h) != 0)
		return NULL;
	size_t i = mix(ino) & (h->cap - 1);
	for (;;) {
		unsigned char *s = slot(h, i);
		uint64_t key;

		memcpy(&key, s, sizeof(key));
		if (key == ino)
			return s + sizeof(uint64_t);
		if (key == 0) {
			if (!create)
				return NULL;
			memcpy(s, &ino, sizeof(ino));
			h->count++;
			return s + sizeof(uint64_t);
		}
		i = (i + 1) & (h->cap - 1);
	}
}

size_t map_inohash_count(const struct map_inohash *h)
{
	return h->count;
}

int map_inohash_each(struct map_inohash *h, int (*fn)(uint64_t ino, void *value, void *arg),
		     void *arg)
{
	for (size_t i = 0; i < h->cap; i++) {
		unsigned char *s = slot(h, i);
		uint64_t key;

		memcpy(&key, s, sizeof(key));
		if (key) {
			int rc = fn(key, s + sizeof(uint64_t), arg);

			if (rc)
				return rc;
		}
	}
	return 0;
}
