/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The offline path's steps in their order (act_offline_flow.c), over the
 * pieces of act_offline.h: what must hold before anything is written, the
 * device and the plan, then overwrite, xfs_repair and the mount back.  Each
 * step says what stopped it as data; the caller asks the questions, shows
 * the progress and says everything in words.
 */
#ifndef MAP_ACT_OFFLINE_FLOW_H
#define MAP_ACT_OFFLINE_FLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "act_offline.h"

/* What stopped a step. */
enum offline_stop {
	OFFLINE_GO,			/* nothing: go on */
	OFFLINE_STOP_MOUNTED,		/* the filesystem is mounted at t.mounted_at */
	OFFLINE_STOP_REFUSED,		/* the target or its device: @why */
	OFFLINE_STOP_EARLIER_LOOKUP,	/* @err looking for an earlier xfs_repair */
	OFFLINE_STOP_EARLIER_RUNNING,	/* p->earlier still runs */
	OFFLINE_STOP_EARLIER_RECORD,	/* @err recording how p->earlier ended */
	OFFLINE_STOP_LOCKED,		/* scanned or repaired by pid @holder */
	OFFLINE_STOP_LOCK,		/* @err taking the scan lock */
	OFFLINE_STOP_DEVICE_BUSY,	/* the device is held by something else */
	OFFLINE_STOP_DEVICE_OPEN,	/* @err opening the device */
	OFFLINE_STOP_DB,		/* @err reading the database */
	OFFLINE_STOP_TOO_MANY_RANGES,	/* more than OFFLINE_MAX_RANGES recorded */
	OFFLINE_STOP_READ_DEVICE,	/* @err reading the device */
	OFFLINE_STOP_TOO_MANY_BAD,	/* p->total_bad over p->max_bad */
	OFFLINE_STOP_NOT_CONFIRMED,	/* the caller's confirm said no */
	OFFLINE_STOP_STILL_BAD,		/* sectors still unreadable after the overwrite */
	OFFLINE_STOP_REPAIR,		/* xfs_repair did not end clean: repair.end */
	OFFLINE_STOP_MOUNT_BACK,	/* mounting back failed: @text */
};

struct offline_stopped {
	enum offline_stop stop;
	int err;			/* negative errno, 0 */
	int holder;			/* OFFLINE_STOP_LOCKED */
	struct offline_why why;		/* OFFLINE_STOP_REFUSED */
};

/*
 * Before anything is written: the filesystem is not mounted, no clone of it
 * is, an earlier xfs_repair is settled (@earlier hears of one that ended,
 * before it is recorded; may be NULL), and the scan lock is ours (*@lock, a
 * descriptor to close, -1 if not taken).  0, or -1 with why in @s.
 */
int offline_prepare_write(struct offline_plan *p, int *lock,
			  void (*earlier)(const struct offline_plan *p, void *arg), void *arg,
			  struct offline_stopped *s);

/* The device: to write (and checked again), or, for the plan, to read when
 * it may (root); p->unit follows it.  0, or -1 with why in @s. */
int offline_open(struct offline_plan *p, bool write, struct offline_stopped *s);

/* The recorded ranges, read again when the device is open.  0, or -1 with
 * why in @s. */
int offline_build(struct offline_plan *p, struct offline_stopped *s);

/* What the run tells as it goes; any of them may be NULL. */
struct offline_run_ops {
	bool (*confirm)(const struct offline_plan *p, void *arg);	/* before writing */
	void (*overwriting)(const struct offline_plan *p, void *arg);	/* step 1 starts */
	void (*run)(uint64_t start, uint64_t len, uint64_t bad_after, void *arg);
	struct offline_repair_ops repair;				/* step 2 */
	void (*mounting)(const struct offline_plan *p, void *arg);	/* step 3 starts */
	void (*mounted)(const char *how, void *arg);			/* and went well */
	void *arg;			/* of all but repair's */
};

/* What the run did, for the caller's summary. */
struct offline_result {
	struct offline_overwrite ow;
	struct offline_repair repair;
	bool ran_repair;
	const char *mounted;		/* where it was mounted back, NULL if not */
	char text[256];			/* OFFLINE_STOP_MOUNT_BACK: why, for people */
	int unrecorded;			/* steps whose record could not be written */
};

/*
 * Unless there is more to overwrite than p->max_bad or @ops->confirm says
 * no: overwrite the units that still fail, run xfs_repair until its check
 * is clean, and (unless @no_mount) mount the filesystem back; p's device
 * is closed before xfs_repair.  0, or -1 with why in @s.  @r is filled
 * either way.
 */
int offline_run(struct offline_plan *p, bool no_mount, const struct offline_run_ops *ops,
		struct offline_result *r, struct offline_stopped *s);

/* Findings of p's filesystem still open (they stay so until refetch and a
 * scan settle them): 1, 0 if none, or -errno. */
int offline_findings_left(const struct offline_plan *p);

#endif
