// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Posting notifications, from any thread: the pipeline's worker (findings
 * of reports), the scan thread (findings of scans), the main thread (the
 * fanotify source).  One queue per process, like the log; the main thread's
 * runner (notify_run.c) takes from it when its eventfd says so.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "notify_run.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct md_notify_queue queue;
static int wake_fd = -1;		/* -1: no runner, posts are dropped */

/* The open batch of this thread (md_notify_batch_begin..end). */
static __thread struct md_notification *batch;

int md_notify_open_queue(void)
{
	int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);

	if (fd < 0)
		return -errno;
	pthread_mutex_lock(&lock);
	wake_fd = fd;
	pthread_mutex_unlock(&lock);
	return fd;
}

size_t md_notify_close_queue(void)
{
	size_t n;

	pthread_mutex_lock(&lock);
	if (wake_fd >= 0)
		close(wake_fd);
	wake_fd = -1;
	n = md_notify_queue_clear(&queue);
	pthread_mutex_unlock(&lock);
	return n;
}

struct md_notification *md_notify_take(void)
{
	struct md_notification *n;
	uint64_t v;

	pthread_mutex_lock(&lock);
	if (wake_fd >= 0 && read(wake_fd, &v, sizeof(v)) < 0) {
		/* nothing to clear */
	}
	n = md_notify_queue_pop(&queue);
	pthread_mutex_unlock(&lock);
	return n;
}

static void post(struct md_notification *n)
{
	uint64_t one = 1, dropped = 0;
	int rc = -ENOTCONN;

	pthread_mutex_lock(&lock);
	if (wake_fd >= 0) {
		rc = md_notify_queue_push(&queue, n);
		dropped = queue.dropped;
		if (rc >= 0 && write(wake_fd, &one, sizeof(one)) < 0) {
			/* the counter is only a wake-up */
		}
	} else {
		md_notification_free(n);
	}
	pthread_mutex_unlock(&lock);
	if (rc == -ENOSPC)
		log_warn("notify: %d notifications waiting, one dropped (%llu dropped so far)",
			 MD_NOTIFY_QUEUE_MAX, (unsigned long long)dropped);
}

void md_notify_post(enum md_notify_event ev, const char *uuid, const char *mountpoint,
		    int new_findings, int open_findings)
{
	struct md_notification *n = md_notification_new(ev, uuid, mountpoint, new_findings,
							open_findings, (int64_t)time(NULL));

	if (!n) {
		log_err("notify: out of memory for a %s notification", md_notify_event_name(ev));
		return;
	}
	post(n);
}

struct md_notification *md_notify_batch_new(const char *uuid, const char *mountpoint)
{
	return md_notification_new(MD_NOTIFY_DAMAGE, uuid, mountpoint, 0, -1, 0);
}

void md_notify_batch_add(struct md_notification *b, const struct map_finding *f, bool is_new)
{
	if (b && is_new)
		md_notification_add_finding(b, f);
}

void md_notify_batch_post(struct md_notification *b, const char *uuid, const char *mountpoint,
			  int nnew, int open_findings)
{
	if (!b)
		return;
	if (nnew <= 0) {
		md_notification_free(b);
		return;
	}
	snprintf(b->uuid, sizeof(b->uuid), "%s", uuid);
	snprintf(b->mountpoint, sizeof(b->mountpoint), "%s", mountpoint);
	b->new_findings = nnew;
	b->open_findings = open_findings;
	b->time = (int64_t)time(NULL);
	post(b);
}

void md_notify_batch_begin(const char *uuid, const char *mountpoint)
{
	md_notification_free(batch);
	batch = md_notify_batch_new(uuid, mountpoint);
}

void md_notify_note_finding(const struct map_finding *f, bool is_new)
{
	md_notify_batch_add(batch, f, is_new);
}

void md_notify_batch_end(const char *uuid, const char *mountpoint, int nnew, int open_findings)
{
	struct md_notification *n = batch;

	batch = NULL;
	md_notify_batch_post(n, uuid, mountpoint, nnew, open_findings);
}
