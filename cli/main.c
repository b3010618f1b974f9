// SPDX-License-Identifier: GPL-2.0-or-later
/* mapctl: find damaged data on XFS and name the damaged files. */
#include <stdlib.h>
#include <string.h>

#include "mapctl.h"

#ifndef MAPPER_VERSION
#define MAPPER_VERSION "0"
#endif

static const struct command *const commands[] = {
	&cmd_scan, &cmd_status, &cmd_files, &cmd_locate, &cmd_export, &cmd_refetch,
	&cmd_repair, &cmd_resolve, &cmd_ignore, &cmd_history, &cmd_events,
	&cmd_daemon,
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: mapctl [--db FILE] COMMAND [OPTIONS] [ARGS]\n"
		"\n"
		"Find damaged data on XFS filesystems and name the damaged files: scrub\n"
		"metadata with the kernel, read every written extent, map bad blocks to\n"
		"their owners and owners to every path; restore files from a mirror;\n"
		"ask the kernel, on request, to repair damaged metadata.\n"
		"\n"
		"Commands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-9s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(out,
		"\n"
		"Options:\n"
		"  --db FILE    the database (default $MAPPER_DB or /var/lib/mapper/mapper.db)\n"
		"  -h, --help   this text; 'mapctl COMMAND --help' for a command\n"
		"  --version    print the version\n"
		"\n"
		"Exit status: 0 no open problems, 1 problems found or still open,\n"
		"2 could not run (with one line on stderr saying why).\n"
		"See mapctl(8).\n");
}

int main(int argc, char **argv)
{
	struct ctl ctl = { .db_path = map_store_default_path(), .prog = "mapctl" };
	static char prog[64];
	int i = 1;

	while (i < argc && argv[i][0] == '-') {
		if (strcmp(argv[i], "--db") == 0 && i + 1 < argc) {
			ctl.db_path = argv[i + 1];
			i += 2;
		} else if (strncmp(argv[i], "--db=", 5) == 0) {
			ctl.db_path = argv[i] + 5;
			i++;
		} else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			return EXIT_CLEAN;
		} else if (strcmp(argv[i], "--version") == 0) {
			printf("mapctl %s\n", MAPPER_VERSION);
			return EXIT_CLEAN;
		} else {
			fprintf(stderr, "mapctl: unknown option '%s' (see mapctl --help)\n", argv[i]);
			return EXIT_ERROR;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return EXIT_ERROR;
	}
	for (size_t c = 0; c < NCOMMANDS; c++) {
		if (strcmp(argv[i], commands[c]->name) != 0)
			continue;
		snprintf(prog, sizeof(prog), "mapctl %s", commands[c]->name);
		ctl.prog = prog;
		if (want_help(argc - i, argv + i))
			return print_usage(commands[c]);
		return commands[c]->run(&ctl, argc - i, argv + i);
	}
	fprintf(stderr, "mapctl: unknown command '%s' (see mapctl --help)\n", argv[i]);
	return EXIT_ERROR;
}
