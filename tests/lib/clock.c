// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <time.h>

#include "testlib.h"

double tl_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void tl_sleep(double seconds)
{
	struct timespec ts = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}
