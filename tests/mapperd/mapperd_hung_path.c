// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A path on a filesystem whose device hangs cannot stall mapperd's event
 * loop through "scan PATH" or "cancel PATH" (issue 36; a hung NFS or FUSE
 * mount is the case in the field, a suspended device-mapper table the one a
 * guest can build: every I/O to it waits until it is resumed).
 *  1. the watched dm-dust filesystem's root folder has 400 names (so its
 *     entries live in a block of their own, not in the inode) and mounted
 *     afresh, so looking a name up in it reads the disk (the daemon builds
 *     no directory index here: that would read the folders);
 *  2. dmsetup suspend: a stat() of a path under it hangs (checked: a child
 *     that stats it has not returned while the device stays suspended);
 *  3. meanwhile the daemon answers "scan full PATH", "cancel PATH" and
 *     "status" for that path (each request in a child the test waits for;
 *     a daemon that looked the path up would never answer until resume);
 *  4. dmsetup resume: the child's stat() returns, the scan that was asked
 *     for ends (cancelled or complete), and SIGTERM stops the daemon with
 *     exit status 0.
 *
 * Usage (in the guest): vm_mapperd_hung_path MAPPERD MAPCTL DEVICE
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "mdtest.h"
#include "vmtest.h"

#define DEEP FX_MNT "/deep/er/still"
#define HUNG_PATH DEEP "/file.dat"
/* A liveness bound, not a speed test: a daemon that stat()s the path does
 * not answer at all while the device is suspended. */
#define ANSWER_BOUND_S 60

/* @line asked in a child: 0 ok, 1 error reply, 2 no reply; -1 when the
 * daemon has not answered within the bound (the child is killed). */
static int ask(const char *line)
{
	static char reply[65536];
	pid_t pid = fork();

	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		int rc = mdt_request(line, reply, sizeof(reply));

		printf("  %s -> %s", line, reply[0] ? reply : "(nothing)\n");
		fflush(stdout);
		_exit(rc == 0 ? 0 : rc == 1 ? 1 : 2);
	}
	return tl_wait_or_kill(pid, ANSWER_BOUND_S);
}

int main(int argc, char **argv)
{
	int arg;

	vt_require_vm();
	arg = mdt_args(argc, argv);
	REQUIRE(arg < argc, "which device?");
	fx_setup(argv[arg], vt_features());
	tl_must("mkdir -p " DEEP " && xfs_io -f -c 'pwrite -q 0 64k' " HUNG_PATH);
	tl_must("cd " FX_MNT " && for i in $(seq 400); do : > name-of-some-length-$i; done");
	fx_umount();
	fx_mount();

	mdt_write_config("directory_index = no\n");
	pid_t pid = mdt_start(NULL);
	REQUIRE(mdt_wait_watched(FX_MNT, true, 10) >= 0, "mapperd does not watch %s", FX_MNT);

	/* 1, 2. */
	tl_must("dmsetup suspend dust");
	pid_t looker = fork();
	REQUIRE(looker >= 0, "fork");
	if (looker == 0) {
		struct stat sb;

		_exit(stat(HUNG_PATH, &sb) == 0 ? 0 : 1);
	}
	/* The fixture is what it claims: the lookup waits for the device. */
	int early = tl_wait_child(looker, 3);
	CHECK(early < 0, "stat(%s) returned on a suspended device: no hang to test with",
	      HUNG_PATH);

	/* 3. */
	CHECK_INT(ask("scan full " HUNG_PATH), 0);
	CHECK_INT(ask("cancel " HUNG_PATH), 0);
	CHECK_INT(ask("status"), 0);
	CHECK_INT(ask("scan metadata " DEEP "/no-such-name"), 0);
	CHECK_INT(ask("cancel " DEEP), 0);

	/* 4. */
	tl_must("dmsetup resume dust");
	if (early < 0)
		CHECK_INT(tl_wait_child(looker, ANSWER_BOUND_S), 0);
	static char reply[1 << 20];
	double end = tl_mono() + 120;
	bool running = true;
	while (running && tl_mono() < end) {
		running = mdt_request("status json", reply, sizeof(reply)) != 0 ||
			  strstr(reply, "\"running\":true") != NULL;
		if (running)
			tl_sleep(0.5);
	}
	CHECK(!running, "the scan asked for did not end after resume");
	int status = mdt_stop(pid);
	CHECK_INT(status, 0);
	if (check_failures)
		mdt_show_log();
	fx_teardown();
	return check_done();
}
