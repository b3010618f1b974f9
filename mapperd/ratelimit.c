// SPDX-License-Identifier: GPL-2.0-or-later
/* A token bucket for event sources. */
#include "ratelimit.h"

bool md_ratelimit_take(struct md_ratelimit *rl, double now, double rate, double burst)
{
	if (rl->last == 0) {
		rl->tokens = burst;
	} else if (now > rl->last) {
		rl->tokens += (now - rl->last) * rate;
		if (rl->tokens > burst)
			rl->tokens = burst;
	}
	/* a clock that went back (it cannot: monotonic) refills nothing */
	if (now > rl->last)
		rl->last = now;
	if (rl->tokens < 1)
		return false;
	rl->tokens -= 1;
	return true;
}
