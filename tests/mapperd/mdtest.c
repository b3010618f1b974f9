// SPDX-License-Identifier: GPL-2.0-or-later
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "mdtest.h"
#include "vmtest.h"

const char *mdt_mapperd, *mdt_mapctl;
bool mdt_no_fanotify;

int mdt_args(int argc, char **argv)
{
	REQUIRE(argc >= 3, "usage: %s MAPPERD MAPCTL [ARGS...]", argv[0]);
	mdt_mapperd = argv[1];
	mdt_mapctl = argv[2];
	return 3;
}

void mdt_write_config(const char *extra)
{
	FILE *f;

	mkdir(MDT_DIR, 0755);
	f = fopen(MDT_CONF, "w");
	REQUIRE(f, "%s: %s", MDT_CONF, strerror(errno));
	fprintf(f,
		"# written by the mapperd test\n"
		"filesystems = all\n"
		"metadata_interval = off\n"
		"media_interval = off\n"
		"random_delay = 0\n"
		"resume_delay = 0\n"
		"retry_delay = 2s\n"
		"dedup_window = 2s\n"
		"log_level = debug\n"
		/* The tests written for fanotify keep it on Linux 7.x too;
		 * mapperd_healthmon turns the monitor on (a later line wins). */
		"health_monitor = no\n"
		"database = " MDT_DB "\n"
		"control_socket = " MDT_SOCK "\n"
		"%s\n", extra ? extra : "");
	fclose(f);
}

static bool log_shown;

void mdt_show_log(void)
{
	log_shown = true;
	printf("---- mapperd log (%s, the last 300 lines) ----\n", MDT_LOG);
	fflush(stdout);
	if (system("tail -n 300 " MDT_LOG) != 0) {
		/* nothing to show */
	}
	printf("---- end of the log ----\n");
	fflush(stdout);
}

static int connect_sock(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", MDT_SOCK);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int mdt_request(const char *line, char *reply, size_t len)
{
	size_t got = 0;
	int fd = connect_sock();

	reply[0] = '\0';
	if (fd < 0)
		return -1;
	if (write(fd, line, strlen(line)) < 0 || write(fd, "\n", 1) != 1) {
		close(fd);
		return -1;
	}
	for (;;) {
		ssize_t n = read(fd, reply + got, len - 1 - got);

		if (n <= 0)
			break;
		got += (size_t)n;
		reply[got] = '\0';
		/* done when the last complete line is a final one */
		if (got && reply[got - 1] == '\n') {
			char *start = reply + got - 1;

			while (start > reply && start[-1] != '\n')
				start--;
			if (!strncmp(start, "ok", 2) || !strncmp(start, "error:", 6)) {
				close(fd);
				return start[0] == 'o' ? 0 : 1;
			}
		}
		if (got >= len - 1)
			break;
	}
	close(fd);
	return -1;
}

pid_t mdt_ask_async(const char *line, const char *want)
{
	static char reply[1 << 20];
	pid_t pid = fork();

	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		int rc = mdt_request(line, reply, sizeof(reply));

		printf("  %s -> %.300s%s", line, reply[0] ? reply : "(nothing)\n",
		       strlen(reply) > 300 ? " ...\n" : "");
		fflush(stdout);
		if (rc < 0)
			_exit(2);
		if (want && !strstr(reply, want))
			_exit(3);
		_exit(rc == 0 ? 0 : 1);
	}
	return pid;
}

int mdt_request_as(uid_t uid, gid_t gid, gid_t extra_gid, const char *line, char *reply,
		   size_t len)
{
	int pipefd[2];
	pid_t pid;

	REQUIRE(pipe(pipefd) == 0, "pipe: %s", strerror(errno));
	pid = fork();
	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		char buf[65536];
		gid_t groups[1] = { extra_gid };

		close(pipefd[0]);
		if (setgroups(extra_gid == (gid_t)-1 ? 0 : 1, groups) != 0 || setgid(gid) != 0 ||
		    setuid(uid) != 0 || getuid() != uid)
			_exit(99);
		int rc = mdt_request(line, buf, sizeof(buf));
		if (write(pipefd[1], buf, strlen(buf)) < 0)
			_exit(98);
		_exit(rc == 0 ? 0 : rc == 1 ? 1 : 2);
	}
	close(pipefd[1]);
	size_t got = 0;
	ssize_t n;
	while ((n = read(pipefd[0], reply + got, len - 1 - got)) > 0)
		got += (size_t)n;
	reply[got] = '\0';
	close(pipefd[0]);
	int st;
	waitpid(pid, &st, 0);
	REQUIRE(WIFEXITED(st) && WEXITSTATUS(st) <= 2, "child as uid %u failed (status %#x)",
		(unsigned int)uid, st);
	return WEXITSTATUS(st) == 0 ? 0 : WEXITSTATUS(st) == 1 ? 1 : -1;
}

/* A test that stops early still shows what the daemon said. */
static void show_log_at_exit(void)
{
	if (!log_shown)
		mdt_show_log();
}

pid_t mdt_start(const char *wrapper)
{
	static bool registered;
	char reply[65536];
	pid_t pid;

	if (!registered)
		atexit(show_log_at_exit);
	registered = true;
	unlink(MDT_SOCK);
	pid = fork();
	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		int fd = open(MDT_LOG, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

		if (fd < 0)
			_exit(127);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		if (wrapper) {
			char cmd[8192];

			snprintf(cmd, sizeof(cmd), "exec %s %s --config %s", wrapper, mdt_mapperd,
				 MDT_CONF);
			execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		} else {
			execl(mdt_mapperd, "mapperd", "--config", MDT_CONF, (char *)NULL);
		}
		_exit(127);
	}
	printf("started mapperd%s%s (pid %d)\n", wrapper ? " under " : "", wrapper ? wrapper : "",
	       (int)pid);
	fflush(stdout);
	double t0 = tl_mono();
	while (tl_mono() - t0 < 120) {
		int st;

		if (mdt_request("status", reply, sizeof(reply)) == 0)
			return pid;
		if (waitpid(pid, &st, WNOHANG) == pid) {
			mdt_show_log();
			REQUIRE(0, "mapperd exited at start (status %#x)", st);
		}
		tl_sleep(0.05);
	}
	mdt_show_log();
	REQUIRE(0, "mapperd did not answer on %s within 120 s", MDT_SOCK);
	return -1;
}

int mdt_stop(pid_t pid)
{
	int st;

	kill(pid, SIGTERM);
	REQUIRE(waitpid(pid, &st, 0) == pid, "waitpid: %s", strerror(errno));
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

void mdt_kill9(pid_t pid)
{
	int st;

	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
}

long long mdt_status_number(const char *key)
{
	static char reply[1 << 20];
	const char *p;

	if (mdt_request("status json", reply, sizeof(reply)) != 0)
		return -1;
	p = strstr(reply, key);
	return p ? strtoll(p + strlen(key), NULL, 10) : -1;
}

double mdt_wait_dirindex(double timeout)
{
	double t0 = tl_mono();

	do {
		if (mdt_status_number("\"ready\":") + mdt_status_number("\"unneeded\":") >= 1)
			return tl_mono() - t0;
		tl_sleep(0.05);
	} while (tl_mono() - t0 < timeout);
	return -1;
}

double mdt_wait_watched(const char *mountpoint, bool present, double timeout)
{
	static char reply[1 << 20];
	char want[4200];
	double t0 = tl_mono();

	/* status json lists each filesystem as {"fs_uuid":..,"mountpoint":"M",...,"fanotify":true,
	 * "health_monitor":"on"}: either source will do */
	snprintf(want, sizeof(want), "\"mountpoint\":\"%s\"", mountpoint);
	while (tl_mono() - t0 < timeout) {
		if (mdt_request("status json", reply, sizeof(reply)) == 0) {
			const char *p = strstr(reply, want);
			const char *fan = p ? strstr(p, "\"fanotify\":") : NULL;

			if (!present && !p)
				return tl_mono() - t0;
			const char *hm = p ? strstr(p, "\"health_monitor\":") : NULL;

			if (present && hm && !strncmp(hm, "\"health_monitor\":\"on\"", 21))
				return tl_mono() - t0;
			if (present && fan &&
			    (mdt_no_fanotify || !strncmp(fan, "\"fanotify\":true", 15)))
				return tl_mono() - t0;
		}
		tl_sleep(0.02);
	}
	return -1;
}

struct find_ctx {
	bool (*match)(const struct map_finding *f, void *arg);
	void *arg;
	struct map_finding *out;
	int count;
};

static int on_finding(const struct map_finding *f, void *arg)
{
	struct find_ctx *c = arg;

	if (!c->match(f, c->arg))
		return 0;
	c->count++;
	if (c->out && c->count == 1) {
		*c->out = *f;
		c->out->paths = NULL;
		c->out->npaths = 0;
		for (size_t i = 0; i < f->npaths; i++)
			map_finding_add_path(c->out, f->paths[i]);
	}
	return 0;
}

/* Count the matching findings through @st, or a connection of its own
 * when @st is NULL. */
static int scan_findings(struct find_ctx *c, struct map_store *st)
{
	struct map_store *own = NULL;

	c->count = 0;
	if (!st && map_store_open(MDT_DB, MAP_STORE_READONLY, &own) != 0)
		return -1;
	int rc = map_store_findings(st ? st : own, 0, MAP_FIND_ALL, on_finding, c);
	if (own)
		map_store_close(own);
	return rc ? -1 : c->count;
}

/*
 * Each commit writes the database's write-ahead log: look again when it
 * changes (so a latency is measured to within a scan of the table, not to
 * within a polling interval), and at least every 20 ms.  One connection
 * serves the whole wait (each query sees the latest commit): opening the
 * database for every look cost milliseconds in the guest, which were
 * counted as the daemon's.
 */
double mdt_wait_finding_on(struct map_store *held,
			   bool (*match)(const struct map_finding *f, void *arg), void *arg,
			   double since, double timeout, struct map_finding *out)
{
	struct find_ctx c = { match, arg, out, 0 };
	int ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	struct map_store *st = held;
	double found = -1;

	if (ifd >= 0 && inotify_add_watch(ifd, MDT_DIR, IN_MODIFY | IN_CREATE | IN_MOVED_TO) < 0) {
		close(ifd);
		ifd = -1;
	}
	if (out)
		map_finding_init(out);
	while (tl_mono() - since < timeout) {
		if (!st && map_store_open(MDT_DB, MAP_STORE_READONLY, &st) != 0)
			st = NULL;	/* not made yet: try again */
		if (st && scan_findings(&c, st) > 0) {
			found = tl_mono() - since;
			break;
		}
		if (ifd < 0) {
			tl_sleep(0.02);
			continue;
		}
		struct pollfd pfd = { .fd = ifd, .events = POLLIN };
		char buf[4096];

		if (poll(&pfd, 1, 20) > 0)
			while (read(ifd, buf, sizeof(buf)) > 0)
				;
		tl_sleep(0.001);	/* our own reads may touch the files too */
	}
	if (ifd >= 0)
		close(ifd);
	if (st && st != held)
		map_store_close(st);
	return found;
}

double mdt_wait_finding(bool (*match)(const struct map_finding *f, void *arg), void *arg,
			double since, double timeout, struct map_finding *out)
{
	return mdt_wait_finding_on(NULL, match, arg, since, timeout, out);
}

int mdt_count_findings(bool (*match)(const struct map_finding *f, void *arg), void *arg)
{
	struct find_ctx c = { match, arg, NULL, 0 };

	return scan_findings(&c, NULL);
}

static int count_event(const struct map_event *e, void *arg)
{
	void **a = arg;

	if (!strcmp(map_event_source_name(e->source), (const char *)a[0]))
		(*(int *)a[1])++;
	return 0;
}

int mdt_count_events(const char *source)
{
	struct map_store *st;
	int n = 0;
	void *a[2] = { (void *)source, &n };

	if (map_store_open(MDT_DB, MAP_STORE_READONLY, &st) != 0)
		return -1;
	map_store_events(st, 0, count_event, a);
	map_store_close(st);
	return n;
}

struct ev_find {
	const char *source, *needle;
	int n;
};

static int find_event(const struct map_event *e, void *arg)
{
	struct ev_find *c = arg;

	const char *source = map_event_source_name(e->source);

	if (strcmp(source, c->source))
		return 0;
	printf("event %s: %s\n", source, e->detail);
	c->n += strstr(e->detail, c->needle) != NULL;
	return 0;
}

int mdt_count_events_with(const char *source, const char *needle)
{
	struct ev_find c = { .source = source, .needle = needle };
	struct map_store *st;

	if (map_store_open(MDT_DB, MAP_STORE_READONLY, &st) != 0)
		return -1;
	map_store_events(st, 0, find_event, &c);
	map_store_close(st);
	return c.n;
}

bool mdt_status_is(const char *mnt, const char *key, const char *want)
{
	const char *v = mdt_status_field(mnt, key);

	return v && !strncmp(v, want, strlen(want));
}

void mdt_fd_show(pid_t pid)
{
	tl_sh("ls -l /proc/%d/fd | sed 1d | awk '{print $9, $10, $11}'", (int)pid);
}

int mdt_fd_count(pid_t pid)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int n = 0;

	tl_sleep(0.5);	/* our last request's connection is closed by then */
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

long mdt_rss_kib(pid_t pid)
{
	char path[64], line[256];
	long kib = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

const char *mdt_status_field(const char *mnt, const char *key)
{
	static char reply[1 << 20];
	char want[128], k[64];
	const char *p;

	if (mdt_request("status json", reply, sizeof(reply)) != 0)
		return NULL;
	snprintf(want, sizeof(want), "\"mountpoint\":\"%s\"", mnt);
	snprintf(k, sizeof(k), "\"%s\":", key);
	p = strstr(reply, want);
	p = p ? strstr(p, k) : NULL;
	return p ? p + strlen(k) : NULL;
}
