// SPDX-License-Identifier: GPL-2.0-or-later
/* mapctl: find damaged data on XFS and name the damaged files. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "mapctl.h"

#ifndef MAPPER_VERSION
#define MAPPER_VERSION "0"
#endif

static const struct command *const commands[] = {
	&cmd_scan, &cmd_status, &cmd_files, &cmd_locate, &cmd_export, &cmd_refetch,
	&cmd_repair, &cmd_resolve, &cmd_ignore, &cmd_history, &cmd_events,
	&cmd_daemon, &cmd_metrics,
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: mapctl [--db FILE] COMMAND [OPTIONS] [ARGS]\n"
		"       mapctl help [COMMAND]\n"
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
		"  --db FILE      the database (default $MAPPER_DB or /var/lib/mapper/mapper.db)\n"
		"  -h, --help     this text; 'mapctl COMMAND --help' or 'mapctl help COMMAND'\n"
		"                 for a command\n"
		"  -V, --version  print the version\n"
		"--db and --version may also follow the command.\n"
		"\n"
		"Exit status: 0 no open problems, 1 problems found or still open,\n"
		"2 could not run (with one line on stderr saying why).\n"
		"See mapctl(8).\n");
}

/* The command named @name, or NULL. */
static const struct command *find_command(const char *name)
{
	for (size_t c = 0; c < NCOMMANDS; c++)
		if (strcmp(name, commands[c]->name) == 0)
			return commands[c];
	return NULL;
}

/*
 * If argv[i] is a global option (--db FILE, --db=FILE, -V, --version),
 * take it: the number of words it used, 0 if it is none, or -1 after
 * saying what is wrong.  --version is reported through *version.
 */
static int global_option(struct ctl *ctl, int argc, char **argv, int i, bool *version)
{
	if (strcmp(argv[i], "--db") == 0) {
		if (i + 1 >= argc || !argv[i + 1][0]) {
			fprintf(stderr, "mapctl: --db wants a FILE\n");
			return -1;
		}
		ctl->db_path = argv[i + 1];
		return 2;
	}
	if (strncmp(argv[i], "--db=", 5) == 0) {
		if (!argv[i][5]) {
			fprintf(stderr, "mapctl: --db wants a FILE\n");
			return -1;
		}
		ctl->db_path = argv[i] + 5;
		return 1;
	}
	if (strcmp(argv[i], "-V") == 0 || strcmp(argv[i], "--version") == 0) {
		*version = true;
		return 1;
	}
	return 0;
}

/* mapctl help [COMMAND]: the same as --help and COMMAND --help. */
static int help(int argc, char **argv)
{
	const struct command *cmd;

	if (argc < 2) {
		usage(stdout);
		return EXIT_CLEAN;
	}
	cmd = find_command(argv[1]);
	if (!cmd || argc > 2) {
		fprintf(stderr, "mapctl help: %s '%s' (see mapctl --help)\n",
			cmd ? "one command at a time, not" : "unknown command", argv[cmd ? 2 : 1]);
		return EXIT_ERROR;
	}
	return print_usage(cmd);
}

int main(int argc, char **argv)
{
	struct ctl ctl = { .db_path = map_store_default_path(), .prog = "mapctl" };
	const struct command *cmd;
	static char prog[64];
	bool version = false;
	char **args;
	int i = 1, nargs = 0, rc;

	/* Global options before the command. */
	while (i < argc && argv[i][0] == '-') {
		int used = global_option(&ctl, argc, argv, i, &version);

		if (used < 0)
			return EXIT_ERROR;
		if (used > 0) {
			i += used;
		} else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			return EXIT_CLEAN;
		} else {
			fprintf(stderr, "mapctl: unknown option '%s' (see mapctl --help)\n", argv[i]);
			return EXIT_ERROR;
		}
	}
	if (version) {
		printf("mapctl %s\n", MAPPER_VERSION);
		return EXIT_CLEAN;
	}
	if (i >= argc) {
		usage(stderr);
		return EXIT_ERROR;
	}
	if (strcmp(argv[i], "help") == 0)
		return help(argc - i, argv + i);
	cmd = find_command(argv[i]);
	if (!cmd) {
		fprintf(stderr, "mapctl: unknown command '%s' (see mapctl --help)\n", argv[i]);
		return EXIT_ERROR;
	}
	snprintf(prog, sizeof(prog), "mapctl %s", cmd->name);
	ctl.prog = prog;

	/* Global options after the command too (up to "--"): the command gets
	 * its arguments without them. */
	args = calloc((size_t)(argc - i) + 1, sizeof(*args));
	if (!args)
		return fail(&ctl, -ENOMEM, "reading the command line");
	args[nargs++] = argv[i++];
	while (i < argc && strcmp(argv[i], "--") != 0) {
		int used = global_option(&ctl, argc, argv, i, &version);

		if (used < 0) {
			free(args);
			return EXIT_ERROR;
		}
		if (used == 0)
			args[nargs++] = argv[i++];
		i += used;
	}
	while (i < argc)
		args[nargs++] = argv[i++];
	if (version) {
		printf("mapctl %s\n", MAPPER_VERSION);
		rc = EXIT_CLEAN;
	} else if (want_help(nargs, args)) {
		rc = print_usage(cmd);
	} else {
		rc = cmd->run(&ctl, nargs, args);
	}
	free(args);
	return rc;
}
