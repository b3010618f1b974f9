// SPDX-License-Identifier: GPL-2.0-or-later
/* mapctl repair: ask the kernel to rebuild damaged metadata (opt-in). */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mapctl.h"
#include "xfs_abi.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

struct candidate {
	struct map_finding f;
	uint32_t types[8];
	int ntypes;
	int order;		/* AG headers, btrees, then inodes */
};

struct repair {
	struct ctl *ctl;
	int64_t only;		/* --finding ID, or 0 */
	struct candidate *v;
	size_t n;
};

static int collect(const struct map_finding *f, void *arg)
{
	struct repair *r = arg;
	struct candidate c;

	if (r->only && f->id != r->only)
		return 0;
	if (!f->scrub[0] || !strcmp(f->kind, "file"))
		return 0;	/* file data: only a good copy brings it back */
	memset(&c, 0, sizeof(c));
	char names[sizeof(f->scrub)];
	snprintf(names, sizeof(names), "%s", f->scrub);
	char *save = NULL;
	for (char *t = strtok_r(names, ",", &save); t && c.ntypes < 8; t = strtok_r(NULL, ",", &save)) {
		int type = map_scrub_type_by_name(t);

		if (type >= 0)
			c.types[c.ntypes++] = (uint32_t)type;
	}
	if (c.ntypes == 0)
		return 0;
	c.f = *f;
	c.f.paths = NULL;
	c.f.npaths = 0;
	for (size_t i = 0; i < f->npaths; i++)
		map_finding_add_path(&c.f, f->paths[i]);
	c.order = (int)c.types[0];
	struct candidate *v = realloc(r->v, (r->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	r->v = v;
	r->v[r->n++] = c;
	return 0;
}

static int cmp_candidate(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;

	if (x->order != y->order)
		return x->order - y->order;
	return x->f.id < y->f.id ? -1 : x->f.id > y->f.id;
}

static const char *why_unsupported(const struct map_geometry *geo, uint32_t type, int64_t agno)
{
	if (!geo->v5)
		return "V4 filesystems cannot be repaired online";
	if (type == XFS_SCRUB_TYPE_SB && agno == 0)
		return "the primary superblock is never repaired online";
	if ((type == XFS_SCRUB_TYPE_DIR || type == XFS_SCRUB_TYPE_XATTR ||
	     type == XFS_SCRUB_TYPE_SYMLINK || (type == XFS_SCRUB_TYPE_PARENT && geo->parent)) &&
	    !geo->exchange_range)
		return "needs the exchange-range feature (mkfs.xfs -i exchange=1)";
	if (!geo->rmapbt && type != XFS_SCRUB_TYPE_RMAPBT)
		return "needs the reverse-mapping btree (mkfs.xfs -m rmapbt=1)";
	if (type == XFS_SCRUB_TYPE_HEALTHY)
		return "nothing to repair: it reports the others";
	return "this kernel cannot repair it";
}

static void describe(FILE *out, const struct candidate *c, const char *mnt)
{
	fprintf(out, "  #%lld %s", (long long)c->f.id, c->f.kind);
	if (c->f.agno >= 0 && !c->f.ino)
		fprintf(out, " AG %lld", (long long)c->f.agno);
	if (c->f.ino)
		fprintf(out, " inode %llu", (unsigned long long)c->f.ino);
	if (c->f.npaths) {
		fputc(' ', out);
		print_path_text(out, mnt, c->f.paths[0]);
	}
	fprintf(out, " (%s: %s)\n", c->f.source, c->f.scrub);
}

/* Repair one type of one object; the outcome word and its detail. */
static const char *repair_one(struct map_fs *fs, const struct candidate *c, uint32_t type,
			      char *detail, size_t len)
{
	const struct map_fs_info *info = map_fs_info(fs);
	const struct map_scrub_type_info *t = map_scrub_type(type);
	uint32_t agno = t->scope == MAP_SCOPE_AG ? (uint32_t)(c->f.agno < 0 ? 0 : c->f.agno) : 0;
	uint64_t ino = t->scope == MAP_SCOPE_INODE ? c->f.ino : 0;
	uint32_t gen = t->scope == MAP_SCOPE_INODE ? c->f.gen : 0;
	/* A block known to be unreadable is rebuilt elsewhere even if the
	 * check cannot see the damage from the copy in memory. */
	uint32_t iflags = XFS_SCRUB_IFLAG_REPAIR |
			  (strcmp(c->f.source, "scrub") ? XFS_SCRUB_IFLAG_FORCE_REBUILD : 0);
	uint32_t oflags = 0, after = 0;
	char buf[96];
	int rc;

	if (t->scope == MAP_SCOPE_INODE && !ino) {
		snprintf(detail, len, "%s: no inode recorded", t->name);
		return "failed";
	}
	rc = map_scrub_call(map_fs_fd(fs), type, agno, ino, gen, iflags, &oflags);
	if (rc == -EOPNOTSUPP) {
		snprintf(detail, len, "%s: %s", t->name, why_unsupported(&info->geo, type, c->f.agno));
		return "unsupported";
	}
	if (rc) {
		snprintf(detail, len, "%s: %s", t->name, map_strerror(rc));
		return "failed";
	}
	if (oflags & XFS_SCRUB_OFLAG_NO_REPAIR_NEEDED) {
		snprintf(detail, len, "%s: the kernel found nothing to repair", t->name);
		return "not-needed";
	}
	/* Check again, without repair, to be sure. */
	rc = map_scrub_call(map_fs_fd(fs), type, agno, ino, gen, 0, &after);
	if (rc || (after & (XFS_SCRUB_OFLAG_CORRUPT | XFS_SCRUB_OFLAG_XCORRUPT))) {
		snprintf(detail, len, "%s: still damaged after repair (%s)", t->name,
			 rc ? map_strerror(rc) : map_scrub_oflags_str(after, buf, sizeof(buf)));
		return "failed";
	}
	snprintf(detail, len, "%s: rebuilt and checked clean", t->name);
	return "repaired";
}

/*
 * Rebuilding AG headers and btrees leaves the summary counters marked sick;
 * until they are checked the filesystem cannot be unmounted clean.  Ask the
 * kernel to recount them (it freezes the filesystem for a moment).
 */
static int recount(struct map_fs *fs, struct map_store *st, int64_t fs_id)
{
	uint32_t oflags = 0;
	char detail[128];
	int rc = map_scrub_call(map_fs_fd(fs), XFS_SCRUB_TYPE_FSCOUNTERS, 0, 0, 0,
				XFS_SCRUB_IFLAG_REPAIR, &oflags);
	const char *outcome = rc ? "failed" :
			      (oflags & XFS_SCRUB_OFLAG_NO_REPAIR_NEEDED) ? "not-needed" : "repaired";

	snprintf(detail, sizeof(detail), "fscounters: %s", rc ? map_strerror(rc) :
		 "summary counters recounted after the rebuild");
	printf("  %-16s %s\n", outcome, detail);
	return record_action(st, fs_id, 0, "repair", outcome, detail);
}

/* One finding's attempts (one per scrub type) and the state they lead to
 * (@state < 0: unchanged), in one transaction: both or neither. */
static int record_repair(struct map_store *st, int64_t fs_id, const struct candidate *cd,
			 const char *const *outcomes, char (*details)[256], int state)
{
	int rc = map_store_begin(st);

	if (rc)
		return rc;
	for (int k = 0; k < cd->ntypes && rc == 0; k++)
		rc = record_action(st, fs_id, cd->f.id, "repair", outcomes[k], details[k]);
	if (rc == 0 && state >= 0)
		rc = map_store_finding_set_state(st, cd->f.id, (enum map_finding_state)state);
	return store_finish(st, rc);
}

static bool confirm(const struct ctl *ctl, size_t n, const char *mnt)
{
	char line[16];

	if (!isatty(STDIN_FILENO)) {
		fail(ctl, 0, "not asking on a non-terminal: add --yes to repair %zu object%s on %s", n,
		     n == 1 ? "" : "s", mnt);
		return false;
	}
	fprintf(stderr, "Ask the kernel to rebuild %zu metadata object%s on %s? [y/N] ", n,
		n == 1 ? "" : "s", mnt);
	if (!fgets(line, sizeof(line), stdin))
		return false;
	return line[0] == 'y' || line[0] == 'Y';
}

static int run(struct ctl *ctl, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "finding", required_argument, NULL, 'f' },
		{ "all", no_argument, NULL, 'a' },
		{ "yes", no_argument, NULL, 'y' },
		{ NULL, 0, NULL, 0 },
	};
	struct repair r = { .ctl = ctl };
	bool all = false, yes = false;
	struct map_store *st = NULL;
	struct map_store_fs sfs;
	struct map_fs *fs = NULL;
	int64_t fs_id;
	char *end;
	int c, rc;

	while ((c = getopt_long(argc, argv, "y", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			r.only = strtoll(optarg, &end, 10);
			if (*end || r.only <= 0)
				return fail(ctl, 0, "--finding wants a finding number, not '%s'", optarg);
			break;
		case 'a': all = true; break;
		case 'y': yes = true; break;
		default: return fail(ctl, 0, "see 'mapctl repair --help'");
		}
	}
	if (optind >= argc)
		return fail(ctl, 0, "which filesystem? (mapctl repair PATH [--finding ID | --all])");
	if (all && r.only)
		return fail(ctl, 0, "--all and --finding do not go together");
	rc = need_root(ctl, "repairing");
	if (rc)
		return rc;
	rc = open_store(ctl, true, &st);
	if (rc == 0)
		rc = fs_id_for_path(ctl, st, argv[optind], &fs_id, &sfs);
	if (rc == 0)
		rc = open_fs(ctl, argv[optind], &fs);
	if (rc)
		goto out;
	const struct map_fs_info *info = map_fs_info(fs);
	if (info->read_only) {
		rc = fail(ctl, 0, "%s is mounted read-only: the kernel repairs only writable "
			  "filesystems (mount -o remount,rw %s)", shown(info->mountpoint),
			  shown(info->mountpoint));
		goto out;
	}
	rc = map_store_findings(st, fs_id, MAP_FIND_METADATA, collect, &r);
	if (rc) {
		rc = fail(ctl, rc, "reading the database");
		goto out;
	}
	if (r.only && r.n == 0) {
		rc = fail(ctl, 0, "finding #%lld is not an open metadata finding of %s",
			  (long long)r.only, shown(info->mountpoint));
		goto out;
	}
	if (r.n == 0) {
		printf("%s: no open metadata findings to repair\n", shown(info->mountpoint));
		goto out;
	}
	qsort(r.v, r.n, sizeof(r.v[0]), cmp_candidate);
	printf("%s: metadata to rebuild:\n", shown(info->mountpoint));
	for (size_t i = 0; i < r.n; i++)
		describe(stdout, &r.v[i], info->mountpoint);
	fflush(stdout);
	if (!yes && !confirm(ctl, r.n, shown(info->mountpoint))) {
		rc = yes || isatty(STDIN_FILENO) ? EXIT_DAMAGE : EXIT_ERROR;
		goto out;
	}

	int repaired = 0, left = 0, unrecorded = 0;
	bool rebuilt_any = false;
	for (size_t i = 0; i < r.n; i++) {
		struct candidate *cd = &r.v[i];
		const char *outcomes[NELEM(cd->types)];
		char details[NELEM(cd->types)][256];
		bool ok = true, any_repair = false;

		for (int k = 0; k < cd->ntypes; k++) {
			outcomes[k] = repair_one(fs, cd, cd->types[k], details[k], sizeof(details[k]));
			printf("  #%lld %-12s %s\n", (long long)cd->f.id, outcomes[k], details[k]);
			if (!strcmp(outcomes[k], "repaired"))
				any_repair = rebuilt_any = true;
			else if (strcmp(outcomes[k], "not-needed"))
				ok = false;
		}
		int state = !ok ? -1 : any_repair ? MAP_STATE_REPAIRED : MAP_STATE_RESOLVED;
		rc = record_repair(st, fs_id, cd, outcomes, details, state);
		if (rc) {
			fail(ctl, rc, "recording the repair of finding #%lld", (long long)cd->f.id);
			unrecorded++;
			left++;
		} else if (ok) {
			repaired++;
		} else {
			left++;
		}
	}
	if (rebuilt_any) {
		int wrc = recount(fs, st, fs_id);

		if (wrc) {
			fail(ctl, wrc, "recording the recount of the summary counters");
			unrecorded++;
		}
	}
	printf("%s: %d finding%s repaired or no longer damaged, %d left open\n",
	       shown(info->mountpoint), repaired, repaired == 1 ? "" : "s", left);
	if (unrecorded)
		rc = fail(ctl, 0, "%d outcome%s could not be recorded", unrecorded,
			  unrecorded == 1 ? "" : "s");
	else
		rc = left ? EXIT_DAMAGE : EXIT_CLEAN;
out:
	for (size_t i = 0; i < r.n; i++)
		map_finding_clear(&r.v[i].f);
	free(r.v);
	map_fs_close(fs);
	map_store_close(st);
	return rc;
}

const struct command cmd_repair = {
	"repair", run, "ask the kernel to rebuild damaged metadata (opt-in)",
	"Usage: mapctl repair PATH [--finding ID | --all] [--yes]\n"
	"\n"
	"Ask the kernel to rebuild the damaged metadata recorded for the filesystem\n"
	"holding PATH, through the scrub ioctl's REPAIR flag: AG headers and btrees\n"
	"first, then inodes, extent maps and directories.  Blocks known to be\n"
	"unreadable are rebuilt elsewhere (FORCE_REBUILD).  Each object is checked\n"
	"again afterwards.  File data is never \"repaired\": see mapctl refetch.\n"
	"Asks before acting unless --yes.  The filesystem must be mounted read-write.\n"
	"Needs root.\n"
	"\n"
	"Each attempt is recorded: repaired, not-needed, unsupported (with the\n"
	"reason, e.g. directory repair needs exchange-range), or failed.\n"
	"\n"
	"Options:\n"
	"  --finding ID   only this finding (see mapctl status / files --all)\n"
	"  --all          every open metadata finding (the default)\n"
	"  -y, --yes      do not ask\n"
	"  -h, --help     this text\n"
	"\n"
	"Exit status: 0 nothing left open, 1 findings still open or not confirmed,\n"
	"2 could not run.\n",
};
