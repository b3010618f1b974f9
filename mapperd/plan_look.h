/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What repair-plan needs from the filesystem itself, found off the event
 * loop: a fresh open of the mount (the mount table, libblkid's probe of the
 * device, libudev), checked to be still the watched filesystem, and the
 * probe of online repair (a scrub call that the kernel holds while the
 * filesystem is frozen).  On a suspended, failing or slow device either can
 * wait as long as the device does, so each look runs in a thread of its
 * own and the loop hears of its end through an eventfd.
 *
 * Whoever asked is answered within PLAN_WAIT_S: with what the look found,
 * or with -ETIMEDOUT while the look goes on without them.
 *
 * Bounded: one look per filesystem and PLAN_LOOKS in all, counting those
 * whose asker gave up but whose thread still waits in the kernel; no
 * thread piles up behind a device that does not answer.
 * The main thread only, but for the looks' own threads.
 */
#ifndef MAPPERD_PLAN_LOOK_H
#define MAPPERD_PLAN_LOOK_H

#include "map_act.h"

struct md_daemon;
struct md_plan_looks;

/* Seconds an asker waits: the look takes milliseconds on a device that
 * answers. */
#define PLAN_WAIT_S 5

/* A finished look, for the one who asked (@owner of md_plan_look_start). */
struct md_plan_answer {
	void *owner;
	const char *uuid, *mountpoint;
	int rc;				/* 0, -ETIMEDOUT, -MAP_EUNMOUNTED, -errno */
	const struct repair_caps *caps;	/* when rc is 0 */
};
typedef void (*md_plan_done_fn)(struct md_daemon *d, const struct md_plan_answer *a);

int md_plan_looks_start(struct md_daemon *d, md_plan_done_fn done, struct md_plan_looks **out);
/* Looks still waiting are left to their threads, which free them. */
void md_plan_looks_stop(struct md_daemon *d, struct md_plan_looks *ls);

/*
 * Start a look at filesystem @uuid mounted at @mountpoint on behalf of
 * @owner, who hears of it through the done function.  -EBUSY when a look
 * at that filesystem has not returned yet, -EAGAIN when too many have not.
 */
int md_plan_look_start(struct md_plan_looks *ls, const char *uuid, const char *mountpoint,
		       void *owner);
/* @owner no longer waits for its look (gone, or told to ask again): the
 * done function is not called for it. */
void md_plan_look_abandon(struct md_plan_looks *ls, void *owner);

#endif
