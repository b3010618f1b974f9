// SPDX-License-Identifier: GPL-2.0-or-later
/* Processes as the kernel sees them: a task's state, the CPU a thread runs on. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "testlib.h"

char tl_task_state(pid_t pid)
{
	char path[64], buf[512];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	tl_slurp(path, buf, sizeof(buf));
	/* The name in parentheses may hold anything: the state follows the last ")". */
	char *p = strrchr(buf, ')');

	return p && p[1] == ' ' ? p[2] : '?';
}

void tl_pin_to_cpu0(void)
{
	cpu_set_t cpu0;

	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	REQUIRE(sched_setaffinity(0, sizeof(cpu0), &cpu0) == 0, "affinity: %s", strerror(errno));
}
