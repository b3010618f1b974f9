// SPDX-License-Identifier: GPL-2.0-or-later
/* tests/lib itself: temporary folders, children, clocks, the shell runner. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "testlib.h"

static char dir[64];

/* A tree with a link out of it: removing the tree keeps what the link names. */
static void test_rmtree(void)
{
	char tree[128], outside[128];

	snprintf(outside, sizeof(outside), "%s/outside", dir);
	snprintf(tree, sizeof(tree), "%s/tree", dir);
	CHECK_INT(tl_sh("mkdir -p %s/a/b %s && echo x > %s/a/b/f && echo y > %s/keep && "
			"ln -s %s %s/a/link", tree, outside, tree, outside, outside, tree), 0);
	CHECK_INT(tl_rmtree(tree), 0);
	CHECK(access(tree, F_OK) != 0, "%s is still there", tree);
	CHECK(access(outside, F_OK) == 0, "the link's target went too");
	CHECK_STR(tl_out("cat %s/keep", outside), "y");
	CHECK_INT(tl_rmtree(tree), -ENOENT);
}

static void ready_then_wait(void *arg, int ready)
{
	(void)arg;
	if (write(ready, "r", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

static void end_early(void *arg, int ready)
{
	(void)ready;
	_exit(*(int *)arg);
}

static void test_children(void)
{
	int code = 3;
	pid_t pid = tl_fork_ready(ready_then_wait, NULL);

	CHECK(pid > 0, "a ready child gave %d", (int)pid);
	if (pid > 0) {
		CHECK_INT(tl_wait_child(pid, 0.2), -1);
		kill(pid, SIGKILL);
		CHECK_INT(tl_wait_child(pid, 10), 128 + SIGKILL);
	}
	pid = tl_fork_ready(ready_then_wait, NULL);
	CHECK(pid > 0, "a ready child gave %d", (int)pid);
	if (pid > 0) {
		CHECK_INT(tl_wait_or_kill(pid, 0.2), -1);
		CHECK(kill(pid, 0) != 0 && errno == ESRCH, "child %d was not reaped", (int)pid);
	}
	CHECK_INT(tl_fork_ready(end_early, &code), -1);
	CHECK_INT(waitpid(-1, NULL, 0) > 0, 1);
}

static void test_clock_and_shell(void)
{
	double t0 = tl_mono();

	tl_sleep(0.05);
	CHECK(tl_mono() - t0 >= 0.05, "slept %.3f s", tl_mono() - t0);
	CHECK_INT(tl_sh("exit 7"), 7);
	CHECK_STR(tl_out("printf 'a\\nb\\n\\n'"), "a\nb");
}

int main(void)
{
	tl_tmpdir(dir, sizeof(dir), "test_testlib");
	CHECK_PART(test_rmtree());
	CHECK_PART(test_children());
	CHECK_PART(test_clock_and_shell());
	return tl_done(dir);
}
