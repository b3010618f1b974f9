// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Issue 12, item 3: on a kernel without CONFIG_XFS_ONLINE_SCRUB (the
 * `noscrub` variant, like Debian's stock 6.12) every scrub call fails
 * ENOTTY, and a new empty filesystem got about 50 open "damaged" findings
 * and scan exit 1.  Now: the probe says so once, the metadata phase is
 * skipped with one message, media is still verified, and the exit status
 * says what was found: 0 on a clean filesystem, 1 with a bad block under a
 * file, which is named.  A metadata-only scan cannot run (exit 2).
 *
 * Usage (in the guest, vm/run --variant noscrub): vm_scan_noscrub MAPCTL DEVICE
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "map.h"
#include "vmtest.h"

#define DB "/tmp/noscrub.db"
#define KiB 1024ULL

static const char *mapctl;

static int count_results(const struct map_scrub_result *r, void *arg)
{
	(void)r;
	++*(int *)arg;
	return 0;
}

int main(int argc, char **argv)
{
	mapctl = argc > 1 ? argv[1] : "mapctl";
	const char *dev = argc > 2 ? argv[2] : "/dev/vda";
	struct map_fs *fs;
	int results = 0;

	vt_require_vm();
	fx_setup(dev, vt_features());
	tl_must("mkdir -p " FX_MNT "/data && head -c 262144 /dev/urandom > " FX_MNT
		"/data/victim.bin && head -c 65536 /dev/urandom > " FX_MNT "/data/other.bin && "
		"sync");

	/* The kernel really has no scrub: this test means nothing otherwise. */
	REQUIRE(map_fs_open(FX_MNT, &fs) == 0, "map_fs_open");
	int probe = map_scrub_probe(map_fs_fd(fs));
	REQUIRE(probe == -MAP_ENOSCRUB, "scrub probe gave %d (%s): boot this test with "
		"vm/run --variant noscrub", probe, map_strerror(probe));
	/* The library's whole-filesystem scrub stops at the probe: no result
	 * reaches the caller to be taken for damage. */
	CHECK_INT(map_scrub_fs(fs, NULL, count_results, &results, NULL), -MAP_ENOSCRUB);
	CHECK_INT(results, 0);
	map_fs_close(fs);

	/* A clean filesystem: exit 0, one message, media verified. */
	const char *out = tl_out("%s --db " DB " scan " FX_MNT " 2>&1; echo \"exit $?\"", mapctl);
	CHECK(strstr(out, "exit 0"), "clean scan: %s", out);
	CHECK(strstr(out, "metadata not checked: the kernel has no XFS online scrub"),
	      "says why: %s", out);
	CHECK(strstr(out, " verified in "), "media verified: %s", out);
	CHECK_STR(tl_out("sqlite3 " DB " 'SELECT count(*) FROM findings'"), "0");
	CHECK_STR(tl_out("%s --db " DB " scan --json " FX_MNT " | jq -c '.scans[0] | "
			 "[.state, .metadata_checked, .open_findings, .bytes_verified > 0]'",
			 mapctl), "[\"complete\",false,0,true]");
	CHECK_INT(tl_sh("%s --db " DB " status " FX_MNT, mapctl), 0);

	/* Only metadata was asked for, and it cannot be checked. */
	out = tl_out("%s --db " DB " scan --metadata " FX_MNT " 2>&1; echo \"exit $?\"", mapctl);
	CHECK(strstr(out, "exit 2"), "metadata-only scan: %s", out);
	CHECK(strstr(out, "no XFS online scrub"), "says why: %s", out);

	/* A bad block under a file: exit 1, the file named, nothing else. */
	uint64_t block = fx_file_physical("data/victim.bin", 128 * KiB) / 4096;
	fx_umount();
	fx_add_bad_blocks(&block, 1);
	fx_mount();
	out = tl_out("%s --db " DB " scan " FX_MNT " 2>&1; echo \"exit $?\"", mapctl);
	CHECK(strstr(out, "exit 1"), "damaged scan: %s", out);
	CHECK(strstr(out, "data/victim.bin"), "names the file: %s", out);
	CHECK_STR(tl_out("%s --db " DB " files -0 " FX_MNT " | tr '\\0' '|'", mapctl),
		  FX_MNT "/data/victim.bin|");
	CHECK_STR(tl_out("sqlite3 " DB " \"SELECT count(*) FROM findings WHERE source != 'media'\""),
		  "0");

	fx_teardown();
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
