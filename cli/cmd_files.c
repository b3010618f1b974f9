// SPDX-License-Identifier: GPL-2.0-or-later
/* mapctl files: damaged files by path, every name, with offsets and state;
 * then the damaged metadata that belongs to no file. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "mapctl.h"
#include "map_path_set.h"

struct files {
	struct ctl *ctl;
	struct map_store *st;
	struct map_json *j;
	const char *mountpoint;	/* of the filesystem being listed */
	const char *uuid;
	int64_t fs_id;
	bool all;
	int open;
	int shown;
	struct path_set seen;	/* -0: each path once */
};

static int show(const struct map_finding *f, void *arg)
{
	struct files *fl = arg;

	if (map_state_is_open(f->state))
		fl->open++;
	fl->shown++;
	if (fl->ctl->json)
		return json_stored_finding(fl->j, fl->st, f, fl->uuid, fl->mountpoint);
	if (fl->ctl->zero) {
		for (size_t i = 0; i < f->npaths; i++) {
			char *p = map_join_path(fl->mountpoint, f->paths[i]);
			int rc = p ? path_set_add(&fl->seen, p) : -ENOMEM;

			if (rc > 0) {
				fputs(p, stdout);
				fputc('\0', stdout);
			}
			free(p);
			if (rc < 0)
				return rc;	/* a path left out would go unrestored */
		}
		return 0;
	}
	char id[24], off[32] = "-", len[32] = "-", ino[24] = "-", where[96], note[256];
	int rc = finding_evidence_note(fl->st, f, note, sizeof(note));

	if (rc)
		return rc;
	snprintf(id, sizeof(id), "#%lld", (long long)f->id);
	if (f->has_offset) {
		snprintf(off, sizeof(off), "%llu", (unsigned long long)f->offset);
		snprintf(len, sizeof(len), "%llu", (unsigned long long)f->length);
	}
	if (f->ino)
		snprintf(ino, sizeof(ino), "%llu", (unsigned long long)f->ino);
	for (size_t i = 0; i < (f->npaths ? f->npaths : 1); i++) {
		printf("%-6s %-9s %-14s %12s %9s %10s  ", id, map_state_name(f->state), f->kind, off,
		       len, ino);
		if (f->npaths)
			print_path_text(stdout, fl->mountpoint, f->paths[i]);
		else
			fputs(finding_where(f, where, sizeof(where)), stdout);
		if (note[0])
			printf("  %s", note);
		putchar('\n');
	}
	return 0;
}

static int list_fs(const struct map_store_fs *fs, void *arg)
{
	struct files *fl = arg;
	unsigned int filter = fl->all ? MAP_FIND_ALL : 0;

	fl->mountpoint = fs->mountpoint;
	fl->uuid = fs->uuid;
	return map_store_findings(fl->st, fs->id, filter, show, fl);
}

static int run(struct ctl *ctl, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct files fl = { .ctl = ctl };
	struct map_store_fs one;
	struct map_json j;
	int c, rc;

	opterr = 0;	/* option_error() says it, in one line */
	while ((c = getopt_long(argc, argv, "0", longopts, NULL)) != -1) {
		switch (c) {
		case 'a': fl.all = true; break;
		case 'j': ctl->json = true; break;
		case '0': ctl->zero = true; break;
		default: return option_error(ctl, argv, "0", longopts);
		}
	}
	if (ctl->json && ctl->zero)
		return fail(ctl, 0, "--json and -0 do not go together");
	rc = open_store(ctl, false, &fl.st);
	if (rc)
		return rc;
	rc = fs_from_store(ctl, fl.st, optind < argc ? argv[optind] : NULL, &fl.fs_id, &one);
	if (rc) {
		map_store_close(fl.st);
		return rc;
	}
	fl.j = &j;
	if (ctl->json) {
		json_open(&j, stdout, "mapctl files");
		map_json_arr(&j, "findings");
	} else if (!ctl->zero) {
		printf("%-6s %-9s %-14s %12s %9s %10s  %s\n", "ID", "STATE", "KIND", "OFFSET",
		       "LENGTH", "INODE", "PATH");
	}
	rc = fl.fs_id ? list_fs(&one, &fl) : map_store_fs_each(fl.st, list_fs, &fl);
	if (ctl->json) {
		map_json_end_arr(&j);
		json_close(&j);
	} else if (!ctl->zero && fl.shown == 0) {
		printf("(no %sfindings)\n", fl.all ? "" : "open ");
	}
	path_set_free(&fl.seen);
	map_store_close(fl.st);
	if (rc)
		return fail(ctl, rc, "reading the database");
	return fl.open ? EXIT_DAMAGE : EXIT_CLEAN;
}

const struct command cmd_files = {
	"files", run, "list damaged files by path (every hard link and reflink sharer), then metadata",
	"Usage: mapctl files [--all] [--json | -0] [PATH|UUID]\n"
	"\n"
	"List the findings of every recorded filesystem (or of the one named by its\n"
	"UUID, its recorded mount point or a path on it; it need not be mounted),\n"
	"one damaged object each: one line per name, with the finding's ID\n"
	"(for mapctl resolve, ignore and repair --finding), the state, what was\n"
	"damaged (file data, inode, extent-map, directory, parent, ...), the byte\n"
	"offset and length in the file, the inode, and what showed it (media,\n"
	"scrub with its types, event).  Metadata that belongs to no file (AG headers\n"
	"and btrees, summary counters) is listed too, by AG.  Open findings only,\n"
	"unless --all.  Names are escaped for the terminal (\\n, \\xNN); -0 and\n"
	"--json give them exactly.\n"
	"\n"
	"Options:\n"
	"  --all        include refetched, repaired, ignored and resolved findings\n"
	"  --json       JSON (mapper-json(7)): a \"findings\" array, each finding\n"
	"               with its filesystem and evidence; invalid UTF-8 as \\udcNN\n"
	"  -0           absolute paths only, each ended by a NUL byte, each once\n"
	"  -h, --help   this text\n"
	"\n"
	"Exit status: 0 nothing open, 1 open findings listed, 2 could not run.\n",
};
