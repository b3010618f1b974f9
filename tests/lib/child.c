// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "testlib.h"

pid_t tl_fork_ready(void (*child)(void *arg, int ready), void *arg)
{
	int ready[2];
	pid_t pid;
	char c;

	REQUIRE(pipe(ready) == 0, "pipe: %s", strerror(errno));
	pid = fork();
	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		close(ready[0]);
		child(arg, ready[1]);
		_exit(1);	/* @child must not return */
	}
	close(ready[1]);
	ssize_t n = read(ready[0], &c, 1);
	close(ready[0]);
	return n == 1 ? pid : -1;
}

int tl_wait_or_kill(pid_t pid, double secs)
{
	int rc = tl_wait_child(pid, secs);

	if (rc < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	return rc;
}

int tl_wait_child(pid_t pid, double secs)
{
	double end = tl_mono() + secs;
	int st;

	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		if (tl_mono() > end)
			return -1;
		tl_sleep(0.1);
	}
}
