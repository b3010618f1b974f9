// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Running the hooks, in the main thread, without ever waiting for one: each
 * hook is spawned (posix_spawn) in a process group of its own, and the epoll
 * loop watches its pidfd (exit), its output pipe and one timerfd for the
 * timeouts.  One notification at a time: its hooks start in name order, at
 * most MAX_RUNNING at once; the next notification starts when all of them
 * have ended.  Its findings file lives in STATE/notify until then.
 * Where pidfd_open() is refused (valgrind, a seccomp filter) the timer
 * polls the hooks' exits instead, every POLL_SECS.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon.h"
#include "log.h"
#include "notify_run.h"

#ifndef MAPPER_VERSION
#define MAPPER_VERSION "0"
#endif

/* Hooks of one notification running at once: a mail and a pager in
 * parallel, without a directory of hooks forking a crowd. */
#define MAX_RUNNING 4
/* Output kept per hook for the log: a mail client's complaint fits; a
 * hook that writes more is cut (and the cut is said). */
#define OUTPUT_MAX 4096
/* From SIGTERM to SIGKILL: time to clean up, not to carry on. */
#define KILL_GRACE_SECS 5.0
/* How often exits are polled without a pidfd: a hook's end is logged, and
 * the next starts, a moment later; waitpid(WNOHANG) costs nothing. */
#define POLL_SECS 0.2

struct hook_run {
	bool used;
	pid_t pid;
	char name[NAME_MAX + 1];
	struct md_watch exit_w;		/* pidfd; -1: polled (POLL_SECS) */
	struct md_watch out_w;		/* read end of stdout+stderr, -1 once closed */
	double deadline;		/* md_mono(): the next signal is due */
	int stage;			/* 0 running, 1 SIGTERM sent, 2 SIGKILL sent */
	char out[OUTPUT_MAX];
	size_t outlen;
	uint64_t cut;			/* bytes of output not kept */
	double started;
};

struct md_notifier {
	struct md_watch wake;		/* eventfd: notifications wait */
	struct md_watch timer;		/* timerfd: a deadline passed */
	struct md_notification *active;
	struct md_hook_list hooks;
	size_t next_hook;
	int running;
	char json_path[PATH_MAX + 64];
	unsigned long seq;
	struct hook_run runs[MAX_RUNNING];
};

static struct md_notifier *notifier;

/* ---- output ---- */

static void read_output(struct hook_run *h)
{
	char buf[1024];

	for (;;) {
		ssize_t n = read(h->out_w.fd, buf, sizeof(buf));

		if (n <= 0)
			return;
		size_t keep = OUTPUT_MAX - h->outlen < (size_t)n ? OUTPUT_MAX - h->outlen : (size_t)n;
		memcpy(h->out + h->outlen, buf, keep);
		h->outlen += keep;
		h->cut += (size_t)n - keep;
	}
}

static void close_output(struct md_daemon *d, struct hook_run *h)
{
	if (h->out_w.fd < 0)
		return;
	md_watch_del(d, &h->out_w);
	close(h->out_w.fd);
	h->out_w.fd = -1;
}

static void output_ready(struct md_daemon *d, struct md_watch *w, uint32_t events)
{
	struct hook_run *h = w->arg;

	read_output(h);
	if (events & (EPOLLHUP | EPOLLERR))
		close_output(d, h);
}

/* The output, line by line, into the log (control characters shown as '?'). */
static void log_output(const struct hook_run *h, const char *event)
{
	size_t start = 0;

	for (size_t i = 0; i <= h->outlen; i++) {
		if (i < h->outlen && h->out[i] != '\n')
			continue;
		if (i > start) {
			char line[OUTPUT_MAX + 1];
			size_t len = i - start;

			for (size_t k = 0; k < len; k++) {
				unsigned char c = (unsigned char)h->out[start + k];

				line[k] = c < 0x20 || c == 0x7f ? '?' : (char)c;
			}
			line[len] = '\0';
			log_info("notify: %s (%s): %s", h->name, event, line);
		}
		start = i + 1;
	}
	if (h->cut)
		log_info("notify: %s (%s): %" PRIu64 " more bytes of output not kept", h->name,
			 event, h->cut);
}

/* ---- timeouts ---- */

static void arm_timer(struct md_notifier *nt)
{
	static const struct itimerspec off;
	double next = 0;

	for (int i = 0; i < MAX_RUNNING; i++) {
		const struct hook_run *h = &nt->runs[i];

		if (!h->used)
			continue;
		if (h->stage < 2 && (next == 0 || h->deadline < next))
			next = h->deadline;
		if (h->exit_w.fd < 0 && (next == 0 || md_mono() + POLL_SECS < next))
			next = md_mono() + POLL_SECS;
	}
	if (next > 0) {
		double now = md_mono();

		/* a deadline already past: again in a millisecond, not at once */
		md_timer_in(nt->timer.fd, next > now ? next - now : 0.001);
	} else {
		timerfd_settime(nt->timer.fd, 0, &off, NULL);
	}
}

static void reap(struct md_daemon *d, struct md_notifier *nt, struct hook_run *h, int status);
static void pump(struct md_daemon *d);

static void timer_ready(struct md_daemon *d, struct md_watch *w, uint32_t events)
{
	struct md_notifier *nt = w->arg;
	uint64_t v;
	double now = md_mono();
	bool reaped = false;

	(void)events;
	if (read(w->fd, &v, sizeof(v)) < 0) {
		/* spurious */
	}
	for (int i = 0; i < MAX_RUNNING; i++) {
		struct hook_run *h = &nt->runs[i];
		int status = 0;

		if (h->used && h->exit_w.fd < 0 && waitpid(h->pid, &status, WNOHANG) == h->pid) {
			reap(d, nt, h, status);
			reaped = true;
		}
	}
	for (int i = 0; i < MAX_RUNNING; i++) {
		struct hook_run *h = &nt->runs[i];

		if (!h->used || h->stage >= 2 || h->deadline > now)
			continue;
		if (h->stage == 0) {
			log_warn("notify: %s (%s) still runs after %.0f s: SIGTERM", h->name,
				 md_notify_event_name(nt->active->event), now - h->started);
			kill(-h->pid, SIGTERM);
			h->deadline = now + KILL_GRACE_SECS;
		} else {
			log_warn("notify: %s (%s) ignored SIGTERM: SIGKILL", h->name,
				 md_notify_event_name(nt->active->event));
			kill(-h->pid, SIGKILL);
		}
		h->stage++;
	}
	arm_timer(nt);
	if (reaped)
		pump(d);
}

/* ---- one notification ---- */

static void refused(const char *name, const char *why, void *arg)
{
	const char *dir = arg;

	log_warn("notify: hook %s/%s not run: it %s", dir, name, why);
}

static int count_open(struct md_daemon *d, const char *uuid)
{
	int counts[MAP_STATE_NR];
	struct md_fs *fs = md_fs_by_uuid(d, uuid);

	if (!d->st || !fs || !fs->fs_id || map_store_count(d->st, fs->fs_id, counts) != 0)
		return -1;
	return map_counts_open(counts);
}

/* The findings file of the active notification, mode 0600 in STATE/notify. */
static int write_json(struct md_daemon *d, struct md_notifier *nt)
{
	char dir[PATH_MAX], *text = NULL;
	size_t len = 0;
	int fd, rc;

	if (snprintf(dir, sizeof(dir), "%s/notify", d->cfg.state_directory) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	rc = map_dir_ensure(dir, 0700);
	if (rc)
		return rc;
	snprintf(nt->json_path, sizeof(nt->json_path), "%s/findings-%d-%lu.json", dir,
		 (int)getpid(), ++nt->seq);
	rc = md_notification_json(nt->active, &text, &len);
	if (rc)
		return rc;
	unlink(nt->json_path);	/* one left by a daemon killed before */
	fd = open(nt->json_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		rc = -errno;
	} else {
		for (size_t off = 0; off < len && rc == 0;) {
			ssize_t n = write(fd, text + off, len - off);

			if (n < 0)
				rc = -errno;
			else
				off += (size_t)n;
		}
		if (close(fd) != 0 && rc == 0)
			rc = -errno;
	}
	free(text);
	if (rc)
		unlink(nt->json_path);
	return rc;
}

/* Take the next notification and find its hooks; false when none waits. */
static bool begin_next(struct md_daemon *d, struct md_notifier *nt)
{
	for (;;) {
		struct md_notification *n = md_notify_take();
		const char *why;
		int rc;

		if (!n)
			return false;
		if (!d->cfg.notify_directory[0]) {
			md_notification_free(n);
			continue;
		}
		rc = md_notify_list_hooks(d->cfg.notify_directory, 0, &nt->hooks, &why, refused,
					  d->cfg.notify_directory);
		if (rc == -ENOENT) {
			log_debug("notify: no directory %s: %s not told", d->cfg.notify_directory,
				  md_notify_event_name(n->event));
			md_notification_free(n);
			continue;
		}
		if (rc) {
			log_warn("notify: hook directory %s %s (%s): no hooks run for %s",
				 d->cfg.notify_directory, why, map_strerror(rc),
				 md_notify_event_name(n->event));
			md_notification_free(n);
			continue;
		}
		if (nt->hooks.n == 0) {
			md_notification_free(n);
			continue;
		}
		if (n->open_findings < 0)
			n->open_findings = count_open(d, n->uuid);
		nt->active = n;
		nt->next_hook = 0;
		rc = write_json(d, nt);
		if (rc) {
			log_err("notify: findings file %s: %s", nt->json_path, map_strerror(rc));
			nt->json_path[0] = '\0';
		}
		log_info("notify: %s %s %s: %zu hook%s", md_notify_event_name(n->event), n->uuid,
			 n->mountpoint, nt->hooks.n, nt->hooks.n == 1 ? "" : "s");
		return true;
	}
}

static void end_active(struct md_notifier *nt)
{
	if (nt->json_path[0])
		unlink(nt->json_path);
	nt->json_path[0] = '\0';
	md_notification_free(nt->active);
	nt->active = NULL;
}

/* ---- one hook ---- */

static void exit_ready(struct md_daemon *d, struct md_watch *w, uint32_t events);

static int spawn(struct md_daemon *d, struct md_notifier *nt, struct hook_run *h,
		 const char *name)
{
	char path[PATH_MAX * 2], envbuf[PATH_MAX * 3 + 1200], *envp[MD_NOTIFY_ENV_MAX];
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, all;
	int pipefd[2], rc;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s", d->cfg.notify_directory, name);
	rc = md_notify_build_env(nt->active, nt->json_path, MAPPER_VERSION, envbuf, sizeof(envbuf),
				 envp, MD_NOTIFY_ENV_MAX);
	if (rc < 0)
		return rc;
	if (pipe2(pipefd, O_CLOEXEC | O_NONBLOCK) != 0)
		return -errno;
	/* The hook's end blocks as usual; only ours is non-blocking. */
	fcntl(pipefd[1], F_SETFL, 0);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	posix_spawn_file_actions_addchdir_np(&fa, "/");
	posix_spawnattr_init(&at);
	sigemptyset(&none);
	sigfillset(&all);
	/* The daemon blocks its signals (signalfd) and ignores SIGPIPE. */
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &all);
	posix_spawnattr_setpgroup(&at, 0);	/* its own group: killed as a whole */
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
				 POSIX_SPAWN_SETPGROUP);
	char *argv[] = { path, NULL };
	rc = -posix_spawn(&pid, path, &fa, &at, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(pipefd[1]);
	if (rc) {
		close(pipefd[0]);
		return rc;
	}
	memset(h, 0, sizeof(*h));
	h->used = true;
	h->pid = pid;
	snprintf(h->name, sizeof(h->name), "%s", name);
	h->started = md_mono();
	h->deadline = h->started + (double)d->cfg.notify_timeout / 1000;
	h->out_w = (struct md_watch){ .fd = pipefd[0], .ready = output_ready, .arg = h };
	h->exit_w = (struct md_watch){ .fd = pidfd_open(pid, 0), .ready = exit_ready, .arg = h };
	if (h->exit_w.fd >= 0 && md_watch_add(d, &h->exit_w, EPOLLIN) != 0) {
		close(h->exit_w.fd);
		h->exit_w.fd = -1;
	}
	if (h->exit_w.fd < 0)
		log_debug("notify: no pidfd for %s (%s): its exit is polled", name,
			  map_strerror(errno));
	if (md_watch_add(d, &h->out_w, EPOLLIN) != 0) {
		close(pipefd[0]);
		h->out_w.fd = -1;
	}
	nt->running++;
	log_debug("notify: %s (%s) started, pid %d", name, md_notify_event_name(nt->active->event),
		  (int)pid);
	return 0;
}

static void reap(struct md_daemon *d, struct md_notifier *nt, struct hook_run *h, int status)
{
	const char *event = md_notify_event_name(nt->active->event);
	double took = md_mono() - h->started;

	if (h->out_w.fd >= 0) {
		read_output(h);		/* what it wrote before it ended */
		close_output(d, h);
	}
	if (h->exit_w.fd >= 0) {
		md_watch_del(d, &h->exit_w);
		close(h->exit_w.fd);
	}
	log_output(h, event);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		log_info("notify: %s (%s) done in %.1f s", h->name, event, took);
	else if (WIFEXITED(status))
		log_warn("notify: %s (%s) failed: exit status %d", h->name, event,
			 WEXITSTATUS(status));
	else
		log_warn("notify: %s (%s) %s by signal %d after %.1f s", h->name, event,
			 h->stage ? "killed at notify_timeout" : "killed", WTERMSIG(status), took);
	h->used = false;
	nt->running--;
}

static void exit_ready(struct md_daemon *d, struct md_watch *w, uint32_t events)
{
	struct hook_run *h = w->arg;
	int status = 0;

	(void)events;
	if (waitpid(h->pid, &status, WNOHANG) != h->pid)
		return;
	reap(d, notifier, h, status);
	arm_timer(notifier);
	pump(d);
}

/* Start what may start; move to the next notification when one is done. */
static void pump(struct md_daemon *d)
{
	struct md_notifier *nt = notifier;

	while (!d->stopping) {
		if (!nt->active && !begin_next(d, nt))
			return;
		while (nt->running < MAX_RUNNING && nt->next_hook < nt->hooks.n) {
			const char *name = nt->hooks.names[nt->next_hook++];
			struct hook_run *h = NULL;

			for (int i = 0; i < MAX_RUNNING && !h; i++)
				if (!nt->runs[i].used)
					h = &nt->runs[i];
			int rc = spawn(d, nt, h, name);
			if (rc)
				log_err("notify: %s/%s cannot be run: %s", d->cfg.notify_directory,
					name, map_strerror(rc));
		}
		arm_timer(nt);
		if (nt->running > 0)
			return;
		end_active(nt);
	}
}

static void wake_ready(struct md_daemon *d, struct md_watch *w, uint32_t events)
{
	uint64_t v;

	(void)events;
	/* Cleared even while hooks run (the loop would spin on it); what
	 * waits is taken when they end. */
	if (read(w->fd, &v, sizeof(v)) < 0) {
		/* nothing to clear */
	}
	if (!notifier->active)
		pump(d);
}

/* ---- life cycle ---- */

int md_notify_start(struct md_daemon *d)
{
	struct md_notifier *nt = calloc(1, sizeof(*nt));
	int rc;

	if (!nt)
		return -ENOMEM;
	nt->timer.fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (nt->timer.fd < 0) {
		rc = -errno;
		free(nt);
		return rc;
	}
	nt->timer.ready = timer_ready;
	nt->timer.arg = nt;
	nt->wake.fd = md_notify_open_queue();
	nt->wake.ready = wake_ready;
	nt->wake.arg = nt;
	rc = nt->wake.fd < 0 ? nt->wake.fd : md_watch_add(d, &nt->timer, EPOLLIN);
	if (rc == 0) {
		rc = md_watch_add(d, &nt->wake, EPOLLIN);
		if (rc)
			md_watch_del(d, &nt->timer);
	}
	if (rc) {
		md_notify_close_queue();
		close(nt->timer.fd);
		free(nt);
		return rc;
	}
	notifier = nt;
	return 0;
}

void md_notify_stop(struct md_daemon *d)
{
	struct md_notifier *nt = notifier;
	size_t dropped;

	if (!nt)
		return;
	md_watch_del(d, &nt->wake);
	dropped = md_notify_close_queue();	/* closes the eventfd */
	for (int i = 0; i < MAX_RUNNING; i++) {
		struct hook_run *h = &nt->runs[i];
		int status = 0;

		if (!h->used)
			continue;
		log_notice("notify: stopping: %s killed", h->name);
		kill(-h->pid, SIGKILL);
		if (waitpid(h->pid, &status, 0) == h->pid)
			reap(d, nt, h, status);
	}
	if (nt->active)
		dropped++;
	end_active(nt);
	if (dropped)
		log_notice("notify: stopping: %zu notification%s not told", dropped,
			   dropped == 1 ? "" : "s");
	md_watch_del(d, &nt->timer);
	close(nt->timer.fd);
	free(nt);
	notifier = NULL;
}
