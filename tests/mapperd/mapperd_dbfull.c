// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A full database disk is the database's error, not the scanned
 * filesystem's (issue 36): mapctl said "/mnt/fx: No space left on device".
 * The database lives on a 2 MiB tmpfs beside the dm-dust XFS at /mnt/fx:
 *  1. a metadata scan by mapctl makes the database; mapperd starts on it;
 *  2. the tmpfs is filled to the last page;
 *  3. mapctl scan exits 2 with one line that names the database file and
 *     keeps SQLite's words ("database or disk is full"), not /mnt/fx: No
 *     space left on device;
 *  4. a scan asked of mapperd fails, and its log line says the same;
 *  5. with room again, SIGTERM stops the daemon with exit status 0.
 *
 * Usage (in the guest): vm_mapperd_dbfull MAPPERD MAPCTL DEVICE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"
#include "mdtest.h"
#include "vmtest.h"

#define DBFS "/mnt/dbfull"
#define DB DBFS "/mapper.db"

static bool log_has(const char *text)
{
	return tl_sh("grep -qF -- '%s' " MDT_LOG, text) == 0;
}

int main(int argc, char **argv)
{
	char cmd[1024];
	int arg;

	vt_require_vm();
	arg = mdt_args(argc, argv);
	REQUIRE(arg < argc, "which device?");
	fx_setup(argv[arg], vt_features());
	tl_must("xfs_io -f -c 'pwrite -q 0 256k' -c fsync %s/data.bin", FX_MNT);
	tl_must("mkdir -p " DBFS " && mount -t tmpfs -o size=2m tmpfs " DBFS);

	/* 1. */
	snprintf(cmd, sizeof(cmd), "%s --db " DB " scan --metadata " FX_MNT " >/dev/null", mdt_mapctl);
	tl_must("%s", cmd);
	mdt_write_config("database = " DB "\n");
	pid_t pid = mdt_start(NULL);
	REQUIRE(mdt_wait_watched(FX_MNT, true, 10) >= 0, "mapperd does not watch %s", FX_MNT);

	/* 2. */
	tl_sh("dd if=/dev/zero of=" DBFS "/fill bs=4k 2>/dev/null; sync");
	tl_sh("df -k " DBFS);

	/* 3. */
	snprintf(cmd, sizeof(cmd), "%s --db " DB " scan --metadata " FX_MNT " >/dev/null 2>/tmp/err",
		 mdt_mapctl);
	int rc = tl_sh("%s", cmd);
	const char *err = tl_out("cat /tmp/err");
	printf("mapctl scan exit %d: %s", rc, err);
	CHECK_INT(rc, 2);
	CHECK(strstr(err, DB) && strstr(err, "database or disk is full"),
	      "the error does not name the database and SQLite's reason: %s", err);
	CHECK(!strstr(err, FX_MNT ": No space left on device"), "blamed on /mnt/fx: %s", err);
	CHECK(tl_sh("test $(wc -l < /tmp/err) = 1") == 0, "more than one line: %s", err);

	/* 4. */
	char reply[4096];
	CHECK_INT(mdt_request("scan metadata " FX_MNT, reply, sizeof(reply)), 0);
	double end = tl_mono() + 120;
	while (!log_has("metadata scan failed") && tl_mono() < end)
		tl_sleep(0.5);
	tl_sh("grep -F 'scan failed' " MDT_LOG);
	CHECK(log_has("metadata scan failed: the database: " DB), "the log does not name the "
	      "database");
	CHECK(log_has("(SQLite: database or disk is full)"), "the log lacks SQLite's reason");

	/* 5. */
	tl_must("rm -f " DBFS "/fill");
	CHECK_INT(mdt_stop(pid), 0);
	if (check_failures)
		mdt_show_log();
	tl_sh("umount " DBFS);
	fx_teardown();
	return check_done();
}
