// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * "repair-plan TARGET" on a filesystem whose device hangs cannot stall
 * mapperd's event loop.  The plan opens the mount afresh (the mount table,
 * libblkid's probe of the device, libudev) and probes online repair (a scrub
 * call the kernel holds while the filesystem is frozen): on a suspended,
 * failing or slow device either can wait as long as the device does.
 *  1. repair-plan answers with the plan document;
 *  2. caches dropped, then dmsetup suspend (which also freezes the
 *     filesystem): a probe of the device waits (checked: blkid -p in a
 *     child has not returned);
 *  3. one client asks for repair-plan, and "status" and "progress" must
 *     still be answered within a few seconds (each in a child the test
 *     waits for; a daemon that opens the mount on its event loop answers
 *     nothing until resume); the plan itself is answered, still suspended,
 *     with an error that says to ask again, and so is a second request
 *     for it;
 *  4. dmsetup resume: repair-plan gives the plan again, and SIGTERM stops
 *     the daemon with exit status 0.
 *
 * Usage (in the guest): vm_mapperd_suspend_plan MAPPERD MAPCTL DEVICE
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

/* A status reply takes milliseconds; this bound leaves room for a loaded
 * guest, and a daemon waiting on the device does not answer at all. */
#define STATUS_BOUND_S 5
/* The plan's own answer, an error while the device is suspended. */
#define PLAN_BOUND_S 60

/* mdt_ask_async() waited for, up to @bound s; -1 when unanswered (killed). */
static int ask(const char *line, const char *want, int bound)
{
	double t0 = tl_mono();
	int rc = tl_wait_or_kill(mdt_ask_async(line, want), bound);

	printf("  (%.2f s)\n", tl_mono() - t0);
	return rc;
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
	CHECK_INT(ask("repair-plan " FX_MNT, "\"findings\"", PLAN_BOUND_S), 0);

	/* 2. */
	tl_drop_caches(3);
	tl_must("dmsetup suspend dust");
	pid_t prober = fork();
	REQUIRE(prober >= 0, "fork");
	if (prober == 0) {
		execlp("blkid", "blkid", "-p", FX_DUST, (char *)NULL);
		_exit(127);
	}
	/* The fixture is what it claims: a probe of the device waits. */
	int early = tl_wait_child(prober, 3);
	CHECK(early < 0, "blkid -p returned (%d) on a suspended device: no hang to test with",
	      early);

	/* 3. */
	pid_t planner = mdt_ask_async("repair-plan " FX_MNT, "ask again");
	tl_sleep(0.5);
	CHECK_INT(ask("status", NULL, STATUS_BOUND_S), 0);
	CHECK_INT(ask("progress", NULL, STATUS_BOUND_S), 0);
	int planned = tl_wait_child(planner, PLAN_BOUND_S);
	if (planned < 0) {
		kill(planner, SIGKILL);
		waitpid(planner, NULL, 0);
	}
	CHECK(planned == 1, "repair-plan on the suspended device: %d, not an error that says to "
	      "ask again (-1: no answer while suspended)", planned);
	/* The look that still waits is not started twice. */
	CHECK_INT(ask("repair-plan " FX_MNT, "ask again", STATUS_BOUND_S), 1);
	CHECK_INT(ask("status", NULL, STATUS_BOUND_S), 0);

	/* 4. */
	tl_must("dmsetup resume dust");
	if (early < 0)
		tl_wait_child(prober, PLAN_BOUND_S);
	double end = tl_mono() + PLAN_BOUND_S;
	int again;
	while ((again = ask("repair-plan " FX_MNT, "\"findings\"", PLAN_BOUND_S)) != 0 &&
	       tl_mono() < end)
		tl_sleep(0.5);
	CHECK_INT(again, 0);
	int status = mdt_stop(pid);
	CHECK_INT(status, 0);
	if (check_failures)
		mdt_show_log();
	fx_teardown();
	return check_done();
}
