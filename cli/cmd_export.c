// SPDX-License-Identifier: GPL-2.0-or-later
/* mapctl export: the damaged files, ready for rsync --files-from. */
#include <getopt.h>
#include <string.h>

#include "mapctl.h"
#include "act_restore_list.h"

static int run(struct ctl *ctl, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "rsync", no_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	struct map_store *st;
	struct map_store_fs fs;
	struct restore_list list;
	int64_t fs_id;
	bool rsync = false;
	int c, rc, skipped = 0;

	opterr = 0;	/* option_error() says it, in one line */
	while ((c = getopt_long(argc, argv, "0", longopts, NULL)) != -1) {
		switch (c) {
		case 'r': rsync = true; break;
		case '0': ctl->zero = true; break;
		default: return option_error(ctl, argv, "0", longopts);
		}
	}
	if (!rsync)
		return fail(ctl, 0, "say which format: --rsync (the only one so far)");
	if (optind >= argc)
		return fail(ctl, 0, "which filesystem? (mapctl export PATH|UUID --rsync)");
	rc = open_store(ctl, false, &st);
	if (rc)
		return rc;
	rc = fs_from_store(ctl, st, argv[optind], &fs_id, &fs);
	if (rc == 0) {
		rc = restore_list_build(st, fs_id, &list);
		if (rc)
			rc = fail(ctl, rc, "reading the database");
	}
	map_store_close(st);
	if (rc)
		return rc;
	for (size_t i = 0; i < list.n; i++) {
		if (!ctl->zero && strchr(list.v[i].path, '\n')) {
			skipped++;	/* cannot be said in a newline-separated list */
			continue;
		}
		fputs(list.v[i].path, stdout);
		fputc(ctl->zero ? '\0' : '\n', stdout);
	}
	if (skipped)
		warn_msg(ctl, "%d name%s with a newline left out: use -0 with rsync --from0", skipped,
			 skipped == 1 ? "" : "s");
	if (list.skipped_dirs)
		warn_msg(ctl, "%zu damaged director%s not listed: a copy cannot restore them (see "
			 "mapctl repair)", list.skipped_dirs, list.skipped_dirs == 1 ? "y" : "ies");
	int open = list.n > 0;
	restore_list_free(&list);
	return open ? EXIT_DAMAGE : EXIT_CLEAN;
}

const struct command cmd_export = {
	"export", run, "damaged files relative to the mount, for rsync --files-from",
	"Usage: mapctl export PATH|UUID --rsync [-0]\n"
	"\n"
	"Print the damaged files of the filesystem named by its UUID, its recorded\n"
	"mount point or a path on it (open findings, and repaired ones: a rebuild\n"
	"may have lost attributes), relative to its mount point, one per line (or\n"
	"NUL-separated with -0), ready for\n"
	"\n"
	"  mapctl export /srv --rsync | rsync -a --inplace --whole-file --ignore-times \\\n"
	"      --files-from=- MIRROR:/srv/ /srv/\n"
	"\n"
	"--inplace rewrites each file in its own inode, so every hard link and the\n"
	"bad sectors themselves are rewritten; --ignore-times makes rsync copy files\n"
	"whose size and time look unchanged.  With -0, add --from0 to rsync.  Then\n"
	"run 'mapctl scan' to confirm; or let 'mapctl refetch' do all of it.\n"
	"Reads only the database: the list can be made while the filesystem is\n"
	"unmounted.\n"
	"\n"
	"Options:\n"
	"  --rsync      rsync --files-from format\n"
	"  -0           end each name with a NUL byte (names with newlines need this)\n"
	"  -h, --help   this text\n"
	"\n"
	"Exit status: 0 nothing to restore, 1 files listed, 2 could not run.\n",
};
