// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapctl metrics: the store's figures for Prometheus, on stdout or into a
 * file for node_exporter's textfile collector.  The exposition itself is
 * libmap's (metrics.c), the same that mapperd writes to metrics_file.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>

#include "mapctl.h"

static int run(struct ctl *ctl, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	struct map_store *st;
	const char *output = NULL;
	int c, rc;

	opterr = 0;	/* option_error() says it, in one line */
	while ((c = getopt_long(argc, argv, "o:", longopts, NULL)) != -1) {
		if (c != 'o')
			return option_error(ctl, argv, "o:", longopts);
		output = optarg;
	}
	if (optind < argc)
		return fail(ctl, 0, "unexpected argument '%s' (see '%s --help')", shown(argv[optind]),
			    ctl->prog);
	if (output && !*output)
		return fail(ctl, 0, "--output needs a file name");
	/* No database yet (a new server, before its first scan): every family
	 * without samples, so the textfile job that runs from the start does
	 * not fail. */
	rc = map_store_open(ctl->db_path, MAP_STORE_READONLY, &st);
	if (rc == -ENOENT)
		st = NULL;
	else if (rc)
		return store_open_failed(ctl, false, rc);
	if (output) {
		rc = map_metrics_write_file(st, output, NULL, NULL);
		map_store_close(st);
		if (rc == -ELOOP)
			return fail(ctl, 0, "not writing %s: a folder on its path is a symbolic link "
				    "(none is followed: give the folder it points to)", shown(output));
		if (rc)
			return fail(ctl, rc, "writing %s (by way of %s.tmp)", shown(output),
				    shown(output));
		return EXIT_CLEAN;
	}
	rc = map_metrics_write(st, stdout);
	map_store_close(st);
	if (rc == 0 && fflush(stdout) != 0)
		rc = -EIO;
	if (rc == -EIO)
		return fail(ctl, rc, "writing the metrics");
	if (rc)
		return fail(ctl, rc, "reading the database");
	return EXIT_CLEAN;
}

const struct command cmd_metrics = {
	"metrics", run, "the store's figures for Prometheus (textfile collector)",
	"Usage: mapctl metrics [--output FILE]\n"
	"\n"
	"Print the database's figures in the Prometheus text format: open findings\n"
	"by kind, damaged files, when each type of scan last completed and how long\n"
	"it took, bytes verified, error reports received, repairs and refetches by\n"
	"outcome; every figure labelled with the filesystem's uuid and mountpoint.\n"
	"Only the database is read (no root needed when it is readable); with no\n"
	"database yet, every family is printed without samples.  Mount\n"
	"points and other names are shown as mapctl shows them (\\xNN for control\n"
	"characters and invalid UTF-8, a backslash doubled), then escaped for the\n"
	"format.  The metric families are listed in mapctl(8), METRICS.\n"
	"\n"
	"For node_exporter's textfile collector, e.g. every 5 minutes:\n"
	"  mapctl metrics --output /var/lib/prometheus/node-exporter/mapper.prom\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE  write FILE.tmp in FILE's folder (mode 0644), then rename\n"
	"                     it to FILE: readers never see half a file; no symbolic\n"
	"                     link on FILE's path is followed\n"
	"  -h, --help         this text\n"
	"\n"
	"Exit status: 0 written, 2 could not run.\n",
};
