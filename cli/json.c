// SPDX-License-Identifier: GPL-2.0-or-later
/* mapctl's JSON: libmap's writer on a FILE, and findings as objects. */
#include <stdio.h>
#include <stdlib.h>

#include "mapctl.h"

static void to_file(void *ctx, const char *text, size_t len)
{
	fwrite(text, 1, len, ctx);
}

void json_start(struct map_json *j, FILE *out)
{
	map_json_start(j, to_file, out);
}

void json_end(struct map_json *j)
{
	fputc('\n', j->ctx);
	fflush(j->ctx);
}

/* The members of a finding's object, without its braces. */
static void finding_members(struct map_json *j, const struct map_finding *f,
			    const char *mountpoint)
{
	map_json_int(j, "id", f->id);
	map_json_str(j, "state", map_state_name(f->state));
	map_json_str(j, "source", f->source);
	map_json_str(j, "kind", f->kind);
	if (f->has_range) {
		map_json_uint(j, "device_offset", f->physical);
		map_json_uint(j, "device_length", f->length);
	}
	if (f->ino) {
		map_json_uint(j, "inode", f->ino);
		map_json_uint(j, "generation", f->gen);
		map_json_uint(j, "mode", f->mode);
	}
	if (f->fork[0])
		map_json_str(j, "fork", f->fork);
	if (f->has_offset) {
		map_json_uint(j, "file_offset", f->offset);
		map_json_uint(j, "length", f->length);
	}
	if (f->agno >= 0)
		map_json_int(j, "ag", f->agno);
	if (f->scrub[0])
		map_json_str(j, "scrub", f->scrub);
	if (f->detail[0])
		map_json_str(j, "detail", f->detail);
	map_json_bool(j, "shared", f->flags & MAP_OWNER_F_SHARED);
	map_json_int(j, "first_seen", f->first_seen);
	map_json_int(j, "last_seen", f->last_seen);
	map_json_arr(j, "paths");
	for (size_t i = 0; i < f->npaths; i++) {
		char *p = join_path(mountpoint, f->paths[i]);

		map_json_str(j, NULL, p ? p : f->paths[i]);
		free(p);
	}
	map_json_end_arr(j);
}

void json_finding(struct map_json *j, const struct map_finding *f, const char *mountpoint)
{
	map_json_obj(j, NULL);
	finding_members(j, f, mountpoint);
	map_json_end_obj(j);
}

static int evidence_member(const struct map_evidence *e, void *arg)
{
	struct map_json *j = arg;

	map_json_obj(j, NULL);
	map_json_str(j, "source", e->source);
	map_json_str(j, "scrub", e->scrub);
	if (e->has_range) {
		map_json_uint(j, "physical", e->physical);
		map_json_uint(j, "length", e->length);
	} else {
		map_json_null(j, "physical");
		map_json_null(j, "length");
	}
	map_json_str(j, "detail", e->detail);
	map_json_int(j, "first_seen", e->first_seen);
	map_json_int(j, "last_seen", e->last_seen);
	map_json_end_obj(j);
	return 0;
}

int json_stored_finding(struct map_json *j, struct map_store *st, const struct map_finding *f,
			const char *mountpoint)
{
	int rc;

	map_json_obj(j, NULL);
	finding_members(j, f, mountpoint);
	map_json_arr(j, "evidence");
	rc = map_store_finding_evidence(st, f->id, evidence_member, j);
	map_json_end_arr(j);
	map_json_end_obj(j);
	return rc;
}
