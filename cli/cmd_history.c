// SPDX-License-Identifier: GPL-2.0-or-later
/* mapctl history / events: what was done, and what the kernel reported. */
#include <getopt.h>
#include <string.h>

#include "mapctl.h"

/* The widest action and outcome the tools record (cli/repair_offline.c's
 * "xfs_repair -n", cli/cmd_refetch.c's "still-unreadable"): the columns
 * line up. */
#define ACTION_WIDTH 13
#define OUTCOME_WIDTH 16

struct listing {
	struct ctl *ctl;
	struct map_store *st;
	struct map_json *j;
	int n;
	struct map_store_fs fs;	/* of the last row: rows come by time, often runs of one */
	bool have_fs;
};

/* The filesystem of a row, by its store id: "fs_uuid" and "mountpoint"
 * (null for an event mapperd could not place on a filesystem). */
static int json_fs(struct listing *l, int64_t fs_id)
{
	int rc;

	if (fs_id && (!l->have_fs || l->fs.id != fs_id)) {
		rc = map_store_fs_get(l->st, fs_id, &l->fs);
		if (rc)
			return rc;
		l->have_fs = true;
	}
	map_json_str_or_null(l->j, "fs_uuid", fs_id ? l->fs.uuid : NULL);
	map_json_str_or_null(l->j, "mountpoint", fs_id ? l->fs.mountpoint : NULL);
	return 0;
}

/* An action as an element of the "actions" array. */
static int action_json(struct listing *l, const struct map_action *a)
{
	int rc;

	map_json_obj(l->j, NULL);
	map_json_int(l->j, "action_id", a->id);
	map_json_time(l->j, "time", a->at);
	rc = json_fs(l, a->fs_id);
	if (rc)
		return rc;
	map_json_str(l->j, "action", a->action);
	map_json_uint_or_null(l->j, "finding_id", a->finding_id > 0, (uint64_t)a->finding_id);
	map_json_str_or_null(l->j, "user", a->user);
	map_json_str_or_null(l->j, "outcome", a->outcome);
	map_json_str_or_null(l->j, "detail", a->detail);
	map_json_end_obj(l->j);
	return 0;
}

/* An action as a line for people. */
static void action_text(const struct map_action *a)
{
	char t[32];

	/* What the columns hold is escaped: a detail quotes xfs_repair's output. */
	printf("%s  %-*s", map_human_time(a->at, t, sizeof(t)), ACTION_WIDTH, shown(a->action));
	if (a->finding_id)
		printf(" #%-5lld", (long long)a->finding_id);
	else
		printf(" %-6s", "");
	printf(" %-*s %s  (%s)\n", OUTCOME_WIDTH, shown(a->outcome), shown(a->detail),
	       shown(a->user));
}

static int show_action(const struct map_action *a, void *arg)
{
	struct listing *l = arg;

	l->n++;
	if (l->ctl->json)
		return action_json(l, a);
	action_text(a);
	return 0;
}

/* An event as an element of the "events" array. */
static int event_json(struct listing *l, const struct map_event *e)
{
	int rc;

	map_json_obj(l->j, NULL);
	map_json_int(l->j, "event_id", e->id);
	map_json_time(l->j, "time", e->at);
	rc = json_fs(l, e->fs_id);
	if (rc)
		return rc;
	map_json_str(l->j, "source", map_event_source_name(e->source));
	map_json_uint_or_null(l->j, "inode", e->ino, e->ino);
	map_json_uint_or_null(l->j, "generation", e->ino && e->gen, e->gen);
	if (e->error)
		map_json_int(l->j, "error", e->error);
	else
		map_json_null(l->j, "error");
	map_json_str_or_null(l->j, "detail", e->detail);
	map_json_end_obj(l->j);
	return 0;
}

/* An event as a line for people. */
static void event_text(const struct map_event *e)
{
	char t[32];

	printf("%s  %-9s", map_human_time(e->at, t, sizeof(t)), map_event_source_name(e->source));
	if (e->ino)
		printf(" inode %llu", (unsigned long long)e->ino);
	if (e->error)
		printf(" error %d", e->error);
	printf("  %s\n", e->detail);
}

static int show_event(const struct map_event *e, void *arg)
{
	struct listing *l = arg;

	l->n++;
	if (l->ctl->json)
		return event_json(l, e);
	event_text(e);
	return 0;
}

static int list(struct ctl *ctl, int argc, char **argv, bool events)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct map_store *st;
	struct map_store_fs fs;
	struct map_json j;
	int64_t fs_id = 0;
	int c, rc;

	opterr = 0;	/* option_error() says it, in one line */
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c != 'j')
			return option_error(ctl, argv, "", longopts);
		ctl->json = true;
	}
	rc = open_store(ctl, false, &st);
	if (rc)
		return rc;
	rc = fs_from_store(ctl, st, optind < argc ? argv[optind] : NULL, &fs_id, &fs);
	if (rc) {
		map_store_close(st);
		return rc;
	}
	struct listing l = { .ctl = ctl, .st = st, .j = &j, .fs = fs, .have_fs = fs_id != 0 };
	if (ctl->json) {
		json_open(&j, stdout, events ? "mapctl events" : "mapctl history");
		map_json_arr(&j, events ? "events" : "actions");
	}
	rc = events ? map_store_events(st, fs_id, show_event, &l) :
		      map_store_actions(st, fs_id, show_action, &l);
	if (ctl->json) {
		map_json_end_arr(&j);
		json_close(&j);
	} else if (l.n == 0) {
		printf(events ? "(no events recorded)\n" : "(nothing recorded yet)\n");
	}
	map_store_close(st);
	return rc ? fail(ctl, rc, "reading the database") : EXIT_CLEAN;
}

static int run_history(struct ctl *ctl, int argc, char **argv)
{
	return list(ctl, argc, argv, false);
}

static int run_events(struct ctl *ctl, int argc, char **argv)
{
	return list(ctl, argc, argv, true);
}

const struct command cmd_history = {
	"history", run_history, "what was done: scans, repairs, refetches, by whom",
	"Usage: mapctl history [--json] [PATH|UUID|DEVICE]\n"
	"\n"
	"Every scan, repair, refetch, resolve and ignore, oldest first, with who did\n"
	"it and how it went; for every filesystem or the one named by its UUID, its\n"
	"recorded mount point, its block device or a path on it (it need not be\n"
	"mounted).\n"
	"\n"
	"Options:\n"
	"  --json       JSON (mapper-json(7)): an \"actions\" array, oldest first\n"
	"  -h, --help   this text\n",
};

const struct command cmd_events = {
	"events", run_events, "errors the kernel reported as they happened (mapperd)",
	"Usage: mapctl events [--json] [PATH|UUID|DEVICE]\n"
	"\n"
	"Errors reported by the kernel while the filesystem was in use (fanotify\n"
	"filesystem-error events, kernel log I/O errors), as recorded by mapperd,\n"
	"oldest first; for every filesystem or the one named by its UUID, its\n"
	"recorded mount point, its block device or a path on it (it need not be\n"
	"mounted).\n"
	"\n"
	"Options:\n"
	"  --json       JSON (mapper-json(7)): an \"events\" array, oldest first\n"
	"  -h, --help   this text\n",
};
