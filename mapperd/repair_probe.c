// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * repair-plan's probe of online repair, off the event loop.
 *
 * The probe is a scrub call with the REPAIR flag, and the kernel takes
 * freeze protection (mnt_want_write_file) for every call with that flag:
 * on a frozen filesystem it waits, uninterruptibly, until the thaw.  Made
 * on the event loop, a repair-plan request during a backup's freeze would
 * stop every event source, the scheduler and the control socket for as
 * long as the freeze lasts.  So the probe runs in a thread of its own;
 * the loop waits for it a short while and otherwise answers that the
 * filesystem takes no repair request now.  At most one probe is left
 * waiting: while it is, no other is started (no thread piles up).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "repair_probe.h"

/* Far longer than the call takes on a filesystem that is not frozen. */
#define PROBE_WAIT_MS 2000

struct probe {
	int fd;				/* our own descriptor: the thread closes it */
	struct map_geometry geo;
	struct repair_caps caps;
	bool done, abandoned;
};

static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t probe_cond = PTHREAD_COND_INITIALIZER;
static bool probe_waiting;		/* a probe has not returned yet */

static void *probe_main(void *arg)
{
	struct probe *p = arg;
	bool abandoned;

	repair_caps_probe(p->fd, &p->geo, &p->caps);
	close(p->fd);
	pthread_mutex_lock(&probe_lock);
	p->done = true;
	probe_waiting = false;
	abandoned = p->abandoned;
	pthread_cond_broadcast(&probe_cond);
	pthread_mutex_unlock(&probe_lock);
	if (abandoned)
		free(p);
	return NULL;
}

static int start(struct probe *p)
{
	pthread_attr_t attr;
	pthread_t t;
	int rc;

	rc = pthread_attr_init(&attr);
	if (rc)
		return -rc;
	rc = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (rc == 0)
		rc = pthread_create(&t, &attr, probe_main, p);
	pthread_attr_destroy(&attr);
	return -rc;
}

int md_repair_probe(int fd, const struct map_geometry *geo, struct repair_caps *caps)
{
	struct timespec until;
	struct probe *p;
	int rc = 0;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->geo = *geo;
	p->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (p->fd < 0) {
		rc = -errno;
		free(p);
		return rc;
	}
	pthread_mutex_lock(&probe_lock);
	if (probe_waiting) {
		rc = -EBUSY;
	} else {
		rc = start(p);
		probe_waiting = rc == 0;
	}
	if (rc) {
		pthread_mutex_unlock(&probe_lock);
		close(p->fd);
		free(p);
		return rc;
	}
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += PROBE_WAIT_MS / 1000;
	until.tv_nsec += (PROBE_WAIT_MS % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	while (!p->done && rc == 0)
		rc = pthread_cond_timedwait(&probe_cond, &probe_lock, &until);
	if (p->done) {
		*caps = p->caps;
		pthread_mutex_unlock(&probe_lock);
		free(p);
		return 0;
	}
	p->abandoned = true;		/* the thread frees it when it returns */
	pthread_mutex_unlock(&probe_lock);
	return -EBUSY;
}
