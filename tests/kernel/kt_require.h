/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * REQUIRE() for the kernel test helpers: the environment did not behave, so
 * stop the test without counting a check (a test's own CHECKs, from check.h,
 * are only about the kernel behaviour under test).
 */
#ifndef MAPPER_KT_REQUIRE_H
#define MAPPER_KT_REQUIRE_H

#include <stdio.h>
#include <stdlib.h>

/* The environment did not behave: stop the test. */
#define REQUIRE(cond, ...)                                                   \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "%s:%d: FAIL: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__);                        \
			fputs("\nstopping this test\n", stderr);             \
			exit(1);                                             \
		}                                                            \
	} while (0)

#endif
