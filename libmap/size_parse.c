// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Sizes and rates as people write them, one reading for mapctl's options and
 * mapperd.conf alike: "4096", "64K", "1.5G", "2TiB".  Suffixes are binary
 * (K = 1024); a decimal fraction needs a suffix and is rounded down to whole
 * bytes.  Integer arithmetic only, so "1.5G" is exactly 1610612736 and no
 * value can wrap or lose precision on its way in.
 */
#include <errno.h>

#include "map_parse.h"

/*
 * Fraction digits read after the point: 10^18 still fits in 63 bits, and
 * more digits cannot change a result in whole bytes (2^40 * 10^-18 < 1).
 */
#define FRACTION_DIGITS_MAX 18

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The binary shift of a suffix letter, or -1. */
static int suffix_shift(char c)
{
	switch (c) {
	case 'k': case 'K': return 10;
	case 'm': case 'M': return 20;
	case 'g': case 'G': return 30;
	case 't': case 'T': return 40;
	default: return -1;
	}
}

/*
 * floor(frac / 10^digits * 2^shift), by long division one bit at a time:
 * the remainder stays below 2 * 10^18, so nothing overflows.
 */
static uint64_t fraction_bytes(uint64_t frac, uint64_t denom, int shift)
{
	uint64_t q = 0;

	for (int i = 0; i < shift; i++) {
		frac <<= 1;
		q <<= 1;
		if (frac >= denom) {
			frac -= denom;
			q |= 1;
		}
	}
	return q;
}

int map_parse_size(const char *s, uint64_t *bytes)
{
	uint64_t whole = 0, frac = 0, denom = 1, v;
	int digits = 0, shift = 0;
	const char *p = s;

	if (!s || !is_digit(*p))
		return -EINVAL;		/* also "", " 1", "-1", "+1", ".5" */
	for (; is_digit(*p); p++) {
		if (__builtin_mul_overflow(whole, 10, &whole) ||
		    __builtin_add_overflow(whole, (uint64_t)(*p - '0'), &whole))
			return -ERANGE;
	}
	if (*p == '.') {
		p++;
		if (!is_digit(*p))
			return -EINVAL;	/* "1." */
		for (; is_digit(*p); p++) {
			if (++digits > FRACTION_DIGITS_MAX)
				continue;
			frac = frac * 10 + (uint64_t)(*p - '0');
			denom *= 10;
		}
	}
	if (suffix_shift(*p) >= 0) {
		shift = suffix_shift(*p++);
		if (*p == 'i')
			p++;
		if (*p == 'B' || *p == 'b')
			p++;
	} else if (*p == 'B') {
		p++;
	}
	if (*p)
		return -EINVAL;		/* junk after the number */
	if (digits && !shift)
		return -EINVAL;		/* "1.5" bytes */
	if (shift && whole > (UINT64_MAX >> shift))
		return -ERANGE;
	v = whole << shift;
	if (__builtin_add_overflow(v, fraction_bytes(frac, denom, shift), &v))
		return -ERANGE;
	*bytes = v;
	return 0;
}
