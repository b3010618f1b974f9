// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The guest part of scripts/demo, as a new user runs it (issue 35, item 10):
 * bad blocks under files (one of them three hard links, one a reflink
 * pair) and under an inode btree; scan, status, repair, refetch, scan.  It
 * must end healed: exit 0, the last scan clean, no finding open, and every
 * file equal to the mirror.
 *
 * Usage (in the guest): vm_demo_guest DEMO-GUEST-SCRIPT BUILD-DIR
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "vmtest.h"

int main(int argc, char **argv)
{
	const char *script = argc > 1 ? argv[1] : "scripts/demo-guest";
	const char *build = argc > 2 ? argv[2] : "build";

	vt_require_vm();
	CHECK_INT(tl_sh("%s %s >/tmp/demo.log 2>&1; rc=$?; cat /tmp/demo.log; exit $rc", script,
			build), 0);
	CHECK_STR(tl_out("sqlite3 /tmp/mapper.db \"select count(*) from findings where state = "
			 "'open'\""), "0");
	CHECK_STR(tl_out("grep -c '^failed\\|  failed\\|  refused\\|  still-unreadable' /tmp/demo.log"),
		  "0");
	/* Every file the refetch wrote equals the mirror (the demo keeps it). */
	CHECK_INT(tl_sh("mount /dev/vda /mnt/srv && diff -r -x lost+found /tmp/mirror /mnt/srv; "
			"rc=$?; umount /mnt/srv; exit $rc"), 0);
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
