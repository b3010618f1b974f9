// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Scans the pipeline asks the scheduler for, and when each filesystem's last
 * one was asked for (reports a user can cause must not each become a scan).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"
#include "log.h"
#include "pipeline_internal.h"

bool pipeline_event_scans(struct md_pipeline *p)
{
	bool yes;

	pthread_mutex_lock(&p->lock);
	yes = p->conf.event_scans;
	pthread_mutex_unlock(&p->lock);
	return yes;
}

/*
 * Was a scan of this kind requested for @uuid less than event_scan_interval
 * ago?  Otherwise note that one is requested now.  Reports a user can cause
 * (reading a damaged file again) must not turn into one scan each.
 */
static bool scan_too_soon(struct md_pipeline *p, const char *uuid, bool metadata, bool media,
			  double now)
{
	double interval = (double)p->conf.scan_interval_ms / 1000;
	struct scan_mark *m = NULL, *oldest = &p->marks[0];

	for (int i = 0; i < SCAN_MARKS && !m; i++) {
		struct scan_mark *c = &p->marks[i];

		if (strcmp(c->uuid, uuid) == 0)
			m = c;
		else if ((c->metadata > c->media ? c->metadata : c->media) <
			 (oldest->metadata > oldest->media ? oldest->metadata : oldest->media))
			oldest = c;
	}
	if (!m) {
		m = oldest;
		memset(m, 0, sizeof(*m));
		snprintf(m->uuid, sizeof(m->uuid), "%s", uuid);
	}
	if ((metadata && m->metadata && now - m->metadata < interval) ||
	    (media && m->media && now - m->media < interval))
		return true;
	if (metadata)
		m->metadata = now;
	if (media)
		m->media = now;
	return false;
}

/* Ask the scheduler for a scan; false (and counted) when within the interval. */
bool pipeline_request_scan(struct md_pipeline *p, const char *uuid, bool metadata, bool media,
			   const char *reason)
{
	uint64_t one = 1;

	pthread_mutex_lock(&p->lock);
	if (scan_too_soon(p, uuid, metadata, media, md_mono())) {
		p->stats.scans_limited++;
		pthread_mutex_unlock(&p->lock);
		log_info("%s: no %s scan requested for \"%s\": one was requested less than "
			 "event_scan_interval ago", uuid, media ? "media" : "metadata", reason);
		return false;
	}
	if (p->nreqs < MAX_REQUESTS) {
		struct md_scan_req *r = &p->reqs[p->nreqs++];

		snprintf(r->uuid, sizeof(r->uuid), "%s", uuid);
		r->metadata = metadata;
		r->media = media;
		snprintf(r->reason, sizeof(r->reason), "%s", reason);
		p->stats.scans_requested++;
	}
	pthread_mutex_unlock(&p->lock);
	if (write(p->notify_fd, &one, sizeof(one)) < 0) {
		/* the counter is only a wake-up */
	}
	return true;
}

size_t md_pipeline_take_requests(struct md_pipeline *p, struct md_scan_req *out, size_t max)
{
	uint64_t v;
	size_t n;

	if (read(p->notify_fd, &v, sizeof(v)) < 0) {
		/* nothing to clear */
	}
	pthread_mutex_lock(&p->lock);
	n = p->nreqs < max ? p->nreqs : max;
	memcpy(out, p->reqs, n * sizeof(*out));
	memmove(p->reqs, p->reqs + n, (p->nreqs - n) * sizeof(*out));
	p->nreqs -= n;
	pthread_mutex_unlock(&p->lock);
	return n;
}

int md_pipeline_notify_fd(struct md_pipeline *p)
{
	return p->notify_fd;
}
