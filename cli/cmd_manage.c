// SPDX-License-Identifier: GPL-2.0-or-later
/* mapctl resolve / ignore: close a finding by hand, on the record. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "map_act_manage.h"
#include "mapctl.h"

static int set_state(struct ctl *ctl, int argc, char **argv, enum map_finding_state state,
		     const char *action)
{
	static const struct option longopts[] = {
		{ "note", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	const char *note = "";
	struct map_store *st;
	int c, rc, worst = EXIT_CLEAN;

	opterr = 0;	/* option_error() says it, in one line */
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c != 'n')
			return option_error(ctl, argv, "", longopts);
		note = optarg;
	}
	if (optind >= argc)
		return fail(ctl, 0, "which finding? (mapctl %s ID...; IDs from mapctl files --json "
			    "or status)", action);
	rc = open_store(ctl, true, &st);
	if (rc)
		return rc;
	for (int i = optind; i < argc; i++) {
		char *end;
		long long id = strtoll(argv[i], &end, 10);
		struct map_finding f;

		if (*end || id <= 0) {
			worst = fail(ctl, 0, "'%s' is not a finding number", argv[i]);
			continue;
		}
		rc = finding_set_state_recorded(st, id, state, action, note, &f);
		if (rc) {
			worst = fail(ctl, rc == -ENOENT ? 0 : rc, "finding #%lld%s", id,
				     rc == -ENOENT ? " does not exist" : "");
			continue;
		}
		printf("finding #%lld (%s): %s -> %s\n", id, f.kind, map_state_name(f.state),
		       map_state_name(state));
		map_finding_clear(&f);
	}
	map_store_close(st);
	return worst;
}

static int run_resolve(struct ctl *ctl, int argc, char **argv)
{
	return set_state(ctl, argc, argv, MAP_STATE_RESOLVED, "resolve");
}

static int run_ignore(struct ctl *ctl, int argc, char **argv)
{
	return set_state(ctl, argc, argv, MAP_STATE_IGNORED, "ignore");
}

const struct command cmd_resolve = {
	"resolve", run_resolve, "mark findings as dealt with",
	"Usage: mapctl resolve [--note TEXT] ID...\n"
	"\n"
	"Mark findings resolved by hand (e.g. the file was deleted or restored by\n"
	"other means).  A later scan that still sees the damage opens them again.\n"
	"Recorded with your user name and the note.\n"
	"\n"
	"Options:\n"
	"  --note TEXT   why, for the history\n"
	"  -h, --help    this text\n",
};

const struct command cmd_ignore = {
	"ignore", run_ignore, "stop reporting findings (they stay in the history)",
	"Usage: mapctl ignore [--note TEXT] ID...\n"
	"\n"
	"Ignore findings: they no longer count as open and later scans that see the\n"
	"same damage keep them ignored.  'mapctl resolve ID' undoes it.\n"
	"Recorded with your user name and the note.\n"
	"\n"
	"Options:\n"
	"  --note TEXT   why, for the history\n"
	"  -h, --help    this text\n",
};
