// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapctl refetch: the options and the outcome of each path, for people or
 * as JSON.  What is put back, and what is checked before anything is
 * written, is libmap's act stage (act_refetch.c).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>

#include "mapctl.h"

/* ---- output: one row per path, rendered as text or JSON ---- */

/* What both renderers show of a path's outcome. */
struct refetch_row {
	const struct restore_item *it;	/* path (relative), finding ids */
	const char *outcome;		/* "would-restore" in a dry run */
	const char *detail;		/* why, "" if nothing to say */
	char orphan[64];		/* "lost+found/INO" that held it, "" if none */
	bool orphan_removed;
	const char *orphan_note;	/* of the orphan; without one, a note */
	const char *put_back;		/* a folder's entries put back, "" if none */
	bool orphan_after;		/* dry run: its orphan is compared after */
	bool entries_after;		/* dry run: a folder's entries come after */
};

static void refetch_row(const struct refetch *r, const struct refetch_entry *e,
			struct refetch_row *row)
{
	const char *word = refetch_outcome_name(e->outcome);

	if (r->dry_run && e->outcome == OUT_REMOVED)
		word = "would-remove";
	else if (r->dry_run && e->sent)
		word = "would-restore";
	*row = (struct refetch_row){
		.it = e->it, .outcome = word, .detail = e->detail,
		.orphan_removed = e->orphan_removed, .orphan_note = e->orphan_note,
		.put_back = e->put_back,
		.orphan_after = r->dry_run && e->orphan_ino,
		.entries_after = r->dry_run && e->sent && e->what == W_DIR,
	};
	if (e->orphan_ino)
		snprintf(row->orphan, sizeof(row->orphan), ORPHANAGE "/%llu",
			 (unsigned long long)e->orphan_ino);
}

static void row_text(const struct refetch_row *row, const char *mnt)
{
	printf("  %-16s ", row->outcome);
	print_path_text(stdout, mnt, row->it->path);
	if (row->detail[0])
		printf(": %s", shown(row->detail));
	if (row->orphan_note[0])
		printf("; %s", shown(row->orphan_note));
	else if (row->orphan_after)
		printf("; its orphan %s is compared after the restore", row->orphan);
	if (row->put_back[0])
		printf("; %s", shown(row->put_back));
	else if (row->entries_after)
		printf("; the mirror's entries it lacks are put back after the restore");
	putchar('\n');
}

static void row_json(struct map_json *j, const struct refetch_row *row, const char *mnt)
{
	char *full = map_join_path(mnt, row->it->path);
	bool orphan = row->orphan[0];

	map_json_obj(j, NULL);
	map_json_str(j, "path", full ? full : row->it->path);
	free(full);
	map_json_str(j, "outcome", row->outcome);
	map_json_str_or_null(j, "detail", row->detail);
	map_json_arr(j, "finding_ids");
	for (size_t k = 0; k < row->it->nfindings; k++)
		map_json_int(j, NULL, row->it->findings[k]);
	map_json_end_arr(j);
	map_json_str_or_null(j, "orphan", orphan ? row->orphan : NULL);
	if (orphan)
		map_json_bool(j, "orphan_removed", row->orphan_removed);
	else
		map_json_null(j, "orphan_removed");
	map_json_str_or_null(j, "orphan_detail", orphan ? row->orphan_note : NULL);
	map_json_str_or_null(j, "note", orphan ? NULL : row->orphan_note);
	map_json_str_or_null(j, "put_back", row->put_back);
	map_json_end_obj(j);
}

static void print_text(const struct refetch *r)
{
	struct refetch_row row;

	for (size_t i = 0; i < r->n; i++) {
		refetch_row(r, &r->e[i], &row);
		row_text(&row, r->mnt);
	}
	const struct orphan_report *o = &r->orphans;
	for (size_t i = 0; i < o->n; i++)
		printf("  " ORPHANAGE "/%s %s\n", shown(o->v[i].name), shown(o->v[i].why));
	if (o->note[0])
		printf("  %s\n", shown(o->note));
	if (o->truncated)
		printf("  " ORPHANAGE " has more entries than one run compares: the rest are "
		       "kept\n");
}

/* lost+found after folders got entries back: "orphans", or null when it
 * was not read. */
static void orphans_json(struct map_json *j, const struct orphan_report *o)
{
	if (!o->examined && !o->note[0]) {
		map_json_null(j, "orphans");
		map_json_null(j, "orphans_truncated");
		return;
	}
	map_json_arr(j, "orphans");
	for (size_t i = 0; i < o->n; i++) {
		char path[sizeof(ORPHANAGE) + NAME_MAX + 1];

		snprintf(path, sizeof(path), ORPHANAGE "/%s", o->v[i].name);
		map_json_obj(j, NULL);
		map_json_str(j, "path", path);
		map_json_bool(j, "removed", o->v[i].removed);
		map_json_str_or_null(j, "detail", o->v[i].why);
		map_json_end_obj(j);
	}
	map_json_end_arr(j);
	map_json_bool(j, "orphans_truncated", o->truncated);
}

static void print_json(const struct refetch *r, const int counts[MAP_STATE_NR])
{
	struct refetch_row row;
	struct map_json j;

	json_open(&j, stdout, "mapctl refetch");
	map_json_str(&j, "fs_uuid", map_fs_info(r->fs)->uuid);
	map_json_str(&j, "mountpoint", r->mnt);
	map_json_str(&j, "from", r->from);
	map_json_bool(&j, "dry_run", r->dry_run);
	map_json_arr(&j, "paths");
	for (size_t i = 0; i < r->n; i++) {
		refetch_row(r, &r->e[i], &row);
		row_json(&j, &row, r->mnt);
	}
	map_json_end_arr(&j);
	orphans_json(&j, &r->orphans);
	map_json_str_or_null(&j, "orphans_note", r->orphans.note);
	if (counts)
		map_json_int(&j, "open_findings", map_counts_open(counts));
	else
		map_json_null(&j, "open_findings");
	json_close(&j);
}

static void say_unrecorded(int64_t finding_id, int err, void *arg)
{
	fail(arg, err, "recording the outcome of finding #%lld", (long long)finding_id);
}

/* 0, or an EXIT_* status after saying what is wrong; the filesystem's
 * path in *@path. */
static int parse_options(struct ctl *ctl, int argc, char **argv, struct refetch *r,
			 const char **path)
{
	static const struct option longopts[] = {
		{ "from", required_argument, NULL, 'f' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;	/* option_error() says it, in one line */
	while ((c = getopt_long(argc, argv, "n", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': r->from = optarg; break;
		case 'n': r->dry_run = true; break;
		case 'j': ctl->json = true; break;
		default: return option_error(ctl, argv, "n", longopts);
		}
	}
	if (optind >= argc)
		return fail(ctl, 0, "which filesystem? (mapctl refetch PATH --from DIR)");
	if (!r->from || !r->from[0])
		return fail(ctl, 0, "where from? give --from DIR (a local folder holding the same "
			    "tree)");
	*path = argv[optind];
	return 0;
}

/* The mirror (local, on another filesystem), the store, the filesystem at
 * @path (writable) and what the store says to put back: 0, or EXIT_ERROR
 * after saying why not. */
static int open_all(const struct ctl *ctl, struct refetch *r, const char *path,
		    struct map_store **st, int64_t *fs_id)
{
	struct map_store_fs sfs;
	int rc;

	if (!refetch_is_local(r->from))
		return fail(ctl, 0, "the mirror %s: refetch copies from a local folder only, "
			    "checking every file it reads and writes by descriptor; mount the "
			    "mirror (NFS, sshfs) and give that folder, or copy with 'mapctl "
			    "export --rsync'", shown(r->from));
	rc = refetch_open_mirror(r);
	if (rc)
		return fail(ctl, rc, "the mirror %s", shown(r->from));
	rc = open_store(ctl, !r->dry_run, st);
	if (rc == 0)
		rc = fs_id_for_path(ctl, *st, path, fs_id, &sfs);
	if (rc == 0)
		rc = open_fs(ctl, path, &r->fs);
	if (rc == 0 && map_fs_info(r->fs)->read_only)
		rc = fail(ctl, 0, "%s is mounted read-only: cannot write the files back",
			  shown(map_fs_info(r->fs)->mountpoint));
	if (rc == 0 && (rc = refetch_load(r, *st, *fs_id)) != 0)
		rc = fail(ctl, rc, "reading the database");
	if (rc == 0 && refetch_mirror_is_this_fs(r))
		rc = fail(ctl, 0, "the mirror %s is on the filesystem it would restore (%s): it "
			  "has the same damage; give a copy on another filesystem", shown(r->from),
			  shown(r->mnt));
	return rc;
}

/* --dry-run: what would be refetched. */
static void show_dry_run(const struct ctl *ctl, const struct refetch *r)
{
	size_t nsent = 0;

	for (size_t i = 0; i < r->n; i++)
		nsent += r->e[i].sent;
	if (ctl->json) {
		print_json(r, NULL);
		return;
	}
	printf("%s: would refetch %zu of %zu path%s from %s\n", shown(r->mnt), nsent, r->n,
	       r->n == 1 ? "" : "s", shown(r->from));
	print_text(r);
}

/* Every path's outcome and the count, for people. */
static void show_outcome(const struct refetch *r, const int counts[MAP_STATE_NR])
{
	int restored = 0, removed = 0;

	for (size_t i = 0; i < r->n; i++) {
		restored += r->e[i].outcome == OUT_RESTORED;
		removed += r->e[i].outcome == OUT_REMOVED;
	}
	print_text(r);
	printf("%s: %d restored and verified, ", shown(r->mnt), restored);
	if (removed)
		printf("%d set aside earlier removed, ", removed);
	printf("%zu not; %d finding%s still open%s\n", r->n - (size_t)(restored + removed),
	       map_counts_open(counts), map_counts_open(counts) == 1 ? "" : "s",
	       restored + removed ? "; 'mapctl scan' confirms" : "");
}

/* After the paths: folders' entries put back, outcomes recorded and said.
 * An EXIT_* status. */
static int finish(const struct ctl *ctl, struct refetch *r, struct map_store *st, int64_t fs_id)
{
	int counts[MAP_STATE_NR], unrecorded, rc;

	rc = refetch_put_back(r);
	if (rc)
		return fail(ctl, rc, "putting back the entries of folders");
	unrecorded = refetch_record(r, st, fs_id);
	rc = map_store_count(st, fs_id, counts);
	if (rc)
		return fail(ctl, rc, "reading the database");
	if (ctl->json)
		print_json(r, counts);
	else
		show_outcome(r, counts);
	if (unrecorded)
		return fail(ctl, 0, "%d outcome%s could not be recorded; the findings keep their "
			    "state", unrecorded, unrecorded == 1 ? "" : "s");
	return map_counts_open(counts) ? EXIT_DAMAGE : EXIT_CLEAN;
}

/* Check and put back every path r holds: an EXIT_* status. */
static int put_back_all(const struct ctl *ctl, struct refetch *r, struct map_store *st,
			int64_t fs_id)
{
	int rc;

	if (r->n == 0) {
		if (ctl->json)
			print_json(r, NULL);
		else
			printf("%s: nothing to refetch\n", shown(r->mnt));
		return 0;
	}
	if (!ctl->json && !r->dry_run) {
		printf("%s: refetching %zu path%s from %s\n", shown(r->mnt), r->n,
		       r->n == 1 ? "" : "s", shown(r->from));
		fflush(stdout);
	}
	rc = refetch_paths(r);
	if (rc)
		return fail(ctl, rc, "refetch");
	if (r->dry_run) {
		show_dry_run(ctl, r);
		return 0;
	}
	return finish(ctl, r, st, fs_id);
}

static int run(struct ctl *ctl, int argc, char **argv)
{
	struct refetch r = { .mirror_fd = -1, .unrecorded = say_unrecorded, .arg = ctl };
	struct map_store *st = NULL;
	const char *path = NULL;
	int64_t fs_id;
	int rc = parse_options(ctl, argc, argv, &r, &path);

	if (rc)
		return rc;
	rc = need_root(ctl, "refetching");
	if (rc)
		return rc;
	rc = open_all(ctl, &r, path, &st, &fs_id);
	if (rc == 0)
		rc = put_back_all(ctl, &r, st, fs_id);
	refetch_free(&r);
	map_fs_close(r.fs);
	map_store_close(st);
	return rc;
}

const struct command cmd_refetch = {
	"refetch", run, "restore damaged or lost files from a mirror and re-verify them",
	"Usage: mapctl refetch PATH --from DIR [--dry-run] [--json]\n"
	"\n"
	"Restore what the open findings of the filesystem holding PATH lost, from DIR,\n"
	"a local folder on another filesystem holding the same tree (mount a remote\n"
	"mirror first): file data, rewritten in its own inode so every hard link sees\n"
	"it; size, mode, owner, times, ACLs and extended attributes; symbolic links;\n"
	"folders' own attributes (a folder whose entries cannot be read stays\n"
	"still-unreadable: 'mapctl repair' rebuilds it); and files a repair deleted,\n"
	"recreated at their recorded paths.\n"
	"\n"
	"Refused before anything is written: a mirror on this filesystem (also through\n"
	"a bind mount); a path whose walk from the mount root, name by name without\n"
	"following links, meets a link, another filesystem, or another inode or\n"
	"generation than recorded; a mirror's object of another kind.  Every write\n"
	"goes through the descriptors of that walk, never the path again.\n"
	"\n"
	"A failed copy leaves the file as it was: the mirror's bytes go first into an\n"
	"unnamed file of the same folder, read back equal to the mirror; only then do\n"
	"they replace the old bytes, in the old inode.  A mirror that cannot be read,\n"
	"a full filesystem or a mirror that changes fails with the reason.\n"
	"\n"
	"restored means: after the copy, every block was read back from the device,\n"
	"its bytes equal the mirror's (read again, unchanged), and its size, mode,\n"
	"owner, modification time and extended attributes (or link target) equal the\n"
	"mirror's.  Otherwise: failed, still-unreadable or refused, with the reason.\n"
	"A file whose extended attributes cannot be read fails: repair it first.\n"
	"\n"
	"A damaged folder, once restored, gets back the mirror's entries it lacks, one\n"
	"level, copied the same way and never over a name it has; a regular file\n"
	"of lost+found with one name that has the bytes of a file put back (or is a\n"
	"damaged copy) is then removed.  A file found as lost+found/INODE (its recorded\n"
	"inode) is restored at its path, and the orphan removed when it is a copy.\n"
	"\n"
	"A finding whose paths were all restored is marked refetched (a later 'mapctl\n"
	"scan' resolves it); the others stay open.  Needs root.\n"
	"\n"
	"Options:\n"
	"  --from DIR    where good copies are (a local folder)\n"
	"  -n, --dry-run show what would be copied and refused; change nothing\n"
	"  --json        each path with its outcome, as JSON (mapper-json(7))\n"
	"  -h, --help    this text\n"
	"\n"
	"Exit status: 0 nothing left open, 1 findings still open, 2 could not run.\n",
};
