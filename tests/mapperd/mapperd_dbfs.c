// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The database on a watched filesystem (issue 12, item 6).  The database
 * lives on XFS /mnt/db, which mapperd watches with a dm-dust XFS at
 * /mnt/fx:
 *  1. at start mapperd warns that the database is on a watched filesystem;
 *  2. /mnt/db is shut down (xfs_io -x -c shutdown): mapperd closes the
 *     database, and a read error on /mnt/fx is still kept (in the spool
 *     under the state directory: status counts it, a file is there);
 *  3. umount /mnt/db succeeds (nothing of mapperd holds it);
 *  4. mounted again, the database takes the spooled reports: the finding
 *     for the bad block on /mnt/fx, with its path, and the shutdown report
 *     of /mnt/db itself are in it, and the spool is empty.
 * Before the fix the finding was lost, the shutdown report dropped, and
 * umount failed with "target is busy".
 *
 * Usage (in the guest): vm_mapperd_dbfs MAPPERD MAPCTL DB_DEV DUST_DEV
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"
#include "mdtest.h"
#include "vmtest.h"

#define KiB 1024ULL
#define DB_MNT "/mnt/db"
#define DB_FILE DB_MNT "/mapper.db"
#define STATE MDT_DIR "/state"

static char reply[1 << 20];


/* "status json" has @text in it. */
static bool status_has(const char *text)
{
	return mdt_request("status json", reply, sizeof(reply)) == 0 && strstr(reply, text);
}

/* Wait until @cond holds (polled), at most @timeout s; seconds or -1. */
#define WAIT_FOR(cond, timeout)                                                 \
	({                                                                      \
		double t0_ = tl_mono(), r_ = -1;                               \
		while (tl_mono() - t0_ < (timeout)) {                          \
			if (cond) {                                             \
				r_ = tl_mono() - t0_;                          \
				break;                                          \
			}                                                       \
			tl_sleep(0.1);                                         \
		}                                                               \
		r_;                                                             \
	})

struct want {
	uint64_t ino, offset;
	bool found;
	size_t npaths;
	char path[64];
};

static int on_finding(const struct map_finding *f, void *arg)
{
	struct want *w = arg;

	if (!strcmp(f->kind, "file") && f->ino == w->ino && f->has_offset &&
	    f->offset == w->offset) {
		w->found = true;
		w->npaths = f->npaths;
		if (f->npaths)
			snprintf(w->path, sizeof(w->path), "%s", f->paths[0]);
	}
	return 0;
}

static int on_event(const struct map_event *e, void *arg)
{
	int *shutdowns = arg;

	*shutdowns += e->error == ESHUTDOWN;
	return 0;
}

int main(int argc, char **argv)
{
	int arg;

	vt_require_vm();
	arg = mdt_args(argc, argv);
	REQUIRE(argc - arg == 2, "usage: %s MAPPERD MAPCTL DB_DEV DUST_DEV", argv[0]);
	tl_mkfs_mount(argv[arg], vt_features(), DB_MNT);
	fx_setup(argv[arg + 1], vt_features());
	tl_must("dd if=/dev/urandom of=%s/victim.bin bs=1M count=1 status=none && sync", FX_MNT);
	uint64_t phys = fx_file_physical("victim.bin", 256 * KiB);
	struct want w = { .ino = fx_ino("victim.bin"), .offset = 256 * KiB };

	mdt_write_config("database = " DB_FILE "\nstate_directory = " STATE "\n");
	pid_t pid = mdt_start(NULL);
	REQUIRE(mdt_wait_watched(DB_MNT, true, 20) >= 0 && mdt_wait_watched(FX_MNT, true, 20) >= 0,
		"mapperd does not watch both filesystems");

	/* 1. the warning */
	CHECK(tl_sh("grep -q 'database %s is on this watched filesystem' %s", DB_FILE, MDT_LOG) == 0,
	      "no warning that the database is on a watched filesystem");

	/* 2. the database's filesystem goes away; another one has an error */
	tl_must("xfs_io -x -c shutdown %s", DB_MNT);
	double t = WAIT_FOR(mdt_status_field(DB_MNT, "shut_down") &&
			    !strncmp(mdt_status_field(DB_MNT, "shut_down"), "true", 4), 15);
	CHECK(t >= 0, "the shutdown of %s was not noticed", DB_MNT);
	t = WAIT_FOR(status_has("\"database_down\":true"), 15);
	CHECK(t >= 0, "mapperd did not let the database go");

	tl_must("dmsetup message dust 0 addbadblock %llu", (unsigned long long)(phys / 4096));
	tl_must("dmsetup message dust 0 enable");
	tl_evict(FX_MNT "/victim.bin");
	int err = tl_read_file(FX_MNT "/victim.bin");
	CHECK(err == EIO, "reading victim.bin: %s, expected EIO", strerror(err));
	/* its finding counted, and kept (the shutdown report may be kept too) */
	t = WAIT_FOR(mdt_status_number("\"findings\":") >= 1 &&
		     mdt_status_number("\"spooled\":") >= 1, 15);
	CHECK(t >= 0, "the report was not kept in the spool");
	long long pending = mdt_status_number("\"spool_pending\":");
	printf("spooled %.1f s after the read; %lld waiting\n", t, pending);
	CHECK(pending >= 1, "%lld reports in the spool", pending);
	CHECK(tl_sh("ls -l %s/spool; test -n \"$(ls %s/spool/*.rec)\"", STATE, STATE) == 0,
	      "no spool file under %s/spool", STATE);
	CHECK_INT(mdt_request("status", reply, sizeof(reply)), 0);
	printf("%s", reply);
	CHECK(strstr(reply, "wait in the spool") != NULL, "status text says nothing of the spool");

	/* 3. the administrator unmounts it */
	t = WAIT_FOR(tl_sh("umount %s 2>/dev/null", DB_MNT) == 0, 10);
	CHECK(t >= 0, "umount %s failed: mapperd holds it", DB_MNT);
	if (t < 0)
		mdt_fd_show(pid);
	else
		printf("%s unmounted after %.1f s\n", DB_MNT, t);

	/* 4. and mounts it again: the spool goes into the database */
	if (t >= 0)
		tl_must("mount %s %s", argv[arg], DB_MNT);
	t = WAIT_FOR(mdt_status_number("\"spool_pending\":") == 0 &&
		     mdt_status_number("\"replayed\":") >= 1, 30);
	CHECK(t >= 0, "the spool was not written to the database once it was back");
	printf("spool replayed %.1f s after the mount\n", t);
	CHECK(tl_sh("test -z \"$(ls %s/spool/)\"", STATE) == 0, "files left in %s/spool", STATE);

	struct map_store *st;
	int shutdowns = 0;
	REQUIRE(map_store_open(DB_FILE, MAP_STORE_READONLY, &st) == 0, "cannot open %s", DB_FILE);
	CHECK_INT(map_store_findings(st, 0, MAP_FIND_ALL, on_finding, &w), 0);
	CHECK_INT(map_store_events(st, 0, on_event, &shutdowns), 0);
	CHECK_INT(map_store_check(st), 0);
	map_store_close(st);
	CHECK(w.found, "no finding for victim.bin offset 256 KiB in the database");
	if (w.found) {
		CHECK_INT(w.npaths, 1);
		CHECK_STR(w.path, "victim.bin");
	}
	CHECK(shutdowns >= 1, "the shutdown of %s is not in the events table", DB_MNT);

	CHECK_INT(mdt_stop(pid), 0);
	mdt_show_log();
	fx_teardown();
	tl_sh("umount %s", DB_MNT);
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
