// SPDX-License-Identifier: GPL-2.0-or-later
/* Running xfs_repair for mapctl repair --offline. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mapctl.h"
#include "xfs_repair_run.h"

int run_xfs_repair(const char *device, bool check, FILE *say, struct xfs_repair_result *r)
{
	char line[REPAIR_LINE];
	int pfd[2], status;
	pid_t pid;
	FILE *in;

	memset(r, 0, sizeof(*r));
	r->status = -1;		/* not run */
	fflush(NULL);
	if (pipe2(pfd, O_CLOEXEC) != 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(pfd[0]);
		close(pfd[1]);
		return err;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(pfd[1], STDOUT_FILENO) < 0 ||
		    dup2(pfd[1], STDERR_FILENO) < 0)
			_exit(127);
		if (check)
			execlp("xfs_repair", "xfs_repair", "-n", device, (char *)NULL);
		else
			execlp("xfs_repair", "xfs_repair", device, (char *)NULL);
		dprintf(STDERR_FILENO, "cannot run xfs_repair: %s\n", strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	in = fdopen(pfd[0], "r");
	if (!in) {
		close(pfd[0]);
	} else {
		while (fgets(line, sizeof(line), in)) {
			line[strcspn(line, "\n")] = '\0';
			if (strstr(line, "moving to lost+found"))
				r->moved++;
			if (line[strspn(line, " \t-")])
				snprintf(r->last, sizeof(r->last), "%s", line);
			if (check && !r->would[0] && strstr(line, "would "))
				snprintf(r->would, sizeof(r->would), "%s", line);
			if (!check)
				fprintf(say, "    %s\n", shown(line));
		}
		fclose(in);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	return 0;
}

