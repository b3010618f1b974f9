// SPDX-License-Identifier: GPL-2.0-or-later
/* A small streaming JSON writer on one line; strings go through
 * map_escape_json, output through the caller's sink (a FILE, a buffer). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map.h"

#define MAX_DEPTH ((int)(sizeof(((struct map_json *)0)->first) - 1))

void map_json_start(struct map_json *j, map_json_sink sink, void *ctx)
{
	memset(j, 0, sizeof(*j));
	j->sink = sink;
	j->ctx = ctx;
	j->first[0] = true;
}

static void put(struct map_json *j, const char *s)
{
	j->sink(j->ctx, s, strlen(s));
}

/* The comma before every member but the first, and the member's key. */
static void member(struct map_json *j, const char *key)
{
	if (!j->first[j->depth])
		put(j, ",");
	j->first[j->depth] = false;
	if (key) {
		char *k = map_escape_json(key);

		put(j, "\"");
		put(j, k ? k : "");
		put(j, "\":");
		free(k);
	}
}

static void open_(struct map_json *j, const char *key, const char *bracket)
{
	member(j, key);
	put(j, bracket);
	if (j->depth < MAX_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
}

static void close_(struct map_json *j, const char *bracket)
{
	put(j, bracket);
	if (j->depth > 0)
		j->depth--;
}

void map_json_obj(struct map_json *j, const char *key)
{
	open_(j, key, "{");
}

void map_json_arr(struct map_json *j, const char *key)
{
	open_(j, key, "[");
}

void map_json_end_obj(struct map_json *j)
{
	close_(j, "}");
}

void map_json_end_arr(struct map_json *j)
{
	close_(j, "]");
}

void map_json_str(struct map_json *j, const char *key, const char *value)
{
	char *v = map_escape_json(value ? value : "");

	member(j, key);
	put(j, "\"");
	put(j, v ? v : "");
	put(j, "\"");
	free(v);
}

static void number(struct map_json *j, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void number(struct map_json *j, const char *key, const char *fmt, ...)
{
	char buf[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	member(j, key);
	put(j, buf);
}

void map_json_int(struct map_json *j, const char *key, int64_t value)
{
	number(j, key, "%" PRId64, value);
}

void map_json_uint(struct map_json *j, const char *key, uint64_t value)
{
	number(j, key, "%" PRIu64, value);
}

void map_json_double(struct map_json *j, const char *key, double value)
{
	number(j, key, "%.3f", value);
}

void map_json_bool(struct map_json *j, const char *key, bool value)
{
	member(j, key);
	put(j, value ? "true" : "false");
}

void map_json_null(struct map_json *j, const char *key)
{
	member(j, key);
	put(j, "null");
}

void map_json_str_or_null(struct map_json *j, const char *key, const char *value)
{
	if (value && value[0])
		map_json_str(j, key, value);
	else
		map_json_null(j, key);
}

void map_json_output_version(struct map_json *j, const char *command)
{
	map_json_obj(j, "output_version");
	map_json_str(j, "command", command);
	map_json_int(j, "major", MAP_JSON_MAJOR);
	map_json_int(j, "minor", MAP_JSON_MINOR);
	map_json_end_obj(j);
}
