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
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "act_offline_device.h"
#include "act_offline_mount.h"
#include "act_xfs_repair_run.h"
#include "repair_offline.h"

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
/* Paths shown per finding in the text plan (JSON has them all). */
#define OFFLINE_SHOW_PATHS 5
/*
 * xfs_repair passes at most.  Measured with xfs_repair 6.1: after it rebuilt
 * a directory whose first block was lost, the directory's link count was one
 * short, and only a second pass set it right; a third is slack.  A repair
 * that does not converge by then needs a person.
 */
#define REPAIR_PASSES 3
/* A path escaped for people (shown()) takes up to 4 bytes per byte: room to
 * keep one past shown()'s few rotating slots. */
#define SHOWN_PATH (4 * PATH_MAX + 1)

/* The filesystem the target names, and its device. */
struct target {
	int64_t fs_id;
	struct map_store_fs sfs;	/* its record; mountpoint: where it is or was */
	char device[PATH_MAX];		/* block device node */
	dev_t rdev;
	char mounted_at[PATH_MAX];	/* "" when not mounted */
	bool by_uuid;			/* the device's superblock says which it is */
};

/* One recorded unreadable device range: evidence (media read or kernel
 * event) of finding f[finding]. */
struct rec_range {
	size_t finding;
	uint64_t start, length;
	size_t range;			/* index in ranges, SIZE_MAX: left out */
};

/* The last xfs_repair recorded for a filesystem as started and never as
 * ended: mapctl was killed (or the machine stopped) while it ran. */
enum earlier_state {
	EARLIER_NONE,		/* none: the last one's end is recorded */
	EARLIER_RUNNING,	/* its watcher still runs */
	EARLIER_ENDED,		/* its watcher wrote the exit status (@code) */
	EARLIER_UNKNOWN,	/* it ended and left no exit status */
};

struct earlier_repair {
	enum earlier_state state;
	int pid, code;		/* the watcher's pid; xfs_repair's exit status */
	char when[64];		/* when it started, for people */
	char log[PATH_MAX], status[PATH_MAX];
};

struct offline {
	struct ctl *ctl;
	const struct offline_opts *o;
	FILE *say;			/* progress for people: stderr with --json */
	struct map_store *st;
	struct target t;
	struct map_finding *f;		/* findings with a recorded unreadable range */
	size_t nf;
	struct rec_range *rr;		/* their ranges, by range, finding, start */
	size_t nrr;
	bool too_many;			/* more than OFFLINE_MAX_RANGES */
	struct offline_probe probe;	/* what libblkid found on the device */
	bool probe_failed;		/* it could not be read (the plan, not root) */
	struct offline_device dev;	/* fd -1 until open */
	uint32_t unit;			/* its unit; 512 for the plan without it */
	struct map_range_list ranges;	/* recorded ranges, unit-aligned, merged */
	size_t outside;			/* recorded ranges past the end of the device */
	/* the check: units unreadable now */
	bool checked;
	uint64_t *range_bad;		/* per range */
	uint64_t *bad;			/* byte offsets, ascending, at most max_bad */
	size_t nbad, max_bad;
	uint64_t total_bad;		/* all of them, past max_bad too */
	struct earlier_repair earlier;	/* an xfs_repair started, never recorded as ended */
};

/* snprintf for messages and records, which may be cut short: a long mount
 * point must not make the record fail. */
static void __attribute__((format(printf, 3, 4)))
textf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* ---- the device and its mounts ---- */

struct fs_match {
	const char *mountpoint;		/* match by recorded mount point, or */
	dev_t rdev;			/* by recorded device */
	struct map_store_fs best;
	bool found;
};

static int match_fs(const struct map_store_fs *fs, void *arg)
{
	struct fs_match *m = arg;
	struct stat st;

	if (m->mountpoint && strcmp(fs->mountpoint, m->mountpoint) != 0)
		return 0;
	if (!m->mountpoint && (stat(fs->device, &st) != 0 || !S_ISBLK(st.st_mode) ||
			       st.st_rdev != m->rdev))
		return 0;
	/* The one seen last: the device or mount point was reused since. */
	if (!m->found || fs->last_seen > m->best.last_seen) {
		m->best = *fs;
		m->found = true;
	}
	return 0;
}

static int target_device(const struct ctl *ctl, struct target *t, const char *dev)
{
	struct stat st;

	if (stat(dev, &st) != 0)
		return fail(ctl, -errno, "%s", shown(dev));
	if (!S_ISBLK(st.st_mode))
		return fail(ctl, 0, "%s is not a block device", shown(dev));
	/* An absolute name, so that no tool takes it for an option. */
	if (dev[0] == '/')
		snprintf(t->device, sizeof(t->device), "%s", dev);
	else if (!realpath(dev, t->device))
		return fail(ctl, -errno, "%s", shown(dev));
	t->rdev = st.st_rdev;
	return 0;
}

/* What is on the device, or why it cannot be told: read errors count as
 * "no signature" (the superblock's sector may be the unreadable one). */
static void probe_target(struct offline *x)
{
	if (offline_device_probe_path(x->t.device, &x->probe) != 0) {
		memset(&x->probe, 0, sizeof(x->probe));
		x->probe_failed = true;
	}
}

/* Anything but XFS on the device: it was reused, and xfs_repair would
 * find old XFS structures in it and write over what it holds now. */
static int refuse_other(const struct offline *x)
{
	return fail(x->ctl, 0, "%s holds %s: not the XFS filesystem recorded (the device was "
		    "reused?); refused, nothing written", shown(x->t.device), x->probe.other);
}

/* No XFS superblock on the device: only --uuid says which filesystem it is
 * meant to be, and it must be the one recorded on this device. */
static int identify_by_option(struct offline *x, const struct map_store_fs *last)
{
	const struct ctl *ctl = x->ctl;
	struct target *t = &x->t;
	struct stat st;
	int rc;

	if (!x->o->uuid) {
		if (x->o->plan_only && last) {
			t->sfs = *last;	/* the plan only reads: show the last one recorded */
			return 0;
		}
		if (last)
			return fail(ctl, 0, "%s: no XFS superblock can be read; the filesystem last "
				    "recorded on it is %s (at %s).  If that is the one to repair, "
				    "say so: --uuid %s", shown(t->device), last->uuid,
				    shown(last->mountpoint), last->uuid);
		return fail(ctl, 0, "%s: no XFS superblock can be read, and no scanned filesystem "
			    "was recorded on this device", shown(t->device));
	}
	rc = map_store_fs_by_uuid(x->st, x->o->uuid, &t->sfs);
	if (rc == -ENOENT)
		return fail(ctl, 0, "--uuid %s: no such filesystem was recorded", shown(x->o->uuid));
	if (rc)
		return fail(ctl, rc, "reading the database");
	if (stat(t->sfs.device, &st) != 0 || !S_ISBLK(st.st_mode) || st.st_rdev != t->rdev)
		return fail(ctl, 0, "--uuid %s: that filesystem was recorded on %s, not on %s",
			    t->sfs.uuid, shown(t->sfs.device), shown(t->device));
	return 0;
}

/* A device given by name: which recorded filesystem it holds. */
static int identify_device(struct offline *x)
{
	const struct ctl *ctl = x->ctl;
	struct target *t = &x->t;
	struct fs_match m = { .rdev = t->rdev };
	int rc;

	probe_target(x);
	if (x->probe.other[0])
		return refuse_other(x);
	if (x->probe.xfs) {
		if (x->o->uuid && strcasecmp(x->o->uuid, x->probe.uuid) != 0)
			return fail(ctl, 0, "%s holds the XFS filesystem %s, not %s",
				    shown(t->device), x->probe.uuid, shown(x->o->uuid));
		rc = map_store_fs_by_uuid(x->st, x->probe.uuid, &t->sfs);
		if (rc == -ENOENT)
			return fail(ctl, 0, "%s holds the XFS filesystem %s, which has never "
				    "been scanned: nothing is recorded about it", shown(t->device),
				    x->probe.uuid);
		if (rc)
			return fail(ctl, rc, "reading the database");
		t->by_uuid = true;
		return 0;
	}
	rc = map_store_fs_each(x->st, match_fs, &m);
	if (rc)
		return fail(ctl, rc, "reading the database");
	return identify_by_option(x, m.found ? &m.best : NULL);
}

/* The device recorded for a mount point given by name: it must hold that
 * filesystem (or nothing readable, and --uuid says it). */
static int identify_recorded(struct offline *x, const char *real)
{
	struct target *t = &x->t;
	struct map_store_fs rec = t->sfs;

	probe_target(x);
	if (x->probe.other[0])
		return refuse_other(x);
	if (x->probe.xfs) {
		if (strcmp(x->probe.uuid, t->sfs.uuid) != 0)
			return fail(x->ctl, 0, "%s, the device recorded for %s, now holds another "
				    "filesystem (%s): give the device", shown(t->device),
				    shown(real), x->probe.uuid);
		t->by_uuid = true;
		return 0;
	}
	return identify_by_option(x, &rec);
}

/*
 * Which filesystem and device @o->target names: a block device (by the XFS
 * UUID in its superblock, or, when that cannot be read, by --uuid), a
 * recorded mount point that nothing is mounted on now, or any path of a
 * mounted filesystem.
 */
static int resolve_target(struct offline *x)
{
	const struct ctl *ctl = x->ctl;
	const char *arg = x->o->target;
	struct target *t = &x->t;
	char real[PATH_MAX], mnt[PATH_MAX], src[PATH_MAX];
	struct fs_match m = { 0 };
	struct stat st;
	int rc;

	if (stat(arg, &st) != 0)
		return fail(ctl, 0, "%s: no such device, file or folder", shown(arg));
	if (S_ISBLK(st.st_mode)) {
		rc = target_device(ctl, t, arg);
		if (rc)
			return rc;
		rc = identify_device(x);
		if (rc)
			return rc;
		t->fs_id = t->sfs.id;
	} else {
		if (!realpath(arg, real))
			return fail(ctl, -errno, "%s", shown(arg));
		m.mountpoint = real;
		rc = map_store_fs_each(x->st, match_fs, &m);
		if (rc)
			return fail(ctl, rc, "reading the database");
		if (m.found && offline_find_mount(0, real, mnt, sizeof(mnt), src, sizeof(src)) == 0) {
			/* Where a recorded filesystem was mounted, and is no more. */
			t->sfs = m.best;
			t->fs_id = t->sfs.id;
			rc = target_device(ctl, t, t->sfs.device);
			if (rc)
				return rc;
			rc = identify_recorded(x, real);
			if (rc)
				return rc;
			t->fs_id = t->sfs.id;	/* --uuid may have named it */
		} else {
			rc = fs_id_for_path(ctl, x->st, arg, &t->fs_id, &t->sfs);
			if (rc)
				return rc;
			/* Its device: the source of the mount of st_dev. */
			if (offline_find_mount(st.st_dev, NULL, mnt, sizeof(mnt), src, sizeof(src)) != 1 ||
			    target_device(ctl, t, src[0] == '/' ? src : t->sfs.device) != 0)
				return fail(ctl, 0, "cannot find the device of %s", shown(arg));
			if (t->rdev != st.st_dev)
				return fail(ctl, 0, "%s is not the device of %s", shown(t->device),
					    shown(arg));
			t->by_uuid = true;	/* fs_id_for_path matched the mounted UUID */
		}
	}
	rc = offline_find_mount(t->rdev, NULL, t->mounted_at, sizeof(t->mounted_at), src, sizeof(src));
	if (rc < 0)
		return fail(ctl, rc, "reading /proc/self/mountinfo");
	if (rc == 0)
		t->mounted_at[0] = '\0';
	return 0;
}

/* ---- what was recorded ---- */

static int add_evidence(const struct map_evidence *e, void *arg)
{
	struct offline *x = arg;

	if (!e->has_range || !e->length ||
	    (strcmp(e->source, "media") != 0 && strcmp(e->source, "event") != 0))
		return 0;
	/* the same range seen twice (this finding's are last) */
	for (size_t i = x->nrr; i > 0 && x->rr[i - 1].finding == x->nf; i--)
		if (x->rr[i - 1].start == e->physical && x->rr[i - 1].length == e->length)
			return 0;
	if (x->nrr >= OFFLINE_MAX_RANGES) {
		x->too_many = true;
		return 0;
	}
	struct rec_range *v = realloc(x->rr, (x->nrr + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	x->rr = v;
	x->rr[x->nrr++] = (struct rec_range){ .finding = x->nf, .start = e->physical,
					      .length = e->length, .range = SIZE_MAX };
	return 0;
}

/* Every finding, closed ones too (a rebuilt btree leaves its old block
 * unreadable in free space, where xfs_repair still reads AG headers), with
 * the unreadable ranges its evidence recorded. */
static int collect(const struct map_finding *f, void *arg)
{
	struct offline *x = arg;
	size_t before = x->nrr;
	int rc = map_store_finding_evidence(x->st, f->id, add_evidence, x);

	if (rc || x->nrr == before)
		return rc;
	struct map_finding *v = realloc(x->f, (x->nf + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	x->f = v;
	struct map_finding *c = &x->f[x->nf++];
	*c = *f;
	c->paths = NULL;
	c->npaths = 0;
	for (size_t i = 0; i < f->npaths; i++)
		if (map_finding_add_path(c, f->paths[i]) != 0)
			return -ENOMEM;
	return 0;
}

static int cmp_rec_range(const void *a, const void *b)
{
	const struct rec_range *x = a, *y = b;

	if (x->range != y->range)
		return x->range < y->range ? -1 : 1;
	if (x->finding != y->finding)
		return x->finding < y->finding ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The recorded ranges, widened to whole units and merged; those past the end
 * of the device (when known) are counted and left out.  Each recorded range
 * then knows the merged range holding it. */
static int build_ranges(struct offline *x)
{
	for (size_t i = 0; i < x->nrr; i++) {
		struct rec_range *r = &x->rr[i];
		uint64_t start = r->start / x->unit * x->unit;
		uint64_t end = r->start + r->length;

		if (end < r->start || end > UINT64_MAX - x->unit)
			end = UINT64_MAX;	/* a corrupt record: left out below */
		else
			end = (end + x->unit - 1) / x->unit * x->unit;
		if (end == UINT64_MAX || (x->dev.size && end > x->dev.size)) {
			x->outside++;
			r->length = 0;	/* left out */
			continue;
		}
		int rc = map_range_add(&x->ranges, start, end - start);
		if (rc)
			return rc;
	}
	map_range_merge(&x->ranges, 0);
	for (size_t i = 0; i < x->nrr; i++) {
		struct rec_range *r = &x->rr[i];
		size_t lo = 0, hi = x->ranges.n;

		if (!r->length)
			continue;
		while (lo < hi) {	/* the last merged range starting at or below */
			size_t mid = lo + (hi - lo) / 2;

			if (x->ranges.v[mid].start <= r->start)
				lo = mid + 1;
			else
				hi = mid;
		}
		r->range = lo - 1;
	}
	qsort(x->rr, x->nrr, sizeof(*x->rr), cmp_rec_range);
	return 0;
}

/*
 * Call @fn once for each finding with a recorded range in merged range
 * @range that overlaps [start, start+length).
 */
static int each_finding(const struct offline *x, size_t range, uint64_t start, uint64_t length,
			int (*fn)(const struct offline *x, const struct map_finding *f, void *arg),
			void *arg)
{
	size_t lo = 0, hi = x->nrr, last = SIZE_MAX;

	while (lo < hi) {	/* the first of this range */
		size_t mid = lo + (hi - lo) / 2;

		if (x->rr[mid].range < range)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < x->nrr && x->rr[i].range == range; i++) {
		const struct rec_range *r = &x->rr[i];

		if (r->finding == last || r->start >= start + length || start >= r->start + r->length)
			continue;
		last = r->finding;
		int rc = fn(x, &x->f[r->finding], arg);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- step 1: read again, overwrite what still fails ---- */

struct check {
	struct offline *x;
	size_t range;
};

static int note_bad(uint64_t pos, void *arg)
{
	struct check *c = arg;
	struct offline *x = c->x;

	x->range_bad[c->range]++;
	x->total_bad++;
	if (x->nbad < x->max_bad)
		x->bad[x->nbad++] = pos;
	return 0;
}

/* Read every recorded range now: the units that fail, per range and in all. */
static int check_ranges(struct offline *x)
{
	int rc;

	x->range_bad = calloc(x->ranges.n ? x->ranges.n : 1, sizeof(*x->range_bad));
	x->max_bad = OFFLINE_MAX_OVERWRITE / x->unit;
	x->bad = calloc(x->max_bad, sizeof(*x->bad));
	if (!x->range_bad || !x->bad)
		return -ENOMEM;
	for (size_t i = 0; i < x->ranges.n; i++) {
		struct check c = { x, i };

		rc = offline_device_scan(&x->dev, x->ranges.v[i].start, x->ranges.v[i].length,
					 note_bad, &c);
		if (rc)
			return rc;
	}
	x->checked = true;
	return 0;
}

struct run_record {
	const char *outcome;
	const char *detail;
	bool zeroed;			/* the sectors read (as zeros) now */
};

/*
 * Whether what finding @f names is lost with its sectors and only a mirror
 * brings it back: a file's data, a directory's names, a symlink's target,
 * xattrs, inodes.  (AG headers and btrees are rebuilt by xfs_repair from
 * the other metadata, which the next scan's scrub checks.)
 */
static bool mirror_restores(const struct map_finding *f)
{
	static const char *const kinds[] = {
		"file", "directory", "symlink", "xattr", "extent-map", "inode", "inode-chunk",
	};

	if (f->ino)
		return true;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(f->kind, kinds[i]))
			return true;
	return false;
}

static int record_one(const struct offline *x, const struct map_finding *f, void *arg)
{
	const struct run_record *r = arg;
	int rc = record_action(x->st, x->t.fs_id, f->id, "overwrite", r->outcome, r->detail);

	/* Its sectors read as zeros from now on, which a scan takes for good
	 * data: only a verified refetch or mapctl resolve may close it.  An
	 * ignored or resolved finding keeps the state someone gave it. */
	if (rc == 0 && r->zeroed && mirror_restores(f) && f->state != MAP_STATE_IGNORED &&
	    f->state != MAP_STATE_RESOLVED)
		rc = map_store_finding_set_state(x->st, f->id, MAP_STATE_ZEROED);
	return rc;
}

/* The merged range holding device byte @pos (a unit we read from one). */
static size_t range_of(const struct offline *x, uint64_t pos)
{
	size_t lo = 0, hi = x->ranges.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->ranges.v[mid].start <= pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

/* Record the overwrite of units [start, start+len) for every finding whose
 * recorded ranges it touches, in one transaction. */
static int record_run(struct offline *x, uint64_t start, uint64_t len, uint64_t still_bad)
{
	char detail[256];
	struct run_record r = { still_bad ? "failed" : "overwritten", detail, !still_bad };
	int rc = map_store_begin(x->st);

	if (rc)
		return rc;
	textf(detail, sizeof(detail), "offline: bytes %" PRIu64 "+%" PRIu64 " (%" PRIu64
	      " sectors of %u B) unreadable, overwritten with zeros%s", start, len,
	      len / x->unit, x->unit, still_bad ? "; still unreadable after the write" : "");
	rc = each_finding(x, range_of(x, start), start, len, record_one, &r);
	return store_finish(x->st, rc);
}

struct overwrite_result {
	uint64_t written, write_failed, still_bad, runs;
	int unrecorded;
};

static void overwrite(struct offline *x, struct overwrite_result *r)
{
	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < x->nbad;) {
		size_t j = i;
		uint64_t bad_after = 0;

		/* one run of adjacent units */
		while (j + 1 < x->nbad && x->bad[j + 1] == x->bad[j] + x->unit)
			j++;
		for (size_t k = i; k <= j; k++) {
			int rc = offline_device_zero(&x->dev, x->bad[k]);

			if (rc < 0)
				r->write_failed++;
			else
				r->written++;
			if (rc != 1)
				bad_after++;
		}
		uint64_t start = x->bad[i], len = (uint64_t)(j - i + 1) * x->unit;
		char b[32];
		fprintf(x->say, "  bytes %" PRIu64 "+%" PRIu64 " (%s): overwritten%s\n", start, len,
			human_bytes(len, b, sizeof(b)),
			bad_after ? ", but still unreadable: replace this disk" : "");
		r->still_bad += bad_after;
		r->runs++;
		if (record_run(x, start, len, bad_after) != 0)
			r->unrecorded++;
		i = j + 1;
	}
}

/* ---- step 2: xfs_repair ---- */

/* Where xfs_repair's output and exit status are kept: beside the database
 * and the scan lock (a folder only root writes), one pair per filesystem. */
static int repair_files(const struct offline *x, char *log, char *status, size_t len)
{
	const char *db = map_store_path(x->st);

	if (snprintf(log, len, "%s.%s.xfs_repair.log", db, x->t.sfs.uuid) >= (int)len ||
	    snprintf(status, len, "%s.%s.xfs_repair.status", db, x->t.sfs.uuid) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

struct started {
	struct offline *x;
	int pass;
};

/* Recorded before xfs_repair runs (it does not run if this fails): a
 * mapctl killed meanwhile leaves this row, and the next one finds it. */
static int record_started(pid_t pid, unsigned long long start, void *arg)
{
	struct started *s = arg;
	char log[PATH_MAX], status[PATH_MAX], detail[256];

	if (repair_files(s->x, log, status, sizeof(log)) != 0)
		log[0] = '\0';
	textf(detail, sizeof(detail), "pid %d start %llu: offline: xfs_repair %s (pass %d); its "
	      "output: %s", (int)pid, start, s->x->t.device, s->pass, log);
	return record_action(s->x->st, s->x->t.fs_id, 0, "xfs_repair", "started", detail);
}

/* A line of xfs_repair's output for people, escaped, as it comes. */
static void show_repair_line(const char *line, void *arg)
{
	struct started *s = arg;

	fprintf(s->x->say, "    %s\n", shown(line));
	fflush(s->x->say);
}

static int xfs_repair(struct offline *x, bool check, int pass, struct xfs_repair_result *xr)
{
	char log[PATH_MAX], status[PATH_MAX];
	struct started s = { x, pass };
	struct xfs_repair_job job = {
		.device = x->t.device, .rdev = x->t.rdev, .check = check, .log = log,
		.status = status, .started = check ? NULL : record_started,
		.line = show_repair_line, .arg = &s,
	};
	int rc = repair_files(x, log, status, sizeof(log));

	return rc ? rc : run_xfs_repair(&job, xr);
}

static const char *repair_outcome(int status)
{
	return status == 0 ? "done" : status == 2 ? "dirty-log" :
	       status == XFS_REPAIR_DEVICE_GONE ? "refused" : "failed";
}

/*
 * Step 2: xfs_repair, then xfs_repair -n to check, again while the check
 * finds something (REPAIR_PASSES).  Each run is recorded, the start of each
 * xfs_repair before it runs.  0 when the check is clean; EXIT_ERROR after
 * saying why not.
 */
static int repair_passes(struct offline *x, const char *dev, struct xfs_repair_result *xr,
			 int *unrecorded)
{
	struct xfs_repair_result chk;
	char detail[256];
	uint64_t moved = 0;
	int rc;

	for (int pass = 1; pass <= REPAIR_PASSES; pass++) {
		fprintf(x->say, "2. xfs_repair %s%s\n", dev, pass > 1 ? " (again)" : "");
		rc = xfs_repair(x, false, pass, xr);
		if (rc)
			return fail(x->ctl, rc, xr->status == XFS_REPAIR_NOT_STARTED ?
				    "recording the start of xfs_repair (not run)" :
				    "running xfs_repair");
		moved += xr->moved;
		textf(detail, sizeof(detail), "offline: xfs_repair %s (pass %d) exited %d; %" PRIu64
		      " inode%s moved to lost+found; last: %s", x->t.device, pass, xr->status,
		      xr->moved, xr->moved == 1 ? "" : "s", xr->last);
		if (record_action(x->st, x->t.fs_id, 0, "xfs_repair", repair_outcome(xr->status),
				  detail) != 0)
			++*unrecorded;
		xr->moved = moved;
		if (xr->status == XFS_REPAIR_DEVICE_GONE)
			return fail(x->ctl, 0, "%s no longer names the device that was checked: "
				    "xfs_repair not run", dev);
		if (xr->status == 2)
			return fail(x->ctl, 0, "xfs_repair stopped: the log holds changes not yet "
				    "written.  Replay it: mount %s somewhere and unmount it, then run "
				    "'mapctl repair --offline %s' again.  Only if that mount fails, "
				    "'xfs_repair -L %s' throws the log away (losing those changes); "
				    "then run this again", dev, dev, dev);
		if (xr->status != 0)
			return fail(x->ctl, 0, "xfs_repair %s failed (exit %d): %s", dev, xr->status,
				    shown(xr->last));
		rc = xfs_repair(x, true, pass, &chk);
		if (rc)
			return fail(x->ctl, rc, "running xfs_repair -n");
		textf(detail, sizeof(detail), "offline: xfs_repair -n %s after pass %d exited %d%s%s",
		      x->t.device, pass, chk.status, chk.would[0] ? ": " : "", chk.would);
		if (record_action(x->st, x->t.fs_id, 0, "xfs_repair -n",
				  chk.status == 0 ? "clean" : chk.status == 1 ? "not-clean" : "failed",
				  detail) != 0)
			++*unrecorded;
		if (chk.status == 0) {
			fprintf(x->say, "   xfs_repair -n finds nothing more; %" PRIu64 " inode%s "
				"moved to lost+found\n", moved, moved == 1 ? "" : "s");
			return 0;
		}
		if (chk.status != 1)
			return fail(x->ctl, 0, "xfs_repair -n %s failed (exit %d): %s", dev,
				    chk.status, shown(chk.last));
		fprintf(x->say, "   xfs_repair -n still finds something (%s)\n",
			shown(chk.would[0] ? chk.would : chk.last));
	}
	return fail(x->ctl, 0, "xfs_repair %s did not converge in %d passes: see 'xfs_repair -n "
		    "%s'", dev, REPAIR_PASSES, dev);
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

/* What became of the last xfs_repair recorded for this filesystem (@e);
 * 0 or -errno.  Reads only: the plan says it, --offline settles it. */
static int find_earlier_repair(struct offline *x, struct earlier_repair *e)
{
	struct last_repair l = { 0 };
	unsigned long long start = 0;
	int rc;

	memset(e, 0, sizeof(*e));
	rc = map_store_actions(x->st, x->t.fs_id, last_xfs_repair, &l);
	if (rc || !l.found || strcmp(l.a.outcome, "started") != 0)
		return rc;
	rc = repair_files(x, e->log, e->status, sizeof(e->log));
	if (rc)
		return rc;
	sscanf(l.a.detail, "pid %d start %llu", &e->pid, &start);
	human_time(l.a.at, e->when, sizeof(e->when));
	if (e->pid > 0 && start && proc_start_time(e->pid) == start)
		e->state = EARLIER_RUNNING;
	else if (e->pid > 0 && xfs_repair_status(e->status, e->pid, &e->code) == 0)
		e->state = EARLIER_ENDED;
	else
		e->state = EARLIER_UNKNOWN;
	return 0;
}

/*
 * An earlier xfs_repair (find_earlier_repair) still running: refuse
 * (EXIT_ERROR).  Ended: record how, from the status file its watcher wrote,
 * or that it is unknown and what to check; then 0 (this run goes on, and
 * runs xfs_repair again).
 */
static int settle_earlier_repair(struct offline *x)
{
	const struct ctl *ctl = x->ctl;
	struct earlier_repair *e = &x->earlier;
	char detail[256];
	int rc = find_earlier_repair(x, e);

	if (rc)
		return fail(ctl, rc, "looking for an earlier xfs_repair in %s",
			    shown(map_store_path(x->st)));
	switch (e->state) {
	case EARLIER_NONE:
		return 0;
	case EARLIER_RUNNING:
		return fail(ctl, 0, "xfs_repair on %s, started %s by an earlier mapctl (watcher pid "
			    "%d), is still running: wait for it to end, then run this again (its "
			    "output: %s)", shown(x->t.device), e->when, e->pid, shown(e->log));
	case EARLIER_ENDED:
		textf(detail, sizeof(detail), "offline: the xfs_repair started %s ended while no "
		      "mapctl watched: exit %d; its output: %s", e->when, e->code, e->log);
		fprintf(x->say, "The xfs_repair an earlier mapctl started on %s (%s) ended with "
			"exit status %d; its output is in %s.\n", shown(x->t.device), e->when,
			e->code, shown(e->log));
		rc = record_action(x->st, x->t.fs_id, 0, "xfs_repair", repair_outcome(e->code),
				   detail);
		break;
	case EARLIER_UNKNOWN:
		textf(detail, sizeof(detail), "offline: the xfs_repair started %s ended and left no "
		      "exit status (killed, or the machine stopped): check with xfs_repair -n %s; "
		      "its output: %s", e->when, x->t.device, e->log);
		fprintf(x->say, "The xfs_repair an earlier mapctl started on %s (%s) ended, but how "
			"is unknown (killed, or the machine stopped).  Check with 'xfs_repair -n "
			"%s'; its output so far is in %s.\n", shown(x->t.device), e->when,
			shown(x->t.device), shown(e->log));
		rc = record_action(x->st, x->t.fs_id, 0, "xfs_repair", "unknown", detail);
		break;
	}
	if (rc)
		return fail(ctl, rc, "recording the earlier xfs_repair");
	e->state = EARLIER_NONE;	/* settled: the plan printed next says nothing of it */
	return 0;
}

/* ---- step 3: mount back ---- */

/* At the recorded mount point, opened without following symbolic links and
 * checked to be root's (act_offline_mount.c): 0, -EPERM when refused, or
 * another negative errno; why in @why. */
static int mount_back(struct offline *x, char *why, size_t len)
{
	const char *mnt = x->t.sfs.mountpoint;
	char other[PATH_MAX], src[PATH_MAX], reason[PATH_MAX + 128];
	struct mount_options opts;
	int dirfd, rc;

	if (offline_find_mount(0, mnt, other, sizeof(other), src, sizeof(src)) == 1) {
		textf(why, len, "%s is mounted on %s already", src, mnt);
		return -EBUSY;
	}
	rc = offline_fstab_options(mnt, &opts, reason, sizeof(reason));
	if (rc) {
		textf(why, len, "not mounted at %s: %s", mnt, reason);
		return rc;
	}
	dirfd = offline_open_mountpoint(mnt, reason, sizeof(reason));
	if (dirfd < 0) {
		textf(why, len, "refused to mount at %s: %s", mnt, reason);
		return -EPERM;
	}
	rc = offline_mount_at(x->t.device, x->t.rdev, dirfd, &opts, reason, sizeof(reason));
	close(dirfd);
	if (rc)
		textf(why, len, "mount %s at %s%s%s: %s", x->t.device, mnt,
		      opts.found ? " with the options of /etc/fstab, " : "", opts.found ? opts.all : "",
		      reason);
	else if (opts.found)
		textf(why, len, "mounted %s at %s with the options of /etc/fstab: %s", x->t.device,
		      mnt, opts.all);
	else
		textf(why, len, "mounted %s at %s with default options (no /etc/fstab entry for it)",
		      x->t.device, mnt);
	return rc;
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

static int print_finding(const struct offline *x, const struct map_finding *f, void *arg)
{
	FILE *out = arg;
	const char *mnt = x->t.sfs.mountpoint;

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

static int json_one(const struct offline *x, const struct map_finding *f, void *arg)
{
	json_finding(arg, f, x->t.sfs.uuid, x->t.sfs.mountpoint);
	return 0;
}

static void print_ranges(const struct offline *x, FILE *out)
{
	for (size_t i = 0; i < x->ranges.n; i++) {
		const struct map_range *r = &x->ranges.v[i];
		char b[32];

		fprintf(out, "    bytes %" PRIu64 "+%" PRIu64 " (%s): ", r->start, r->length,
			human_bytes(r->length, b, sizeof(b)));
		if (!x->checked)
			fprintf(out, "not read now (needs root and the device)\n");
		else if (x->range_bad[i] == 0)
			fprintf(out, "readable now: left alone\n");
		else
			fprintf(out, "%" PRIu64 " of %" PRIu64 " sectors of %u B unreadable now: "
				"overwritten\n", x->range_bad[i], r->length / x->unit, x->unit);
		each_finding(x, i, r->start, r->length, print_finding, out);
	}
	if (x->outside)
		fprintf(out, "    (%zu recorded range%s past the end of %s: left alone)\n",
			x->outside, x->outside == 1 ? "" : "s", shown(x->t.device));
}

/* What the plan says of an earlier xfs_repair that no mapctl saw end. */
static void print_earlier(const struct offline *x, FILE *out)
{
	const struct earlier_repair *e = &x->earlier;
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
			" (killed, or the machine stopped)", shown(x->t.device), log);
		break;
	}
}

static void print_plan(const struct offline *x, FILE *out)
{
	const struct target *t = &x->t;
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
		x->ranges.n, x->ranges.n == 1 ? "" : "s",
		human_bytes(map_range_total(&x->ranges), b, sizeof(b)));
	print_ranges(x, out);
	if (x->checked)
		fprintf(out, "   %" PRIu64 " sector%s of %u B to overwrite%s.\n", x->total_bad,
			x->total_bad == 1 ? "" : "s", x->unit,
			x->total_bad > x->max_bad ? ": more than a failing disk's worth, refused "
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
	map_json_str(&j, "fs_uuid", x->t.sfs.uuid);
	map_json_str_or_null(&j, "device", x->t.device);
	map_json_str_or_null(&j, "mountpoint", x->t.sfs.mountpoint);
	map_json_str_or_null(&j, "mounted_at", x->t.mounted_at);
	map_json_bool(&j, "identified_by_uuid", x->t.by_uuid);
	map_json_bool(&j, "checked", x->checked);
	map_json_uint_or_null(&j, "sector_size", x->checked, x->unit);
	map_json_uint_or_null(&j, "unreadable_sectors", x->checked, x->total_bad);
	map_json_uint_or_null(&j, "max_sectors", x->checked, x->max_bad);
	map_json_uint(&j, "ranges_outside_device", x->outside);
	map_json_arr(&j, "ranges");
	for (size_t i = 0; i < x->ranges.n; i++) {
		const struct map_range *r = &x->ranges.v[i];

		map_json_obj(&j, NULL);
		map_json_uint(&j, "device_offset", r->start);
		map_json_uint(&j, "device_length", r->length);
		if (x->checked)
			map_json_uint(&j, "unreadable_sectors", x->range_bad[i]);
		else
			map_json_null(&j, "unreadable_sectors");
		map_json_arr(&j, "findings");
		each_finding(x, i, r->start, r->length, json_one, &j);
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

/* Another device has this filesystem's UUID mounted: ours is a copy (a
 * cloned disk, a snapshot), and its repair is not the recorded one's.
 * 0 or EXIT_ERROR. */
static int refuse_clone(const struct offline *x)
{
	char mnt[PATH_MAX], src[PATH_MAX];
	int rc = offline_uuid_mounted_elsewhere(x->t.sfs.uuid, x->t.rdev, mnt, sizeof(mnt), src,
						sizeof(src));

	if (rc < 0)
		return fail(x->ctl, rc, "reading /proc/self/mountinfo");
	if (rc > 0)
		return fail(x->ctl, 0, "the XFS filesystem %s is mounted at %s from %s: %s is a "
			    "copy of it (or the same disk under another name); refused, nothing "
			    "written or recorded", x->t.sfs.uuid, shown(mnt), shown(src),
			    shown(x->t.device));
	return 0;
}

/*
 * The device as opened for writing (O_EXCL): the same device that was
 * identified by name, still with the same signature, and no other device
 * has its filesystem mounted (a clone: a copy of the disk, a snapshot with
 * the same UUID, whose repair would be recorded as the original's).  What
 * is written later goes through this descriptor.  0 or EXIT_ERROR.
 */
static int check_open_device(struct offline *x)
{
	const struct ctl *ctl = x->ctl;
	struct offline_probe now;
	char path[64];
	struct stat st;
	int fd, rc;

	if (fstat(x->dev.fd, &st) != 0 || !S_ISBLK(st.st_mode) || st.st_rdev != x->t.rdev)
		return fail(ctl, 0, "%s changed while it was being opened: refused",
			    shown(x->t.device));
	/* The same open device, read through the page cache for libblkid. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", x->dev.fd);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return fail(ctl, -errno, "reading %s", shown(x->t.device));
	rc = offline_device_probe(fd, &now);
	close(fd);
	if (rc == 0 && now.other[0]) {
		x->probe = now;
		return refuse_other(x);
	}
	if (rc == 0 ? (now.xfs != x->t.by_uuid ||
		       (now.xfs && strcmp(now.uuid, x->t.sfs.uuid) != 0))
		    : x->t.by_uuid)
		return fail(ctl, 0, "%s changed since it was identified: refused",
			    shown(x->t.device));
	return refuse_clone(x);
}

static bool confirm(const struct offline *x)
{
	char line[16];

	if (!isatty(STDIN_FILENO)) {
		fail(x->ctl, 0, "not asking on a non-terminal: add --yes to overwrite %" PRIu64
		     " sectors of %s and run xfs_repair on it", x->total_bad, shown(x->t.device));
		return false;
	}
	fprintf(stderr, "Overwrite %" PRIu64 " unreadable sector%s of %s with zeros, run "
		"xfs_repair on it%s? [y/N] ", x->total_bad, x->total_bad == 1 ? "" : "s",
		shown(x->t.device), x->o->no_mount ? "" : " and mount it again");
	if (!fgets(line, sizeof(line), stdin))
		return false;
	return line[0] == 'y' || line[0] == 'Y';
}

static void json_result(const struct offline *x, const struct overwrite_result *ow,
			const struct xfs_repair_result *xr, bool ran_repair, const char *mounted)
{
	struct map_json j;

	json_open(&j, stdout, "mapctl repair --offline");
	map_json_str(&j, "fs_uuid", x->t.sfs.uuid);
	map_json_str(&j, "device", x->t.device);
	map_json_uint(&j, "sector_size", x->unit);
	map_json_uint(&j, "ranges", x->ranges.n);
	map_json_uint(&j, "unreadable_sectors", x->total_bad);
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
	const struct ctl *ctl = x->ctl;
	struct overwrite_result ow = { 0 };
	struct xfs_repair_result xr = { 0 };
	char detail[256], why[256];
	bool ran_repair = false;
	const char *mounted = NULL;
	int unrecorded = 0, rc;

	snprintf(dev, sizeof(dev), "%s", shown(x->t.device));
	snprintf(mnt, sizeof(mnt), "%s", shown(x->t.sfs.mountpoint));
	if (x->total_bad > x->max_bad)
		return fail(ctl, 0, "%" PRIu64 " sectors of %s cannot be read, more than the %"
			    PRIu64 " this overwrites (a disk failing as a whole): copy it to a new "
			    "disk (ddrescue) and repair the copy", x->total_bad, dev, x->max_bad);
	if (!x->o->yes && !confirm(x))
		return isatty(STDIN_FILENO) ? EXIT_DAMAGE : EXIT_ERROR;

	/* 1. overwrite */
	fprintf(x->say, "1. overwriting %" PRIu64 " unreadable sector%s of %u B\n", x->total_bad,
		x->total_bad == 1 ? "" : "s", x->unit);
	overwrite(x, &ow);
	unrecorded += ow.unrecorded;
	textf(detail, sizeof(detail), "offline: %zu recorded range%s read again: %" PRIu64
		 " unreadable sector%s of %u B overwritten with zeros, %" PRIu64
		 " still unreadable", x->ranges.n, x->ranges.n == 1 ? "" : "s", ow.written,
		 ow.written == 1 ? "" : "s", x->unit, ow.still_bad);
	if (record_action(x->st, x->t.fs_id, 0, "overwrite",
			  ow.still_bad ? "failed" : x->total_bad ? "overwritten" : "not-needed",
			  detail) != 0)
		unrecorded++;
	/* xfs_repair opens the device exclusively too. */
	offline_device_close(&x->dev);
	if (ow.still_bad) {
		fail(ctl, 0, "%" PRIu64 " sector%s of %s still cannot be read after being "
		     "overwritten: the drive cannot remap them; copy it to a new disk (ddrescue) "
		     "and repair the copy", ow.still_bad, ow.still_bad == 1 ? "" : "s", dev);
		rc = EXIT_ERROR;
		goto out;
	}

	/* 2. xfs_repair */
	ran_repair = true;
	if (repair_passes(x, dev, &xr, &unrecorded) != 0) {
		rc = EXIT_ERROR;
		goto out;
	}

	/* 3. mount */
	if (!x->o->no_mount) {
		fprintf(x->say, "3. mounting %s at %s\n", dev, mnt);
		rc = mount_back(x, why, sizeof(why));
		textf(detail, sizeof(detail), "offline: %s", why);
		if (record_action(x->st, x->t.fs_id, 0, "mount",
				  rc == -EPERM ? "refused" : rc ? "failed" : "done", detail))
			unrecorded++;
		if (rc == 0)
			fprintf(x->say, "   %s\n", shown(why));
		if (rc) {
			fail(ctl, 0, "%s.  %s is left unmounted: mount it yourself where it belongs, "
			     "then go on with refetch", shown(why), dev);
			rc = EXIT_ERROR;
			goto out;
		}
		mounted = x->t.sfs.mountpoint;
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
		json_result(x, &ow, &xr, ran_repair, mounted);
	if (unrecorded)
		return fail(ctl, 0, "%d step%s could not be recorded", unrecorded,
			    unrecorded == 1 ? "" : "s");
	if (rc)
		return rc;
	/* Findings stay open until refetch and the next scan settle them. */
	int counts[MAP_STATE_NR] = { 0 };
	if (map_store_count(x->st, x->t.fs_id, counts) != 0)
		return EXIT_DAMAGE;
	return map_counts_open(counts) ? EXIT_DAMAGE : EXIT_CLEAN;
}

int repair_offline(struct ctl *ctl, const struct offline_opts *o)
{
	struct offline x = { .ctl = ctl, .o = o, .dev.fd = -1, .unit = 512 };
	int lock = -1, holder = 0, rc;

	x.say = o->json ? stderr : stdout;
	/* Progress lines, then a failure on stderr: in that order in a log. */
	setvbuf(x.say, NULL, _IOLBF, 0);
	if (!o->target || !o->target[0])
		return fail(ctl, 0, "which filesystem? give its device or mount point");
	if (!o->plan_only && (rc = need_root(ctl, "offline repair")) != 0)
		return rc;
	rc = open_store(ctl, !o->plan_only, &x.st);
	if (rc)
		return rc;
	rc = resolve_target(&x);
	if (rc)
		goto out;
	if (!o->plan_only && x.t.mounted_at[0]) {
		rc = fail(ctl, 0, "%s is mounted at %s: unmount it first (umount %s)",
			  shown(x.t.device), shown(x.t.mounted_at), shown(x.t.mounted_at));
		goto out;
	}
	if (!o->plan_only && ((rc = refuse_clone(&x)) != 0 || (rc = settle_earlier_repair(&x)) != 0))
		goto out;
	if (!o->plan_only) {
		/* One offline repair or scan of a filesystem at a time. */
		lock = map_scan_lock(x.st, x.t.sfs.uuid, &holder);
		if (lock < 0) {
			rc = lock == -EBUSY ? fail(ctl, 0, "%s is being scanned or repaired (pid %d)",
						   shown(x.t.sfs.mountpoint), holder)
					    : fail(ctl, lock, "taking the lock of %s",
						   shown(x.t.sfs.mountpoint));
			goto out;
		}
	}
	/* The plan reads only, and only when it may (root). */
	rc = offline_device_open(&x.dev, x.t.device, !o->plan_only);
	if (rc == 0)
		x.unit = x.dev.unit;
	if (rc && !o->plan_only) {
		rc = rc == -EBUSY ? fail(ctl, 0, "%s is in use (mounted elsewhere, or held by "
					 "device-mapper, md or LVM): it must be free",
					 shown(x.t.device))
				  : fail(ctl, rc, "opening %s", shown(x.t.device));
		goto out;
	}
	if (!o->plan_only && (rc = check_open_device(&x)) != 0)
		goto out;
	rc = map_store_findings(x.st, x.t.fs_id, MAP_FIND_ALL, collect, &x);
	if (rc == 0)
		rc = build_ranges(&x);
	if (rc) {
		rc = fail(ctl, rc, "reading the database");
		goto out;
	}
	if (x.too_many) {
		rc = fail(ctl, 0, "more than %d unreadable ranges are recorded for %s: a disk "
			  "failing as a whole; copy it to a new disk (ddrescue) first",
			  OFFLINE_MAX_RANGES, shown(x.t.sfs.mountpoint));
		goto out;
	}
	if (x.dev.fd >= 0 && (rc = check_ranges(&x)) != 0) {
		rc = fail(ctl, rc, "reading %s", shown(x.t.device));
		goto out;
	}
	if (o->plan_only) {
		rc = find_earlier_repair(&x, &x.earlier);
		if (rc) {
			rc = fail(ctl, rc, "looking for an earlier xfs_repair in %s",
				  shown(map_store_path(x.st)));
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
	offline_device_close(&x.dev);
	if (lock >= 0)
		close(lock);
	for (size_t i = 0; i < x.nf; i++)
		map_finding_clear(&x.f[i]);
	free(x.f);
	free(x.rr);
	free(x.range_bad);
	free(x.bad);
	map_range_free(&x.ranges);
	map_store_close(x.st);
	return rc;
}
