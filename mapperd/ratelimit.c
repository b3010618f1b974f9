// SPDX-License-Identifier: GPL-2.0-or-later
/* The daemon's token bucket. */
#include "ratelimit.h"

/* The tokens at @now: a new bucket is full; a clock that went back (it
 * cannot: monotonic) refills nothing. */
static double refilled(const struct md_ratelimit *rl, double now, double rate, double burst)
{
	double t = rl->tokens;

	if (rl->last == 0)
		return burst;
	if (now > rl->last)
		t += (now - rl->last) * rate;
	return t > burst ? burst : t;
}

bool md_ratelimit_take(struct md_ratelimit *rl, double now, double rate, double burst)
{
	rl->tokens = refilled(rl, now, rate, burst);
	if (now > rl->last)
		rl->last = now;
	if (rl->tokens < 1)
		return false;
	rl->tokens -= 1;
	return true;
}

bool md_ratelimit_full(const struct md_ratelimit *rl, double now, double rate, double burst)
{
	return refilled(rl, now, rate, burst) >= burst;
}
