// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Issue 12, item 8: refetch and repair record what they did and the
 * finding's new state in one transaction, and check it.  A trigger makes
 * every change of a finding's state fail, as a failing database disk
 * would: before, the action was recorded as "restored"/"repaired" while
 * the finding stayed open, and repair even exited 0.  Now neither is
 * recorded and the command exits 2 saying so; once the database works
 * again the same commands record both.
 *
 * Usage (in the guest): vm_mapctl_txn MAPCTL DEVICE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"
#include "vmtest.h"

#define DB "/tmp/txn.db"
#define MIRROR "/tmp/txn-mirror"
#define KiB 1024ULL

static const char *mapctl;

static const char *sql(const char *query)
{
	return tl_out("sqlite3 " DB " \"%s\"", query);
}

static void break_state_changes(bool on)
{
	if (on)
		tl_must("sqlite3 " DB " \"CREATE TRIGGER no_state AFTER UPDATE OF state ON findings "
			"BEGIN SELECT RAISE(ABORT, 'injected failure'); END\"");
	else
		tl_must("sqlite3 " DB " 'DROP TRIGGER no_state'");
}

int main(int argc, char **argv)
{
	mapctl = argc > 1 ? argv[1] : "mapctl";
	const char *dev = argc > 2 ? argv[2] : "/dev/vda";
	const char *out;

	vt_require_vm();
	fx_setup(dev, vt_features());
	tl_must("mkdir -p " FX_MNT "/data && head -c 262144 /dev/urandom > " FX_MNT
		"/data/victim.bin && sync && rm -rf " MIRROR " && cp -a " FX_MNT " " MIRROR);

	/* Damage a file's data and the inode btree root of AG 1 (AG 0's sits
	 * next to the headers, which mount must read). */
	uint64_t blocks[] = {
		fx_file_physical("data/victim.bin", 64 * KiB) / 4096,
		fx_inobt_root_byte(1) / 4096,
	};
	fx_umount();
	fx_add_bad_blocks(blocks, 2);
	fx_mount();
	CHECK_INT(tl_sh("%s --db " DB " scan " FX_MNT, mapctl), 1);
	CHECK_STR(sql("SELECT count(*) FROM findings WHERE kind = 'file' AND state = 'open'"), "1");
	CHECK(atoi(sql("SELECT count(*) FROM findings WHERE kind = 'inode-btrees' AND state = 'open'")) >=
	      1, "the inode btree is found");

	/* ---- refetch while state changes fail ---- */
	break_state_changes(true);
	out = tl_out("%s --db " DB " refetch " FX_MNT " --from " MIRROR " 2>&1; echo \"exit $?\"",
		     mapctl);
	CHECK(strstr(out, "exit 2"), "refetch with a failing database: %s", out);
	CHECK(strstr(out, "could not be recorded"), "says so: %s", out);
	CHECK_STR(sql("SELECT count(*) FROM actions WHERE action = 'refetch'"), "0");
	CHECK_STR(sql("SELECT state FROM findings WHERE kind = 'file'"), "open");

	/* ---- repair while state changes fail ---- */
	out = tl_out("%s --db " DB " repair --yes " FX_MNT " 2>&1; echo \"exit $?\"", mapctl);
	CHECK(strstr(out, "exit 2"), "repair with a failing database: %s", out);
	CHECK(strstr(out, "could not be recorded"), "says so: %s", out);
	CHECK_STR(sql("SELECT count(*) FROM actions WHERE action = 'repair' AND "
		      "finding_id IS NOT NULL"), "0");
	CHECK_STR(sql("SELECT count(*) FROM findings WHERE kind != 'file' AND state != 'open'"),
		  "0");

	/* ---- the database works again: both are recorded together ---- */
	break_state_changes(false);
	CHECK_INT(tl_sh("%s --db " DB " refetch " FX_MNT " --from " MIRROR, mapctl), 1);
	CHECK_STR(sql("SELECT state FROM findings WHERE kind = 'file'"), "refetched");
	CHECK_STR(sql("SELECT outcome FROM actions WHERE action = 'refetch'"), "restored");
	CHECK_INT(tl_sh("%s --db " DB " repair --yes " FX_MNT, mapctl), 0);
	CHECK_STR(sql("SELECT count(*) FROM findings WHERE kind = 'inode-btrees' AND state = 'open'"),
		  "0");
	CHECK(atoi(sql("SELECT count(*) FROM actions WHERE action = 'repair' AND "
		       "finding_id IS NOT NULL")) >= 1, "repair recorded");
	CHECK_INT(tl_sh("%s --db " DB " scan " FX_MNT, mapctl), 0);

	fx_teardown();
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
