// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What explains a kernel log line: the pipeline's own reads (the block-layer
 * lines they cause are not news), and the filesystems whose errors the kernel
 * log placed a moment ago (a filesystem-wide report of them needs no scan).
 */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"
#include "pipeline_internal.h"

#define KMSG_WAIT_SECS 1.0		/* how long a fs-wide report waits for a located one */

/* Our reads of [start, start+length) explain kernel log lines until @until
 * (the same range again updates its entry). */
void pipeline_remember_read(struct md_pipeline *p, dev_t dev, uint64_t start, uint64_t length,
			    double until)
{
	pthread_mutex_lock(&p->lock);
	for (unsigned int i = 0; i < RECENT_RANGES; i++) {
		struct recent_range *r = &p->recent[i];

		if (r->dev == dev && r->start == start && r->length == length) {
			r->until = until;
			pthread_mutex_unlock(&p->lock);
			return;
		}
	}
	p->recent[p->next_recent] = (struct recent_range){ dev, start, length, until };
	p->next_recent = (p->next_recent + 1) % RECENT_RANGES;
	pthread_mutex_unlock(&p->lock);
}

bool md_pipeline_self_inflicted(struct md_pipeline *p, dev_t dev, uint64_t start,
				uint64_t length)
{
	double now = md_mono();
	bool ours = false;

	pthread_mutex_lock(&p->lock);
	for (unsigned int i = 0; i < RECENT_RANGES && !ours; i++) {
		const struct recent_range *r = &p->recent[i];

		ours = r->until > now && r->dev == dev && start < r->start + r->length &&
		       r->start < start + length;
	}
	pthread_mutex_unlock(&p->lock);
	return ours;
}

void pipeline_note_located(struct md_pipeline *p, const char *uuid)
{
	pthread_mutex_lock(&p->lock);
	snprintf(p->located[p->next_located].uuid, sizeof(p->located[0].uuid), "%s", uuid);
	p->located[p->next_located].at = md_mono();
	p->next_located = (p->next_located + 1) % LOCATED_FS;
	pthread_mutex_unlock(&p->lock);
}

/*
 * Did the kernel log locate an error of this filesystem a moment ago, or is
 * such a report waiting in the queue?  Then a fs-wide report needs no scan.
 */
static bool located_recently(struct md_pipeline *p, const char *uuid, double since)
{
	bool found = false;

	pthread_mutex_lock(&p->lock);
	for (unsigned int i = 0; i < LOCATED_FS && !found; i++)
		found = p->located[i].at >= since && strcmp(p->located[i].uuid, uuid) == 0;
	for (struct md_event *e = p->head; e && !found; e = e->next)
		found = e->kind == MD_EV_RANGE && strcmp(e->uuid, uuid) == 0;
	pthread_mutex_unlock(&p->lock);
	return found;
}

/* Wait up to KMSG_WAIT_SECS for the kernel log to place an error of @uuid. */
bool pipeline_wait_located(struct md_pipeline *p, const char *uuid, double reported)
{
	while (!located_recently(p, uuid, reported - 5)) {
		if (md_mono() >= reported + KMSG_WAIT_SECS)
			return false;
		usleep(50 * 1000);
	}
	return true;
}
