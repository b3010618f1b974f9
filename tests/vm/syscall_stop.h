/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Stop a program at an exact step of its run, with no hook in the program:
 * it runs under ptrace, and at the entry of each system call a test's
 * callback sees the call and the file its first argument names as a
 * descriptor (/proc/PID/fd), and lets it go on or kills it with SIGKILL
 * before the call runs.  The callback may also change files meanwhile (the
 * program is stopped), which lands a change between two of its calls.
 */
#ifndef MAPPER_SYSCALL_STOP_H
#define MAPPER_SYSCALL_STOP_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct ss_call {
	pid_t pid;
	long nr;			/* SYS_* of this architecture */
	uint64_t args[6];
	char fd_path[PATH_MAX];		/* what args[0] names as a descriptor, or "" */
};

enum ss_action {
	SS_GO,		/* let the call run */
	SS_KILL,	/* kill -9 the program; the call does not run */
};

typedef enum ss_action (*ss_hook)(const struct ss_call *call, void *arg);

/* Run @argv[0] (a path) with @argv, its stdout and stderr into file @out,
 * @hook called at the entry of every system call.  Its exit status, 128 +
 * the signal that ended it, or -1 when it could not be run. */
int ss_run(char *const argv[], const char *out, ss_hook hook, void *arg);

/* The call reads or writes the file's data through its descriptor
 * (pread64/pwrite64/read/write). */
bool ss_is_read(const struct ss_call *c);
bool ss_is_write(const struct ss_call *c);
/* fstat() of the descriptor, whichever call the C library makes of it. */
bool ss_is_fstat(const struct ss_call *c);

#endif
