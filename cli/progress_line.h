/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mapctl scan's progress line: fitted to the terminal, with an ETA. */
#ifndef MAPCTL_PROGRESS_LINE_H
#define MAPCTL_PROGRESS_LINE_H

#include <stddef.h>
#include <stdint.h>

/* The widest line drawn, whatever the terminal says (a buffer's size). */
#define PROGRESS_MAX_WIDTH 512

struct progress_view {
	const char *where;	/* the mount point, already escaped for a terminal */
	const char *phase;	/* "metadata" (objects) or "media" (bytes) */
	uint64_t done, total;
	uint64_t bad;		/* bad ranges so far */
	double secs;		/* seconds since this phase began in this run */
	uint64_t done_before;	/* done when it began (a resumed scan starts past 0) */
};

/*
 * Seconds left in this phase at the rate so far, or -1 while that rate
 * says little: in the first PROGRESS_ETA_MIN_SECS, or before anything
 * was done.
 */
double progress_eta(const struct progress_view *v);

/*
 * The line for a terminal @width columns wide, in @buf (at least
 * PROGRESS_MAX_WIDTH + 1 bytes): "MOUNT [####......]  42% media 1.2 GiB of
 * 3.0 GiB, 80.0 MiB/s, 0 bad, ETA 12m05s".  It takes at most @width - 1
 * columns, so it never wraps (a terminal may wrap on writing the last
 * column): the mount point is cut from the left first, then the bar goes,
 * then the least useful figures.  Returns its width in columns.
 */
int progress_line(char *buf, int width, const struct progress_view *v);

#endif
