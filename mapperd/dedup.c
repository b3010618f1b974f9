// SPDX-License-Identifier: GPL-2.0-or-later
/* De-duplication of events within a short window. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dedup.h"

struct md_event *md_event_new(enum md_event_kind kind, enum map_event_source source)
{
	struct md_event *ev = calloc(1, sizeof(*ev));

	if (!ev)
		return NULL;
	ev->kind = kind;
	ev->count = 1;
	ev->source = source;
	return ev;
}

/* "uuid|h|domain|gno|ino|start|": the object a health record is about. */
static void md_dedup_object(const struct md_event *ev, char *key, size_t len)
{
	snprintf(key, len, "%s|h|%" PRIu32 "|%" PRIu32 "|%" PRIu64 "|%" PRIu64 "|", ev->uuid,
		 ev->domain, ev->gno, ev->ino, ev->start);
}

void md_dedup_key(const struct md_event *ev, char *key, size_t len)
{
	switch (ev->kind) {
	case MD_EV_INODE:
		snprintf(key, len, "%s|i|%" PRIu64 "|%" PRIu32, ev->uuid, ev->ino, ev->gen);
		break;
	case MD_EV_RANGE:
		snprintf(key, len, "%s|r|%" PRIu64 "|%" PRIu64, ev->uuid, ev->start, ev->length);
		break;
	case MD_EV_FS:
		snprintf(key, len, "%s|f|%d", ev->uuid, ev->error);
		break;
	case MD_EV_FILE:
		snprintf(key, len, "%s|F|%" PRIu64 "|%" PRIu32 "|%" PRIu64 "|%" PRIu64 "|%d", ev->uuid,
			 ev->ino, ev->gen, ev->start, ev->length, ev->write);
		break;
	case MD_EV_HEALTH:
		/* the object first, then what is said of it: see md_dedup_health() */
		md_dedup_object(ev, key, len);
		snprintf(key + strlen(key), len - strlen(key), "%" PRIu32 "|%" PRIu32, ev->type,
			 ev->mask);
		break;
	}
}

bool md_dedup_seen(struct md_dedup *dd, const char *key, int64_t now_ms, int64_t window_ms)
{
	if (window_ms <= 0)
		return false;
	for (unsigned int i = 0; i < MD_DEDUP_SLOTS; i++) {
		if (dd->slot[i].at && now_ms - dd->slot[i].at < window_ms &&
		    strcmp(dd->slot[i].key, key) == 0)
			return true;
	}
	snprintf(dd->slot[dd->next].key, MD_DEDUP_KEY, "%s", key);
	dd->slot[dd->next].at = now_ms;
	dd->next = (dd->next + 1) % MD_DEDUP_SLOTS;
	return false;
}

void md_dedup_health(struct md_dedup *dd, const struct md_event *ev)
{
	char obj[MD_DEDUP_KEY], same[MD_DEDUP_KEY + 16];
	size_t n;

	if (ev->kind != MD_EV_HEALTH)
		return;
	md_dedup_object(ev, obj, sizeof(obj));
	n = strlen(obj);
	snprintf(same, sizeof(same), "%s%" PRIu32 "|", obj, ev->type);
	for (unsigned int i = 0; i < MD_DEDUP_SLOTS; i++) {
		const char *k = dd->slot[i].key;

		if (dd->slot[i].at && !strncmp(k, obj, n) && strncmp(k, same, strlen(same)) != 0)
			dd->slot[i].at = 0;
	}
}
