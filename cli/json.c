// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapctl's JSON: libmap's writer on a FILE, every output one object that
 * begins with its output version, and findings as objects.  The schema of
 * each command is mapper-json(7); tests/unit/json_schema.sh holds the two
 * to each other, so a field added here without its line there fails.
 */
#include <stdio.h>
#include <stdlib.h>

#include "mapctl.h"

static void to_file(void *ctx, const char *text, size_t len)
{
	fwrite(text, 1, len, ctx);
}

void json_open(struct map_json *j, FILE *out, const char *command)
{
	map_json_start(j, to_file, out);
	map_json_obj(j, NULL);
	map_json_output_version(j, command);
}

void json_close(struct map_json *j)
{
	map_json_end_obj(j);
	fputc('\n', j->ctx);
	fflush(j->ctx);
}

void json_finding(struct map_json *j, const struct map_finding *f, const char *uuid,
		  const char *mountpoint)
{
	map_json_obj(j, NULL);
	map_json_finding_members(j, f, uuid, mountpoint);
	map_json_end_obj(j);
}

static int evidence_member(const struct map_evidence *e, void *arg)
{
	struct map_json *j = arg;

	map_json_obj(j, NULL);
	map_json_str_or_null(j, "source", map_finding_source_name(e->source));
	map_json_str_or_null(j, "scrub", e->scrub);
	map_json_uint_or_null(j, "device_offset", e->has_range, e->physical);
	map_json_uint_or_null(j, "device_length", e->has_range, e->length);
	map_json_str_or_null(j, "detail", e->detail);
	map_json_time(j, "first_seen_time", e->first_seen);
	map_json_time(j, "last_seen_time", e->last_seen);
	map_json_end_obj(j);
	return 0;
}

int json_stored_finding(struct map_json *j, struct map_store *st, const struct map_finding *f,
			const char *uuid, const char *mountpoint)
{
	int rc;

	map_json_obj(j, NULL);
	map_json_finding_members(j, f, uuid, mountpoint);
	map_json_arr(j, "evidence");
	rc = map_store_finding_evidence(st, f->id, evidence_member, j);
	map_json_end_arr(j);
	map_json_end_obj(j);
	return rc;
}
