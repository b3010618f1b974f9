// SPDX-License-Identifier: GPL-2.0-or-later
/* Growing text buffers, and libmap's JSON writer into one (control replies). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map_output.h"
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

static void to_buf(void *ctx, const char *text, size_t len)
{
	md_buf_printf(ctx, "%.*s", (int)len, text);
}

void md_json_start(struct map_json *j, struct md_buf *b)
{
	map_json_start(j, to_buf, b);
}
