// SPDX-License-Identifier: GPL-2.0-or-later
/* Findings the host unit tests put into a real store. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "check.h"
#include "store_fixture.h"
#include "testlib.h"

int64_t sf_add_finding(struct map_store *st, int64_t fs_id, const char *kind, uint64_t ino,
		       uint32_t mode, const char *path)
{
	struct map_finding f;

	map_finding_init(&f);
	f.fs_id = fs_id;
	f.source = MAP_SOURCE_MEDIA;
	snprintf(f.kind, sizeof(f.kind), "%s", kind);
	f.has_range = true;
	f.physical = ino * 4096;
	f.length = 4096;
	f.ino = ino;
	f.mode = mode;
	f.has_offset = strcmp(kind, "file") == 0;
	REQUIRE(map_finding_add_path(&f, path) == 0, "add_path");
	REQUIRE(map_store_finding_record(st, 0, &f, NULL) == 0, "finding_record");
	map_finding_clear(&f);
	return f.id;
}

struct tl_run *sf_run_mapctl(const char *mapctl, const char *dir, const char *prefix,
			    const char *args)
{
	static struct tl_run r;
	char cmd[1024];

	tl_run_free(&r);
	snprintf(cmd, sizeof(cmd), "%s%s%s %s", prefix ? prefix : "", prefix ? "; " : "", mapctl,
		 args);
	tl_run(&r, dir, cmd);
	return &r;
}
