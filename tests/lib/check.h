/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A very small test harness shared by the unit and vm tests.
 * CHECK() records a failure and goes on; REQUIRE() stops the test.
 * A test's main() ends with `return check_done();`.
 */
#ifndef MAPPER_CHECK_H
#define MAPPER_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One count per program, not per file: helpers compiled apart from the
 * test's main() (tests/kernel/fserror_listen.c) CHECK too.  Weak, so that
 * each file that includes this header may define them. */
__attribute__((weak)) int check_failures;
__attribute__((weak)) int check_count;

#define CHECK_REPORT(cond, ...)                                              \
	do {                                                                 \
		fprintf(stderr, "%s:%d: FAIL: (%s) ", __FILE__, __LINE__, cond); \
		fprintf(stderr, __VA_ARGS__);                                \
		fputc('\n', stderr);                                         \
	} while (0)

#define CHECK(cond, ...)                                                     \
	do {                                                                 \
		check_count++;                                               \
		if (!(cond)) {                                               \
			check_failures++;                                    \
			CHECK_REPORT(#cond, __VA_ARGS__);            \
		}                                                            \
	} while (0)

#define REQUIRE(cond, ...)                                                   \
	do {                                                                 \
		check_count++;                                               \
		if (!(cond)) {                                               \
			CHECK_REPORT(#cond, __VA_ARGS__);            \
			fprintf(stderr, "stopping this test\n");             \
			exit(1);                                             \
		}                                                            \
	} while (0)

#define CHECK_INT(got, want)                                                 \
	do {                                                                 \
		long long g_ = (long long)(got), w_ = (long long)(want);     \
		CHECK(g_ == w_, "%s = %lld, expected %lld", #got, g_, w_);   \
	} while (0)

#define CHECK_STR(got, want)                                                 \
	do {                                                                 \
		const char *g_ = (got), *w_ = (want);                        \
		CHECK(g_ && w_ && strcmp(g_, w_) == 0, "%s = \"%s\", expected \"%s\"", \
		      #got, g_ ? g_ : "(null)", w_ ? w_ : "(null)");         \
	} while (0)

static inline int check_done(void)
{
	if (check_count == 0) {
		fprintf(stderr, "FAIL: no checks ran\n");
		return 1;
	}
	if (check_failures) {
		fprintf(stderr, "%d of %d checks failed\n", check_failures, check_count);
		return 1;
	}
	printf("all %d checks passed\n", check_count);
	return 0;
}

#endif
