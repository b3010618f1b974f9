// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench_measure: run a command and report its cost.
 *
 * Usage: bench_measure OUTFILE COMMAND [ARGS...]
 * Appends one line to OUTFILE: "wall_s user_s sys_s maxrss_kib exit_status",
 * and passes the command's own output through.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	int status;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: bench_measure OUTFILE COMMAND [ARGS...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) < 0) {
		perror("bench_measure");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	FILE *out = fopen(argv[1], "a");
	if (!out) {
		perror(argv[1]);
		return 2;
	}
	fprintf(out, "%.3f %.3f %.3f %ld %d\n",
		(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
		(double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
		(double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6, ru.ru_maxrss,
		WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	fclose(out);
	return 0;
}
