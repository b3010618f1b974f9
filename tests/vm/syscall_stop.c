// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "syscall_stop.h"

/* fstatat(fd, "", AT_EMPTY_PATH) and statx() alike: the descriptor itself. */
#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x1000
#endif

/* Calls whose first argument is a descriptor worth naming. */
static bool takes_fd(long nr)
{
	switch (nr) {
	case SYS_read: case SYS_write: case SYS_pread64: case SYS_pwrite64:
	case SYS_fsync: case SYS_fdatasync: case SYS_fstat: case SYS_newfstatat:
	case SYS_statx: case SYS_lseek: case SYS_ftruncate: case SYS_fallocate:
	case SYS_fchown: case SYS_fchmod: case SYS_fsetxattr: case SYS_fremovexattr:
	case SYS_flistxattr: case SYS_fgetxattr: case SYS_utimensat: case SYS_fadvise64:
	case SYS_ioctl:
		return true;
	default:
		return false;
	}
}

static void name_fd(struct ss_call *c)
{
	char link[64];
	ssize_t n = -1;

	c->fd_path[0] = '\0';
	if (!takes_fd(c->nr) || (int64_t)c->args[0] < 0 || c->args[0] > INT32_MAX)
		return;
	snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)c->pid, (int)c->args[0]);
	n = readlink(link, c->fd_path, sizeof(c->fd_path) - 1);
	c->fd_path[n < 0 ? 0 : n] = '\0';
}

bool ss_is_read(const struct ss_call *c)
{
	return c->nr == SYS_pread64 || c->nr == SYS_read;
}

bool ss_is_write(const struct ss_call *c)
{
	return c->nr == SYS_pwrite64 || c->nr == SYS_write;
}

bool ss_is_fstat(const struct ss_call *c)
{
	if (c->nr == SYS_fstat)
		return true;
	/* newfstatat and statx: (fd, "", AT_EMPTY_PATH); the flags are the
	 * fourth and the third argument. */
	return (c->nr == SYS_newfstatat && (c->args[3] & AT_EMPTY_PATH)) ||
	       (c->nr == SYS_statx && (c->args[2] & AT_EMPTY_PATH));
}

static void child(char *const argv[], const char *out)
{
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
		_exit(126);
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0)
		_exit(126);
	raise(SIGSTOP);		/* the tracer sets its options first */
	execv(argv[0], argv);
	_exit(127);
}

int ss_run(char *const argv[], const char *out, ss_hook hook, void *arg)
{
	struct __ptrace_syscall_info info;
	struct ss_call call;
	int status, sig = 0;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		child(argv, out);
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status) ||
	    ptrace(PTRACE_SETOPTIONS, pid, NULL, PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC |
		   PTRACE_O_EXITKILL) != 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return -1;
	}
	/* Each turn: resume it, wait for its next stop.  Ends when it does. */
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, pid, NULL, (void *)(long)sig) != 0 && errno != ESRCH)
			break;
		sig = 0;
		if (waitpid(pid, &status, 0) != pid)
			break;
		if (WIFEXITED(status))
			return WEXITSTATUS(status);
		if (WIFSIGNALED(status))
			return 128 + WTERMSIG(status);
		if (!WIFSTOPPED(status))
			continue;
		if (WSTOPSIG(status) != (SIGTRAP | 0x80)) {
			/* A signal for it (passed on), or the exec event. */
			if (WSTOPSIG(status) != SIGTRAP)
				sig = WSTOPSIG(status);
			continue;
		}
		if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, (void *)sizeof(info), &info) <= 0 ||
		    info.op != PTRACE_SYSCALL_INFO_ENTRY)
			continue;
		call.pid = pid;
		call.nr = (long)info.entry.nr;
		memcpy(call.args, info.entry.args, sizeof(call.args));
		name_fd(&call);
		if (hook(&call, arg) == SS_KILL) {
			/* A fatal signal pending at the entry stop: the call
			 * is skipped and the program ends. */
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) == pid) {
				if (WIFSIGNALED(status))
					return 128 + WTERMSIG(status);
				if (WIFEXITED(status))
					return WEXITSTATUS(status);
				ptrace(PTRACE_CONT, pid, NULL, NULL);
			}
			return -1;
		}
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}
