// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * "repair-plan TARGET" on a frozen filesystem cannot stall mapperd's event
 * loop.  The planner probes online repair with the scrub ioctl's REPAIR
 * flag, and the kernel takes freeze protection (mnt_want_write_file) for
 * any request with that flag: on a frozen filesystem the call waits,
 * uninterruptibly, until the filesystem is thawed.  Backups freeze
 * filesystems for minutes (xfs_freeze, LVM snapshots).
 *  1. repair-plan answers with the plan document on the thawed filesystem;
 *  2. xfs_freeze -f: a repair probe of the mount waits (checked: xfs_io's
 *     'repair probe' in a child has not returned while frozen);
 *  3. meanwhile one client asks for repair-plan, and "status" and
 *     "progress" must still be answered (each request in a child the test
 *     waits for; a daemon that probes on its event loop answers nothing
 *     until the thaw); the repair-plan request itself is answered, while
 *     still frozen, with an error that says the filesystem is frozen;
 *  4. xfs_freeze -u: the child's probe returns, repair-plan gives the plan
 *     again, and SIGTERM stops the daemon with exit status 0.
 *
 * Usage (in the guest): vm_mapperd_freeze_plan MAPPERD MAPCTL DEVICE
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "mdtest.h"
#include "vmtest.h"

/* A liveness bound, not a speed test: a daemon stuck in the ioctl does not
 * answer at all while the filesystem stays frozen. */
#define ANSWER_BOUND_S 60

/* mdt_ask_async() waited for; -1 when the daemon has not answered within the
 * bound (the child is killed). */
static int ask(const char *line, const char *want)
{
	return tl_wait_or_kill(mdt_ask_async(line, want), ANSWER_BOUND_S);
}

int main(int argc, char **argv)
{
	int arg;

	vt_require_vm();
	arg = mdt_args(argc, argv);
	REQUIRE(arg < argc, "which device?");
	fx_setup(argv[arg], vt_features());

	mdt_write_config("directory_index = no\n");
	pid_t pid = mdt_start(NULL);
	REQUIRE(mdt_wait_watched(FX_MNT, true, 10) >= 0, "mapperd does not watch %s", FX_MNT);

	/* 1. */
	CHECK_INT(ask("repair-plan " FX_MNT, "\"findings\""), 0);

	/* 2. */
	tl_must("xfs_freeze -f " FX_MNT);
	pid_t prober = fork();
	REQUIRE(prober >= 0, "fork");
	if (prober == 0) {
		execlp("xfs_io", "xfs_io", "-x", "-c", "repair probe", FX_MNT, (char *)NULL);
		_exit(127);
	}
	/* The fixture is what it claims: a repair request waits for the thaw. */
	int early = tl_wait_child(prober, 3);
	CHECK(early < 0, "xfs_io 'repair probe' returned (%d) on a frozen filesystem: no hang "
	      "to test with", early);

	/* 3. */
	pid_t planner = mdt_ask_async("repair-plan " FX_MNT, "frozen");
	CHECK_INT(ask("status", NULL), 0);
	CHECK_INT(ask("progress", NULL), 0);
	/* Answered while still frozen: no plan, and why. */
	int planned = tl_wait_child(planner, ANSWER_BOUND_S);
	if (planned < 0) {
		kill(planner, SIGKILL);
		waitpid(planner, NULL, 0);
	}
	CHECK(planned == 1, "repair-plan on the frozen filesystem: %d, not the error that it is "
	      "frozen (-1: no answer while frozen)", planned);

	/* 4. */
	tl_must("xfs_freeze -u " FX_MNT);
	if (early < 0)
		tl_wait_child(prober, ANSWER_BOUND_S);
	/* The probe left waiting returns at the thaw; until it has, a new
	 * request is told to ask again. */
	double end = tl_mono() + ANSWER_BOUND_S;
	int again;
	while ((again = ask("repair-plan " FX_MNT, "\"findings\"")) != 0 && tl_mono() < end)
		tl_sleep(0.5);
	CHECK_INT(again, 0);
	int status = mdt_stop(pid);
	CHECK_INT(status, 0);
	if (check_failures)
		mdt_show_log();
	fx_teardown();
	return check_done();
}
