// SPDX-License-Identifier: GPL-2.0-or-later
/* mapctl status: per filesystem, like zpool status. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "map_fs_status.h"
#include "mapctl.h"

/* Open findings listed one per line under a filesystem; beyond that, a
 * count and 'mapctl files' (status stays a screenful for many files). */
#define STATUS_FINDING_LINES	20

struct status {
	struct ctl *ctl;
	struct map_store *st;
	struct map_json *j;
	int worst;
	const char *mountpoint;
	int listed;		/* open findings of this filesystem printed */
	int64_t max_age_ms;	/* --max-age, 0: none */
	int64_t now;		/* unix seconds, once for every filesystem */
};

/* "#12 inode-btrees (AG 1)  [media+scrub inobt,finobt: corrupt]". */
static int list_open(const struct map_finding *f, void *arg)
{
	struct status *s = arg;
	char where[96], note[256];
	int rc;

	if (s->listed++ >= STATUS_FINDING_LINES)
		return 0;
	rc = finding_evidence_note(s->st, f, note, sizeof(note));
	if (rc)
		return rc;
	printf("%s#%lld %s ", s->listed == 1 ? "      open: " : "            ", (long long)f->id,
	       f->kind);
	if (f->npaths) {
		print_path_text(stdout, s->mountpoint, f->paths[0]);
		if (f->npaths > 1)
			printf(" (+%zu more name%s)", f->npaths - 1, f->npaths == 2 ? "" : "s");
	} else {
		fputs(finding_where(f, where, sizeof(where)), stdout);
	}
	if (f->has_offset)
		printf(" offset %llu", (unsigned long long)f->offset);
	if (note[0])
		printf("  %s", note);
	putchar('\n');
	return 0;
}

/* How long ago, in the largest whole unit: "9 days", "3 hours", "1 minute". */
static const char *human_age(int64_t secs, char *buf, size_t len)
{
	static const struct { const char *unit; int64_t secs; } units[] = {
		{ "day", 86400 }, { "hour", 3600 }, { "minute", 60 },
	};
	int64_t n = secs;
	const char *unit = "second";

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (secs >= units[i].secs) {
			n = secs / units[i].secs;
			unit = units[i].unit;
			break;
		}
	}
	snprintf(buf, len, "%lld %s%s", (long long)n, unit, n == 1 ? "" : "s");
	return buf;
}

static void last_scan_json(struct map_json *j, const struct map_scan_row *last)
{
	map_json_obj(j, "last_scan");
	map_json_int(j, "scan_id", last->id);
	map_json_str(j, "state", map_scan_state_name(last->state));
	map_json_str_or_null(j, "phase", map_scan_phase_name(last->phase));
	map_json_time(j, "start_time", last->started);
	map_json_time(j, "end_time", last->finished);
	map_json_double(j, "duration_seconds", last->seconds);
	map_json_uint_or_null(j, "bytes_verified", last->do_media, last->media_done);
	map_json_uint_or_null(j, "bytes_total", last->do_media, last->media_total);
	map_json_str_or_null(j, "error", last->error);
	map_json_end_obj(j);
}

static void fs_json(const struct status *s, const struct map_store_fs *fs,
		    const struct map_fs_status *o)
{
	struct map_json *j = s->j;

	map_json_obj(j, NULL);
	map_json_str(j, "fs_uuid", fs->uuid);
	map_json_str_or_null(j, "label", fs->label);
	map_json_str_or_null(j, "mountpoint", fs->mountpoint);
	map_json_str_or_null(j, "device", fs->device);
	map_json_str_or_null(j, "model", fs->model);
	map_json_str_or_null(j, "serial", fs->serial);
	map_json_bool(j, "rmapbt", fs->rmapbt);
	map_json_str(j, "state", o->state);
	map_json_bool(j, "never_scanned", o->never);
	map_json_time(j, "last_complete_time", o->complete);
	if (s->max_age_ms)
		map_json_bool(j, "stale", o->stale);
	else
		map_json_null(j, "stale");
	map_json_obj(j, "finding_counts");
	for (int i = 0; i < MAP_STATE_NR; i++)
		map_json_int(j, map_state_name((enum map_finding_state)i), o->counts[i]);
	map_json_end_obj(j);
	/* An array, not an object keyed by kind: the keys of every object
	 * stay fixed (mapper-json(7)). */
	map_json_arr(j, "open_by_kind");
	for (int i = 0; i < o->nkinds; i++) {
		map_json_obj(j, NULL);
		map_json_str(j, "kind", o->kinds[i].kind);
		map_json_int(j, "count", o->kinds[i].n);
		map_json_end_obj(j);
	}
	map_json_end_arr(j);
	if (o->have_scan)
		last_scan_json(j, &o->last);
	else
		map_json_null(j, "last_scan");
	map_json_end_obj(j);
}

/* The header: where, what, and the state line. */
static void fs_text_head(const struct status *s, const struct map_store_fs *fs,
			 const struct map_fs_status *o)
{
	char a[32], b[32];

	printf("filesystem: %s", shown(fs->mountpoint));
	if (fs->label[0])
		printf(" (label %s)", shown(fs->label));
	printf("\n      uuid: %s\n    device: %s", shown(fs->uuid), shown(fs->device));
	if (fs->model[0] || fs->serial[0])
		printf(" (%s%s%s)", shown(fs->model), fs->serial[0] ? ", serial " : "",
		       shown(fs->serial));
	printf("\n     state: %s", o->state);
	if (o->open)
		printf(" - %d open finding%s: %d file, %d metadata", o->open,
		       o->open == 1 ? "" : "s", o->files, o->metadata);
	if (o->never)
		printf("%snever scanned", o->open ? "; " : " - ");
	else if (o->stale)
		printf("%slast complete scan %s ago, older than %s", o->open ? "; " : " - ",
		       human_age(s->now - o->complete, a, sizeof(a)),
		       map_duration_str(s->max_age_ms, b, sizeof(b)));
	if (!fs->rmapbt)
		printf("\n      note: no reverse-mapping btree: slower owner lookup, little repair");
}

/* The last scan, the last full one, and the findings by state and kind. */
static void fs_text_scans(const struct map_fs_status *o)
{
	const struct map_scan_row *last = &o->last;
	const int *counts = o->counts;
	char a[32], b[32];

	printf("\n last scan: ");
	if (o->have_scan) {
		printf("%s, %s", map_human_time(last->started, a, sizeof(a)),
		       map_scan_state_name(last->state));
		if (last->state != MAP_SCAN_COMPLETE)
			printf(" in phase %s", map_scan_phase_name(last->phase));
		printf(", %.0f s", last->seconds);
		if (last->do_media)
			printf(", %s of %s verified", human_bytes(last->media_done, a, sizeof(a)),
			       human_bytes(last->media_total, b, sizeof(b)));
		if (last->error[0])
			printf(" (%s)", last->error);
	} else {
		printf("never");
	}
	if (o->have_media && (!o->have_scan || o->media.id != last->id))
		printf("\n last full: %s", map_human_time(o->media.finished, a, sizeof(a)));
	printf("\n  findings: open %d, refetched %d, repaired %d, ignored %d, resolved %d",
	       counts[MAP_STATE_OPEN], counts[MAP_STATE_REFETCHED], counts[MAP_STATE_REPAIRED],
	       counts[MAP_STATE_IGNORED], counts[MAP_STATE_RESOLVED]);
	/* Shown only when there are any: the line most people see stays as it was. */
	if (counts[MAP_STATE_ZEROED])
		printf(", zeroed %d (overwritten offline: only refetch or resolve closes them)",
		       counts[MAP_STATE_ZEROED]);
	putchar('\n');
	if (o->nkinds) {
		printf("   by kind:");
		for (int i = 0; i < o->nkinds; i++)
			printf(" %s %d%s", o->kinds[i].kind, o->kinds[i].n, i + 1 < o->nkinds ? "," : "");
		printf("\n");
	}
}

/* The next steps, each a command line to paste: the mount point quoted for
 * a shell (a space or a quote in it), no quotes around it. */
static void fs_text_action(const struct status *s, const struct map_store_fs *fs,
			   const struct map_fs_status *o)
{
	const char *mnt = shell_word(fs->mountpoint);

	if (s->listed > STATUS_FINDING_LINES)
		printf("            ... and %d more: mapctl files %s\n",
		       s->listed - STATUS_FINDING_LINES, mnt);
	/* The order that heals: metadata first (a rebuilt inode or directory
	 * may need its data or names back), then the mirror, then a check. */
	printf("    action: ");
	if (o->metadata && !fs->rmapbt)
		printf("metadata cannot be rebuilt online without the reverse-mapping btree:\n"
		       "            the offline path, mapctl repair --offline-plan %s, then\n"
		       "            ", mnt);
	else if (o->metadata)
		printf("rebuild damaged metadata: mapctl repair %s --dry-run shows the plan\n"
		       "            and what needs the offline path; mapctl repair %s --all runs it,\n"
		       "            then ", mnt, mnt);
	if (o->files || o->metadata)
		printf("restore from a good copy what was lost: mapctl refetch %s --from MIRROR\n"
		       "            (or mapctl export --rsync), ", mnt);
	if (!o->open)
		printf(o->have_media && !o->stale ? "none\n" : "run mapctl scan %s\n", mnt);
	else
		printf("then mapctl scan %s to confirm\n", mnt);
	printf("\n");
}

static int show_fs(const struct map_store_fs *fs, void *arg)
{
	struct status *s = arg;
	struct map_fs_status o;
	int rc = map_fs_status_gather(s->st, fs->id, s->max_age_ms, s->now, &o);

	if (rc)
		return rc;
	if ((o.open || o.never || o.stale) && s->worst == EXIT_CLEAN)
		s->worst = EXIT_DAMAGE;
	if (s->ctl->json) {
		fs_json(s, fs, &o);
		return 0;
	}
	fs_text_head(s, fs, &o);
	fs_text_scans(&o);
	s->mountpoint = fs->mountpoint;
	s->listed = 0;
	rc = map_store_findings(s->st, fs->id, 0, list_open, s);
	if (rc)
		return rc;
	fs_text_action(s, fs, &o);
	return 0;
}

static int run(struct ctl *ctl, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "max-age", required_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 },
	};
	int64_t max_age_ms = 0;
	struct map_store *st;
	struct map_store_fs one;
	struct map_json j;
	int64_t fs_id = 0;
	int c, rc;

	opterr = 0;	/* option_error() says it, in one line */
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c == 'j') {
			ctl->json = true;
		} else if (c == 'a') {
			if (map_parse_duration(optarg, &max_age_ms) || max_age_ms < 1000)
				return fail(ctl, 0, "--max-age wants a duration such as 8d, 12h or "
					    "90m, not '%s'", shown(optarg));
		} else {
			return option_error(ctl, argv, "", longopts);
		}
	}
	rc = open_store(ctl, false, &st);
	if (rc)
		return rc;
	rc = fs_from_store(ctl, st, optind < argc ? argv[optind] : NULL, &fs_id, &one);
	if (rc) {
		map_store_close(st);
		return rc;
	}
	struct status s = { .ctl = ctl, .st = st, .j = &j, .worst = EXIT_CLEAN,
			    .max_age_ms = max_age_ms, .now = (int64_t)time(NULL) };
	if (ctl->json) {
		json_open(&j, stdout, "mapctl status");
		map_json_arr(&j, "filesystems");
	}
	rc = fs_id ? show_fs(&one, &s) : map_store_fs_each(st, show_fs, &s);
	if (ctl->json) {
		map_json_end_arr(&j);
		json_close(&j);
	}
	map_store_close(st);
	if (rc)
		return fail(ctl, rc, "reading the database");
	return s.worst;
}

const struct command cmd_status = {
	"status", run, "state of each filesystem: last scan, findings, what to do next",
	"Usage: mapctl status [--json] [--max-age DURATION] [PATH|UUID]\n"
	"\n"
	"For each recorded filesystem (or the one named by its UUID, its recorded\n"
	"mount point, or a path on it): its state (OK,\n"
	"DAMAGED, UNVERIFIED: media never fully verified), whether it was never\n"
	"scanned, the last scan (when, how long, bytes verified), findings by state\n"
	"and kind, the open findings by ID (file and metadata; the first 20), and\n"
	"what to do next.\n"
	"Reads only the database: works while the filesystem is unmounted, for any\n"
	"user who can read the database.\n"
	"\n"
	"Options:\n"
	"  --json              JSON (mapper-json(7)): an object whose \"filesystems\"\n"
	"                      array has one object per filesystem\n"
	"  --max-age DURATION  a filesystem whose last complete scan (metadata or\n"
	"                      media) finished longer ago than DURATION (8d, 12h,\n"
	"                      90m: as mapperd.conf writes durations) is not clean\n"
	"  -h, --help          this text\n"
	"\n"
	"Exit status: 0 every filesystem clean; 1 open findings, a filesystem never\n"
	"scanned to completion, or one scanned longer ago than --max-age; 2 could not\n"
	"run.\n",
};
