// SPDX-License-Identifier: GPL-2.0-or-later
/* Helpers shared by mapperd's parts: clocks, the epoll set, filesystem lookup. */
#include <errno.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>

#include "daemon.h"

int64_t md_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

double md_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void md_timer_in(int fd, double in)
{
	struct itimerspec its = { 0 };

	if (in > 0) {
		its.it_value.tv_sec = (time_t)in;
		its.it_value.tv_nsec = (long)((in - (double)its.it_value.tv_sec) * 1e9);
		if (its.it_value.tv_nsec >= 1000000000L) {
			its.it_value.tv_sec++;
			its.it_value.tv_nsec -= 1000000000L;
		}
	}
	/* a zero it_value would disarm the timer */
	if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
		its.it_value.tv_nsec = 1;
	timerfd_settime(fd, 0, &its, NULL);
}

int md_watch_add(struct md_daemon *d, struct md_watch *w, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = w };

	return epoll_ctl(d->epfd, EPOLL_CTL_ADD, w->fd, &ev) == 0 ? 0 : -errno;
}

void md_watch_del(struct md_daemon *d, struct md_watch *w)
{
	epoll_ctl(d->epfd, EPOLL_CTL_DEL, w->fd, NULL);
}

struct md_fs *md_fs_by_uuid(struct md_daemon *d, const char *uuid)
{
	for (struct md_fs *fs = d->fs_list; fs; fs = fs->next)
		if (strcasecmp(fs->uuid, uuid) == 0)
			return fs;
	return NULL;
}

struct md_fs *md_fs_by_dev(struct md_daemon *d, dev_t dev)
{
	for (struct md_fs *fs = d->fs_list; fs; fs = fs->next)
		if (fs->dev == dev)
			return fs;
	return NULL;
}

struct md_fs *md_fs_by_devname(struct md_daemon *d, const char *name)
{
	for (struct md_fs *fs = d->fs_list; fs; fs = fs->next)
		if (strcmp(fs->bdev.name, name) == 0)
			return fs;
	return NULL;
}

/*
 * The watched filesystem whose mount point is the longest whole-component
 * prefix of @path.  Purely by name: a control client's path is never
 * looked up here, since a stat() in the event loop on a hung network or
 * FUSE mount would stall the daemon.  mapctl sends paths through
 * realpath(), so they are canonical already.
 */
struct md_fs *md_fs_by_path(struct md_daemon *d, const char *path)
{
	struct md_fs *best = NULL;
	size_t best_len = 0;

	if (path[0] != '/')
		return NULL;
	for (struct md_fs *fs = d->fs_list; fs; fs = fs->next) {
		size_t n = strlen(fs->mountpoint);

		while (n > 1 && fs->mountpoint[n - 1] == '/')
			n--;
		if (strncmp(path, fs->mountpoint, n) != 0)
			continue;
		if (n > 1 && path[n] != '\0' && path[n] != '/')
			continue;	/* /srv/data is not under /srv/d */
		if (!best || n > best_len) {
			best = fs;
			best_len = n;
		}
	}
	return best;
}
