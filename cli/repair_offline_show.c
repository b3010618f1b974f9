// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapctl repair --offline-plan / --offline: the plan and the result as text
 * for people and as JSON (mapper-json(7)), from the data libmap's offline
 * path (act_offline.h) keeps.
 */
#include <inttypes.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "repair_offline.h"

/* Paths shown per finding in the text plan (JSON has them all). */
#define OFFLINE_SHOW_PATHS 5
/* A path escaped for people (shown()) takes up to 4 bytes per byte: room to
 * keep one past shown()'s few rotating slots. */
#define SHOWN_PATH (4 * PATH_MAX + 1)

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

/* One recorded range as both renderers show it. */
struct range_row {
	size_t index;			/* in p->ranges */
	const struct map_range *r;
	bool checked;			/* read now: bad is known */
	uint64_t bad;			/* units unreadable now */
};

/* Call @fn with each recorded range's row. */
static void each_range(const struct offline_plan *p,
		       void (*fn)(const struct offline_plan *p, const struct range_row *row,
				  void *arg), void *arg)
{
	for (size_t i = 0; i < p->ranges.n; i++) {
		const struct range_row row = {
			.index = i, .r = &p->ranges.v[i], .checked = p->checked,
			.bad = p->checked ? p->range_bad[i] : 0,
		};

		fn(p, &row, arg);
	}
}

static void range_text(const struct offline_plan *p, const struct range_row *row, void *arg)
{
	FILE *out = arg;
	const struct map_range *r = row->r;
	char b[32];

	fprintf(out, "    bytes %" PRIu64 "+%" PRIu64 " (%s): ", r->start, r->length,
		human_bytes(r->length, b, sizeof(b)));
	if (!row->checked)
		fprintf(out, "not read now (needs root and the device)\n");
	else if (row->bad == 0)
		fprintf(out, "readable now: left alone\n");
	else
		fprintf(out, "%" PRIu64 " of %" PRIu64 " sectors of %u B unreadable now: "
			"overwritten\n", row->bad, r->length / p->unit, p->unit);
	offline_plan_each_finding(p, row->index, r->start, r->length, print_finding, out);
}

static void range_json(const struct offline_plan *p, const struct range_row *row, void *arg)
{
	struct map_json *j = arg;
	const struct map_range *r = row->r;

	map_json_obj(j, NULL);
	map_json_uint(j, "device_offset", r->start);
	map_json_uint(j, "device_length", r->length);
	map_json_uint_or_null(j, "unreadable_sectors", row->checked, row->bad);
	map_json_arr(j, "findings");
	offline_plan_each_finding(p, row->index, r->start, r->length, json_one, j);
	map_json_end_arr(j);
	map_json_end_obj(j);
}

static void print_ranges(const struct offline_plan *p, FILE *out)
{
	each_range(p, range_text, out);
	if (p->outside)
		fprintf(out, "    (%zu recorded range%s past the end of %s: left alone)\n",
			p->outside, p->outside == 1 ? "" : "s", shown(p->t.device));
}

/* What the plan says of an earlier xfs_repair that no mapctl saw end. */
static void print_earlier(const struct offline_plan *p, FILE *out)
{
	const struct offline_earlier *e = &p->earlier;
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
			" (killed, or the machine stopped)", shown(p->t.device), log);
		break;
	}
}

void offline_print_plan(const struct offline_plan *p, FILE *out)
{
	const struct offline_target *t = &p->t;
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
	print_earlier(p, out);
	fprintf(out, "1. Read again, sector by sector, the %zu device range%s (%s) the database "
		"recorded as unreadable, and overwrite with zeros only the sectors that still "
		"cannot be read: their contents are lost already, and the write lets the drive "
		"remap them (xfs_repair stops at the first unreadable sector it needs).\n",
		p->ranges.n, p->ranges.n == 1 ? "" : "s",
		human_bytes(map_range_total(&p->ranges), b, sizeof(b)));
	print_ranges(p, out);
	if (p->checked)
		fprintf(out, "   %" PRIu64 " sector%s of %u B to overwrite%s.\n", p->total_bad,
			p->total_bad == 1 ? "" : "s", p->unit,
			p->total_bad > p->max_bad ? ": more than a failing disk's worth, refused "
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

void offline_json_plan(const struct offline_plan *p, FILE *out)
{
	struct map_json j;

	json_open(&j, out, "mapctl repair --offline-plan");
	map_json_str(&j, "fs_uuid", p->t.sfs.uuid);
	map_json_str_or_null(&j, "device", p->t.device);
	map_json_str_or_null(&j, "mountpoint", p->t.sfs.mountpoint);
	map_json_str_or_null(&j, "mounted_at", p->t.mounted_at);
	map_json_bool(&j, "identified_by_uuid", p->t.by_uuid);
	map_json_bool(&j, "checked", p->checked);
	map_json_uint_or_null(&j, "sector_size", p->checked, p->unit);
	map_json_uint_or_null(&j, "unreadable_sectors", p->checked, p->total_bad);
	map_json_uint_or_null(&j, "max_sectors", p->checked, p->max_bad);
	map_json_uint(&j, "ranges_outside_device", p->outside);
	map_json_arr(&j, "ranges");
	each_range(p, range_json, &j);
	map_json_end_arr(&j);
	map_json_arr(&j, "steps");
	map_json_str(&j, NULL, "overwrite the recorded sectors that still cannot be read");
	map_json_str(&j, NULL, "xfs_repair");
	map_json_str(&j, NULL, "mount");
	map_json_str(&j, NULL, "mapctl refetch --from MIRROR, then mapctl scan");
	map_json_end_arr(&j);
	json_close(&j);
}

void offline_json_result(const struct offline_plan *p, const struct offline_overwrite *ow,
			 const struct xfs_repair_result *xr, bool ran_repair, const char *mounted)
{
	struct map_json j;

	json_open(&j, stdout, "mapctl repair --offline");
	map_json_str(&j, "fs_uuid", p->t.sfs.uuid);
	map_json_str(&j, "device", p->t.device);
	map_json_uint(&j, "sector_size", p->unit);
	map_json_uint(&j, "ranges", p->ranges.n);
	map_json_uint(&j, "unreadable_sectors", p->total_bad);
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
