/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mapperd's shared state.  Everything here belongs to the main thread (the
 * epoll loop); the pipeline and scan threads get copies of what they need.
 */
#ifndef MAPPERD_DAEMON_H
#define MAPPERD_DAEMON_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "blockdev.h"
#include "config.h"
#include "map.h"

struct md_daemon;

/* A descriptor in the epoll loop and what to call when it is ready. */
struct md_watch {
	int fd;
	void (*ready)(struct md_daemon *d, struct md_watch *w, uint32_t events);
	void *arg;
};
int md_watch_add(struct md_daemon *d, struct md_watch *w, uint32_t events);
void md_watch_del(struct md_daemon *d, struct md_watch *w);

/* A mounted XFS filesystem the daemon watches, keyed by its UUID. */
struct md_fs {
	struct md_fs *next;
	char uuid[40];
	char mountpoint[PATH_MAX];
	char device[PATH_MAX];
	dev_t dev;
	int mnt_id;			/* the mount it was opened through */
	struct md_blockdev bdev;
	uint32_t blocksize;
	uint64_t size;			/* bytes of the data device the fs uses */
	int64_t fs_id;			/* in the store */
	struct md_watch fan;		/* fanotify group, fd -1 when none */
	struct md_watch hmon;		/* XFS health monitor, fd -1 when none */
	char hmon_state[64];		/* "on", or why not (status) */
	char autofsck[16];		/* the property when first seen, "" for none */
	uint64_t hmon_skipped;		/* its records we could not trust */
	unsigned char hmon_carry[64];	/* a record a read ended inside */
	size_t hmon_carry_len;
	bool shut_down;			/* the kernel reported a shutdown */
	bool root_mismatch;		/* its mount point showed another fs */
	bool seen;			/* discovery: still in the mount table */
	/* schedule (unix ms, 0 = never) */
	int64_t next_metadata, next_media;
};

struct md_pipeline;
struct md_sched;
struct md_control;
struct md_kmsg;
struct libmnt_monitor;

struct md_daemon {
	struct md_config cfg;
	char db_path[PATH_MAX];
	struct map_store *st;		/* the main thread's connection */
	int epfd;
	struct md_watch sig;
	struct md_fs *fs_list;
	struct libmnt_monitor *monitor;
	struct md_watch mon;
	struct md_kmsg *kmsg;
	struct md_pipeline *pipe;
	struct md_sched *sched;
	struct md_control *ctl;
	int64_t started;		/* unix ms */
	dev_t db_dev;			/* where the database lives (dbguard.c) */
	int64_t db_retry;		/* unix ms: next try while st is closed */
	bool stopping;
};

/* Wall clock and monotonic time in milliseconds. */
int64_t md_now_ms(void);
double md_mono(void);
/* Timerfd @fd armed once, @in seconds from now (now itself when @in <= 0). */
void md_timer_in(int fd, double in);

/* Filesystems by UUID, mount point, device name (kernel name) or device number. */
struct md_fs *md_fs_by_uuid(struct md_daemon *d, const char *uuid);
struct md_fs *md_fs_by_dev(struct md_daemon *d, dev_t dev);
struct md_fs *md_fs_by_devname(struct md_daemon *d, const char *name);
/* The filesystem holding @path (stat), or NULL. */
struct md_fs *md_fs_by_path(struct md_daemon *d, const char *path);

/* Re-read the configuration (SIGHUP); keeps the old one on errors. */
void md_reload(struct md_daemon *d);

#endif
