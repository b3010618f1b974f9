// SPDX-License-Identifier: GPL-2.0-or-later
/* One recorded filesystem's status as the store tells it (map_fs_status.h). */
#include <errno.h>
#include <string.h>

#include "map_fs_status.h"

static int count_kind(const struct map_finding *f, void *arg)
{
	struct map_fs_status *o = arg;
	int i;

	for (i = 0; i < o->nkinds; i++)
		if (strcmp(o->kinds[i].kind, f->kind) == 0)
			break;
	if (i == o->nkinds && o->nkinds < MAP_FS_STATUS_KINDS)
		snprintf(o->kinds[o->nkinds++].kind, sizeof(o->kinds[0].kind), "%s", f->kind);
	if (i < MAP_FS_STATUS_KINDS)
		o->kinds[i].n++;
	if (strcmp(f->kind, "file") == 0)
		o->files++;
	else
		o->metadata++;
	return 0;
}

/* The newest complete scan of either kind (metadata or media), unix
 * seconds; 0 when none ever completed. */
static int last_complete(struct map_store *st, int64_t fs_id, int64_t *finished)
{
	static const unsigned int kinds[] = { MAP_COVER_METADATA, MAP_COVER_MEDIA };
	struct map_scan_row row;

	*finished = 0;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		int rc = map_store_scan_last_covering(st, fs_id, kinds[i], &row);

		if (rc == -ENOENT)
			continue;
		if (rc)
			return rc;
		if (row.finished > *finished)
			*finished = row.finished;
	}
	return 0;
}

int map_fs_status_gather(struct map_store *st, int64_t fs_id, int64_t max_age_ms, int64_t now,
			 struct map_fs_status *o)
{
	int rc;

	memset(o, 0, sizeof(*o));
	rc = map_store_count(st, fs_id, o->counts);
	if (rc == 0)
		rc = map_store_findings(st, fs_id, 0, count_kind, o);
	if (rc == 0)
		rc = last_complete(st, fs_id, &o->complete);
	if (rc)
		return rc;
	o->have_scan = map_store_scan_latest(st, fs_id, &o->last) == 0;
	o->have_media = map_store_scan_last_complete(st, fs_id, &o->media) == 0;
	o->open = map_counts_open(o->counts);
	o->state = o->open ? "DAMAGED" : !o->have_media ? "UNVERIFIED" : "OK";
	/* Never checked is not clean; nor, when asked, checked too long ago. */
	o->never = o->complete == 0;
	o->stale = !o->never && max_age_ms && now - o->complete > max_age_ms / 1000;
	return 0;
}
