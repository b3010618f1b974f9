/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * De-duplication of events: the same (filesystem, inode, generation) or
 * (filesystem, device range) reported again within a short window is
 * dropped.  Fixed memory; the oldest key is forgotten first.
 */
#ifndef MAPPERD_DEDUP_H
#define MAPPERD_DEDUP_H

#include <stdbool.h>
#include <stdint.h>

#include "event.h"

#define MD_DEDUP_SLOTS 512
#define MD_DEDUP_KEY 128

struct md_dedup {
	struct {
		char key[MD_DEDUP_KEY];
		int64_t at;		/* ms */
	} slot[MD_DEDUP_SLOTS];
	unsigned int next;
};

/* The key of an event ("uuid|i|ino|gen", "uuid|r|start|length", "uuid|f|error"). */
void md_dedup_key(const struct md_event *ev, char *key, size_t len);
/* True if @key was seen less than @window_ms before @now_ms; records it
 * otherwise.  A window of 0 never drops anything. */
bool md_dedup_seen(struct md_dedup *dd, const char *key, int64_t now_ms, int64_t window_ms);
/*
 * A health record @ev (others are ignored) forgets what was said otherwise
 * of the same object: sick, healthy, sick again within the window are three
 * reports, not two (the second sick would be dropped, and the finding the
 * healthy record closed would stay closed while the kernel calls the object
 * sick).  Call it before md_dedup_seen() with the record's key.
 */
void md_dedup_health(struct md_dedup *dd, const struct md_event *ev);

#endif
