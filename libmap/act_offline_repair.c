// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The offline path's xfs_repair: run (act_xfs_repair_run.c) until its check
 * (xfs_repair -n) is clean, each start recorded before it runs, so that a
 * mapctl killed meanwhile leaves a row the next one finds: the earlier run
 * is then still going (refused), or ended with the status its watcher
 * wrote, or ended unseen, and that is recorded before anything else.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "act_offline.h"
#include "map_act.h"
#include "map_internal.h"

/* Where xfs_repair's output and exit status are kept: beside the database
 * and the scan lock (a folder only root writes), one pair per filesystem. */
static int repair_files(const struct offline_plan *p, char *log, char *status, size_t len)
{
	const char *db = map_store_path(p->st);

	if (snprintf(log, len, "%s.%s.xfs_repair.log", db, p->t.sfs.uuid) >= (int)len ||
	    snprintf(status, len, "%s.%s.xfs_repair.status", db, p->t.sfs.uuid) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

static const char *repair_outcome(int status)
{
	return status == 0 ? "done" : status == 2 ? "dirty-log" :
	       status == XFS_REPAIR_DEVICE_GONE ? "refused" : "failed";
}

struct started {
	struct offline_plan *p;
	const struct offline_repair_ops *ops;
	int pass;
};

/* Recorded before xfs_repair runs (it does not run if this fails). */
static int record_started(pid_t pid, unsigned long long start, void *arg)
{
	struct started *s = arg;
	char log[PATH_MAX], status[PATH_MAX], detail[256];

	if (repair_files(s->p, log, status, sizeof(log)) != 0)
		log[0] = '\0';
	map_textf(detail, sizeof(detail), "pid %d start %llu: offline: xfs_repair %s (pass %d); "
		  "its output: %s", (int)pid, start, s->p->t.device, s->pass, log);
	return record_action(s->p->st, s->p->t.fs_id, 0, "xfs_repair", "started", detail);
}

static void pass_line(const char *line, void *arg)
{
	struct started *s = arg;

	if (s->ops->line)
		s->ops->line(line, s->ops->arg);
}

static int xfs_repair(struct offline_plan *p, const struct offline_repair_ops *ops, bool check,
		      int pass, struct xfs_repair_result *xr)
{
	char log[PATH_MAX], status[PATH_MAX];
	struct started s = { p, ops, pass };
	struct xfs_repair_job job = {
		.device = p->t.device, .rdev = p->t.rdev, .check = check, .log = log,
		.status = status, .started = check ? NULL : record_started,
		.line = pass_line, .arg = &s,
	};
	int rc = repair_files(p, log, status, sizeof(log));

	return rc ? rc : run_xfs_repair(&job, xr);
}

/* One pass: xfs_repair and its record; false when the passes end here. */
static bool repair_pass(struct offline_plan *p, const struct offline_repair_ops *ops, int pass,
			uint64_t *moved, struct offline_repair *r)
{
	struct xfs_repair_result *xr = &r->xr;
	char detail[256];

	if (ops->pass)
		ops->pass(pass, ops->arg);
	r->err = xfs_repair(p, ops, false, pass, xr);
	if (r->err) {
		r->end = OFFLINE_REPAIR_NOT_RUN;
		return false;
	}
	*moved += xr->moved;
	map_textf(detail, sizeof(detail), "offline: xfs_repair %s (pass %d) exited %d; %" PRIu64
		  " inode%s moved to lost+found; last: %s", p->t.device, pass, xr->status,
		  xr->moved, xr->moved == 1 ? "" : "s", xr->last);
	if (record_action(p->st, p->t.fs_id, 0, "xfs_repair", repair_outcome(xr->status),
			  detail) != 0)
		r->unrecorded++;
	xr->moved = *moved;
	r->end = xr->status == XFS_REPAIR_DEVICE_GONE ? OFFLINE_REPAIR_DEVICE_GONE :
		 xr->status == 2 ? OFFLINE_REPAIR_DIRTY_LOG :
		 xr->status != 0 ? OFFLINE_REPAIR_FAILED : OFFLINE_REPAIR_CLEAN;
	return r->end == OFFLINE_REPAIR_CLEAN;
}

/* Its check, xfs_repair -n, and its record; false when the passes end. */
static bool check_pass(struct offline_plan *p, const struct offline_repair_ops *ops, int pass,
		       uint64_t moved, struct offline_repair *r)
{
	struct xfs_repair_result *chk = &r->chk;
	char detail[256];

	r->err = xfs_repair(p, ops, true, pass, chk);
	if (r->err) {
		r->end = OFFLINE_REPAIR_CHECK_NOT_RUN;
		return false;
	}
	map_textf(detail, sizeof(detail), "offline: xfs_repair -n %s after pass %d exited %d%s%s",
		  p->t.device, pass, chk->status, chk->would[0] ? ": " : "", chk->would);
	if (record_action(p->st, p->t.fs_id, 0, "xfs_repair -n",
			  chk->status == 0 ? "clean" : chk->status == 1 ? "not-clean" : "failed",
			  detail) != 0)
		r->unrecorded++;
	if (chk->status != 0 && chk->status != 1) {
		r->end = OFFLINE_REPAIR_CHECK_FAILED;
		return false;
	}
	if (ops->checked)
		ops->checked(chk, moved, ops->arg);
	r->end = chk->status == 0 ? OFFLINE_REPAIR_CLEAN : OFFLINE_REPAIR_NOT_CONVERGED;
	return chk->status == 1;
}

void offline_repair_passes(struct offline_plan *p, const struct offline_repair_ops *ops,
			   struct offline_repair *r)
{
	uint64_t moved = 0;

	memset(r, 0, sizeof(*r));
	for (int pass = 1; pass <= REPAIR_PASSES; pass++)
		if (!repair_pass(p, ops, pass, &moved, r) || !check_pass(p, ops, pass, moved, r))
			return;
}

/* ---- an xfs_repair that an earlier mapctl started and did not see end ---- */

struct last_repair {
	bool found;
	struct map_action a;
};

static int last_xfs_repair(const struct map_action *a, void *arg)
{
	struct last_repair *l = arg;

	if (!strcmp(a->action, "xfs_repair")) {
		l->found = true;
		l->a = *a;
	}
	return 0;
}

int offline_find_earlier(struct offline_plan *p)
{
	struct offline_earlier *e = &p->earlier;
	struct last_repair l = { 0 };
	unsigned long long start = 0;
	int rc;

	memset(e, 0, sizeof(*e));
	rc = map_store_actions(p->st, p->t.fs_id, last_xfs_repair, &l);
	if (rc || !l.found || strcmp(l.a.outcome, "started") != 0)
		return rc;
	rc = repair_files(p, e->log, e->status, sizeof(e->log));
	if (rc)
		return rc;
	sscanf(l.a.detail, "pid %d start %llu", &e->pid, &start);
	map_human_time(l.a.at, e->when, sizeof(e->when));
	if (e->pid > 0 && start && proc_start_time(e->pid) == start)
		e->state = EARLIER_RUNNING;
	else if (e->pid > 0 && xfs_repair_status(e->status, e->pid, &e->code) == 0)
		e->state = EARLIER_ENDED;
	else
		e->state = EARLIER_UNKNOWN;
	return 0;
}

int offline_record_earlier(struct offline_plan *p)
{
	struct offline_earlier *e = &p->earlier;
	char detail[256];
	int rc = 0;

	if (e->state == EARLIER_ENDED) {
		map_textf(detail, sizeof(detail), "offline: the xfs_repair started %s ended while "
			  "no mapctl watched: exit %d; its output: %s", e->when, e->code, e->log);
		rc = record_action(p->st, p->t.fs_id, 0, "xfs_repair", repair_outcome(e->code),
				   detail);
	} else if (e->state == EARLIER_UNKNOWN) {
		map_textf(detail, sizeof(detail), "offline: the xfs_repair started %s ended and "
			  "left no exit status (killed, or the machine stopped): check with "
			  "xfs_repair -n %s; its output: %s", e->when, p->t.device, e->log);
		rc = record_action(p->st, p->t.fs_id, 0, "xfs_repair", "unknown", detail);
	}
	if (rc == 0)
		e->state = EARLIER_NONE;	/* settled: a plan printed next says nothing of it */
	return rc;
}
