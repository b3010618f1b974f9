// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Durations as people write them, one reading for mapperd.conf's intervals
 * and mapctl's options alike: "90s", "15m", "12h", "8d", "4w", "500ms", a
 * bare number of seconds, and "off" or "never" for 0.  One unit, no
 * fraction, no sign, no blanks; a value that does not fit in 64 bits of
 * milliseconds is refused rather than wrapped.
 */
#include <inttypes.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "map_parse.h"

#define MS_PER_S 1000LL

/* Longest unit first: map_duration_str() takes the first that divides. */
static const struct {
	const char *unit;
	int64_t ms;
} units[] = {
	{ "w", 7 * 86400 * MS_PER_S },
	{ "d", 86400 * MS_PER_S },
	{ "h", 3600 * MS_PER_S },
	{ "m", 60 * MS_PER_S },
	{ "s", MS_PER_S },
	{ "", MS_PER_S },
	{ "ms", 1 },
};

int map_parse_duration(const char *s, int64_t *ms)
{
	uint64_t v = 0;
	const char *p = s;

	if (!s)
		return -EINVAL;
	if (!strcmp(s, "off") || !strcmp(s, "never")) {
		*ms = 0;
		return 0;
	}
	if (*p < '0' || *p > '9')
		return -EINVAL;		/* also "", " 1", "-1s", "+1s" */
	for (; *p >= '0' && *p <= '9'; p++) {
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(*p - '0'), &v))
			return -EINVAL;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(p, units[i].unit) == 0) {
			if (v > (uint64_t)(INT64_MAX / units[i].ms))
				return -EINVAL;
			*ms = (int64_t)v * units[i].ms;
			return 0;
		}
	}
	return -EINVAL;
}

const char *map_duration_str(int64_t ms, char *buf, size_t len)
{
	if (ms == 0) {
		snprintf(buf, len, "off");
		return buf;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (units[i].unit[0] && units[i].ms > 1 && ms % units[i].ms == 0) {
			snprintf(buf, len, "%" PRId64 "%s", ms / units[i].ms, units[i].unit);
			return buf;
		}
	}
	snprintf(buf, len, "%" PRId64 "ms", ms);
	return buf;
}
