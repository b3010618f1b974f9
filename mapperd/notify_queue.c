// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Notifications: what a hook is told, kept in a bounded queue until the main
 * thread runs the hooks.  A post of a kind already waiting for the same
 * filesystem merges into it (counts add up, findings append), so a burst of
 * reports costs one run of the hooks and one slot of the queue.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "notify_queue.h"
#include "textbuf.h"

const char *md_notify_event_name(enum md_notify_event ev)
{
	switch (ev) {
	case MD_NOTIFY_DAMAGE: return "damage";
	case MD_NOTIFY_SCAN_DONE: return "scan-done";
	case MD_NOTIFY_SHUTDOWN: return "shutdown";
	case MD_NOTIFY_REPORTS_LOST: return "reports-lost";
	}
	return "unknown";
}

struct md_notification *md_notification_new(enum md_notify_event ev, const char *uuid,
					     const char *mountpoint, int new_findings,
					     int open_findings, int64_t time)
{
	struct md_notification *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->event = ev;
	snprintf(n->uuid, sizeof(n->uuid), "%s", uuid ? uuid : "");
	snprintf(n->mountpoint, sizeof(n->mountpoint), "%s", mountpoint ? mountpoint : "");
	n->new_findings = new_findings;
	n->open_findings = open_findings;
	n->time = time;
	return n;
}

void md_notification_free(struct md_notification *n)
{
	if (!n)
		return;
	free(n->json);
	free(n);
}

/*
 * Append @items (@len bytes of comma-separated JSON objects) to @n's findings
 * array text.  False, with @n's text as it was, when there is no memory.
 */
static bool json_append(struct md_notification *n, const char *items, size_t len)
{
	struct md_buf all = { .p = n->json, .len = n->json_len,
			      .cap = n->json ? n->json_len + 1 : 0 };

	md_buf_printf(&all, "%s%.*s", all.len ? "," : "", (int)len, items);
	n->json = all.p;
	if (all.failed) {
		if (n->json)
			n->json[n->json_len] = '\0';
		return false;
	}
	n->json_len = all.len;
	return true;
}

void md_notification_add_finding(struct md_notification *n, const struct map_finding *f)
{
	struct md_buf b = { 0 };
	struct map_json j;

	if (n->json_omitted) {
		n->json_omitted++;	/* full already: a scan's thousands cost nothing */
		return;
	}
	/* The finding object of mapper-json(7), as mapctl files gives it.
	 * Only new findings come here: first seen when last seen. */
	struct map_finding g = *f;

	if (!g.first_seen)
		g.first_seen = g.last_seen;
	md_json_start(&j, &b);
	map_json_obj(&j, NULL);
	map_json_finding_members(&j, &g, n->uuid, n->mountpoint);
	map_json_end_obj(&j);
	if (b.failed || n->json_len + b.len + 1 > MD_NOTIFY_JSON_MAX) {
		n->json_omitted++;
		md_buf_free(&b);
		return;
	}
	if (json_append(n, b.p, b.len))
		n->json_findings++;
	else
		n->json_omitted++;
	md_buf_free(&b);
}

int md_notification_json(const struct md_notification *n, char **out, size_t *len)
{
	struct md_buf b = { 0 };
	struct map_json j;

	md_json_start(&j, &b);
	map_json_obj(&j, NULL);
	map_json_output_version(&j, "mapperd notify");
	map_json_str(&j, "event", md_notify_event_name(n->event));
	map_json_str(&j, "fs_uuid", n->uuid);
	map_json_str(&j, "mountpoint", n->mountpoint);
	map_json_int(&j, "time", n->time);
	map_json_int(&j, "new_findings", n->new_findings);
	map_json_int(&j, "open_findings", n->open_findings);
	map_json_uint(&j, "findings_omitted", n->json_omitted);
	map_json_end_obj(&j);
	if (b.failed || b.len < 1) {
		md_buf_free(&b);
		return -ENOMEM;
	}
	/* Put the findings array in before the closing brace. */
	b.p[--b.len] = '\0';
	md_buf_printf(&b, ",\"findings\":[%.*s]}\n", (int)n->json_len, n->json ? n->json : "");
	if (b.failed) {
		md_buf_free(&b);
		return -ENOMEM;
	}
	*out = b.p;
	*len = b.len;
	return 0;
}

/* ---- the queue ---- */

static void merge(struct md_notification *into, struct md_notification *n)
{
	into->new_findings += n->new_findings;
	into->open_findings = n->open_findings;
	into->time = n->time;
	into->merged++;
	into->json_omitted += n->json_omitted;
	if (n->json_len) {
		if (into->json_len + n->json_len + 1 > MD_NOTIFY_JSON_MAX) {
			into->json_omitted += n->json_findings;
		} else if (json_append(into, n->json, n->json_len)) {
			into->json_findings += n->json_findings;
		} else {
			into->json_omitted += n->json_findings;
		}
	}
	md_notification_free(n);
}

int md_notify_queue_push(struct md_notify_queue *q, struct md_notification *n)
{
	size_t max = q->max ? q->max : MD_NOTIFY_QUEUE_MAX;

	for (struct md_notification *w = q->head; w; w = w->next) {
		if (w->event == n->event && strcmp(w->uuid, n->uuid) == 0) {
			merge(w, n);
			return 1;
		}
	}
	if (q->n >= max) {
		q->dropped++;
		md_notification_free(n);
		return -ENOSPC;
	}
	n->next = NULL;
	if (q->tail)
		q->tail->next = n;
	else
		q->head = n;
	q->tail = n;
	q->n++;
	return 0;
}

struct md_notification *md_notify_queue_pop(struct md_notify_queue *q)
{
	struct md_notification *n = q->head;

	if (!n)
		return NULL;
	q->head = n->next;
	if (!q->head)
		q->tail = NULL;
	q->n--;
	n->next = NULL;
	return n;
}

size_t md_notify_queue_clear(struct md_notify_queue *q)
{
	size_t count = 0;
	struct md_notification *n;

	while ((n = md_notify_queue_pop(q)) != NULL) {
		md_notification_free(n);
		count++;
	}
	return count;
}
