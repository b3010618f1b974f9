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
	snprintf(f.source, sizeof(f.source), "media");
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

struct sf_result *sf_run_mapctl(const char *mapctl, const char *dir, const char *prefix,
				const char *args)
{
	static struct sf_result r;
	char cmd[1024], out[128], err[128];

	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(err, sizeof(err), "%s/err", dir);
	snprintf(cmd, sizeof(cmd), "%s%s%s %s >%s 2>%s </dev/null", prefix ? prefix : "",
		 prefix ? "; " : "", mapctl, args, out, err);
	int st = system(cmd);
	r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
	tl_slurp(out, r.out, sizeof(r.out));
	tl_slurp(err, r.err, sizeof(r.err));
	return &r;
}
