// SPDX-License-Identifier: GPL-2.0-or-later
/* mapctl history / events: what was done, and what the kernel reported. */
#include <getopt.h>
#include <string.h>

#include "mapctl.h"

struct listing {
	struct ctl *ctl;
	struct map_json *j;
	int n;
};

static int show_action(const struct map_action *a, void *arg)
{
	struct listing *l = arg;
	char t[32];

	l->n++;
	if (l->ctl->json) {
		map_json_obj(l->j, NULL);
		map_json_int(l->j, "id", a->id);
		map_json_int(l->j, "at", a->at);
		map_json_str(l->j, "action", a->action);
		if (a->finding_id)
			map_json_int(l->j, "finding", a->finding_id);
		else
			map_json_null(l->j, "finding");
		map_json_str(l->j, "user", a->user);
		map_json_str(l->j, "outcome", a->outcome);
		map_json_str(l->j, "detail", a->detail);
		map_json_end_obj(l->j);
		return 0;
	}
	printf("%s  %-8s", human_time(a->at, t, sizeof(t)), a->action);
	if (a->finding_id)
		printf(" #%-5lld", (long long)a->finding_id);
	else
		printf(" %-6s", "");
	printf(" %-16s %s  (%s)\n", a->outcome, a->detail, a->user);
	return 0;
}

static int show_event(const struct map_event *e, void *arg)
{
	struct listing *l = arg;
	char t[32];

	l->n++;
	if (l->ctl->json) {
		map_json_obj(l->j, NULL);
		map_json_int(l->j, "id", e->id);
		map_json_int(l->j, "at", e->at);
		map_json_str(l->j, "source", e->source);
		map_json_uint(l->j, "inode", e->ino);
		map_json_uint(l->j, "generation", e->gen);
		map_json_int(l->j, "error", e->error);
		map_json_str(l->j, "detail", e->detail);
		map_json_end_obj(l->j);
		return 0;
	}
	printf("%s  %-9s", human_time(e->at, t, sizeof(t)), e->source);
	if (e->ino)
		printf(" inode %llu", (unsigned long long)e->ino);
	if (e->error)
		printf(" error %d", e->error);
	printf("  %s\n", e->detail);
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

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c != 'j')
			return fail(ctl, 0, "see '%s --help'", ctl->prog);
		ctl->json = true;
	}
	rc = open_store(ctl, false, &st);
	if (rc)
		return rc;
	rc = fs_id_for_path(ctl, st, optind < argc ? argv[optind] : NULL, &fs_id, &fs);
	if (rc) {
		map_store_close(st);
		return rc;
	}
	struct listing l = { .ctl = ctl, .j = &j };
	if (ctl->json) {
		json_start(&j, stdout);
		map_json_arr(&j, NULL);
	}
	rc = events ? map_store_events(st, fs_id, show_event, &l) :
		      map_store_actions(st, fs_id, show_action, &l);
	if (ctl->json) {
		map_json_end_arr(&j);
		json_end(&j);
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
	"Usage: mapctl history [--json] [PATH]\n"
	"\n"
	"Every scan, repair, refetch, resolve and ignore, oldest first, with who did\n"
	"it and how it went; for every filesystem or the one holding PATH.\n"
	"\n"
	"Options:\n"
	"  --json       a JSON array\n"
	"  -h, --help   this text\n",
};

const struct command cmd_events = {
	"events", run_events, "errors the kernel reported as they happened (mapperd)",
	"Usage: mapctl events [--json] [PATH]\n"
	"\n"
	"Errors reported by the kernel while the filesystem was in use (fanotify\n"
	"filesystem-error events, kernel log I/O errors), as recorded by mapperd.\n"
	"\n"
	"Options:\n"
	"  --json       a JSON array\n"
	"  -h, --help   this text\n",
};
