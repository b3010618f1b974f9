/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A growing text buffer, and JSON written into one (control replies). */
#ifndef MAPPERD_TEXTBUF_H
#define MAPPERD_TEXTBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct md_buf {
	char *p;
	size_t len, cap;
	bool failed;			/* out of memory at some point */
};

void md_buf_printf(struct md_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void md_buf_free(struct md_buf *b);

/* JSON on one line: objects and arrays nest; keys are NULL inside arrays. */
struct md_json {
	struct md_buf *b;
	int depth;
	bool first[16];
};
void md_json_start(struct md_json *j, struct md_buf *b);
void md_json_obj(struct md_json *j, const char *key);
void md_json_arr(struct md_json *j, const char *key);
void md_json_end_obj(struct md_json *j);
void md_json_end_arr(struct md_json *j);
void md_json_str(struct md_json *j, const char *key, const char *v);
void md_json_int(struct md_json *j, const char *key, int64_t v);
void md_json_uint(struct md_json *j, const char *key, uint64_t v);
void md_json_bool(struct md_json *j, const char *key, bool v);
void md_json_double(struct md_json *j, const char *key, double v);

#endif
