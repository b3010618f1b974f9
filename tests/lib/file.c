// SPDX-License-Identifier: GPL-2.0-or-later
/* Small files read whole: a test's own output files, sysfs and procfs knobs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "testlib.h"

ssize_t tl_slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, len - 1, f) : 0;

	buf[n] = '\0';
	if (!f)
		return -1;
	fclose(f);
	return (ssize_t)n;
}

char *tl_slurp_alloc(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t n = 0;

	REQUIRE(f, "%s: %s", path, strerror(errno));
	REQUIRE(fseek(f, 0, SEEK_END) == 0, "seek");
	long size = ftell(f);
	REQUIRE(size >= 0, "ftell");
	rewind(f);
	buf = malloc((size_t)size + 1);
	REQUIRE(buf, "malloc");
	n = fread(buf, 1, (size_t)size, f);
	buf[n] = '\0';
	fclose(f);
	if (len)
		*len = n;
	return buf;
}
