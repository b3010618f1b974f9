// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The offline path's writes, each recorded as an action: the sectors of the
 * plan that still cannot be read are overwritten with zeros (their contents
 * are lost already; the write is what makes a drive remap them), and after
 * xfs_repair the filesystem is mounted back where it was recorded.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "act_offline.h"
#include "act_offline_mount.h"
#include "map_act.h"
#include "map_internal.h"

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

static int record_one(const struct offline_plan *p, const struct map_finding *f, void *arg)
{
	const struct run_record *r = arg;
	int rc = record_action(p->st, p->t.fs_id, f->id, "overwrite", r->outcome, r->detail);

	/* Its sectors read as zeros from now on, which a scan takes for good
	 * data: only a verified refetch or mapctl resolve may close it.  An
	 * ignored or resolved finding keeps the state someone gave it. */
	if (rc == 0 && r->zeroed && mirror_restores(f) && f->state != MAP_STATE_IGNORED &&
	    f->state != MAP_STATE_RESOLVED)
		rc = map_store_finding_set_state(p->st, f->id, MAP_STATE_ZEROED);
	return rc;
}

/* Record the overwrite of units [start, start+len) for every finding whose
 * recorded ranges it touches, in one transaction. */
static int record_run(struct offline_plan *p, uint64_t start, uint64_t len, uint64_t still_bad)
{
	char detail[256];
	struct run_record r = { still_bad ? "failed" : "overwritten", detail, !still_bad };
	int rc = map_store_begin(p->st);

	if (rc)
		return rc;
	map_textf(detail, sizeof(detail), "offline: bytes %" PRIu64 "+%" PRIu64 " (%" PRIu64
		  " sectors of %u B) unreadable, overwritten with zeros%s", start, len,
		  len / p->unit, p->unit, still_bad ? "; still unreadable after the write" : "");
	rc = offline_plan_each_finding(p, offline_plan_range_of(p, start), start, len, record_one,
				       &r);
	return store_finish(p->st, rc);
}

/* The whole overwrite, for the filesystem's history. */
static int record_overwrite(struct offline_plan *p, const struct offline_overwrite *r)
{
	char detail[256];

	map_textf(detail, sizeof(detail), "offline: %zu recorded range%s read again: %" PRIu64
		  " unreadable sector%s of %u B overwritten with zeros, %" PRIu64
		  " still unreadable", p->ranges.n, p->ranges.n == 1 ? "" : "s", r->written,
		  r->written == 1 ? "" : "s", p->unit, r->still_bad);
	return record_action(p->st, p->t.fs_id, 0, "overwrite",
			     r->still_bad ? "failed" : p->total_bad ? "overwritten" : "not-needed",
			     detail);
}

void offline_overwrite(struct offline_plan *p, struct offline_overwrite *r,
		       void (*run)(uint64_t start, uint64_t len, uint64_t bad_after, void *arg),
		       void *arg)
{
	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < p->nbad;) {
		size_t j = i;
		uint64_t bad_after = 0;

		/* one run of adjacent units */
		while (j + 1 < p->nbad && p->bad[j + 1] == p->bad[j] + p->unit)
			j++;
		for (size_t k = i; k <= j; k++) {
			int rc = offline_device_zero(&p->dev, p->bad[k]);

			if (rc < 0)
				r->write_failed++;
			else
				r->written++;
			if (rc != 1)
				bad_after++;
		}
		uint64_t start = p->bad[i], len = (uint64_t)(j - i + 1) * p->unit;

		if (run)
			run(start, len, bad_after, arg);
		r->still_bad += bad_after;
		r->runs++;
		if (record_run(p, start, len, bad_after) != 0)
			r->unrecorded++;
		i = j + 1;
	}
	if (record_overwrite(p, r) != 0)
		r->unrecorded++;
}

/* At the recorded mount point, opened without following symbolic links and
 * checked to be root's (act_offline_mount.c). */
static int mount_back(struct offline_plan *p, char *why, size_t len)
{
	const char *mnt = p->t.sfs.mountpoint;
	char other[PATH_MAX], src[PATH_MAX], reason[PATH_MAX + 128];
	struct mount_options opts;
	int dirfd, rc;

	if (offline_find_mount(0, mnt, other, sizeof(other), src, sizeof(src)) == 1) {
		map_textf(why, len, "%s is mounted on %s already", src, mnt);
		return -EBUSY;
	}
	rc = offline_fstab_options(mnt, &opts, reason, sizeof(reason));
	if (rc) {
		map_textf(why, len, "not mounted at %s: %s", mnt, reason);
		return rc;
	}
	dirfd = offline_open_mountpoint(mnt, reason, sizeof(reason));
	if (dirfd < 0) {
		map_textf(why, len, "refused to mount at %s: %s", mnt, reason);
		return -EPERM;
	}
	rc = offline_mount_at(p->t.device, p->t.rdev, dirfd, &opts, reason, sizeof(reason));
	close(dirfd);
	if (rc)
		map_textf(why, len, "mount %s at %s%s%s: %s", p->t.device, mnt,
			  opts.found ? " with the options of /etc/fstab, " : "",
			  opts.found ? opts.all : "", reason);
	else if (opts.found)
		map_textf(why, len, "mounted %s at %s with the options of /etc/fstab: %s",
			  p->t.device, mnt, opts.all);
	else
		map_textf(why, len, "mounted %s at %s with default options (no /etc/fstab entry "
			  "for it)", p->t.device, mnt);
	return rc;
}

int offline_mount_back(struct offline_plan *p, char *why, size_t len, bool *unrecorded)
{
	char detail[256];
	int rc = mount_back(p, why, len);

	map_textf(detail, sizeof(detail), "offline: %s", why);
	*unrecorded = record_action(p->st, p->t.fs_id, 0, "mount",
				    rc == -EPERM ? "refused" : rc ? "failed" : "done", detail) != 0;
	return rc;
}
