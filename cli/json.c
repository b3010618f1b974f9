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

void json_uint_or_null(struct map_json *j, const char *key, bool has, uint64_t value)
{
	if (has)
		map_json_uint(j, key, value);
	else
		map_json_null(j, key);
}

void json_time(struct map_json *j, const char *key, int64_t t)
{
	if (t > 0)
		map_json_int(j, key, t);
	else
		map_json_null(j, key);
}

/* The members of a finding's object, without its braces.  Every member is
 * there for every finding; what does not apply is null. */
static void finding_members(struct map_json *j, const struct map_finding *f, const char *uuid,
			    const char *mountpoint)
{
	bool recorded = f->id > 0;	/* mapctl locate's owners are not */

	json_uint_or_null(j, "finding_id", recorded, (uint64_t)f->id);
	map_json_str_or_null(j, "fs_uuid", uuid);
	map_json_str_or_null(j, "mountpoint", mountpoint);
	map_json_str_or_null(j, "state", recorded ? map_state_name(f->state) : NULL);
	map_json_str_or_null(j, "source", f->source);
	map_json_str(j, "kind", f->kind);
	json_uint_or_null(j, "device_offset", f->has_range, f->physical);
	json_uint_or_null(j, "device_length", f->has_range, f->length);
	json_uint_or_null(j, "inode", f->ino, f->ino);
	json_uint_or_null(j, "generation", f->ino, f->gen);
	json_uint_or_null(j, "mode", f->ino && f->mode, f->mode);
	map_json_str_or_null(j, "fork", f->fork);
	json_uint_or_null(j, "file_offset", f->has_offset, f->offset);
	json_uint_or_null(j, "file_length", f->has_offset, f->length);
	json_uint_or_null(j, "ag", f->agno >= 0, (uint64_t)f->agno);
	map_json_str_or_null(j, "scrub", f->scrub);
	map_json_str_or_null(j, "detail", f->detail);
	map_json_bool(j, "shared", f->flags & MAP_OWNER_F_SHARED);
	json_time(j, "first_seen_time", f->first_seen);
	json_time(j, "last_seen_time", f->last_seen);
	map_json_arr(j, "paths");
	for (size_t i = 0; i < f->npaths; i++) {
		char *p = join_path(mountpoint, f->paths[i]);

		map_json_str(j, NULL, p ? p : f->paths[i]);
		free(p);
	}
	map_json_end_arr(j);
}

void json_finding(struct map_json *j, const struct map_finding *f, const char *uuid,
		  const char *mountpoint)
{
	map_json_obj(j, NULL);
	finding_members(j, f, uuid, mountpoint);
	map_json_end_obj(j);
}

static int evidence_member(const struct map_evidence *e, void *arg)
{
	struct map_json *j = arg;

	map_json_obj(j, NULL);
	map_json_str_or_null(j, "source", e->source);
	map_json_str_or_null(j, "scrub", e->scrub);
	json_uint_or_null(j, "device_offset", e->has_range, e->physical);
	json_uint_or_null(j, "device_length", e->has_range, e->length);
	map_json_str_or_null(j, "detail", e->detail);
	json_time(j, "first_seen_time", e->first_seen);
	json_time(j, "last_seen_time", e->last_seen);
	map_json_end_obj(j);
	return 0;
}

int json_stored_finding(struct map_json *j, struct map_store *st, const struct map_finding *f,
			const char *uuid, const char *mountpoint)
{
	int rc;

	map_json_obj(j, NULL);
	finding_members(j, f, uuid, mountpoint);
	map_json_arr(j, "evidence");
	rc = map_store_finding_evidence(st, f->id, evidence_member, j);
	map_json_end_arr(j);
	map_json_end_obj(j);
	return rc;
}
