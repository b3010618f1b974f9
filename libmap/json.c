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

void map_json_uint_or_null(struct map_json *j, const char *key, bool has, uint64_t value)
{
	if (has)
		map_json_uint(j, key, value);
	else
		map_json_null(j, key);
}

void map_json_time(struct map_json *j, const char *key, int64_t t)
{
	if (t > 0)
		map_json_int(j, key, t);
	else
		map_json_null(j, key);
}

void map_json_finding_members(struct map_json *j, const struct map_finding *f, const char *uuid,
			      const char *mountpoint)
{
	bool recorded = f->id > 0;	/* mapctl locate's owners are not */
	map_json_uint_or_null(j, "finding_id", recorded, (uint64_t)f->id);
	map_json_str_or_null(j, "fs_uuid", uuid);
	map_json_str_or_null(j, "mountpoint", mountpoint);
	map_json_str_or_null(j, "state", recorded ? map_state_name(f->state) : NULL);
	map_json_str_or_null(j, "source", map_finding_source_name(f->source));
	map_json_str(j, "kind", f->kind);
	map_json_uint_or_null(j, "device_offset", f->has_range, f->physical);
	map_json_uint_or_null(j, "device_length", f->has_range, f->length);
	map_json_uint_or_null(j, "inode", f->ino, f->ino);
	map_json_uint_or_null(j, "generation", f->ino, f->gen);
	map_json_uint_or_null(j, "mode", f->ino && f->mode, f->mode);
	map_json_str_or_null(j, "fork", f->fork);
	map_json_uint_or_null(j, "file_offset", f->has_offset, f->offset);
	map_json_uint_or_null(j, "file_length", f->has_offset, f->length);
	map_json_uint_or_null(j, "ag", f->agno >= 0, (uint64_t)f->agno);
	map_json_str_or_null(j, "scrub", f->scrub);
	map_json_str_or_null(j, "detail", f->detail);
	map_json_bool(j, "shared", f->flags & MAP_OWNER_F_SHARED);
	map_json_time(j, "first_seen_time", f->first_seen);
	map_json_time(j, "last_seen_time", f->last_seen);
	map_json_arr(j, "paths");
	for (size_t i = 0; i < f->npaths; i++) {
		/* stored relative to the mount root; outputs give whole paths */
		char *p = mountpoint ? map_join_path(mountpoint, f->paths[i]) : NULL;

		map_json_str(j, NULL, p ? p : f->paths[i]);
		free(p);
	}
	map_json_end_arr(j);
}

void map_json_output_version(struct map_json *j, const char *command)
{
	map_json_obj(j, "output_version");
	map_json_str(j, "command", command);
	map_json_int(j, "major", MAP_JSON_MAJOR);
	map_json_int(j, "minor", MAP_JSON_MINOR);
	map_json_end_obj(j);
}
