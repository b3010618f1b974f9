// SPDX-License-Identifier: GPL-2.0-or-later
#include <sys/wait.h>

#include "testlib.h"

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
