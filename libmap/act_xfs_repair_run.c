// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Running xfs_repair for mapctl repair --offline.  mapctl forks a watcher
 * that starts a session of its own (signals for mapctl's terminal or process
 * group do not reach it), waits until mapctl has recorded the start, checks
 * that the device node still names the device mapctl checked, and runs
 * xfs_repair with its output in a log file.  When xfs_repair ends the
 * watcher writes its exit status to a status file, whether mapctl still
 * waits or was killed meanwhile; a later mapctl reads it from there.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "act_xfs_repair_run.h"

/* How long mapctl sleeps when the log has nothing new: what people see is
 * at most this late. */
#define FOLLOW_NS (100 * 1000 * 1000)

/* Our own file: refuse anything planted under its name where others may
 * write (a --db in a shared folder), a hard link to root's file included,
 * which would be truncated. */
static int own_file(int fd)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_nlink != 1 || (st.st_uid != 0 && st.st_uid != geteuid()))
		return -EPERM;
	return 0;
}

unsigned long long proc_start_time(pid_t pid)
{
	char path[64], buf[1024];
	unsigned long long start = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* "PID (COMM) STATE ..." where COMM may hold anything: after its last ')' */
	char *p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X')
		return 0;
	p += 2;
	/* fields 3 (state) to 21, then 22: starttime */
	for (int field = 3; field < 22 && p; field++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p || sscanf(p, "%llu", &start) != 1)
		return 0;
	return start;
}

int xfs_repair_status(const char *status, pid_t pid, int *exit_status)
{
	char buf[64];
	int fd = open(status, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	int got_pid, code;
	ssize_t n;

	if (fd < 0)
		return -ENOENT;
	if (own_file(fd) != 0) {
		close(fd);
		return -ENOENT;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -ENOENT;
	buf[n] = '\0';
	if (sscanf(buf, "pid %d exit %d", &got_pid, &code) != 2 || got_pid != (int)pid)
		return -ENOENT;
	*exit_status = code;
	return 0;
}

/* In the watcher: the status file, written whole under another name and
 * renamed, so that a reader sees all of it or nothing. */
static void write_status(const char *status, int code)
{
	char tmp[4200];
	int fd;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", status) >= (int)sizeof(tmp))
		return;
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	dprintf(fd, "pid %d exit %d\n", (int)getpid(), code);
	fsync(fd);
	close(fd);
	rename(tmp, status);
}

/* The watcher: never returns. */
static void __attribute__((noreturn))
watch(const struct xfs_repair_job *job, int go, int log)
{
	struct stat st;
	int status, code, fd;
	pid_t pid;
	char c;

	setsid();
	/* Nothing of mapctl's terminal or pipes: a reader of mapctl's output
	 * is not kept waiting for xfs_repair, nor xfs_repair for it. */
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || dup2(fd, STDIN_FILENO) < 0 || dup2(log, STDOUT_FILENO) < 0 ||
	    dup2(log, STDERR_FILENO) < 0)
		_exit(XFS_REPAIR_NOT_STARTED);
	if (fd > STDERR_FILENO)
		close(fd);
	if (read(go, &c, 1) != 1)
		_exit(XFS_REPAIR_NOT_STARTED);	/* mapctl did not record the start */
	close(go);
	/* The node must still be the device mapctl checked and wrote to. */
	fd = open(job->device, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISBLK(st.st_mode) || st.st_rdev != job->rdev) {
		dprintf(STDERR_FILENO, "mapctl: %s is no longer the device that was checked; "
			"xfs_repair not run\n", job->device);
		write_status(job->status, XFS_REPAIR_DEVICE_GONE);
		_exit(XFS_REPAIR_DEVICE_GONE);
	}
	close(fd);
	pid = fork();
	if (pid == 0) {
		if (job->check)
			execlp("xfs_repair", "xfs_repair", "-n", job->device, (char *)NULL);
		else
			execlp("xfs_repair", "xfs_repair", job->device, (char *)NULL);
		dprintf(STDERR_FILENO, "cannot run xfs_repair: %s\n", strerror(errno));
		_exit(XFS_REPAIR_NO_EXEC);
	}
	if (pid < 0) {
		dprintf(STDERR_FILENO, "mapctl: cannot start xfs_repair: %s\n", strerror(errno));
		code = XFS_REPAIR_NO_EXEC;
	} else {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	}
	write_status(job->status, code);
	_exit(code & 0xff);
}

/* One line of output (cut at REPAIR_LINE): what it tells, passed on. */
static void take_line(const struct xfs_repair_job *job, struct xfs_repair_result *r, char *line)
{
	line[strcspn(line, "\n")] = '\0';
	if (strstr(line, "moving to lost+found"))
		r->moved++;
	if (line[strspn(line, " \t-")])
		snprintf(r->last, sizeof(r->last), "%s", line);
	if (job->check && !r->would[0] && strstr(line, "would "))
		snprintf(r->would, sizeof(r->would), "%s", line);
	if (!job->check && job->line)
		job->line(line, job->arg);
}

/* Pass on what the log holds past *pos; a line not ended yet waits in
 * @part (unless it fills it, or @all). */
static void follow(const struct xfs_repair_job *job, struct xfs_repair_result *r, int log,
		   off_t *pos, char *part, size_t *plen, bool all)
{
	char buf[4096];
	ssize_t n;

	while ((n = pread(log, buf, sizeof(buf), *pos)) > 0) {
		*pos += n;
		for (ssize_t i = 0; i < n; i++) {
			part[(*plen)++] = buf[i];
			if (buf[i] == '\n' || *plen == REPAIR_LINE - 1) {
				part[*plen] = '\0';
				take_line(job, r, part);
				*plen = 0;
			}
		}
	}
	if (all && *plen) {
		part[*plen] = '\0';
		take_line(job, r, part);
		*plen = 0;
	}
}

int run_xfs_repair(const struct xfs_repair_job *job, struct xfs_repair_result *r)
{
	char part[REPAIR_LINE];
	size_t plen = 0;
	off_t pos = 0;
	int go[2], log, status, rc;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->status = -1;		/* not run */
	log = open(job->log, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (log < 0)
		return -errno;
	rc = own_file(log);
	if (rc == 0 && ftruncate(log, 0) != 0)
		rc = -errno;
	if (rc == 0 && unlink(job->status) != 0 && errno != ENOENT)
		rc = -errno;
	if (rc == 0 && pipe2(go, O_CLOEXEC) != 0)
		rc = -errno;
	if (rc) {
		close(log);
		return rc;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		watch(job, go[0], log);
	}
	close(go[0]);
	if (pid < 0) {
		rc = -errno;
		close(go[1]);
		close(log);
		return rc;
	}
	rc = job->started ? job->started(pid, proc_start_time(pid), job->arg) : 0;
	if (rc == 0 && write(go[1], "g", 1) != 1)
		rc = -errno;
	close(go[1]);	/* without the byte, the watcher ends without running it */
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w < 0 && errno != EINTR) {
			if (rc == 0)
				rc = -errno;
			break;
		}
		follow(job, r, log, &pos, part, &plen, w == pid);
		if (w == pid) {
			r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
			break;
		}
		nanosleep(&(struct timespec){ 0, FOLLOW_NS }, NULL);
	}
	close(log);
	return rc;
}
