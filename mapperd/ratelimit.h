/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's one token bucket (event sources, control clients): @burst
 * events at once, then @rate per second.  Pure (the caller passes the
 * monotonic time in seconds), so the host unit tests can drive it.
 */
#ifndef MAPPERD_RATELIMIT_H
#define MAPPERD_RATELIMIT_H

#include <stdbool.h>

struct md_ratelimit {
	double tokens;
	double last;			/* md_mono() of the last refill; 0: never used */
};

/* Take one token at @now; false when the bucket is empty (the event is over
 * the limit).  A new (zeroed) bucket starts full. */
bool md_ratelimit_take(struct md_ratelimit *rl, double now, double rate, double burst);
/* Would the bucket be full at @now (nothing worth remembering about it)? */
bool md_ratelimit_full(const struct md_ratelimit *rl, double now, double rate, double burst);

#endif
