// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "testlib.h"

static int tl_vsh(const char *fmt, va_list ap)
{
	char *cmd;

	if (vasprintf(&cmd, fmt, ap) < 0)
		return -1;
	printf("+ %s\n", cmd);
	fflush(stdout);
	int st = system(cmd);
	free(cmd);
	if (st == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

int tl_sh(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int rc = tl_vsh(fmt, ap);
	va_end(ap);
	return rc;
}

void tl_must(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int rc = tl_vsh(fmt, ap);
	va_end(ap);
	if (rc != 0) {
		fprintf(stderr, "FAIL: the command above exited %d; stopping this test\n", rc);
		exit(1);
	}
}

const char *tl_out(const char *fmt, ...)
{
	static char buf[65536];
	char *cmd;
	va_list ap;

	va_start(ap, fmt);
	int n = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	buf[0] = '\0';
	if (n < 0)
		return buf;
	FILE *p = popen(cmd, "r");
	free(cmd);
	if (!p)
		return buf;
	size_t len = fread(buf, 1, sizeof(buf) - 1, p);
	buf[len] = '\0';
	pclose(p);
	while (len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	return buf;
}
