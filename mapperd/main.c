// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapperd: watch every mounted XFS filesystem, scan on a schedule and react
 * within a second to the errors the kernel reports.  One epoll loop in the
 * main thread; the event pipeline and the running scan have a thread each.
 */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "control.h"
#include "daemon.h"
#include "dbguard.h"
#include "discovery.h"
#include "fanotify_source.h"
#include "healthmon_source.h"
#include "journal_ids.h"
#include "kmsg_source.h"
#include "log.h"
#include "metrics_file.h"
#include "notify.h"
#include "pipeline.h"
#include "scheduler.h"
#include "sdnotify.h"

#ifndef MAPPER_VERSION
#define MAPPER_VERSION "0"
#endif

#define EXIT_ERROR 2

static const char usage_text[] =
	"Usage: mapperd [OPTIONS]\n"
	"\n"
	"The mapper service: finds the mounted XFS filesystems (and those mounted\n"
	"later), checks their metadata and media on a schedule, and turns the errors\n"
	"the kernel reports (fanotify FAN_FS_ERROR, kernel log) into findings that\n"
	"name the damaged files, within a second.  Runs in the foreground; logs to\n"
	"stderr with syslog priority prefixes (to the journal, with fields, when\n"
	"stderr is its stream).  SIGTERM stops at the next scan checkpoint, SIGHUP\n"
	"reads the configuration again.  Needs root.\n"
	"\n"
	"Options:\n"
	"  --config FILE     configuration file (default " MAPPERD_CONFIG_PATH ")\n"
	"  --db FILE         database (default: the configuration's, else $MAPPER_DB,\n"
	"                    else /var/lib/mapper/mapper.db)\n"
	"  --socket PATH     control socket (default: the configuration's, else\n"
	"                    " MAPPERD_SOCKET_PATH ")\n"
	"  --foreground      stay in the foreground (the default and only mode)\n"
	"  --check-config    read the configuration, print every key with the value\n"
	"                    in effect (defaults and --db/--socket included), and exit\n"
	"  --log-level L     err, warning, notice, info or debug (overrides log_level)\n"
	"  -h, --help        this text\n"
	"  -V, --version     print the version\n"
	"\n"
	"Exit status: 0 stopped by a signal, 2 could not start.  See mapperd(8).\n";

struct options {
	const char *config;
	bool config_given;
	const char *db;
	const char *socket;
	const char *log_level;
	bool check;
};

/* ---- configuration ---- */

static const char *config_path;
static bool config_must_exist;
static struct options cli;		/* command line overrides outlive reloads */

static void apply_overrides(struct md_config *c)
{
	if (cli.socket)
		snprintf(c->control_socket, sizeof(c->control_socket), "%s", cli.socket);
	if (cli.db)
		snprintf(c->database, sizeof(c->database), "%s", cli.db);
	if (cli.log_level)
		c->log_level = log_level_from_name(cli.log_level);
}

static void apply_sources(struct md_daemon *d)
{
	int rc;

	struct md_pipeline_conf pc = {
		.dedup_window_ms = d->cfg.dedup_window,
		.event_scans = d->cfg.event_scans,
		.read_limit = d->cfg.event_read_limit,
		.scan_interval_ms = d->cfg.event_scan_interval,
	};

	md_pipeline_configure(d->pipe, &pc);
	md_metrics_file_configure(d->cfg.metrics_file, d->cfg.metrics_interval);
	if (d->cfg.kmsg && !d->kmsg) {
		rc = md_kmsg_start(d);
		if (rc)
			log_warn("kernel log: cannot read /dev/kmsg: %s", map_strerror(rc));
	} else if (!d->cfg.kmsg && d->kmsg) {
		md_kmsg_stop(d);
	}
	for (struct md_fs *fs = d->fs_list; fs; fs = fs->next) {
		if (!d->cfg.health_monitor && fs->hmon.fd >= 0)
			md_healthmon_unwatch(d, fs);
		else if (d->cfg.health_monitor && fs->hmon.fd < 0 &&
			 md_healthmon_watch(d, fs) == 0)
			md_fanotify_unwatch(d, fs);	/* one source per filesystem */
		if (d->cfg.fanotify && fs->fan.fd < 0 && fs->hmon.fd < 0) {
			rc = md_fanotify_watch(d, fs);
			if (rc && rc != -EXDEV)	/* -EXDEV: said already */
				log_warn("%s %s: no fanotify error reports: %s", fs->uuid,
					 fs->mountpoint, map_strerror(rc));
		} else if (!d->cfg.fanotify && fs->fan.fd >= 0) {
			md_fanotify_unwatch(d, fs);
		}
		md_pipeline_track_dirs(d->pipe, fs->uuid, fs->mountpoint, d->cfg.directory_index);
	}
}

void md_reload(struct md_daemon *d)
{
	struct md_config c;
	char err[512];
	int rc = config_load(config_path, config_must_exist, &c, err, sizeof(err));

	if (rc) {
		log_err("configuration not reloaded: %s", err);
		return;
	}
	apply_overrides(&c);
	if (strcmp(c.database, d->cfg.database) != 0 ||
	    strcmp(c.control_socket, d->cfg.control_socket) != 0 ||
	    strcmp(c.state_directory, d->cfg.state_directory) != 0 ||
	    strcmp(c.metrics_file, d->cfg.metrics_file) != 0)
		log_warn("database, control_socket, state_directory and metrics_file changes take "
			 "effect at the next start");
	snprintf(c.database, sizeof(c.database), "%s", d->cfg.database);
	/* The pipeline's thread sleeps until a report when no file is set:
	 * nothing could wake it to write one named now. */
	snprintf(c.metrics_file, sizeof(c.metrics_file), "%s", d->cfg.metrics_file);
	snprintf(c.state_directory, sizeof(c.state_directory), "%s", d->cfg.state_directory);
	snprintf(c.control_socket, sizeof(c.control_socket), "%s", d->cfg.control_socket);
	config_free(&d->cfg);
	d->cfg = c;
	log_set_level(d->cfg.log_level);
	apply_sources(d);
	md_discovery_refresh(d);	/* the set of filesystems may have changed */
	md_sched_reconfigure(d);
	log_notice("configuration %s read again", d->cfg.path[0] ? d->cfg.path : "(defaults)");
}

/* ---- options ---- */

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "db", required_argument, NULL, 'd' },
		{ "socket", required_argument, NULL, 's' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "check-config", no_argument, NULL, 'C' },
		{ "log-level", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->config = MAPPERD_CONFIG_PATH;
	while ((c = getopt_long(argc, argv, "hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': o->config = optarg; o->config_given = true; break;
		case 'd': o->db = optarg; break;
		case 's': o->socket = optarg; break;
		case 'f': break;
		case 'C': o->check = true; break;
		case 'l': o->log_level = optarg; break;
		case 'h': fputs(usage_text, stdout); exit(0);
		case 'V': printf("mapperd %s\n", MAPPER_VERSION); exit(0);
		default:
			fprintf(stderr, "mapperd: see 'mapperd --help'\n");
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "mapperd: unexpected argument '%s' (see 'mapperd --help')\n",
			argv[optind]);
		return -EINVAL;
	}
	if (o->log_level && log_level_from_name(o->log_level) < 0) {
		fprintf(stderr, "mapperd: --log-level wants err, warning, notice, info or debug\n");
		return -EINVAL;
	}
	return 0;
}

/* ---- the loop ---- */

static void signal_ready(struct md_daemon *d, struct md_watch *w, uint32_t events)
{
	struct signalfd_siginfo si;

	(void)events;
	while (read(w->fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			md_reload(d);
		} else {
			log_notice("signal %d: stopping (a running scan stops at its next "
				   "checkpoint)", (int)si.ssi_signo);
			d->stopping = true;
		}
	}
}

static void requests_ready(struct md_daemon *d, struct md_watch *w, uint32_t events)
{
	struct md_scan_req req[8];
	size_t n;

	(void)w;
	(void)events;
	while ((n = md_pipeline_take_requests(d->pipe, req, 8)) > 0) {
		for (size_t i = 0; i < n; i++) {
			struct md_fs *fs = md_fs_by_uuid(d, req[i].uuid);
			char msg[256];

			if (fs && md_sched_request(d, fs, req[i].metadata, req[i].media,
						   "mapperd (event)", req[i].reason, msg,
						   sizeof(msg)) != 0)
				log_notice("%s %s: no scan: %s", fs->uuid, fs->mountpoint, msg);
		}
	}
}

static void run_loop(struct md_daemon *d)
{
	while (!d->stopping) {
		struct epoll_event ev;
		int timeout = md_sched_tick(d), db_timeout = md_db_tick(d);
		int status_timeout = md_sdnotify_tick(d);

		if (db_timeout >= 0 && (timeout < 0 || db_timeout < timeout))
			timeout = db_timeout;
		if (status_timeout >= 0 && (timeout < 0 || status_timeout < timeout))
			timeout = status_timeout;

		/* One event at a time: a handler may free another's watch. */
		int n = epoll_wait(d->epfd, &ev, 1, timeout);
		if (n < 0 && errno != EINTR) {
			log_err("epoll_wait: %s", map_strerror(errno));
			break;
		}
		if (n == 1) {
			struct md_watch *w = ev.data.ptr;

			w->ready(d, w, ev.events);
		}
	}
}

static void shutdown_all(struct md_daemon *d, sigset_t *mask)
{
	md_notify_stop(d);
	md_control_stop(d);
	md_sched_stop(d);
	md_pipeline_stop(d->pipe);
	d->pipe = NULL;
	md_kmsg_stop(d);
	md_discovery_stop(d);
	map_store_close(d->st);
	config_free(&d->cfg);
	if (d->sig.fd >= 0)
		close(d->sig.fd);
	if (d->epfd >= 0)
		close(d->epfd);
	sigprocmask(SIG_UNBLOCK, mask, NULL);
}

/* Options and configuration: 0 to go on, else the exit status to return
 * (--check-config, bad input, not root). */
static int configure(int argc, char **argv, struct md_daemon *d, bool *done)
{
	struct options o = { 0 };
	char err[512];
	int rc;

	*done = true;
	if (parse_options(argc, argv, &o))
		return EXIT_ERROR;
	log_init();
	config_path = o.config;
	config_must_exist = o.config_given;
	rc = config_load(config_path, config_must_exist, &d->cfg, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "mapperd: %s\n", err);
		return EXIT_ERROR;
	}
	cli = o;
	apply_overrides(&d->cfg);
	if (o.check) {
		rc = config_check(&d->cfg, err, sizeof(err));
		if (rc)
			fprintf(stderr, "mapperd: %s\n", err);
		else
			config_print(&d->cfg, stdout);
		config_free(&d->cfg);
		return rc ? EXIT_ERROR : 0;
	}
	log_set_level(d->cfg.log_level);
	const char *db = d->cfg.database[0] ? d->cfg.database : map_store_default_path();
	if (strlen(db) >= sizeof(d->db_path)) {
		fprintf(stderr, "mapperd: database path too long\n");
		config_free(&d->cfg);
		return EXIT_ERROR;
	}
	memcpy(d->db_path, db, strlen(db) + 1);
	if (geteuid() != 0) {
		fprintf(stderr, "mapperd: needs root (scrub, GETFSMAP, open by handle, fanotify "
			"filesystem marks and raw device reads are privileged)\n");
		config_free(&d->cfg);
		return EXIT_ERROR;
	}
	*done = false;
	return 0;
}

static void tune_process(void)
{
	srandom((unsigned int)(time(NULL) ^ getpid()));
	/* Each report's reads use buffers of a MiB or so, in threads that come
	 * and go: keep those mapped only while used, instead of letting malloc
	 * raise its threshold and keep them in the heap of a daemon that runs
	 * for months. */
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
	/* glibc also gives the top of the heap back to the kernel whenever more
	 * than 128 KiB of it is free; SQLite frees that much after each
	 * statement that used a statement journal, so every report recorded
	 * paid two brk calls and their page faults (about 3x the cost of
	 * the writes themselves, measured).  Keep up to 512 KiB (enough:
	 * 256 KiB was not). */
	mallopt(M_TRIM_THRESHOLD, 512 << 10);
}

/* The database, the event loop's descriptors and the control socket. */
static int start_core(struct md_daemon *d, const sigset_t *mask)
{
	int rc = map_store_open(d->db_path, 0, &d->st);

	if (rc) {
		fprintf(stderr, "mapperd: cannot open the database %s: %s\n", d->db_path,
			map_store_error(rc) ? map_store_error(rc) : map_strerror(rc));
		return rc;
	}
	md_db_init(d);
	d->epfd = epoll_create1(EPOLL_CLOEXEC);
	d->sig.fd = signalfd(-1, mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (d->epfd < 0 || d->sig.fd < 0) {
		rc = -errno;
		fprintf(stderr, "mapperd: %s\n", map_strerror(rc));
		return rc;
	}
	d->sig.ready = signal_ready;
	rc = md_watch_add(d, &d->sig, EPOLLIN);
	if (rc)
		return rc;
	rc = md_control_start(d, d->cfg.control_socket);
	if (rc == -EADDRINUSE)
		fprintf(stderr, "mapperd: another mapperd answers on %s\n", d->cfg.control_socket);
	else if (rc)
		fprintf(stderr, "mapperd: control socket %s: %s\n", d->cfg.control_socket,
			map_strerror(rc));
	return rc;
}

/* The pipeline (with its spool), the hooks, the scheduler, the event
 * sources and the mount table. */
static int start_work(struct md_daemon *d, struct md_watch *req_watch)
{
	char spool_dir[PATH_MAX + 8];
	int rc;

	/* Reports the database cannot take wait in STATE/spool. */
	snprintf(spool_dir, sizeof(spool_dir), "%.4000s/spool", d->cfg.state_directory);
	rc = strlen(d->cfg.state_directory) > 4000 ? -ENAMETOOLONG :
	     map_dir_ensure(d->cfg.state_directory, 0755);
	if (rc)
		log_err("state directory %s: %s; no spool for reports the database cannot take",
			d->cfg.state_directory, map_strerror(rc));
	/* Before the pipeline's thread first asks when to write it. */
	md_metrics_file_configure(d->cfg.metrics_file, d->cfg.metrics_interval);
	rc = md_pipeline_start(d->db_path, rc ? NULL : spool_dir, &d->pipe);
	if (rc) {
		fprintf(stderr, "mapperd: cannot start the event pipeline: %s\n", map_strerror(rc));
		return rc;
	}
	/* Hooks hear of findings from here on (before the first event). */
	rc = md_notify_start(d);
	if (rc) {
		fprintf(stderr, "mapperd: cannot start the notification hooks: %s\n", map_strerror(rc));
		return rc;
	}
	req_watch->fd = md_pipeline_notify_fd(d->pipe);
	req_watch->ready = requests_ready;
	rc = md_watch_add(d, req_watch, EPOLLIN);
	if (rc == 0)
		rc = md_sched_start(d);
	if (rc) {
		fprintf(stderr, "mapperd: %s\n", map_strerror(rc));
		return rc;
	}
	apply_sources(d);
	rc = md_discovery_start(d);
	if (rc)
		fprintf(stderr, "mapperd: cannot follow the mount table: %s\n", map_strerror(rc));
	return rc;
}

static void announce_started(struct md_daemon *d)
{
	struct log_ctx started = { .message_id = MD_MSGID_STARTED };
	int nfs = 0;

	for (struct md_fs *fs = d->fs_list; fs; fs = fs->next)
		nfs++;
	log_ctx_msg(LOG_NOTICE, &started, "mapperd %s started: %d XFS filesystem%s watched; "
		    "database %s; control socket %s; configuration %s", MAPPER_VERSION, nfs,
		    nfs == 1 ? "" : "s", d->db_path, d->cfg.control_socket,
		    d->cfg.path[0] ? d->cfg.path : "(defaults)");
}

int main(int argc, char **argv)
{
	static struct md_daemon daemon;
	struct md_daemon *d = &daemon;
	struct md_watch req_watch = { .fd = -1 };
	sigset_t mask;
	bool done;
	int rc = configure(argc, argv, d, &done);

	if (done)
		return rc;
	tune_process();
	d->started = md_now_ms();
	d->epfd = -1;
	d->sig.fd = -1;
	d->mon.fd = -1;

	/* Signals arrive through signalfd; block them before any thread starts. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);

	rc = start_core(d, &mask);
	if (rc == 0)
		rc = start_work(d, &req_watch);
	if (rc) {
		if (req_watch.fd >= 0)
			md_watch_del(d, &req_watch);
		shutdown_all(d, &mask);
		return EXIT_ERROR;
	}
	announce_started(d);
	md_sdnotify_ready(d);

	run_loop(d);

	md_sdnotify_stopping();
	log_notice("stopping");
	md_watch_del(d, &req_watch);
	shutdown_all(d, &mask);
	struct log_ctx stopped = { .message_id = MD_MSGID_STOPPED };
	log_ctx_msg(LOG_NOTICE, &stopped, "stopped");
	return 0;
}
