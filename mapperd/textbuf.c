// SPDX-License-Identifier: GPL-2.0-or-later
/* Growing text buffers and one-line JSON for the control socket's replies. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map.h"
#include "textbuf.h"

void md_buf_printf(struct md_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->failed)
		return;
	for (;;) {
		size_t room = b->cap - b->len;

		va_start(ap, fmt);
		n = vsnprintf(b->p ? b->p + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->failed = true;
			return;
		}
		if ((size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		size_t cap = (b->cap ? b->cap : 256) * 2;
		while (cap < b->len + (size_t)n + 1)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p) {
			b->failed = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
}

void md_buf_free(struct md_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

void md_json_start(struct md_json *j, struct md_buf *b)
{
	memset(j, 0, sizeof(*j));
	j->b = b;
	j->first[0] = true;
}

static void key(struct md_json *j, const char *k)
{
	if (!j->first[j->depth])
		md_buf_printf(j->b, ",");
	j->first[j->depth] = false;
	if (k)
		md_buf_printf(j->b, "\"%s\":", k);
}

static void open_(struct md_json *j, const char *k, char c)
{
	key(j, k);
	md_buf_printf(j->b, "%c", c);
	if (j->depth < 15)
		j->depth++;
	j->first[j->depth] = true;
}

void md_json_obj(struct md_json *j, const char *k)
{
	open_(j, k, '{');
}

void md_json_arr(struct md_json *j, const char *k)
{
	open_(j, k, '[');
}

void md_json_end_obj(struct md_json *j)
{
	md_buf_printf(j->b, "}");
	if (j->depth > 0)
		j->depth--;
}

void md_json_end_arr(struct md_json *j)
{
	md_buf_printf(j->b, "]");
	if (j->depth > 0)
		j->depth--;
}

void md_json_str(struct md_json *j, const char *k, const char *v)
{
	char *e = map_escape_json(v ? v : "");

	key(j, k);
	md_buf_printf(j->b, "\"%s\"", e ? e : "");
	free(e);
}

void md_json_int(struct md_json *j, const char *k, int64_t v)
{
	key(j, k);
	md_buf_printf(j->b, "%" PRId64, v);
}

void md_json_uint(struct md_json *j, const char *k, uint64_t v)
{
	key(j, k);
	md_buf_printf(j->b, "%" PRIu64, v);
}

void md_json_bool(struct md_json *j, const char *k, bool v)
{
	key(j, k);
	md_buf_printf(j->b, "%s", v ? "true" : "false");
}

void md_json_double(struct md_json *j, const char *k, double v)
{
	key(j, k);
	md_buf_printf(j->b, "%.3f", v);
}
