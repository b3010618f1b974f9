// SPDX-License-Identifier: GPL-2.0-or-later
/* The offline path's steps in their order (map_act_offline_flow.h). */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "map_act_offline_flow.h"

/* Step stopped: -1 with why in @s. */
static int stopped(struct offline_stopped *s, enum offline_stop stop, int err)
{
	s->stop = stop;
	s->err = err;
	return -1;
}

/* An earlier xfs_repair (offline_find_earlier) still running stops it;
 * one that ended is told and recorded, and this run goes on. */
static int settle_earlier(struct offline_plan *p,
			  void (*earlier)(const struct offline_plan *p, void *arg), void *arg,
			  struct offline_stopped *s)
{
	int rc = offline_find_earlier(p);

	if (rc)
		return stopped(s, OFFLINE_STOP_EARLIER_LOOKUP, rc);
	if (p->earlier.state == EARLIER_NONE)
		return 0;
	if (p->earlier.state == EARLIER_RUNNING)
		return stopped(s, OFFLINE_STOP_EARLIER_RUNNING, 0);
	if (earlier)
		earlier(p, arg);
	rc = offline_record_earlier(p);
	return rc ? stopped(s, OFFLINE_STOP_EARLIER_RECORD, rc) : 0;
}

int offline_prepare_write(struct offline_plan *p, int *lock,
			  void (*earlier)(const struct offline_plan *p, void *arg), void *arg,
			  struct offline_stopped *s)
{
	memset(s, 0, sizeof(*s));
	*lock = -1;
	if (p->t.mounted_at[0])
		return stopped(s, OFFLINE_STOP_MOUNTED, 0);
	if (offline_refuse_clone(p, &s->why) != 0)
		return stopped(s, OFFLINE_STOP_REFUSED, s->why.err);
	if (settle_earlier(p, earlier, arg, s) != 0)
		return -1;
	/* One offline repair or scan of a filesystem at a time. */
	*lock = map_scan_lock(p->st, p->t.sfs.uuid, &s->holder);
	if (*lock == -EBUSY)
		return stopped(s, OFFLINE_STOP_LOCKED, 0);
	if (*lock < 0)
		return stopped(s, OFFLINE_STOP_LOCK, *lock);
	return 0;
}

int offline_open(struct offline_plan *p, bool write, struct offline_stopped *s)
{
	int rc = offline_device_open(&p->dev, p->t.device, write);

	memset(s, 0, sizeof(*s));
	if (rc == 0)
		p->unit = p->dev.unit;
	if (rc && write)
		return stopped(s, rc == -EBUSY ? OFFLINE_STOP_DEVICE_BUSY : OFFLINE_STOP_DEVICE_OPEN,
			       rc);
	if (write && offline_check_open_device(p, &s->why) != 0)
		return stopped(s, OFFLINE_STOP_REFUSED, s->why.err);
	return 0;
}

int offline_build(struct offline_plan *p, struct offline_stopped *s)
{
	int rc = offline_plan_collect(p);

	memset(s, 0, sizeof(*s));
	if (rc)
		return stopped(s, OFFLINE_STOP_DB, rc);
	if (p->too_many)
		return stopped(s, OFFLINE_STOP_TOO_MANY_RANGES, 0);
	if (p->dev.fd >= 0 && (rc = offline_plan_check(p)) != 0)
		return stopped(s, OFFLINE_STOP_READ_DEVICE, rc);
	return 0;
}

/* Step 3: mount it back where it was recorded. */
static int mount_step(struct offline_plan *p, const struct offline_run_ops *ops,
		      struct offline_result *r, struct offline_stopped *s)
{
	bool lost = false;
	int rc;

	if (ops->mounting)
		ops->mounting(p, ops->arg);
	rc = offline_mount_back(p, r->text, sizeof(r->text), &lost);
	r->unrecorded += lost;
	if (rc)
		return stopped(s, OFFLINE_STOP_MOUNT_BACK, rc);
	if (ops->mounted)
		ops->mounted(r->text, ops->arg);
	r->mounted = p->t.sfs.mountpoint;
	return 0;
}

int offline_run(struct offline_plan *p, bool no_mount, const struct offline_run_ops *ops,
		struct offline_result *r, struct offline_stopped *s)
{
	memset(r, 0, sizeof(*r));
	memset(s, 0, sizeof(*s));
	if (p->total_bad > p->max_bad)
		return stopped(s, OFFLINE_STOP_TOO_MANY_BAD, 0);
	if (ops->confirm && !ops->confirm(p, ops->arg))
		return stopped(s, OFFLINE_STOP_NOT_CONFIRMED, 0);
	/* 1. overwrite */
	if (ops->overwriting)
		ops->overwriting(p, ops->arg);
	offline_overwrite(p, &r->ow, ops->run, ops->arg);
	r->unrecorded += r->ow.unrecorded;
	/* xfs_repair opens the device exclusively too. */
	offline_device_close(&p->dev);
	if (r->ow.still_bad)
		return stopped(s, OFFLINE_STOP_STILL_BAD, 0);
	/* 2. xfs_repair */
	r->ran_repair = true;
	offline_repair_passes(p, &ops->repair, &r->repair);
	r->unrecorded += r->repair.unrecorded;
	if (r->repair.end != OFFLINE_REPAIR_CLEAN)
		return stopped(s, OFFLINE_STOP_REPAIR, r->repair.err);
	/* 3. mount */
	return no_mount ? 0 : mount_step(p, ops, r, s);
}

int offline_findings_left(const struct offline_plan *p)
{
	int counts[MAP_STATE_NR] = { 0 };
	int rc = map_store_count(p->st, p->t.fs_id, counts);

	if (rc)
		return rc;
	return map_counts_open(counts) ? 1 : 0;
}
