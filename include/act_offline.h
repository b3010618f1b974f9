/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The offline path (mapctl repair --offline-plan / --offline) as data and
 * steps: the recorded unreadable ranges of a filesystem and what its device
 * says of them now (act_offline_plan.c), the overwrite of the sectors that
 * still fail and the records of the run (act_offline_run.c), and xfs_repair
 * until its check is clean (act_offline_repair.c).  Which filesystem the
 * administrator named, the questions and the words are the caller's.
 */
#ifndef MAP_ACT_OFFLINE_H
#define MAP_ACT_OFFLINE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "act_offline_device.h"
#include "act_xfs_repair_run.h"
#include "map.h"

/*
 * More unreadable space than this is a disk failing as a whole: copy it to a
 * new one (ddrescue) rather than write to it and carry on.  It also bounds the
 * list of sectors kept in memory.  16 MiB is 4096 filesystem blocks, far above
 * the handful of bad sectors a healthy drive remaps.
 */
#define OFFLINE_MAX_OVERWRITE (16ULL << 20)
/* Recorded unreadable ranges considered; more is a failing disk too, and
 * each is kept in memory (its finding with its paths). */
#define OFFLINE_MAX_RANGES 10000
/*
 * xfs_repair passes at most.  Measured with xfs_repair 6.1: after it rebuilt
 * a directory whose first block was lost, the directory's link count was one
 * short, and only a second pass set it right; a third is slack.  A repair
 * that does not converge by then needs a person.
 */
#define REPAIR_PASSES 3

/* The filesystem the administrator named, and its device. */
struct offline_target {
	int64_t fs_id;
	struct map_store_fs sfs;	/* its record; mountpoint: where it is or was */
	char device[PATH_MAX];		/* block device node */
	dev_t rdev;
	char mounted_at[PATH_MAX];	/* "" when not mounted */
	bool by_uuid;			/* the device's superblock says which it is */
};

/* One recorded unreadable device range: evidence (media read or kernel
 * event) of finding f[finding]. */
struct offline_rec_range {
	size_t finding;
	uint64_t start, length;
	size_t range;			/* index in ranges, SIZE_MAX: left out */
};

/* The last xfs_repair recorded for a filesystem as started and never as
 * ended: mapctl was killed (or the machine stopped) while it ran. */
enum offline_earlier_state {
	EARLIER_NONE,		/* none: the last one's end is recorded */
	EARLIER_RUNNING,	/* its watcher still runs */
	EARLIER_ENDED,		/* its watcher wrote the exit status (@code) */
	EARLIER_UNKNOWN,	/* it ended and left no exit status */
};

struct offline_earlier {
	enum offline_earlier_state state;
	int pid, code;		/* the watcher's pid; xfs_repair's exit status */
	char when[64];		/* when it started, for people */
	char log[PATH_MAX], status[PATH_MAX];
};

/* One offline repair: the caller sets st, names t (offline_resolve_target)
 * and opens dev (fd -1: not open, unit 512 for a plan without the device). */
struct offline_plan {
	struct map_store *st;
	struct offline_target t;
	struct offline_probe probe;	/* what libblkid found on the device */
	struct offline_device dev;
	uint32_t unit;			/* dev's unit; 512 for the plan without it */
	struct map_finding *f;		/* findings with a recorded unreadable range */
	size_t nf;
	struct offline_rec_range *rr;	/* their ranges, by range, finding, start */
	size_t nrr;
	bool too_many;			/* more than OFFLINE_MAX_RANGES */
	struct map_range_list ranges;	/* recorded ranges, unit-aligned, merged */
	size_t outside;			/* recorded ranges past the end of the device */
	/* the check: units unreadable now */
	bool checked;
	uint64_t *range_bad;		/* per range */
	uint64_t *bad;			/* byte offsets, ascending, at most max_bad */
	size_t nbad, max_bad;
	uint64_t total_bad;		/* all of them, past max_bad too */
	struct offline_earlier earlier;	/* an xfs_repair started, never recorded as ended */
};

/* ---- which filesystem, which device (act_offline_target.c) ---- */

/* What the administrator gave. */
struct offline_ask {
	const char *target;	/* device, or a mountpoint/path recorded in the db */
	const char *uuid;	/* --uuid: the filesystem meant, when the device
				 * shows no XFS superblock; NULL if not given */
	bool plan_only;		/* reads only */
};

/* Why the target was refused; the names are in the plan (t, probe) or here. */
enum offline_why_kind {
	OFFLINE_WHY_NONE,
	OFFLINE_WHY_ERRNO,		/* @err of name @path (stat, realpath) */
	OFFLINE_WHY_DB,			/* @err reading the database */
	OFFLINE_WHY_MOUNTINFO,		/* @err reading /proc/self/mountinfo */
	OFFLINE_WHY_NO_SUCH,		/* @path: no such device, file or folder */
	OFFLINE_WHY_NOT_BLOCK,		/* @path is not a block device */
	OFFLINE_WHY_OTHER,		/* t.device holds probe.other, not XFS */
	OFFLINE_WHY_NO_SB,		/* no XFS superblock, nothing recorded on it */
	OFFLINE_WHY_NO_SB_LAST,		/* no XFS superblock; @last was recorded on it */
	OFFLINE_WHY_UUID_UNKNOWN,	/* --uuid names no recorded filesystem */
	OFFLINE_WHY_UUID_ELSEWHERE,	/* --uuid's (t.sfs) was recorded on another device */
	OFFLINE_WHY_XFS_NOT_UUID,	/* t.device holds probe.uuid, not --uuid */
	OFFLINE_WHY_NEVER_SCANNED,	/* t.device holds probe.uuid, never scanned */
	OFFLINE_WHY_RECORDED_OTHER,	/* t.device, recorded for @path, holds probe.uuid */
	OFFLINE_WHY_FS_OPEN,		/* @err opening the filesystem of @path */
	OFFLINE_WHY_PATH_NOT_SCANNED,	/* @last (uuid, mount point now) never scanned */
	OFFLINE_WHY_NO_DEVICE,		/* the device of @path cannot be found */
	OFFLINE_WHY_NOT_DEVICE_OF,	/* t.device is not the device of @path */
	OFFLINE_WHY_CLONE,		/* t.sfs.uuid is mounted at @path from @source */
	OFFLINE_WHY_CHANGED_OPENING,	/* t.device changed while it was opened */
	OFFLINE_WHY_READ_DEVICE,	/* @err reading t.device */
	OFFLINE_WHY_CHANGED,		/* t.device changed since it was identified */
};

struct offline_why {
	enum offline_why_kind kind;
	int err;			/* negative errno, 0 */
	char path[PATH_MAX];
	char source[PATH_MAX];
	struct map_store_fs last;
};

/*
 * Which filesystem and device @a->target names (p->t, p->probe): a block
 * device (by the XFS UUID in its superblock, or, when that cannot be read,
 * by --uuid), a recorded mount point that nothing is mounted on now, or any
 * path of a mounted filesystem; and where it is mounted now.  0, or a
 * negative errno with why in @w.
 */
int offline_resolve_target(struct offline_plan *p, const struct offline_ask *a,
			   struct offline_why *w);

/* Another device has p's filesystem mounted (a clone: a copy of the disk, a
 * snapshot with its UUID): -EPERM, or -errno, with why in @w; 0 if not. */
int offline_refuse_clone(const struct offline_plan *p, struct offline_why *w);

/*
 * The device as opened for writing (p->dev, O_EXCL) is the one identified
 * by name, still with the same signature, and no clone is mounted (its
 * repair would be recorded as the original's).  What is written later goes
 * through this descriptor.  0, or a negative errno with why in @w.
 */
int offline_check_open_device(struct offline_plan *p, struct offline_why *w);

/* ---- the plan (act_offline_plan.c) ---- */

/* Every finding of p->t.fs_id with recorded unreadable ranges, and those
 * ranges widened to whole units and merged (p->too_many: more than
 * OFFLINE_MAX_RANGES, the rest left out).  0 or -errno. */
int offline_plan_collect(struct offline_plan *p);

/* Read every recorded range on the open device now: the units that fail,
 * per range and in all.  0 or -errno. */
int offline_plan_check(struct offline_plan *p);

/* Call @fn once for each finding with a recorded range in merged range
 * @range that overlaps [start, start+length); a nonzero return stops. */
int offline_plan_each_finding(const struct offline_plan *p, size_t range, uint64_t start,
			      uint64_t length,
			      int (*fn)(const struct offline_plan *p, const struct map_finding *f,
					void *arg),
			      void *arg);

/* The merged range holding device byte @pos (one of its units). */
size_t offline_plan_range_of(const struct offline_plan *p, uint64_t pos);

/* Everything p holds but the store (the device is closed). */
void offline_plan_free(struct offline_plan *p);

/* ---- the run: overwrite, records (act_offline_run.c) ---- */

struct offline_overwrite {
	uint64_t written, write_failed, still_bad, runs;
	int unrecorded;
};

/*
 * Overwrite with zeros the units p->bad names, one run of adjacent units at
 * a time, recording each run for the findings it touches; @run (may be
 * NULL) hears of each as it is done (@bad_after: units still unreadable).
 * Then the summary is recorded.  Steps that could not be recorded are
 * counted in r->unrecorded.
 */
void offline_overwrite(struct offline_plan *p, struct offline_overwrite *r,
		       void (*run)(uint64_t start, uint64_t len, uint64_t bad_after, void *arg),
		       void *arg);

/*
 * Mount the filesystem back at its recorded mount point (checked as
 * act_offline_mount.c says) and record it: 0, -EPERM when refused, or
 * another negative errno; why in @why (for people, not escaped).
 * *@unrecorded is set when the record could not be written.
 */
int offline_mount_back(struct offline_plan *p, char *why, size_t len, bool *unrecorded);

/* ---- xfs_repair (act_offline_repair.c) ---- */

/* What became of the last xfs_repair recorded for p's filesystem
 * (p->earlier); 0 or -errno.  Reads only. */
int offline_find_earlier(struct offline_plan *p);

/* Record how the earlier xfs_repair in p->earlier ended (EARLIER_ENDED or
 * EARLIER_UNKNOWN), then forget it.  0 or -errno. */
int offline_record_earlier(struct offline_plan *p);

/* How a run of xfs_repair passes ended. */
enum offline_repair_end {
	OFFLINE_REPAIR_CLEAN,		/* xfs_repair -n finds nothing more */
	OFFLINE_REPAIR_NOT_RUN,		/* @err: xfs_repair could not be run or
					 * followed (xr.status XFS_REPAIR_NOT_STARTED:
					 * its start could not be recorded) */
	OFFLINE_REPAIR_CHECK_NOT_RUN,	/* @err: the same of xfs_repair -n */
	OFFLINE_REPAIR_DEVICE_GONE,	/* the node names another device now */
	OFFLINE_REPAIR_DIRTY_LOG,	/* exit 2: the log must be replayed */
	OFFLINE_REPAIR_FAILED,		/* xr.status, xr.last */
	OFFLINE_REPAIR_CHECK_FAILED,	/* chk.status, chk.last */
	OFFLINE_REPAIR_NOT_CONVERGED,	/* REPAIR_PASSES and still not clean */
};

struct offline_repair {
	enum offline_repair_end end;
	int err;
	struct xfs_repair_result xr;	/* the last xfs_repair; moved: all passes' */
	struct xfs_repair_result chk;	/* the last xfs_repair -n */
	int unrecorded;			/* runs whose record could not be written */
};

/* What a run of passes tells as it goes; any of them may be NULL. */
struct offline_repair_ops {
	void (*pass)(int pass, void *arg);		/* xfs_repair starts */
	void (*line)(const char *line, void *arg);	/* a line of its output, raw */
	/* xfs_repair -n after a pass said clean (0) or not (1); @moved:
	 * inodes moved to lost+found in all passes */
	void (*checked)(const struct xfs_repair_result *chk, uint64_t moved, void *arg);
	void *arg;
};

/*
 * xfs_repair, then xfs_repair -n to check, again while the check finds
 * something (REPAIR_PASSES).  Each run is recorded, the start of each
 * xfs_repair before it runs.  The device must be closed (xfs_repair opens
 * it exclusively).  How it ended is in @r.
 */
void offline_repair_passes(struct offline_plan *p, const struct offline_repair_ops *ops,
			   struct offline_repair *r);

#endif
