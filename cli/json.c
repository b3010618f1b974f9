// SPDX-License-Identifier: GPL-2.0-or-later
/* A small streaming JSON writer; strings go through map_escape_json. */
#include <stdlib.h>

#include "mapctl.h"

void json_start(struct json *j, FILE *out)
{
	j->out = out;
	j->depth = 0;
	j->first[0] = true;
}

static void sep(struct json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->out);
	j->first[j->depth] = false;
	if (key) {
		char *k = map_escape_json(key);

		fprintf(j->out, "\"%s\":", k ? k : "");
		free(k);
	}
}

static void open_(struct json *j, const char *key, char c)
{
	sep(j, key);
	fputc(c, j->out);
	if (j->depth < 31)
		j->depth++;
	j->first[j->depth] = true;
}

void json_obj_open(struct json *j, const char *key)
{
	open_(j, key, '{');
}

void json_obj_close(struct json *j)
{
	j->depth--;
	fputc('}', j->out);
}

void json_arr_open(struct json *j, const char *key)
{
	open_(j, key, '[');
}

void json_arr_close(struct json *j)
{
	j->depth--;
	fputc(']', j->out);
}

void json_str(struct json *j, const char *key, const char *value)
{
	char *v = map_escape_json(value ? value : "");

	sep(j, key);
	fprintf(j->out, "\"%s\"", v ? v : "");
	free(v);
}

void json_int(struct json *j, const char *key, long long value)
{
	sep(j, key);
	fprintf(j->out, "%lld", value);
}

void json_uint(struct json *j, const char *key, unsigned long long value)
{
	sep(j, key);
	fprintf(j->out, "%llu", value);
}

void json_bool(struct json *j, const char *key, bool value)
{
	sep(j, key);
	fputs(value ? "true" : "false", j->out);
}

void json_double(struct json *j, const char *key, double value)
{
	sep(j, key);
	fprintf(j->out, "%.3f", value);
}

void json_null(struct json *j, const char *key)
{
	sep(j, key);
	fputs("null", j->out);
}

void json_end(struct json *j)
{
	fputc('\n', j->out);
	fflush(j->out);
}

void json_finding(struct json *j, const struct map_finding *f, const char *mountpoint)
{
	json_obj_open(j, NULL);
	json_int(j, "id", f->id);
	json_str(j, "state", map_state_name(f->state));
	json_str(j, "source", f->source);
	json_str(j, "kind", f->kind);
	if (f->has_range) {
		json_uint(j, "device_offset", f->physical);
		json_uint(j, "device_length", f->length);
	}
	if (f->ino) {
		json_uint(j, "inode", f->ino);
		json_uint(j, "generation", f->gen);
		json_uint(j, "mode", f->mode);
	}
	if (f->fork[0])
		json_str(j, "fork", f->fork);
	if (f->has_offset) {
		json_uint(j, "file_offset", f->offset);
		json_uint(j, "length", f->length);
	}
	if (f->agno >= 0)
		json_int(j, "ag", f->agno);
	if (f->scrub[0])
		json_str(j, "scrub", f->scrub);
	if (f->detail[0])
		json_str(j, "detail", f->detail);
	json_bool(j, "shared", f->flags & MAP_OWNER_F_SHARED);
	json_int(j, "first_seen", f->first_seen);
	json_int(j, "last_seen", f->last_seen);
	json_arr_open(j, "paths");
	for (size_t i = 0; i < f->npaths; i++) {
		char *p = join_path(mountpoint, f->paths[i]);

		json_str(j, NULL, p ? p : f->paths[i]);
		free(p);
	}
	json_arr_close(j);
	json_obj_close(j);
}
