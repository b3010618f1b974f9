/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pure parts of the notification hooks, apart so the unit test links
 * them: a notification and its bounded queue, the findings JSON, which
 * files of the hook directory qualify, and a hook's environment.
 */
#ifndef MAPPERD_NOTIFY_QUEUE_H
#define MAPPERD_NOTIFY_QUEUE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "map.h"
#include "notify.h"

/* Notifications waiting for their hooks.  One per filesystem and kind is
 * enough (a new one merges into the one waiting), so 64 covers many
 * filesystems at once; more is a flood, dropped and counted. */
#define MD_NOTIFY_QUEUE_MAX 64
/* Findings JSON kept per notification: a few hundred findings, which says
 * enough for a mail; the counts stay exact beyond it. */
#define MD_NOTIFY_JSON_MAX (64 * 1024)
/* Hooks per directory: an administrator's handful, with room to spare. */
#define MD_NOTIFY_MAX_HOOKS 32

struct md_notification {
	struct md_notification *next;
	enum md_notify_event event;
	char uuid[40];
	char mountpoint[PATH_MAX];
	int new_findings;
	int open_findings;		/* < 0: count from the store at start */
	int64_t time;			/* unix seconds of the latest merged post */
	unsigned int merged;		/* posts merged into this one */
	char *json;			/* finding objects, comma separated */
	size_t json_len;
	size_t json_findings, json_omitted;
};

struct md_notify_queue {
	struct md_notification *head, *tail;
	size_t n, max;
	uint64_t dropped;		/* notifications lost: the queue was full */
};

/* A new notification (NULL when out of memory); free with md_notification_free. */
struct md_notification *md_notification_new(enum md_notify_event ev, const char *uuid,
					     const char *mountpoint, int new_findings,
					     int open_findings, int64_t time);
void md_notification_free(struct md_notification *n);
/* Add one finding to @n's JSON (within MD_NOTIFY_JSON_MAX, else counted). */
void md_notification_add_finding(struct md_notification *n, const struct map_finding *f);
/* The findings file: {"event":..., "findings":[...], ...} into @out (malloc'd). */
int md_notification_json(const struct md_notification *n, char **out, size_t *len);

/*
 * Queue @n (taken).  0 queued, 1 merged into a waiting notification of the
 * same kind and filesystem, -ENOSPC dropped (counted in q->dropped).
 */
int md_notify_queue_push(struct md_notify_queue *q, struct md_notification *n);
struct md_notification *md_notify_queue_pop(struct md_notify_queue *q);
/* Free what waits; how many. */
size_t md_notify_queue_clear(struct md_notify_queue *q);

/* The hooks of a directory, in name order. */
struct md_hook_list {
	size_t n;
	char names[MD_NOTIFY_MAX_HOOKS][NAME_MAX + 1];
};

/*
 * The files of @dir that are hooks: regular, executable, owned by @owner
 * (root in the daemon), not group or world writable, named neither ".*" nor
 * "*~".  @refused hears of each executable refused and why.  0, or a
 * negative errno with *why set when the directory itself is refused.
 */
int md_notify_list_hooks(const char *dir, uid_t owner, struct md_hook_list *out,
			 const char **why,
			 void (*refused)(const char *name, const char *why, void *arg),
			 void *arg);

/* A hook's whole environment (PATH and the MAPPER_* variables) as "K=V"
 * strings in @buf, pointed to by @envp (NULL terminated).  Count, or -ENOSPC. */
#define MD_NOTIFY_ENV_MAX 16
int md_notify_build_env(const struct md_notification *n, const char *json_path,
			const char *version, char *buf, size_t len, char **envp, size_t max);

#endif
