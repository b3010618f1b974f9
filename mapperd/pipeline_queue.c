// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The event pipeline's queue: reports submitted by the event sources, with
 * duplicates dropped in front, taken one at a time by the worker.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon.h"
#include "pipeline_internal.h"

#define QUEUE_MAX 1024
/* The kernel log can be made to say things by anyone (see kmsg_parse.h):
 * its reports may fill only half the queue, fanotify's always find room. */
#define KMSG_QUEUE_MAX (QUEUE_MAX / 2)

static bool from_kmsg(const struct md_event *ev)
{
	return ev->source == MAP_EVENT_KMSG;
}

void md_pipeline_count_limited(struct md_pipeline *p, uint64_t n)
{
	pthread_mutex_lock(&p->lock);
	p->stats.rate_limited += n;
	pthread_mutex_unlock(&p->lock);
}

int md_pipeline_submit(struct md_pipeline *p, struct md_event *ev)
{
	char key[MD_DEDUP_KEY];
	int rc = 0;

	md_dedup_key(ev, key, sizeof(key));
	pthread_mutex_lock(&p->lock);
	p->stats.received++;
	md_dedup_health(&p->dedup, ev);
	if (ev->count > 1)
		p->stats.merged++;
	/* A merged report stands for errors we have not seen: never drop it. */
	if (ev->count <= 1 &&
	    md_dedup_seen(&p->dedup, key, md_now_ms(), p->conf.dedup_window_ms)) {
		p->stats.duplicates++;
		rc = 1;
	} else if (p->queued >= QUEUE_MAX || (from_kmsg(ev) && p->queued_kmsg >= KMSG_QUEUE_MAX)) {
		p->stats.dropped++;
		rc = -ENOSPC;
	} else {
		ev->next = NULL;
		if (p->tail)
			p->tail->next = ev;
		else
			p->head = ev;
		p->tail = ev;
		p->queued++;
		p->queued_kmsg += from_kmsg(ev);
		pthread_cond_signal(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	if (rc)
		free(ev);
	return rc;
}

/*
 * The next event to handle.  Reports that name an inode or a place go
 * first: a filesystem-wide one is often explained by one of those (XFS
 * reports a metadata read error fs-wide and logs its daddr at once).
 */
struct md_event *pipeline_next_event(struct md_pipeline *p, double wait)
{
	struct md_event *ev = NULL, **pp;
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	if (wait >= 0) {
		until.tv_sec += (time_t)wait;
		until.tv_nsec += (long)((wait - (double)(time_t)wait) * 1e9);
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
	}
	pthread_mutex_lock(&p->lock);
	/* Woken for a report, a stop, a release of the database, or when the
	 * database writer has something due (@wait seconds; < 0: nothing). */
	while (!p->head && !p->stop && !p->release_db && !p->ndwreqs) {
		if (wait < 0)
			pthread_cond_wait(&p->cond, &p->lock);
		else if (pthread_cond_timedwait(&p->cond, &p->lock, &until) == ETIMEDOUT)
			break;
	}
	if (!p->stop && p->head) {
		for (pp = &p->head; *pp && (*pp)->kind == MD_EV_FS; pp = &(*pp)->next)
			;
		if (!*pp)
			pp = &p->head;
		ev = *pp;
		*pp = ev->next;
		if (p->tail == ev) {
			/* find the new tail */
			struct md_event *t = p->head;

			while (t && t->next)
				t = t->next;
			p->tail = t;
		}
		p->queued--;
		p->queued_kmsg -= from_kmsg(ev);
	}
	pthread_mutex_unlock(&p->lock);
	return ev;
}

size_t pipeline_drop_queued(struct md_pipeline *p)
{
	size_t dropped = 0;

	while (p->head) {
		struct md_event *ev = p->head;

		p->head = ev->next;
		free(ev);
		dropped++;
	}
	p->tail = NULL;
	p->queued = p->queued_kmsg = 0;
	return dropped;
}

/*
 * When full, a warm-up is dropped (only a head start: never in the way), and
 * any other request makes room by dropping the oldest warm-up, or the oldest
 * request when none is queued.  Otherwise many filesystems appearing at once
 * would cost the first ones their directory index for the later ones' warm-ups.
 */
bool pipeline_fs_req_add(struct dirwatch_req *q, size_t *n, const struct dirwatch_req *r)
{
	size_t out = 0;

	if (*n == DIRWATCH_REQS) {
		if (r->warm)
			return false;
		while (out < *n && !q[out].warm)
			out++;
		if (out == *n)
			out = 0;
		memmove(&q[out], &q[out + 1], (*n - out - 1) * sizeof(q[0]));
		(*n)--;
	}
	q[(*n)++] = *r;
	return true;
}
