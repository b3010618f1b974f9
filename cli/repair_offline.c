// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapctl repair --offline-plan / --offline: the guided path for damage the
 * kernel cannot heal online (the primary superblock, a kernel without online
 * repair, directories and xattrs without exchange-range, no rmapbt).
 *
 * xfs_repair stops at the first unreadable sector it needs: "cannot read
 * inode ... Aborted" for an inode cluster, "superblock read failed ... fatal
 * error" for one in the first 128 KiB of an AG.  So on the unmounted device:
 *  1. every device range the database recorded as unreadable is read again,
 *     and the sectors that still fail are overwritten with zeros (their
 *     contents are lost already; the write is what makes a drive remap them);
 *  2. xfs_repair rebuilds what those sectors held;
 *  3. the filesystem is mounted back where it was;
 *  4. mapctl refetch then puts back from a mirror every file xfs_repair
 *     removed or moved to lost+found, by the paths in the database, and a
 *     scan checks that nothing is left.
 * Each step is recorded as an action.  Nothing is written before the
 * administrator has seen exactly which sectors will be (or gave --yes).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "act_offline.h"
#include "repair_offline.h"

/* Paths shown per finding in the text plan (JSON has them all). */
#define OFFLINE_SHOW_PATHS 5
/* A path escaped for people (shown()) takes up to 4 bytes per byte: room to
 * keep one past shown()'s few rotating slots. */
#define SHOWN_PATH (4 * PATH_MAX + 1)

struct offline {
	struct ctl *ctl;
	const struct offline_opts *o;
	FILE *say;			/* progress for people: stderr with --json */
	struct offline_plan p;		/* the filesystem, its ranges, the device */
};

/* ---- the target ---- */

/* Why the target or its device was refused (offline_why), in words:
 * EXIT_ERROR. */
static int refused(const struct offline *x, const struct offline_why *w)
{
	const struct ctl *ctl = x->ctl;
	const struct offline_target *t = &x->p.t;
	const struct offline_probe *pr = &x->p.probe;

	switch (w->kind) {
	case OFFLINE_WHY_NONE:
	case OFFLINE_WHY_ERRNO:
		return fail(ctl, w->err, "%s", shown(w->path));
	case OFFLINE_WHY_DB:
		return fail(ctl, w->err, "reading the database");
	case OFFLINE_WHY_MOUNTINFO:
		return fail(ctl, w->err, "reading /proc/self/mountinfo");
	case OFFLINE_WHY_NO_SUCH:
		return fail(ctl, 0, "%s: no such device, file or folder", shown(w->path));
	case OFFLINE_WHY_NOT_BLOCK:
		return fail(ctl, 0, "%s is not a block device", shown(w->path));
	case OFFLINE_WHY_OTHER:
		return fail(ctl, 0, "%s holds %s: not the XFS filesystem recorded (the device was "
			    "reused?); refused, nothing written", shown(t->device), pr->other);
	case OFFLINE_WHY_NO_SB:
		return fail(ctl, 0, "%s: no XFS superblock can be read, and no scanned filesystem "
			    "was recorded on this device", shown(t->device));
	case OFFLINE_WHY_NO_SB_LAST:
		return fail(ctl, 0, "%s: no XFS superblock can be read; the filesystem last "
			    "recorded on it is %s (at %s).  If that is the one to repair, say so: "
			    "--uuid %s", shown(t->device), w->last.uuid, shown(w->last.mountpoint),
			    w->last.uuid);
	case OFFLINE_WHY_UUID_UNKNOWN:
		return fail(ctl, 0, "--uuid %s: no such filesystem was recorded", shown(x->o->uuid));
	case OFFLINE_WHY_UUID_ELSEWHERE:
		return fail(ctl, 0, "--uuid %s: that filesystem was recorded on %s, not on %s",
			    t->sfs.uuid, shown(t->sfs.device), shown(t->device));
	case OFFLINE_WHY_XFS_NOT_UUID:
		return fail(ctl, 0, "%s holds the XFS filesystem %s, not %s", shown(t->device),
			    pr->uuid, shown(x->o->uuid));
	case OFFLINE_WHY_NEVER_SCANNED:
		return fail(ctl, 0, "%s holds the XFS filesystem %s, which has never been scanned: "
			    "nothing is recorded about it", shown(t->device), pr->uuid);
	case OFFLINE_WHY_RECORDED_OTHER:
		return fail(ctl, 0, "%s, the device recorded for %s, now holds another filesystem "
			    "(%s): give the device", shown(t->device), shown(w->path), pr->uuid);
	case OFFLINE_WHY_FS_OPEN:
		if (w->err == -ENOENT)
			return fail(ctl, 0, "%s: no such file or folder", w->path);
		return fail(ctl, w->err, "%s", w->path);
	case OFFLINE_WHY_PATH_NOT_SCANNED:
		return fail(ctl, 0, "%s (uuid %s) has never been scanned", shown(w->last.mountpoint),
			    w->last.uuid);
	case OFFLINE_WHY_NO_DEVICE:
		return fail(ctl, 0, "cannot find the device of %s", shown(w->path));
	case OFFLINE_WHY_NOT_DEVICE_OF:
		return fail(ctl, 0, "%s is not the device of %s", shown(t->device), shown(w->path));
	case OFFLINE_WHY_CLONE:
		return fail(ctl, 0, "the XFS filesystem %s is mounted at %s from %s: %s is a copy "
			    "of it (or the same disk under another name); refused, nothing written "
			    "or recorded", t->sfs.uuid, shown(w->path), shown(w->source),
			    shown(t->device));
	case OFFLINE_WHY_CHANGED_OPENING:
		return fail(ctl, 0, "%s changed while it was being opened: refused",
			    shown(t->device));
	case OFFLINE_WHY_READ_DEVICE:
		return fail(ctl, w->err, "reading %s", shown(t->device));
	case OFFLINE_WHY_CHANGED:
		return fail(ctl, 0, "%s changed since it was identified: refused", shown(t->device));
	}
	return fail(ctl, w->err, "%s", shown(x->o->target));
}

/* ---- step 1: read again, overwrite what still fails ---- */

/* A run of units overwritten, for people. */
static void show_run(uint64_t start, uint64_t len, uint64_t bad_after, void *arg)
{
	struct offline *x = arg;
	char b[32];

	fprintf(x->say, "  bytes %" PRIu64 "+%" PRIu64 " (%s): overwritten%s\n", start, len,
		human_bytes(len, b, sizeof(b)),
		bad_after ? ", but still unreadable: replace this disk" : "");
}

/* ---- step 2: xfs_repair ---- */

static void show_pass(int pass, void *arg)
{
	struct offline *x = arg;

	fprintf(x->say, "2. xfs_repair %s%s\n", shown(x->p.t.device), pass > 1 ? " (again)" : "");
}

/* A line of xfs_repair's output for people, escaped, as it comes. */
static void show_repair_line(const char *line, void *arg)
{
	struct offline *x = arg;

	fprintf(x->say, "    %s\n", shown(line));
	fflush(x->say);
}

static void show_check(const struct xfs_repair_result *chk, uint64_t moved, void *arg)
{
	struct offline *x = arg;

	if (chk->status == 0)
		fprintf(x->say, "   xfs_repair -n finds nothing more; %" PRIu64 " inode%s "
			"moved to lost+found\n", moved, moved == 1 ? "" : "s");
	else
		fprintf(x->say, "   xfs_repair -n still finds something (%s)\n",
			shown(chk->would[0] ? chk->would : chk->last));
}

/* Why the passes stopped short of a clean check: EXIT_ERROR after saying
 * it; 0 when the check is clean. */
static int repair_end(const struct offline *x, const char *dev, const struct offline_repair *r)
{
	const struct ctl *ctl = x->ctl;

	switch (r->end) {
	case OFFLINE_REPAIR_CLEAN:
		return 0;
	case OFFLINE_REPAIR_NOT_RUN:
		return fail(ctl, r->err, r->xr.status == XFS_REPAIR_NOT_STARTED ?
			    "recording the start of xfs_repair (not run)" : "running xfs_repair");
	case OFFLINE_REPAIR_CHECK_NOT_RUN:
		return fail(ctl, r->err, "running xfs_repair -n");
	case OFFLINE_REPAIR_DEVICE_GONE:
		return fail(ctl, 0, "%s no longer names the device that was checked: xfs_repair "
			    "not run", dev);
	case OFFLINE_REPAIR_DIRTY_LOG:
		return fail(ctl, 0, "xfs_repair stopped: the log holds changes not yet written.  "
			    "Replay it: mount %s somewhere and unmount it, then run 'mapctl repair "
			    "--offline %s' again.  Only if that mount fails, 'xfs_repair -L %s' "
			    "throws the log away (losing those changes); then run this again", dev,
			    dev, dev);
	case OFFLINE_REPAIR_FAILED:
		return fail(ctl, 0, "xfs_repair %s failed (exit %d): %s", dev, r->xr.status,
			    shown(r->xr.last));
	case OFFLINE_REPAIR_CHECK_FAILED:
		return fail(ctl, 0, "xfs_repair -n %s failed (exit %d): %s", dev, r->chk.status,
			    shown(r->chk.last));
	case OFFLINE_REPAIR_NOT_CONVERGED:
		break;
	}
	return fail(ctl, 0, "xfs_repair %s did not converge in %d passes: see 'xfs_repair -n "
		    "%s'", dev, REPAIR_PASSES, dev);
}

/* ---- an xfs_repair that an earlier mapctl started and did not see end ---- */

/*
 * An earlier xfs_repair (offline_find_earlier) still running: refuse
 * (EXIT_ERROR).  Ended: say and record how, from the status file its
 * watcher wrote, or that it is unknown and what to check; then 0 (this run
 * goes on, and runs xfs_repair again).
 */
static int settle_earlier_repair(struct offline *x)
{
	const struct ctl *ctl = x->ctl;
	const struct offline_earlier *e = &x->p.earlier;
	int rc = offline_find_earlier(&x->p);

	if (rc)
		return fail(ctl, rc, "looking for an earlier xfs_repair in %s",
			    shown(map_store_path(x->p.st)));
	switch (e->state) {
	case EARLIER_NONE:
		return 0;
	case EARLIER_RUNNING:
		return fail(ctl, 0, "xfs_repair on %s, started %s by an earlier mapctl (watcher pid "
			    "%d), is still running: wait for it to end, then run this again (its "
			    "output: %s)", shown(x->p.t.device), e->when, e->pid, shown(e->log));
	case EARLIER_ENDED:
		fprintf(x->say, "The xfs_repair an earlier mapctl started on %s (%s) ended with "
			"exit status %d; its output is in %s.\n", shown(x->p.t.device), e->when,
			e->code, shown(e->log));
		break;
	case EARLIER_UNKNOWN:
		fprintf(x->say, "The xfs_repair an earlier mapctl started on %s (%s) ended, but how "
			"is unknown (killed, or the machine stopped).  Check with 'xfs_repair -n "
			"%s'; its output so far is in %s.\n", shown(x->p.t.device), e->when,
			shown(x->p.t.device), shown(e->log));
		break;
	}
	rc = offline_record_earlier(&x->p);
	if (rc)
		return fail(ctl, rc, "recording the earlier xfs_repair");
	return 0;
}

/* ---- the plan, for people and for programs ---- */

/* What becomes of an owner of unreadable sectors, by finding kind. */
static const char *fate(const char *kind)
{
	static const struct {
		const char *kind, *text;
	} t[] = {
		{ "file", "these bytes become zeros; refetch copies the file back" },
		{ "directory", "the names in this block are lost; xfs_repair moves the files they "
			       "named to lost+found and refetch puts them back at their paths" },
		{ "symlink", "the link target is lost; refetch puts the link back" },
		{ "xattr", "these extended attributes are lost; refetch copies them back" },
		{ "extent-map", "part of the file's extent map is lost; xfs_repair may clear the "
				"file, refetch copies it back" },
		{ "inode", "the inode is lost; xfs_repair clears it and its names, refetch "
			   "recreates the file" },
		{ "inode-chunk", "inodes in this chunk are lost; xfs_repair clears them and their "
				 "names, refetch recreates the files" },
		{ "ag-headers", "xfs_repair rebuilds the AG header from the other copies" },
		{ "log", "part of the journal; if xfs_repair then reports a dirty log, see "
			 "mapctl(8)" },
		{ "space-btrees", "xfs_repair rebuilds it from the other metadata" },
		{ "inode-btrees", "xfs_repair rebuilds it from the inodes it finds" },
		{ "refcount-btree", "xfs_repair rebuilds it from the other metadata" },
		{ "cow-staging", "copy-on-write staging: nothing is lost" },
		{ "free", "free space: nothing is lost" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(t[i].kind, kind))
			return t[i].text;
	return "owner unknown: xfs_repair decides";
}

static int print_finding(const struct offline_plan *p, const struct map_finding *f, void *arg)
{
	FILE *out = arg;
	const char *mnt = p->t.sfs.mountpoint;

	fprintf(out, "      #%lld %s", (long long)f->id, f->kind);
	if (f->ino)
		fprintf(out, " inode %" PRIu64, f->ino);
	if (f->has_offset)
		fprintf(out, " offset %" PRIu64, f->offset);
	if (f->state != MAP_STATE_OPEN)
		fprintf(out, " (%s)", map_state_name(f->state));
	fprintf(out, ": %s\n", fate(f->kind));
	for (size_t i = 0; i < f->npaths && i < OFFLINE_SHOW_PATHS; i++) {
		fputs("        ", out);
		print_path_text(out, mnt, f->paths[i]);
		fputc('\n', out);
	}
	if (f->npaths > OFFLINE_SHOW_PATHS)
		fprintf(out, "        and %zu more\n", f->npaths - OFFLINE_SHOW_PATHS);
	return 0;
}

static int json_one(const struct offline_plan *p, const struct map_finding *f, void *arg)
{
	json_finding(arg, f, p->t.sfs.uuid, p->t.sfs.mountpoint);
	return 0;
}

static void print_ranges(const struct offline *x, FILE *out)
{
	for (size_t i = 0; i < x->p.ranges.n; i++) {
		const struct map_range *r = &x->p.ranges.v[i];
		char b[32];

		fprintf(out, "    bytes %" PRIu64 "+%" PRIu64 " (%s): ", r->start, r->length,
			human_bytes(r->length, b, sizeof(b)));
		if (!x->p.checked)
			fprintf(out, "not read now (needs root and the device)\n");
		else if (x->p.range_bad[i] == 0)
			fprintf(out, "readable now: left alone\n");
		else
			fprintf(out, "%" PRIu64 " of %" PRIu64 " sectors of %u B unreadable now: "
				"overwritten\n", x->p.range_bad[i], r->length / x->p.unit, x->p.unit);
		offline_plan_each_finding(&x->p, i, r->start, r->length, print_finding, out);
	}
	if (x->p.outside)
		fprintf(out, "    (%zu recorded range%s past the end of %s: left alone)\n",
			x->p.outside, x->p.outside == 1 ? "" : "s", shown(x->p.t.device));
}

/* What the plan says of an earlier xfs_repair that no mapctl saw end. */
static void print_earlier(const struct offline *x, FILE *out)
{
	const struct offline_earlier *e = &x->p.earlier;
	char log[SHOWN_PATH];

	snprintf(log, sizeof(log), "%s", shown(e->log));
	switch (e->state) {
	case EARLIER_NONE:
		break;
	case EARLIER_RUNNING:
		fprintf(out, "  xfs_repair, started %s by an earlier mapctl (watcher pid %d), is "
			"still running: --offline refuses until it ends (its output: %s).\n",
			e->when, e->pid, log);
		break;
	case EARLIER_ENDED:
		fprintf(out, "  The xfs_repair an earlier mapctl started %s ended with exit status "
			"%d, not recorded yet: --offline records it first (its output: %s).\n",
			e->when, e->code, log);
		break;
	case EARLIER_UNKNOWN:
		fprintf(out, "  The xfs_repair an earlier mapctl started %s ended, but how is "
			"unknown%s: check with 'xfs_repair -n %s' (its output so far: %s).\n",
			e->when, geteuid() ? " to this user (root may read its exit status)" :
			" (killed, or the machine stopped)", shown(x->p.t.device), log);
		break;
	}
}

static void print_plan(const struct offline *x, FILE *out)
{
	const struct offline_target *t = &x->p.t;
	char mnt[SHOWN_PATH], dev[SHOWN_PATH], b[32];

	snprintf(mnt, sizeof(mnt), "%s", shown(t->sfs.mountpoint));
	snprintf(dev, sizeof(dev), "%s", shown(t->device));

	fprintf(out, "Offline repair of %s (XFS %s on %s):\n", mnt, t->sfs.uuid, dev);
	if (!t->by_uuid)
		fprintf(out, "  (no XFS superblock can be read on %s: it is the device last recorded "
			"for this filesystem; --offline needs --uuid %s to go on)\n", dev,
			t->sfs.uuid);
	if (t->mounted_at[0])
		fprintf(out, "  It is mounted at %s now: unmount it first.\n", shown(t->mounted_at));
	print_earlier(x, out);
	fprintf(out, "1. Read again, sector by sector, the %zu device range%s (%s) the database "
		"recorded as unreadable, and overwrite with zeros only the sectors that still "
		"cannot be read: their contents are lost already, and the write lets the drive "
		"remap them (xfs_repair stops at the first unreadable sector it needs).\n",
		x->p.ranges.n, x->p.ranges.n == 1 ? "" : "s",
		human_bytes(map_range_total(&x->p.ranges), b, sizeof(b)));
	print_ranges(x, out);
	if (x->p.checked)
		fprintf(out, "   %" PRIu64 " sector%s of %u B to overwrite%s.\n", x->p.total_bad,
			x->p.total_bad == 1 ? "" : "s", x->p.unit,
			x->p.total_bad > x->p.max_bad ? ": more than a failing disk's worth, refused "
			"(copy it to a new disk with ddrescue)" : "");
	fprintf(out, "2. Run xfs_repair %s (the first in PATH), then xfs_repair -n, and "
		"xfs_repair again while that finds something (%d passes at most).  It rebuilds "
		"what those sectors held: names in a lost directory block are dropped and the "
		"files they named are moved to lost+found; inodes it cannot rebuild are cleared "
		"with their names.  If it reports a dirty log, mount and unmount the filesystem "
		"to replay the log, then start again.\n", dev, REPAIR_PASSES);
	fprintf(out, "3. Mount %s at %s again (not with --no-mount).\n", dev, mnt);
	fprintf(out, "4. mapctl refetch %s --from MIRROR puts every file xfs_repair removed or "
		"moved to lost+found back at its recorded path and copies the zeroed data back; "
		"then mapctl scan %s checks that nothing is left.  Findings whose sectors are "
		"overwritten become 'zeroed': a scan reads zeros as good data, so only a verified "
		"refetch (or mapctl resolve) closes them.\n", mnt, mnt);
	if (t->mounted_at[0])
		fprintf(out, "Run: umount %s && mapctl repair --offline %s\n", shown(t->mounted_at),
			dev);
	else
		fprintf(out, "Run: mapctl repair --offline %s\n", dev);
}

static void json_plan(const struct offline *x, FILE *out)
{
	struct map_json j;

	json_open(&j, out, "mapctl repair --offline-plan");
	map_json_str(&j, "fs_uuid", x->p.t.sfs.uuid);
	map_json_str_or_null(&j, "device", x->p.t.device);
	map_json_str_or_null(&j, "mountpoint", x->p.t.sfs.mountpoint);
	map_json_str_or_null(&j, "mounted_at", x->p.t.mounted_at);
	map_json_bool(&j, "identified_by_uuid", x->p.t.by_uuid);
	map_json_bool(&j, "checked", x->p.checked);
	map_json_uint_or_null(&j, "sector_size", x->p.checked, x->p.unit);
	map_json_uint_or_null(&j, "unreadable_sectors", x->p.checked, x->p.total_bad);
	map_json_uint_or_null(&j, "max_sectors", x->p.checked, x->p.max_bad);
	map_json_uint(&j, "ranges_outside_device", x->p.outside);
	map_json_arr(&j, "ranges");
	for (size_t i = 0; i < x->p.ranges.n; i++) {
		const struct map_range *r = &x->p.ranges.v[i];

		map_json_obj(&j, NULL);
		map_json_uint(&j, "device_offset", r->start);
		map_json_uint(&j, "device_length", r->length);
		if (x->p.checked)
			map_json_uint(&j, "unreadable_sectors", x->p.range_bad[i]);
		else
			map_json_null(&j, "unreadable_sectors");
		map_json_arr(&j, "findings");
		offline_plan_each_finding(&x->p, i, r->start, r->length, json_one, &j);
		map_json_end_arr(&j);
		map_json_end_obj(&j);
	}
	map_json_end_arr(&j);
	map_json_arr(&j, "steps");
	map_json_str(&j, NULL, "overwrite the recorded sectors that still cannot be read");
	map_json_str(&j, NULL, "xfs_repair");
	map_json_str(&j, NULL, "mount");
	map_json_str(&j, NULL, "mapctl refetch --from MIRROR, then mapctl scan");
	map_json_end_arr(&j);
	json_close(&j);
}

/* ---- the whole ---- */

static bool confirm(const struct offline *x)
{
	char line[16];

	if (!isatty(STDIN_FILENO)) {
		fail(x->ctl, 0, "not asking on a non-terminal: add --yes to overwrite %" PRIu64
		     " sectors of %s and run xfs_repair on it", x->p.total_bad, shown(x->p.t.device));
		return false;
	}
	fprintf(stderr, "Overwrite %" PRIu64 " unreadable sector%s of %s with zeros, run "
		"xfs_repair on it%s? [y/N] ", x->p.total_bad, x->p.total_bad == 1 ? "" : "s",
		shown(x->p.t.device), x->o->no_mount ? "" : " and mount it again");
	if (!fgets(line, sizeof(line), stdin))
		return false;
	return line[0] == 'y' || line[0] == 'Y';
}

static void json_result(const struct offline *x, const struct offline_overwrite *ow,
			const struct xfs_repair_result *xr, bool ran_repair, const char *mounted)
{
	struct map_json j;

	json_open(&j, stdout, "mapctl repair --offline");
	map_json_str(&j, "fs_uuid", x->p.t.sfs.uuid);
	map_json_str(&j, "device", x->p.t.device);
	map_json_uint(&j, "sector_size", x->p.unit);
	map_json_uint(&j, "ranges", x->p.ranges.n);
	map_json_uint(&j, "unreadable_sectors", x->p.total_bad);
	map_json_uint(&j, "overwritten_sectors", ow->written);
	map_json_uint(&j, "still_unreadable_sectors", ow->still_bad);
	if (ran_repair) {
		map_json_obj(&j, "xfs_repair");
		map_json_int(&j, "status", xr->status);
		map_json_uint(&j, "moved_to_lost_found", xr->moved);
		map_json_str_or_null(&j, "last_line", xr->last);
		map_json_end_obj(&j);
	} else {
		map_json_null(&j, "xfs_repair");
	}
	map_json_str_or_null(&j, "mounted_at", mounted);
	json_close(&j);
}

static int do_offline(struct offline *x)
{
	static char dev[SHOWN_PATH], mnt[SHOWN_PATH];
	const struct offline_repair_ops repair_ops = {
		.pass = show_pass, .line = show_repair_line, .checked = show_check, .arg = x,
	};
	const struct ctl *ctl = x->ctl;
	struct offline_overwrite ow = { 0 };
	struct offline_repair xr = { 0 };
	char why[256];
	bool ran_repair = false, mount_unrecorded = false;
	const char *mounted = NULL;
	int unrecorded = 0, rc;

	snprintf(dev, sizeof(dev), "%s", shown(x->p.t.device));
	snprintf(mnt, sizeof(mnt), "%s", shown(x->p.t.sfs.mountpoint));
	if (x->p.total_bad > x->p.max_bad)
		return fail(ctl, 0, "%" PRIu64 " sectors of %s cannot be read, more than the %"
			    PRIu64 " this overwrites (a disk failing as a whole): copy it to a new "
			    "disk (ddrescue) and repair the copy", x->p.total_bad, dev, x->p.max_bad);
	if (!x->o->yes && !confirm(x))
		return isatty(STDIN_FILENO) ? EXIT_DAMAGE : EXIT_ERROR;

	/* 1. overwrite */
	fprintf(x->say, "1. overwriting %" PRIu64 " unreadable sector%s of %u B\n", x->p.total_bad,
		x->p.total_bad == 1 ? "" : "s", x->p.unit);
	offline_overwrite(&x->p, &ow, show_run, x);
	unrecorded += ow.unrecorded;
	/* xfs_repair opens the device exclusively too. */
	offline_device_close(&x->p.dev);
	if (ow.still_bad) {
		fail(ctl, 0, "%" PRIu64 " sector%s of %s still cannot be read after being "
		     "overwritten: the drive cannot remap them; copy it to a new disk (ddrescue) "
		     "and repair the copy", ow.still_bad, ow.still_bad == 1 ? "" : "s", dev);
		rc = EXIT_ERROR;
		goto out;
	}

	/* 2. xfs_repair */
	ran_repair = true;
	offline_repair_passes(&x->p, &repair_ops, &xr);
	unrecorded += xr.unrecorded;
	if (repair_end(x, dev, &xr) != 0) {
		rc = EXIT_ERROR;
		goto out;
	}

	/* 3. mount */
	if (!x->o->no_mount) {
		fprintf(x->say, "3. mounting %s at %s\n", dev, mnt);
		rc = offline_mount_back(&x->p, why, sizeof(why), &mount_unrecorded);
		unrecorded += mount_unrecorded;
		if (rc == 0)
			fprintf(x->say, "   %s\n", shown(why));
		if (rc) {
			fail(ctl, 0, "%s.  %s is left unmounted: mount it yourself where it belongs, "
			     "then go on with refetch", shown(why), dev);
			rc = EXIT_ERROR;
			goto out;
		}
		mounted = x->p.t.sfs.mountpoint;
	}

	/* 4. what next */
	fprintf(x->say, "%s. Now put back what was lost, then check:\n"
		"     mapctl refetch %s --from MIRROR\n"
		"     mapctl scan %s\n"
		"   (findings whose sectors were overwritten are 'zeroed': no scan closes them, "
		"only a verified refetch or mapctl resolve)\n", x->o->no_mount ? "3" : "4", mnt,
		mnt);
	rc = 0;
out:
	if (x->o->json)
		json_result(x, &ow, &xr.xr, ran_repair, mounted);
	if (unrecorded)
		return fail(ctl, 0, "%d step%s could not be recorded", unrecorded,
			    unrecorded == 1 ? "" : "s");
	if (rc)
		return rc;
	/* Findings stay open until refetch and the next scan settle them. */
	int counts[MAP_STATE_NR] = { 0 };
	if (map_store_count(x->p.st, x->p.t.fs_id, counts) != 0)
		return EXIT_DAMAGE;
	return map_counts_open(counts) ? EXIT_DAMAGE : EXIT_CLEAN;
}

int repair_offline(struct ctl *ctl, const struct offline_opts *o)
{
	struct offline x = { .ctl = ctl, .o = o, .p.dev.fd = -1, .p.unit = 512 };
	const struct offline_ask ask = { o->target, o->uuid, o->plan_only };
	struct offline_why why;
	int lock = -1, holder = 0, rc;

	x.say = o->json ? stderr : stdout;
	/* Progress lines, then a failure on stderr: in that order in a log. */
	setvbuf(x.say, NULL, _IOLBF, 0);
	if (!o->target || !o->target[0])
		return fail(ctl, 0, "which filesystem? give its device or mount point");
	if (!o->plan_only && (rc = need_root(ctl, "offline repair")) != 0)
		return rc;
	rc = open_store(ctl, !o->plan_only, &x.p.st);
	if (rc)
		return rc;
	if (offline_resolve_target(&x.p, &ask, &why) != 0) {
		rc = refused(&x, &why);
		goto out;
	}
	if (!o->plan_only && x.p.t.mounted_at[0]) {
		rc = fail(ctl, 0, "%s is mounted at %s: unmount it first (umount %s)",
			  shown(x.p.t.device), shown(x.p.t.mounted_at), shown(x.p.t.mounted_at));
		goto out;
	}
	if (!o->plan_only && offline_refuse_clone(&x.p, &why) != 0) {
		rc = refused(&x, &why);
		goto out;
	}
	if (!o->plan_only && (rc = settle_earlier_repair(&x)) != 0)
		goto out;
	if (!o->plan_only) {
		/* One offline repair or scan of a filesystem at a time. */
		lock = map_scan_lock(x.p.st, x.p.t.sfs.uuid, &holder);
		if (lock < 0) {
			rc = lock == -EBUSY ? fail(ctl, 0, "%s is being scanned or repaired (pid %d)",
						   shown(x.p.t.sfs.mountpoint), holder)
					    : fail(ctl, lock, "taking the lock of %s",
						   shown(x.p.t.sfs.mountpoint));
			goto out;
		}
	}
	/* The plan reads only, and only when it may (root). */
	rc = offline_device_open(&x.p.dev, x.p.t.device, !o->plan_only);
	if (rc == 0)
		x.p.unit = x.p.dev.unit;
	if (rc && !o->plan_only) {
		rc = rc == -EBUSY ? fail(ctl, 0, "%s is in use (mounted elsewhere, or held by "
					 "device-mapper, md or LVM): it must be free",
					 shown(x.p.t.device))
				  : fail(ctl, rc, "opening %s", shown(x.p.t.device));
		goto out;
	}
	if (!o->plan_only && offline_check_open_device(&x.p, &why) != 0) {
		rc = refused(&x, &why);
		goto out;
	}
	rc = offline_plan_collect(&x.p);
	if (rc) {
		rc = fail(ctl, rc, "reading the database");
		goto out;
	}
	if (x.p.too_many) {
		rc = fail(ctl, 0, "more than %d unreadable ranges are recorded for %s: a disk "
			  "failing as a whole; copy it to a new disk (ddrescue) first",
			  OFFLINE_MAX_RANGES, shown(x.p.t.sfs.mountpoint));
		goto out;
	}
	if (x.p.dev.fd >= 0 && (rc = offline_plan_check(&x.p)) != 0) {
		rc = fail(ctl, rc, "reading %s", shown(x.p.t.device));
		goto out;
	}
	if (o->plan_only) {
		rc = offline_find_earlier(&x.p);
		if (rc) {
			rc = fail(ctl, rc, "looking for an earlier xfs_repair in %s",
				  shown(map_store_path(x.p.st)));
			goto out;
		}
		if (o->json)
			json_plan(&x, stdout);
		else
			print_plan(&x, stdout);
		rc = EXIT_CLEAN;
		goto out;
	}
	print_plan(&x, x.say);
	fflush(x.say);
	rc = do_offline(&x);
out:
	offline_plan_free(&x.p);
	if (lock >= 0)
		close(lock);
	map_store_close(x.p.st);
	return rc;
}
