/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A growing text buffer, and JSON written into one (control replies). */
#ifndef MAPPERD_TEXTBUF_H
#define MAPPERD_TEXTBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "map.h"

struct md_buf {
	char *p;
	size_t len, cap;
	bool failed;			/* out of memory at some point */
};

void md_buf_printf(struct md_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void md_buf_free(struct md_buf *b);

/* libmap's JSON writer (map_json_*) appending to @b. */
void md_json_start(struct map_json *j, struct md_buf *b);

#endif
