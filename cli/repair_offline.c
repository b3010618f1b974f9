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
#include "map_act_offline_flow.h"
#include "repair_offline.h"

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

/* How the earlier xfs_repair ended, before it is recorded. */
static void show_earlier(const struct offline_plan *p, void *arg)
{
	const struct offline *x = arg;
	const struct offline_earlier *e = &p->earlier;

	if (e->state == EARLIER_ENDED)
		fprintf(x->say, "The xfs_repair an earlier mapctl started on %s (%s) ended with "
			"exit status %d; its output is in %s.\n", shown(p->t.device), e->when,
			e->code, shown(e->log));
	else
		fprintf(x->say, "The xfs_repair an earlier mapctl started on %s (%s) ended, but how "
			"is unknown (killed, or the machine stopped).  Check with 'xfs_repair -n "
			"%s'; its output so far is in %s.\n", shown(p->t.device), e->when,
			shown(p->t.device), shown(e->log));
}

/* ---- what stopped a step ---- */

/* Why a step before writing stopped (@s), in words: EXIT_ERROR. */
static int stopped_before(const struct offline *x, const struct offline_stopped *s)
{
	const struct ctl *ctl = x->ctl;
	const struct offline_plan *p = &x->p;

	switch (s->stop) {
	case OFFLINE_STOP_MOUNTED:
		return fail(ctl, 0, "%s is mounted at %s: unmount it first (umount %s)",
			    shown(p->t.device), shown(p->t.mounted_at), shown(p->t.mounted_at));
	case OFFLINE_STOP_REFUSED:
		return refused(x, &s->why);
	case OFFLINE_STOP_EARLIER_LOOKUP:
		return fail(ctl, s->err, "looking for an earlier xfs_repair in %s",
			    shown(map_store_path(p->st)));
	case OFFLINE_STOP_EARLIER_RUNNING:
		return fail(ctl, 0, "xfs_repair on %s, started %s by an earlier mapctl (watcher pid "
			    "%d), is still running: wait for it to end, then run this again (its "
			    "output: %s)", shown(p->t.device), p->earlier.when, p->earlier.pid,
			    shown(p->earlier.log));
	case OFFLINE_STOP_EARLIER_RECORD:
		return fail(ctl, s->err, "recording the earlier xfs_repair");
	case OFFLINE_STOP_LOCKED:
		return fail(ctl, 0, "%s is being scanned or repaired (pid %d)",
			    shown(p->t.sfs.mountpoint), s->holder);
	case OFFLINE_STOP_LOCK:
		return fail(ctl, s->err, "taking the lock of %s", shown(p->t.sfs.mountpoint));
	case OFFLINE_STOP_DEVICE_BUSY:
		return fail(ctl, 0, "%s is in use (mounted elsewhere, or held by device-mapper, md "
			    "or LVM): it must be free", shown(p->t.device));
	case OFFLINE_STOP_DEVICE_OPEN:
		return fail(ctl, s->err, "opening %s", shown(p->t.device));
	case OFFLINE_STOP_DB:
		return fail(ctl, s->err, "reading the database");
	case OFFLINE_STOP_TOO_MANY_RANGES:
		return fail(ctl, 0, "more than %d unreadable ranges are recorded for %s: a disk "
			    "failing as a whole; copy it to a new disk (ddrescue) first",
			    OFFLINE_MAX_RANGES, shown(p->t.sfs.mountpoint));
	case OFFLINE_STOP_READ_DEVICE:
		return fail(ctl, s->err, "reading %s", shown(p->t.device));
	default:
		break;
	}
	return fail(ctl, s->err, "%s", shown(p->t.device));
}

/* Why the run stopped (@s), in words: EXIT_ERROR, or, not confirmed, the
 * status a refusal leads to. */
static int stopped_run(const struct offline *x, const char *dev, const struct offline_stopped *s,
		       const struct offline_result *r)
{
	const struct ctl *ctl = x->ctl;
	const struct offline_plan *p = &x->p;

	switch (s->stop) {
	case OFFLINE_STOP_TOO_MANY_BAD:
		return fail(ctl, 0, "%" PRIu64 " sectors of %s cannot be read, more than the %"
			    PRIu64 " this overwrites (a disk failing as a whole): copy it to a new "
			    "disk (ddrescue) and repair the copy", p->total_bad, dev, p->max_bad);
	case OFFLINE_STOP_NOT_CONFIRMED:
		return isatty(STDIN_FILENO) ? EXIT_DAMAGE : EXIT_ERROR;
	case OFFLINE_STOP_STILL_BAD:
		return fail(ctl, 0, "%" PRIu64 " sector%s of %s still cannot be read after being "
			    "overwritten: the drive cannot remap them; copy it to a new disk "
			    "(ddrescue) and repair the copy", r->ow.still_bad,
			    r->ow.still_bad == 1 ? "" : "s", dev);
	case OFFLINE_STOP_REPAIR:
		repair_end(x, dev, &r->repair);
		return EXIT_ERROR;
	case OFFLINE_STOP_MOUNT_BACK:
		return fail(ctl, 0, "%s.  %s is left unmounted: mount it yourself where it "
			    "belongs, then go on with refetch", shown(r->text), dev);
	default:
		return stopped_before(x, s);
	}
}

/* ---- the whole ---- */

static bool confirm(const struct offline_plan *p, void *arg)
{
	const struct offline *x = arg;
	char line[16];

	if (x->o->yes)
		return true;
	if (!isatty(STDIN_FILENO)) {
		fail(x->ctl, 0, "not asking on a non-terminal: add --yes to overwrite %" PRIu64
		     " sectors of %s and run xfs_repair on it", p->total_bad, shown(p->t.device));
		return false;
	}
	fprintf(stderr, "Overwrite %" PRIu64 " unreadable sector%s of %s with zeros, run "
		"xfs_repair on it%s? [y/N] ", p->total_bad, p->total_bad == 1 ? "" : "s",
		shown(p->t.device), x->o->no_mount ? "" : " and mount it again");
	if (!fgets(line, sizeof(line), stdin))
		return false;
	return line[0] == 'y' || line[0] == 'Y';
}

static void show_overwriting(const struct offline_plan *p, void *arg)
{
	const struct offline *x = arg;

	fprintf(x->say, "1. overwriting %" PRIu64 " unreadable sector%s of %u B\n", p->total_bad,
		p->total_bad == 1 ? "" : "s", p->unit);
}

static void show_mounting(const struct offline_plan *p, void *arg)
{
	const struct offline *x = arg;

	fprintf(x->say, "3. mounting %s at %s\n", shown(p->t.device), shown(p->t.sfs.mountpoint));
}

static void show_mounted(const char *how, void *arg)
{
	const struct offline *x = arg;

	fprintf(x->say, "   %s\n", shown(how));
}

/* Overwrite, xfs_repair, mount back, what next: an EXIT_* status. */
static int do_offline(struct offline *x)
{
	static char dev[SHOWN_PATH], mnt[SHOWN_PATH];
	const struct offline_run_ops ops = {
		.confirm = confirm, .overwriting = show_overwriting, .run = show_run,
		.repair = { .pass = show_pass, .line = show_repair_line, .checked = show_check,
			    .arg = x },
		.mounting = show_mounting, .mounted = show_mounted, .arg = x,
	};
	struct offline_result r;
	struct offline_stopped s;
	int rc = 0, left;

	snprintf(dev, sizeof(dev), "%s", shown(x->p.t.device));
	snprintf(mnt, sizeof(mnt), "%s", shown(x->p.t.sfs.mountpoint));
	if (offline_run(&x->p, x->o->no_mount, &ops, &r, &s) != 0) {
		rc = stopped_run(x, dev, &s, &r);
		if (s.stop == OFFLINE_STOP_TOO_MANY_BAD || s.stop == OFFLINE_STOP_NOT_CONFIRMED)
			return rc;
	} else {
		fprintf(x->say, "%s. Now put back what was lost, then check:\n"
			"     mapctl refetch %s --from MIRROR\n"
			"     mapctl scan %s\n"
			"   (findings whose sectors were overwritten are 'zeroed': no scan closes "
			"them, only a verified refetch or mapctl resolve)\n",
			x->o->no_mount ? "3" : "4", mnt, mnt);
	}
	if (x->o->json)
		offline_json_result(&x->p, &r.ow, &r.repair.xr, r.ran_repair, r.mounted);
	if (r.unrecorded)
		return fail(x->ctl, 0, "%d step%s could not be recorded", r.unrecorded,
			    r.unrecorded == 1 ? "" : "s");
	if (rc)
		return rc;
	left = offline_findings_left(&x->p);
	return left == 0 ? EXIT_CLEAN : EXIT_DAMAGE;
}

/* --offline-plan: the plan, nothing written.  An EXIT_* status. */
static int show_plan(struct offline *x)
{
	int rc = offline_find_earlier(&x->p);

	if (rc)
		return fail(x->ctl, rc, "looking for an earlier xfs_repair in %s",
			    shown(map_store_path(x->p.st)));
	if (x->o->json)
		offline_json_plan(&x->p, stdout);
	else
		offline_print_plan(&x->p, stdout);
	return EXIT_CLEAN;
}

/* Target, checks, device and plan: 0, or EXIT_ERROR after saying why. */
static int prepare(struct offline *x, int *lock)
{
	const struct offline_ask ask = { x->o->target, x->o->uuid, x->o->plan_only };
	struct offline_stopped s = { .stop = OFFLINE_STOP_REFUSED };

	if (offline_resolve_target(&x->p, &ask, &s.why) != 0)
		return stopped_before(x, &s);
	if (!x->o->plan_only && offline_prepare_write(&x->p, lock, show_earlier, x, &s) != 0)
		return stopped_before(x, &s);
	if (offline_open(&x->p, !x->o->plan_only, &s) != 0 || offline_build(&x->p, &s) != 0)
		return stopped_before(x, &s);
	return 0;
}

int repair_offline(struct ctl *ctl, const struct offline_opts *o)
{
	struct offline x = { .ctl = ctl, .o = o, .p.dev.fd = -1, .p.unit = 512 };
	int lock = -1, rc;

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
	rc = prepare(&x, &lock);
	if (rc == 0 && o->plan_only) {
		rc = show_plan(&x);
	} else if (rc == 0) {
		offline_print_plan(&x.p, x.say);
		fflush(x.say);
		rc = do_offline(&x);
	}
	offline_plan_free(&x.p);
	if (lock >= 0)
		close(lock);
	map_store_close(x.p.st);
	return rc;
}
