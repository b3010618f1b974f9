// SPDX-License-Identifier: GPL-2.0-or-later
/* repair-plan's look at the filesystem, off the event loop (plan_look.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "daemon.h"
#include "log.h"
#include "plan_look.h"

/* Looks that may wait at once: far more than the administrators of one
 * host ask for, and each one that waits is a thread stuck in the kernel. */
#define PLAN_LOOKS 4

struct look {
	struct look *next;		/* the loop's list */
	void *owner;			/* the loop's: NULL once abandoned */
	double deadline;		/* md_mono(): its owner is answered by then */
	char uuid[40];
	char mountpoint[PATH_MAX];
	int wake_fd;			/* the thread's own duplicate */
	/* the thread's answer, read once done is set */
	int rc;
	struct repair_caps caps;
	bool done;			/* under looks_lock */
	bool orphan;			/* under looks_lock: nobody frees it but its thread */
};

struct md_plan_looks {
	struct md_watch wake;		/* eventfd: a look has ended */
	struct md_watch late;		/* timerfd: the next deadline */
	struct look *list;
	int n;
	md_plan_done_fn done;
};

/* One lock for every look: a thread that ends after md_plan_looks_stop()
 * must still find it. */
static pthread_mutex_t looks_lock = PTHREAD_MUTEX_INITIALIZER;

static void *look_main(void *arg)
{
	struct look *l = arg;
	struct map_fs *fs = NULL;
	int wake_fd = l->wake_fd;
	uint64_t one = 1;
	bool orphan;
	int rc;

	rc = map_fs_open(l->mountpoint, &fs);
	if (rc == 0 && strcmp(map_fs_info(fs)->uuid, l->uuid) != 0)
		rc = -MAP_EUNMOUNTED;	/* something else is mounted there now */
	if (rc == 0)
		repair_caps_probe(map_fs_fd(fs), &map_fs_info(fs)->geo, &l->caps);
	map_fs_close(fs);
	l->rc = rc;
	pthread_mutex_lock(&looks_lock);
	l->done = true;
	orphan = l->orphan;
	pthread_mutex_unlock(&looks_lock);
	/* From here on @l may be freed by the loop, unless orphaned. */
	if (write(wake_fd, &one, sizeof(one)) < 0) {
		/* the counter is full: the loop has wakeups pending anyway */
	}
	close(wake_fd);
	if (orphan)
		free(l);
	return NULL;
}

/* The timer at the earliest deadline of a look someone waits for. */
static void arm_late(struct md_plan_looks *ls)
{
	static const struct itimerspec off;
	double next = 0;

	for (struct look *l = ls->list; l; l = l->next)
		if (l->owner && (next == 0 || l->deadline < next))
			next = l->deadline;
	if (next)
		md_timer_in(ls->late.fd, next - md_mono());
	else
		timerfd_settime(ls->late.fd, 0, &off, NULL);
}

static int start_thread(struct look *l)
{
	pthread_attr_t attr;
	pthread_t t;
	int rc;

	rc = pthread_attr_init(&attr);
	if (rc)
		return -rc;
	rc = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (rc == 0)
		rc = pthread_create(&t, &attr, look_main, l);
	pthread_attr_destroy(&attr);
	return -rc;
}

int md_plan_look_start(struct md_plan_looks *ls, const char *uuid, const char *mountpoint,
		       void *owner)
{
	struct look *l;
	int rc;

	for (l = ls->list; l; l = l->next)
		if (strcmp(l->uuid, uuid) == 0)
			return -EBUSY;
	if (ls->n >= PLAN_LOOKS)
		return -EAGAIN;
	if (strlen(mountpoint) >= sizeof(l->mountpoint))
		return -ENAMETOOLONG;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->owner = owner;
	l->deadline = md_mono() + PLAN_WAIT_S;
	snprintf(l->uuid, sizeof(l->uuid), "%s", uuid);
	strcpy(l->mountpoint, mountpoint);
	l->wake_fd = fcntl(ls->wake.fd, F_DUPFD_CLOEXEC, 0);
	if (l->wake_fd < 0) {
		rc = -errno;
		free(l);
		return rc;
	}
	rc = start_thread(l);
	if (rc) {
		close(l->wake_fd);
		free(l);
		return rc;
	}
	l->next = ls->list;
	ls->list = l;
	ls->n++;
	arm_late(ls);
	return 0;
}

void md_plan_look_abandon(struct md_plan_looks *ls, void *owner)
{
	for (struct look *l = ls->list; l; l = l->next)
		if (l->owner == owner)
			l->owner = NULL;
}

/* Owners whose look has not ended by its deadline are answered -ETIMEDOUT;
 * the look goes on without them. */
static void late_ready(struct md_daemon *d, struct md_watch *w, uint32_t events)
{
	struct md_plan_looks *ls = w->arg;
	double now = md_mono();
	uint64_t n;

	(void)events;
	if (read(w->fd, &n, sizeof(n)) < 0) {
		/* EAGAIN: re-armed since */
	}
	for (struct look *l = ls->list; l; l = l->next) {
		if (!l->owner || now < l->deadline)
			continue;
		struct md_plan_answer a = {
			.owner = l->owner, .uuid = l->uuid, .mountpoint = l->mountpoint,
			.rc = -ETIMEDOUT,
		};

		l->owner = NULL;
		ls->done(d, &a);
	}
	arm_late(ls);
}

/* Looks that have ended: told to their owners, then freed. */
static void wake_ready(struct md_daemon *d, struct md_watch *w, uint32_t events)
{
	struct md_plan_looks *ls = w->arg;
	struct look **pp = &ls->list;
	uint64_t n;

	(void)events;
	if (read(w->fd, &n, sizeof(n)) < 0) {
		/* EAGAIN: a look already handled woke us */
	}
	while (*pp) {
		struct look *l = *pp;
		bool done;

		pthread_mutex_lock(&looks_lock);
		done = l->done;
		pthread_mutex_unlock(&looks_lock);
		if (!done) {
			pp = &l->next;
			continue;
		}
		*pp = l->next;
		ls->n--;
		if (l->owner) {
			struct md_plan_answer a = {
				.owner = l->owner, .uuid = l->uuid, .mountpoint = l->mountpoint,
				.rc = l->rc, .caps = &l->caps,
			};

			ls->done(d, &a);
		} else {
			log_info("%s %s: a repair plan's look at the filesystem returned after its "
				 "asker was told to ask again", l->uuid, l->mountpoint);
		}
		free(l);
	}
}

int md_plan_looks_start(struct md_daemon *d, md_plan_done_fn done, struct md_plan_looks **out)
{
	struct md_plan_looks *ls = calloc(1, sizeof(*ls));
	int rc;

	*out = NULL;
	if (!ls)
		return -ENOMEM;
	ls->done = done;
	ls->wake = (struct md_watch){ .ready = wake_ready, .arg = ls };
	ls->late = (struct md_watch){ .ready = late_ready, .arg = ls };
	ls->wake.fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ls->late.fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	rc = ls->wake.fd < 0 || ls->late.fd < 0 ? -errno : 0;
	if (rc == 0)
		rc = md_watch_add(d, &ls->wake, EPOLLIN);
	if (rc == 0) {
		rc = md_watch_add(d, &ls->late, EPOLLIN);
		if (rc)
			md_watch_del(d, &ls->wake);
	}
	if (rc) {
		if (ls->wake.fd >= 0)
			close(ls->wake.fd);
		if (ls->late.fd >= 0)
			close(ls->late.fd);
		free(ls);
		return rc;
	}
	*out = ls;
	return 0;
}

void md_plan_looks_stop(struct md_daemon *d, struct md_plan_looks *ls)
{
	if (!ls)
		return;
	pthread_mutex_lock(&looks_lock);
	while (ls->list) {
		struct look *l = ls->list;

		ls->list = l->next;
		if (l->done)
			free(l);
		else
			l->orphan = true;
	}
	pthread_mutex_unlock(&looks_lock);
	md_watch_del(d, &ls->wake);
	close(ls->wake.fd);
	md_watch_del(d, &ls->late);
	close(ls->late.fd);
	free(ls);
}
