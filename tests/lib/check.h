/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A very small test harness shared by the unit and vm tests.
 * CHECK() records a failure and goes on; REQUIRE() stops the test.
 * A test's main() ends with `return check_done();`.  CHECK_PART(test_x())
 * runs one part of a test: its failures carry the call's text, and
 * check_done() lists the parts that failed.
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
__attribute__((weak)) const char *check_part;		/* running now, or NULL */
#define CHECK_PARTS_MAX 32
__attribute__((weak)) const char *check_failed_parts[CHECK_PARTS_MAX];
__attribute__((weak)) int check_failed_nparts;

static inline void check_part_failed(void)
{
	if (!check_part)
		return;
	for (int i = 0; i < check_failed_nparts; i++)
		if (strcmp(check_failed_parts[i], check_part) == 0)
			return;
	if (check_failed_nparts < CHECK_PARTS_MAX)
		check_failed_parts[check_failed_nparts++] = check_part;
}

#define CHECK_PART(call)                                                     \
	do {                                                                 \
		check_part = #call;                                          \
		call;                                                        \
		check_part = NULL;                                           \
	} while (0)

#define CHECK_REPORT(cond, ...)                                              \
	do {                                                                 \
		fprintf(stderr, "%s:%d: FAIL: %s%s%s(%s) ", __FILE__, __LINE__,  \
			check_part ? "[" : "", check_part ? check_part : "",  \
			check_part ? "] " : "", cond);                        \
		fprintf(stderr, __VA_ARGS__);                                \
		fputc('\n', stderr);                                         \
	} while (0)

#define CHECK(cond, ...)                                                     \
	do {                                                                 \
		check_count++;                                               \
		if (!(cond)) {                                               \
			check_failures++;                                    \
			check_part_failed();                                 \
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
		for (int i = 0; i < check_failed_nparts; i++)
			fprintf(stderr, "  in %s\n", check_failed_parts[i]);
		return 1;
	}
	printf("all %d checks passed\n", check_count);
	return 0;
}

#endif
