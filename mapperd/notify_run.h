/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Between notify.c (posts, any thread) and notify_run.c (the main thread's runner). */
#ifndef MAPPERD_NOTIFY_RUN_H
#define MAPPERD_NOTIFY_RUN_H

#include <stddef.h>

#include "notify_queue.h"

/* Accept posts from now on; an eventfd readable while some wait (or -errno). */
int md_notify_open_queue(void);
/* Refuse posts from now on; frees what waits and says how many. */
size_t md_notify_close_queue(void);
/* The next waiting notification, or NULL. */
struct md_notification *md_notify_take(void);

#endif
