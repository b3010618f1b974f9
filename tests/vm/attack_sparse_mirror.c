// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Hostile mirror against mapctl refetch's "equal to the mirror" check
 * (cli/restore_copy.c).  Whoever may write the mirror's copy of a damaged
 * file makes it a sparse file of 16 TiB with 64 KiB of data.  The copy
 * itself skips holes (SEEK_DATA), but each comparison with the mirror reads
 * every byte of the size, holes included: 16 TiB of zeros, twice or more,
 * so root's refetch runs for days and nothing else is restored meanwhile.
 *
 * Passes when refetch ends having read a bounded amount (its rchar stays
 * under 8 GiB, far above the few MiB of data there are); fails when it is
 * still reading zeros past that (it is then killed).  Not a timing test:
 * the bound is on bytes read, however slow the guest.
 *
 * Usage (in the guest): vm_attack_sparse_mirror MAPCTL DEVICE MIRROR-DEVICE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"
#include "vmtest.h"

#define DB "/tmp/sparse.db"
#define MIRROR "/mnt/mirror"
#define READ_BOUND "8589934592"		/* 8 GiB */

int main(int argc, char **argv)
{
	const char *mapctl = argc > 1 ? argv[1] : "mapctl";
	const char *dev = argc > 2 ? argv[2] : "/dev/vda";
	const char *mirror_dev = argc > 3 ? argv[3] : "/dev/vdb";

	vt_require_vm();
	/* The bound is read from /proc/PID/io (CONFIG_TASK_IO_ACCOUNTING, which
	 * needs CONFIG_TASKSTATS); without it the test could not fail. */
	REQUIRE(tl_sh("test -r /proc/self/io") == 0, "the guest kernel has no /proc/PID/io "
		"(CONFIG_TASK_IO_ACCOUNTING): this test cannot measure what refetch reads");
	fx_setup(dev, vt_features());
	tl_must("mkdir -p " FX_MNT "/big " FX_MNT "/lost+found && head -c 65536 /dev/urandom > "
		FX_MNT "/big/file.dat && chown -R 1000:1000 " FX_MNT "/big && sync");
	tl_mkfs_mount(mirror_dev, "", MIRROR);
	tl_must("rsync -aAXH " FX_MNT "/ " MIRROR "/");
	/* The mirror's copy: the same first 64 KiB, then a hole to 16 TiB. */
	tl_must("truncate -s 16T " MIRROR "/big/file.dat && chown 1000:1000 " MIRROR
		"/big/file.dat && du -h --apparent-size " MIRROR "/big/file.dat && du -h " MIRROR
		"/big/file.dat");

	uint64_t block = fx_file_physical("big/file.dat", 16384) / 4096;
	fx_umount();
	fx_add_bad_blocks(&block, 1);
	fx_mount();
	CHECK_INT(tl_sh("%s --db " DB " scan " FX_MNT " >/dev/null", mapctl), 1);
	CHECK(strstr(tl_out("%s --db " DB " files " FX_MNT, mapctl), FX_MNT "/big/file.dat"),
	      "the scan names the damaged file");

	/* Poll what refetch has read; bounded by the bytes, not by time. */
	int rc = tl_sh("%s --db " DB " refetch --json " FX_MNT " --from " MIRROR
		       " >/tmp/sparse.json & pid=$!; "
		       "while kill -0 $pid 2>/dev/null; do "
		       "  r=$(awk '/^rchar/ {print $2}' /proc/$pid/io 2>/dev/null); "
		       "  if [ \"${r:-0}\" -gt " READ_BOUND " ]; then "
		       "    kill -9 $pid; wait $pid; echo \"refetch read $r bytes: killed\"; exit 3; "
		       "  fi; sleep 1; "
		       "done; wait $pid; echo \"refetch exited $?\"; exit 0", mapctl);
	CHECK_INT(rc, 0);
	if (rc == 0)
		tl_sh("jq -c '.paths[] | [.path, .outcome, .detail]' /tmp/sparse.json");
	tl_sh("df -h " FX_MNT "; ls -ls " FX_MNT "/big");

	tl_sh("umount " MIRROR);
	fx_teardown();
	return check_done();
}
