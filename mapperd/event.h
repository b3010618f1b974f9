/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An error the kernel reported, on its way from a source to the pipeline. */
#ifndef MAPPERD_EVENT_H
#define MAPPERD_EVENT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "map_store.h"

enum md_event_kind {
	MD_EV_INODE,		/* an inode (fanotify handle, kmsg inode corruption) */
	MD_EV_RANGE,		/* bytes of the data device (kmsg daddr or sector) */
	MD_EV_FS,		/* the filesystem as a whole (no handle, shutdown) */
	MD_EV_FILE,		/* file bytes of an inode whose I/O failed (health monitor) */
	MD_EV_HEALTH,		/* an object marked sick, corrupt or healthy (health monitor) */
};

struct md_event {
	struct md_event *next;
	enum md_event_kind kind;
	enum map_event_source source;
	char uuid[40];			/* the filesystem */
	char mountpoint[PATH_MAX];
	dev_t dev;
	int64_t fs_id;
	uint64_t ino;			/* MD_EV_INODE */
	uint32_t gen;			/*   0: unknown */
	uint64_t start, length;		/* MD_EV_RANGE: device bytes; MD_EV_FILE: file bytes */
	bool write;			/* MD_EV_FILE: a write failed (nothing to read back) */
	uint32_t domain, type;		/* MD_EV_HEALTH: MAP_HM_DOMAIN_*, MAP_HM_TYPE_* */
	uint32_t mask, gno;		/*   sick bits; AG number */
	bool verify;			/*   read them to find exactly which are bad */
	bool block_layer;		/*   a block-layer line (our own reads cause those too) */
	int error;			/* positive errno as reported */
	uint32_t count;			/* errors merged into this report (fanotify) */
	char detail[256];		/* for the events table and the log */
	double received;		/* md_mono() when it was read */
};

/* A new zeroed event (NULL when out of memory). */
struct md_event *md_event_new(enum md_event_kind kind, enum map_event_source source);

#endif
