// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * map_parse_size(): the one reading of sizes and rates for mapctl's options
 * and mapperd.conf (issue 14).  Fractions are exact, suffixes binary, and
 * nothing wraps: overflow, signs, blanks and junk are refused.
 */
#include <errno.h>
#include <stdint.h>

#include "check.h"
#include "map_parse.h"

/* 0 and the value, or the negative errno (bytes then left alone). */
static long long parse(const char *s)
{
	uint64_t v = 12345;
	int rc = map_parse_size(s, &v);

	if (rc)
		return v == 12345 ? rc : -1000;	/* a failure must not write */
	return (long long)v;
}

static void check_u64(const char *s, uint64_t want)
{
	uint64_t v = 0;

	CHECK(map_parse_size(s, &v) == 0 && v == want, "'%s' = %llu, expected %llu", s,
	      (unsigned long long)v, (unsigned long long)want);
}

int main(void)
{
	/* plain numbers and suffixes, any case, with i and B */
	CHECK_INT(parse("0"), 0);
	CHECK_INT(parse("4096"), 4096);
	CHECK_INT(parse("4096B"), 4096);
	CHECK_INT(parse("4k"), 4096);
	CHECK_INT(parse("4K"), 4096);
	CHECK_INT(parse("4KiB"), 4096);
	CHECK_INT(parse("4KB"), 4096);
	CHECK_INT(parse("4kb"), 4096);
	CHECK_INT(parse("100M"), 100LL << 20);
	CHECK_INT(parse("2G"), 2LL << 30);
	CHECK_INT(parse("3T"), 3LL << 40);
	CHECK_INT(parse("0G"), 0);
	CHECK_INT(parse("007"), 7);

	/* fractions: exact, need a suffix, rounded down to whole bytes */
	CHECK_INT(parse("1.5G"), 3LL << 29);
	CHECK_INT(parse("0.5K"), 512);
	CHECK_INT(parse("0.1K"), 102);			/* 102.4 */
	CHECK_INT(parse("2.25M"), 9LL << 18);
	CHECK_INT(parse("0.000001K"), 0);		/* 0.001024 bytes */
	CHECK_INT(parse("1.999999999999999999999999T"), (2LL << 40) - 1);
	CHECK_INT(parse("1.5"), -EINVAL);		/* 1.5 bytes */
	CHECK_INT(parse("1.5B"), -EINVAL);
	CHECK_INT(parse("1."), -EINVAL);
	CHECK_INT(parse(".5G"), -EINVAL);
	CHECK_INT(parse("1.5.5G"), -EINVAL);

	/* the largest values, and one past them */
	check_u64("18446744073709551615", UINT64_MAX);
	CHECK_INT(parse("18446744073709551616"), -ERANGE);
	CHECK_INT(parse("99999999999999999999999999"), -ERANGE);
	check_u64("16777215T", 16777215ULL << 40);
	check_u64("16777215.999999999999999999T", UINT64_MAX);
	check_u64("16777215.999999999999T", UINT64_MAX - 1);	/* 2^40 * 1e-12 > 1 */
	CHECK_INT(parse("16777216T"), -ERANGE);		/* 2^64 */
	check_u64("17179869183G", 17179869183ULL << 30);
	CHECK_INT(parse("17179869184G"), -ERANGE);

	/* signs, blanks, exponents, junk */
	CHECK_INT(parse(""), -EINVAL);
	CHECK_INT(parse("-1"), -EINVAL);
	CHECK_INT(parse("-0"), -EINVAL);
	CHECK_INT(parse("+1"), -EINVAL);
	CHECK_INT(parse(" 1"), -EINVAL);
	CHECK_INT(parse("1 "), -EINVAL);
	CHECK_INT(parse("1 M"), -EINVAL);
	CHECK_INT(parse("1e3"), -EINVAL);
	CHECK_INT(parse("0x10"), -EINVAL);
	CHECK_INT(parse("inf"), -EINVAL);
	CHECK_INT(parse("nan"), -EINVAL);
	CHECK_INT(parse("12X"), -EINVAL);
	CHECK_INT(parse("1P"), -EINVAL);
	CHECK_INT(parse("1MM"), -EINVAL);
	CHECK_INT(parse("1Mi"), 1LL << 20);
	CHECK_INT(parse("1MiBs"), -EINVAL);
	CHECK_INT(parse("1iB"), -EINVAL);
	CHECK_INT(parse("M"), -EINVAL);
	CHECK_INT(map_parse_size(NULL, &(uint64_t){ 0 }), -EINVAL);
	return check_done();
}
