// SPDX-License-Identifier: GPL-2.0-or-later
/* mapctl daemon: talk to mapperd over its control socket. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "map_control_client.h"
#include "mapctl.h"

#define DEFAULT_SOCKET "/run/mapper/mapperd.sock"

/* The one line that says why mapperd cannot be reached; EXIT_ERROR. */
static int cannot_reach(const struct ctl *ctl, const char *path, int err)
{
	if (err == -ENOENT)
		return fail(ctl, 0, "mapperd is not running: no socket at %s", shown(path));
	if (err == -ECONNREFUSED)
		return fail(ctl, 0, "mapperd is not running: nothing answers on %s", shown(path));
	if (err == -ENAMETOOLONG)
		return fail(ctl, 0, "socket path too long: %s", shown(path));
	return fail(ctl, err, "cannot reach mapperd at %s", shown(path));
}

/* Send one request line and read the reply up to its final line: 0, or
 * EXIT_ERROR after saying why not. */
static int ask(const struct ctl *ctl, int fd, const char *request, struct map_control_reply *r)
{
	static const char *const at[] = {
		[MAP_CONTROL_WRITE] = "writing to mapperd",
		[MAP_CONTROL_READ] = "reading from mapperd",
		[MAP_CONTROL_CLOSED] = "mapperd closed the connection",
	};
	enum map_control_fail where;
	int err;

	if (map_control_ask(fd, request, r, &where, &err) != 0)
		return fail(ctl, err, "%s", at[where]);
	return 0;
}

/* The request line for the words after the options: 0, or an exit status. */
static int make_request(const struct ctl *ctl, int argc, char **argv, bool metadata, bool media,
			char *request, size_t len)
{
	if (optind >= argc)
		return fail(ctl, 0, "what? status, progress, scan PATH, cancel PATH or repair-plan "
			    "PATH (see --help)");
	const char *what = argv[optind];
	const char *target = optind + 1 < argc ? argv[optind + 1] : NULL;
	char real[PATH_MAX];

	if (!strcmp(what, "status") || !strcmp(what, "progress")) {
		if (target)
			return fail(ctl, 0, "%s takes no argument", what);
		snprintf(request, len, "%s%s", what, ctl->json ? " json" : "");
		return 0;
	}
	if (strcmp(what, "scan") && strcmp(what, "cancel") && strcmp(what, "repair-plan"))
		return fail(ctl, 0, "unknown daemon request '%s' (status, progress, scan, cancel, "
			    "repair-plan)", what);
	if (!target || optind + 2 < argc)
		return fail(ctl, 0, "%s wants one PATH (or filesystem UUID)", what);
	/* The daemon resolves paths from its own folder: send absolute ones. */
	if (strchr(target, '/') || access(target, F_OK) == 0) {
		if (!realpath(target, real))
			return fail(ctl, -errno, "%s", target);
		target = real;
	}
	if (strchr(target, '\n'))
		return fail(ctl, 0, "a path with a newline cannot be sent; give the UUID");
	if (!strcmp(what, "scan"))
		snprintf(request, len, "scan %s %s",
			 metadata == media ? "full" : metadata ? "metadata" : "media", target);
	else
		snprintf(request, len, "%s %s", what, target);
	return 0;
}

/* The daemon's reply to @what, for people or as JSON: an exit status. */
static int show_reply(const struct ctl *ctl, int fd, const char *what, const struct map_control_reply *r)
{
	if (!strncmp(r->last, "error:", 6))
		return fail(ctl, 0, "%s", r->last + 7);
	fwrite(r->text, 1, r->len, stdout);
	if (!strcmp(what, "status")) {
		long open = 0;

		if (ctl->json) {
			open = map_control_open_findings(r->text);
		} else {
			struct map_control_reply j;

			if (ask(ctl, fd, "status json", &j) == 0)
				open = map_control_open_findings(j.text);
			free(j.text);
		}
		return open > 0 ? EXIT_DAMAGE : EXIT_CLEAN;
	}
	if (!strcmp(what, "repair-plan"))
		return EXIT_CLEAN;	/* the plan is JSON whether or not --json was given */

	const char *msg = r->last[2] == ':' ? r->last + 4 : NULL;
	if (msg && ctl->json) {
		struct map_json j;
		char command[32];

		snprintf(command, sizeof(command), "mapctl daemon %s", what);
		json_open(&j, stdout, command);
		map_json_bool(&j, "ok", true);
		map_json_str(&j, "message", msg);
		json_close(&j);
	} else if (msg) {
		printf("%s\n", msg);
	}
	return EXIT_CLEAN;
}

static int run(struct ctl *ctl, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "metadata", no_argument, NULL, 'm' },
		{ "media", no_argument, NULL, 'M' },
		{ NULL, 0, NULL, 0 },
	};
	const char *socket_path = getenv("MAPPERD_SOCKET");
	bool metadata = false, media = false;
	char request[PATH_MAX + 64];
	struct map_control_reply r;
	int c, fd, rc;

	if (!socket_path || !*socket_path)
		socket_path = DEFAULT_SOCKET;
	opterr = 0;	/* option_error() says it, in one line */
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 's': socket_path = optarg; break;
		case 'j': ctl->json = true; break;
		case 'm': metadata = true; break;
		case 'M': media = true; break;
		default: return option_error(ctl, argv, "", longopts);
		}
	}
	rc = make_request(ctl, argc, argv, metadata, media, request, sizeof(request));
	if (rc)
		return rc;
	fd = map_control_connect(socket_path);
	if (fd < 0)
		return cannot_reach(ctl, socket_path, fd);
	rc = ask(ctl, fd, request, &r);
	if (rc == 0)
		rc = show_reply(ctl, fd, argv[optind], &r);
	else
		rc = EXIT_ERROR;
	free(r.text);
	close(fd);
	return rc;
}

const struct command cmd_daemon = {
	"daemon", run, "ask the running mapperd for status, progress, a scan or a repair plan",
	"Usage: mapctl daemon status|progress [--json] [--socket PATH]\n"
	"       mapctl daemon scan [--metadata|--media] [--json] [--socket PATH] PATH|UUID\n"
	"       mapctl daemon cancel [--socket PATH] PATH|UUID\n"
	"       mapctl daemon repair-plan [--socket PATH] PATH|UUID\n"
	"\n"
	"Talk to mapperd(8) through its control socket:\n"
	"  status     the daemon, its event counters and every filesystem it watches\n"
	"  progress   the running and queued scans\n"
	"  scan       queue a scan of the filesystem holding PATH (or with that UUID);\n"
	"             both metadata and media unless --metadata or --media; the\n"
	"             daemon runs it at its configured I/O priority\n"
	"  cancel     stop that filesystem's scan at its next checkpoint\n"
	"  repair-plan  what mapctl repair would do on that filesystem, from the\n"
	"             daemon's database, as JSON (mapper-json(7)); changes nothing\n"
	"Anyone may ask for status and progress; scan, cancel and repair-plan need\n"
	"root or the daemon's control_group.\n"
	"\n"
	"Options:\n"
	"  --socket PATH   the control socket (default $MAPPERD_SOCKET or\n"
	"                  " DEFAULT_SOCKET ")\n"
	"  --json          the daemon's reply as JSON (mapper-json(7))\n"
	"  -h, --help      this text\n"
	"\n"
	"Exit status: status: 0 nothing open, 1 open findings; others: 0 done;\n"
	"2 could not run (daemon not running, permission denied, bad request).\n",
};
