// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "check.h"
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

/* All that @cmd writes on its standard output, malloc'd, and its wait
 * status in @status; NULL when it cannot be started. */
static char *read_all(const char *cmd, int *status)
{
	FILE *p = popen(cmd, "r");
	size_t len = 0, cap = 65536;
	char *out = malloc(cap);

	REQUIRE(out, "out of memory");
	if (!p) {
		free(out);
		return NULL;
	}
	for (;;) {
		if (cap - len < 4096) {
			cap *= 2;
			out = realloc(out, cap);
			REQUIRE(out, "out of memory");
		}
		size_t n = fread(out + len, 1, cap - len - 1, p);
		if (n == 0)
			break;
		len += n;
	}
	out[len] = '\0';
	*status = pclose(p);
	return out;
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

char *tl_out_alloc(const char *fmt, ...)
{
	va_list ap;
	int status = -1;

	char *cmd, *out;

	va_start(ap, fmt);
	int n = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	REQUIRE(n >= 0, "out of memory");
	out = read_all(cmd, &status);
	REQUIRE(out, "cannot run %s", cmd);
	REQUIRE(status == 0, "command failed: %s", cmd);
	free(cmd);
	return out;
}

void tl_run(struct tl_run *r, const char *dir, const char *cmd)
{
	char out[4096], err[4096], *line;

	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(err, sizeof(err), "%s/err", dir);
	REQUIRE(asprintf(&line, "%s >%s 2>%s </dev/null", cmd, out, err) > 0, "out of memory");
	int st = system(line);
	free(line);
	r->rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
	r->out = tl_slurp_alloc(out, &r->outlen);
	r->err = tl_slurp_alloc(err, NULL);
}

void tl_run_free(struct tl_run *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof(*r));
}
