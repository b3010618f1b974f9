// SPDX-License-Identifier: GPL-2.0-or-later
/* mapctl repair: ask the kernel to rebuild damaged metadata (opt-in), in an
 * order where each step can succeed; say what came of every finding. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "map_act_repair_online.h"
#include "mapctl.h"
#include "repair_offline.h"

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

/* What the administrator can do next that would work. */
static void next_steps(FILE *out, const struct repair_plan *p, const struct repair_caps *caps,
		       const struct repair_tally *t, const char *mnt, bool dry_run)
{
	bool said = false;

	if (p->data_findings || t->by[OUTCOME_LOST]) {
		fprintf(out, "next: mapctl refetch %s --from MIRROR", shell_word(mnt));
		if (p->data_findings)
			fprintf(out, "  (file data of %zu damaged range%s%s)", p->data_findings,
				p->data_findings == 1 ? "" : "s",
				t->by[OUTCOME_LOST] ? ", and what the rebuilds lost" : "");
		else
			fputs("  (puts back what the rebuilds lost)", out);
		fputc('\n', out);
		said = true;
	}
	if (dry_run && p->n) {
		fprintf(out, "next: mapctl repair %s --all --yes  (runs the plan above)\n",
			shell_word(mnt));
		said = true;
	}
	if (t->by[OUTCOME_UNSUPPORTED] || (dry_run && p->offline_needed)) {
		const char *remedy = repair_plan_remedy(p, caps);

		fprintf(out, "next: %s\n", remedy ? remedy : "mapctl repair --offline-plan");
		said = true;
	}
	if (t->by[OUTCOME_FAILED]) {
		fprintf(out, "next: mapctl history %s has why each failed; mapctl scan %s checks "
			"again; if they stay damaged: mapctl repair --offline-plan %s\n",
			shell_word(mnt), shell_word(mnt), shell_word(mnt));
		said = true;
	}
	if (!said && !dry_run)
		fprintf(out, "next: mapctl scan %s  (confirms the filesystem is clean)\n",
			shell_word(mnt));
}

static void json_plan(const struct repair_plan *p, const struct repair_caps *caps,
		      const char *uuid, const char *mnt, bool dry_run)
{
	struct map_json j;

	json_open(&j, stdout, "mapctl repair");
	repair_plan_json(&j, p, caps, uuid, mnt, dry_run);
	json_close(&j);
}

/* Each step as it ends, and the recounts, for people (not with --json). */
static void show_step(const struct plan_item *it, const struct plan_step *s, void *arg)
{
	(void)arg;
	printf("  %-11s #%-5lld %-12s %s\n", map_scrub_phase_name(s->phase), (long long)it->f.id,
	       repair_step_word(s->outcome), s->detail);
	fflush(stdout);
}

static void show_recount(const char *outcome, const char *detail, void *arg)
{
	(void)arg;
	printf("  %-11s %-12s %s\n", "summary", outcome, detail);
}

static void say_unrecorded(int64_t finding_id, int err, void *arg)
{
	fail(arg, err, "recording the repair of finding #%lld", (long long)finding_id);
}

static void print_results(const struct repair_plan *p, const char *mnt)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct plan_item *it = &p->v[i];

		printf("  #%-5lld %-12s %s", (long long)it->f.id, repair_outcome_name(it->outcome),
		       it->f.kind);
		if (it->f.npaths) {
			putchar(' ');
			print_path_text(stdout, mnt, it->f.paths[0]);
		} else if (it->f.ino) {
			printf(" inode %llu", (unsigned long long)it->f.ino);
		} else if (it->f.agno >= 0) {
			printf(" AG %lld", (long long)it->f.agno);
		}
		if (it->lost[0])
			printf(": %s", it->lost);
		for (int k = 0; k < it->nsteps; k++)
			if (it->steps[k].outcome == OUTCOME_UNSUPPORTED ||
			    it->steps[k].outcome == OUTCOME_FAILED)
				printf("%s %s", k ? ";" : ":", it->steps[k].detail);
		putchar('\n');
	}
}

/* The plan for people: one line per finding, its steps in order. */
static void print_plan(FILE *out, const struct repair_plan *p, const char *mnt)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct plan_item *it = &p->v[i];

		fprintf(out, "  %-11s #%lld %s", map_scrub_phase_name(it->steps[0].phase),
			(long long)it->f.id, it->f.kind);
		if (it->f.agno >= 0 && !it->f.ino)
			fprintf(out, " AG %lld", (long long)it->f.agno);
		if (it->f.ino)
			fprintf(out, " inode %llu", (unsigned long long)it->f.ino);
		if (it->f.npaths) {
			fputc(' ', out);
			print_path_text(out, mnt, it->f.paths[0]);
			if (it->f.npaths > 1)
				fprintf(out, " (+%zu more name%s)", it->f.npaths - 1,
					it->f.npaths == 2 ? "" : "s");
		}
		fputs(":", out);
		for (int k = 0; k < it->nsteps; k++) {
			const struct map_scrub_type_info *t = map_scrub_type(it->steps[k].type);

			fprintf(out, "%s %s", k ? "," : "", t ? t->name : "?");
			if (it->steps[k].unsupported)
				fprintf(out, " [cannot be done online: %s]", it->steps[k].unsupported);
		}
		if (it->on_lost_sector)
			fputs(" (its record is in an unreadable range)", out);
		else if (it->unreadable)
			fputs(" (unreadable blocks)", out);
		fputc('\n', out);
	}
}

/* mapctl repair's options, checked against each other. */
struct repair_opts {
	bool all, yes, dry_run, offline, offline_plan;
	int64_t only;			/* --finding, 0 if not given */
	struct offline_opts off;	/* --no-mount, --uuid */
	const char *path;
};

/* The options that do not go together: 0, or EXIT_ERROR after saying so. */
static int check_options(const struct ctl *ctl, const struct repair_opts *o)
{
	if (o->all && o->only)
		return fail(ctl, 0, "--all and --finding do not go together");
	if (o->offline && o->offline_plan)
		return fail(ctl, 0, "--offline-plan prints what --offline does: give one of them");
	if ((o->offline || o->offline_plan) && (o->only || o->dry_run))
		return fail(ctl, 0, "the offline path covers the whole filesystem: no --finding "
			    "or --dry-run (--offline-plan is its dry run)");
	if (o->off.no_mount && !o->offline)
		return fail(ctl, 0, "--no-mount goes with --offline");
	if (o->off.uuid && !o->offline && !o->offline_plan)
		return fail(ctl, 0, "--uuid goes with --offline or --offline-plan");
	return 0;
}

/* 0, or an EXIT_* status after saying what is wrong. */
static int parse_options(struct ctl *ctl, int argc, char **argv, struct repair_opts *o)
{
	static const struct option longopts[] = {
		{ "finding", required_argument, NULL, 'f' },
		{ "all", no_argument, NULL, 'a' },
		{ "yes", no_argument, NULL, 'y' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "offline-plan", no_argument, NULL, 'P' },
		{ "offline", no_argument, NULL, 'O' },
		{ "no-mount", no_argument, NULL, 'M' },
		{ "uuid", required_argument, NULL, 'U' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	opterr = 0;	/* option_error() says it, in one line */
	while ((c = getopt_long(argc, argv, "yn", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			errno = 0;
			o->only = strtoll(optarg, &end, 10);
			if (errno || *end || o->only <= 0)
				return fail(ctl, 0, "--finding wants a finding number, not '%s'", optarg);
			break;
		case 'a': o->all = true; break;
		case 'y': o->yes = true; break;
		case 'n': o->dry_run = true; break;
		case 'j': ctl->json = true; break;
		case 'P': o->offline_plan = true; break;
		case 'O': o->offline = true; break;
		case 'M': o->off.no_mount = true; break;
		case 'U': o->off.uuid = optarg; break;
		default: return option_error(ctl, argv, "yn", longopts);
		}
	}
	if (optind >= argc && (o->offline || o->offline_plan))
		return fail(ctl, 0, "which device? (mapctl repair --offline DEVICE, or "
			    "--offline-plan PATH|DEVICE)");
	if (optind >= argc)
		return fail(ctl, 0, "which filesystem? (mapctl repair PATH [--finding ID | --all])");
	if (optind + 1 < argc)
		return fail(ctl, 0, "one filesystem at a time ('%s' is extra)", argv[optind + 1]);
	o->path = argv[optind];
	return check_options(ctl, o);
}

/* The plan before it runs, for people. */
static void show_plan(const struct repair_plan *plan, const struct repair_caps *caps,
		      const char *mnt)
{
	printf("%s: repair plan, %zu damaged object%s in the order they are rebuilt:\n",
	       shown(mnt), plan->n, plan->n == 1 ? "" : "s");
	print_plan(stdout, plan, mnt);
	if (plan->data_findings)
		printf("  %-11s %zu damaged file range%s: the kernel cannot rebuild data, "
		       "a mirror can\n", "refetch", plan->data_findings,
		       plan->data_findings == 1 ? "" : "s");
	if (!caps->kernel_repairs && caps->kernel_why)
		printf("%s: nothing can be rebuilt online: %s\n", shown(mnt), caps->kernel_why);
	fflush(stdout);
}

/* What came of the plan that ran, for people. */
static void show_outcome(const struct repair_plan *plan, const struct repair_caps *caps,
			 const struct repair_tally *t, const char *mnt)
{
	printf("%s: outcome per finding:\n", shown(mnt));
	print_results(plan, mnt);
	printf("%s: %d healed, %d not needed, %d healed with data lost, %d unsupported, "
	       "%d failed\n", shown(mnt), t->by[OUTCOME_HEALED], t->by[OUTCOME_NOT_NEEDED],
	       t->by[OUTCOME_LOST], t->by[OUTCOME_UNSUPPORTED], t->by[OUTCOME_FAILED]);
	next_steps(stdout, plan, caps, t, mnt, false);
}

/* Why no plan was made (repair_online_plan), in words: EXIT_ERROR. */
static int no_plan(const struct ctl *ctl, const struct repair_opts *o, enum repair_stop stop,
		   int err, const char *mnt)
{
	switch (stop) {
	case REPAIR_STOP_READ_ONLY:
		return fail(ctl, 0, "%s is mounted read-only: the kernel repairs only writable "
			    "filesystems (mount -o remount,rw %s)", shown(mnt), shown(mnt));
	case REPAIR_STOP_ONLY_DATA:
		return fail(ctl, 0, "finding #%lld is file data: the kernel cannot rebuild data; "
			    "mapctl refetch %s --from MIRROR puts it back", (long long)o->only,
			    shell_word(mnt));
	case REPAIR_STOP_ONLY_NOT_OPEN:
		return fail(ctl, 0, "finding #%lld is not an open metadata finding of %s",
			    (long long)o->only, shown(mnt));
	case REPAIR_GO:
	case REPAIR_STOP_DB:
		break;
	}
	return fail(ctl, err, "reading the database");
}

/* Run @plan (asked first unless --yes) and say what came of it: an EXIT_*
 * status. */
static int run_plan(struct ctl *ctl, const struct repair_opts *o, struct map_fs *fs,
		    struct map_store *st, int64_t fs_id, struct repair_plan *plan,
		    const struct repair_caps *caps)
{
	const struct map_fs_info *info = map_fs_info(fs);
	const char *mnt = info->mountpoint;
	const struct repair_run_ops ops = {
		.step = ctl->json ? NULL : show_step,
		.recount = ctl->json ? NULL : show_recount,
		.unrecorded = say_unrecorded, .arg = ctl,
	};
	struct repair_tally t;

	if (!o->yes && !confirm(ctl, plan->n, shown(mnt)))
		return isatty(STDIN_FILENO) ? EXIT_DAMAGE : EXIT_ERROR;
	int unrecorded = repair_plan_run(fs, st, fs_id, plan, &ops);
	repair_plan_tally(plan, &t);
	if (ctl->json)
		json_plan(plan, caps, info->uuid, mnt, false);
	else
		show_outcome(plan, caps, &t, mnt);
	if (unrecorded)
		return fail(ctl, 0, "%d outcome%s could not be recorded", unrecorded,
			    unrecorded == 1 ? "" : "s");
	return repair_tally_left(&t) ? EXIT_DAMAGE : EXIT_CLEAN;
}

/* Online repair of the filesystem at o->path: an EXIT_* status. */
static int repair_online(struct ctl *ctl, const struct repair_opts *o, struct map_store *st,
			 struct map_fs *fs, int64_t fs_id)
{
	const struct map_fs_info *info = map_fs_info(fs);
	const char *mnt = info->mountpoint;
	struct repair_plan plan = { 0 };
	struct repair_caps caps;
	enum repair_stop stop;
	struct repair_tally t;
	int rc, err;

	if (repair_online_plan(fs, st, fs_id, o->only, o->dry_run, &plan, &caps, &stop, &err)) {
		rc = no_plan(ctl, o, stop, err, mnt);
		goto out;
	}
	rc = 0;
	repair_plan_tally(&plan, &t);
	if (plan.n == 0) {
		if (ctl->json) {
			json_plan(&plan, &caps, info->uuid, mnt, o->dry_run);
		} else {
			printf("%s: no open metadata findings to repair\n", shown(mnt));
			next_steps(stdout, &plan, &caps, &t, mnt, o->dry_run);
		}
		goto out;
	}
	if (!ctl->json)
		show_plan(&plan, &caps, mnt);
	if (o->dry_run) {
		if (ctl->json)
			json_plan(&plan, &caps, info->uuid, mnt, true);
		else
			next_steps(stdout, &plan, &caps, &t, mnt, true);
		rc = EXIT_DAMAGE;
		goto out;
	}
	rc = run_plan(ctl, o, fs, st, fs_id, &plan, &caps);
out:
	repair_plan_free(&plan);
	return rc;
}

static int run(struct ctl *ctl, int argc, char **argv)
{
	struct repair_opts o = { 0 };
	struct map_store *st = NULL;
	struct map_store_fs sfs;
	struct map_fs *fs = NULL;
	int64_t fs_id;
	int rc = parse_options(ctl, argc, argv, &o);

	if (rc)
		return rc;
	if (o.offline || o.offline_plan) {
		o.off.target = o.path;
		o.off.plan_only = o.offline_plan;
		o.off.yes = o.yes;
		o.off.json = ctl->json;
		return repair_offline(ctl, &o.off);
	}
	if (!o.dry_run) {
		rc = need_root(ctl, "repairing");
		if (rc)
			return rc;
	}
	rc = open_store(ctl, !o.dry_run, &st);
	if (rc == 0)
		rc = fs_id_for_path(ctl, st, o.path, &fs_id, &sfs);
	if (rc == 0)
		rc = open_fs(ctl, o.path, &fs);
	if (rc == 0)
		rc = repair_online(ctl, &o, st, fs, fs_id);
	map_fs_close(fs);
	map_store_close(st);
	return rc;
}

const struct command cmd_repair = {
	"repair", run, "rebuild damaged metadata through the kernel, in a safe order (opt-in)",
	"Usage: mapctl repair PATH [--finding ID | --all] [--dry-run] [--yes] [--json]\n"
	"       mapctl repair PATH|DEVICE --offline-plan\n"
	"       mapctl repair DEVICE --offline [--yes] [--no-mount] [--uuid UUID]\n"
	"\n"
	"Ask the kernel to rebuild the damaged metadata recorded for the filesystem\n"
	"holding PATH, through the scrub ioctl's REPAIR flag, without unmounting.\n"
	"\n"
	"The plan.  Each open finding is one damaged object; its steps (one scrub type\n"
	"each) run in phases so that every step can succeed: AG headers, then AG\n"
	"btrees (free space, inodes, reverse mapping, reference counts), then inodes,\n"
	"then extent maps, then directories, then xattrs and symlinks, then parent\n"
	"pointers and the directory tree, then link counts and summary counters.  A\n"
	"directory rebuild steps over files it cannot read and keeps their names, so\n"
	"it runs before the xattr salvages that drop what they cannot read.  Objects\n"
	"with unreadable blocks are rebuilt elsewhere (FORCE_REBUILD).  Each step is\n"
	"checked again at once and every rebuilt object once more at the end.\n"
	"--dry-run prints the plan, and what cannot be done online, and changes\n"
	"nothing.\n"
	"\n"
	"Outcomes, recorded per finding (mapctl history):\n"
	"  healed        rebuilt and checked clean\n"
	"  not-needed    the kernel found nothing to rebuild (finding resolved)\n"
	"  lost-data     rebuilt, but what sat in unreadable blocks is gone: a rebuilt\n"
	"                inode's size, mode, owner and times; dropped xattrs; a symlink\n"
	"                target; names moved to lost+found.  mapctl refetch restores\n"
	"                them from a mirror.\n"
	"  unsupported   cannot be rebuilt online here, with the reason and the remedy\n"
	"                (a kernel without online repair, the primary superblock, a\n"
	"                filesystem without exchange-range or rmapbt: the offline path)\n"
	"  failed        the kernel tried and could not; the finding stays open\n"
	"File data is never rebuilt: see mapctl refetch.  The last lines say what to\n"
	"do next.  Asks before acting unless --yes.  The filesystem must be mounted\n"
	"read-write.  Needs root (--dry-run does not).\n"
	"\n"
	"The offline path, when online healing is impossible.  xfs_repair stops at the\n"
	"first unreadable sector it needs, so --offline, on the unmounted DEVICE:\n"
	"re-reads every device range the database recorded as unreadable and\n"
	"overwrites only the sectors that still fail (their contents are lost anyway;\n"
	"the write makes a drive remap them), runs xfs_repair, and mounts the\n"
	"filesystem back.  'mapctl refetch' then puts back every file xfs_repair\n"
	"removed or moved to lost+found, by the paths in the database.\n"
	"--offline-plan prints these steps and the paths they touch.  DEVICE may\n"
	"also be the mount point recorded for it; over 16 MiB of bad sectors is\n"
	"refused.  Refused too: a device that holds anything but XFS (another\n"
	"filesystem, RAID, LVM, swap, a partition table), a copy of a filesystem\n"
	"that is mounted from another device, and a device with no readable XFS\n"
	"superblock unless --uuid names the filesystem recorded on it.  Findings\n"
	"whose sectors were overwritten become 'zeroed': no scan closes them, only a\n"
	"verified refetch or mapctl resolve.  See mapctl(8) for what it guarantees.\n"
	"\n"
	"Options:\n"
	"  --finding ID   only this finding (IDs: mapctl status, mapctl files --all)\n"
	"  --all          every open metadata finding (the default)\n"
	"  -n, --dry-run  print the plan; change nothing\n"
	"  -y, --yes      do not ask\n"
	"  --json         the plan and outcomes as JSON (mapper-json(7))\n"
	"  --offline-plan print the offline path's steps\n"
	"  --offline      run the offline path on an unmounted DEVICE\n"
	"  --no-mount     with --offline: leave the filesystem unmounted at the end\n"
	"  --uuid UUID    with --offline: the filesystem meant, when DEVICE shows no\n"
	"                 XFS superblock (it must be the one recorded on DEVICE)\n"
	"  -h, --help     this text\n"
	"\n"
	"Exit status: 0 every finding healed, not needed, or healed with data lost\n"
	"(refetch next); 1 findings left unsupported or failed, or not confirmed, or\n"
	"a dry run with work to do; 2 could not run.  --offline-plan: 0.  --offline:\n"
	"1 when it went through (findings stay open until refetch and scan), 2 when\n"
	"it refused or a step failed (also when it could not mount back: it says\n"
	"where the device was left unmounted).\n",
};
