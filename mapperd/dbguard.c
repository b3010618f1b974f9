// SPDX-License-Identifier: GPL-2.0-or-later
/* The database's own filesystem: warn, let go of it, come back to it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "daemon.h"
#include "dbguard.h"
#include "log.h"
#include "pipeline.h"
#include "scheduler.h"

/* How often the main thread tries a closed database again (the event
 * pipeline does the same on its own). */
#define DB_RETRY_MS 5000

void md_db_init(struct md_daemon *d)
{
	struct stat sb;

	d->db_dev = stat(d->db_path, &sb) == 0 ? sb.st_dev : 0;
}

static bool holds_db(const struct md_daemon *d, const struct md_fs *fs)
{
	return d->db_dev && fs->dev == d->db_dev;
}

/* Open the database again if its file is back where it was. */
static void reopen(struct md_daemon *d)
{
	struct stat sb;

	d->db_retry = md_now_ms() + DB_RETRY_MS;
	if (d->st || d->stopping || stat(d->db_path, &sb) != 0 || sb.st_dev != d->db_dev)
		return;
	if (map_store_open(d->db_path, 0, &d->st) != 0) {
		d->st = NULL;
		return;
	}
	log_notice("database %s open again", d->db_path);
	/* Filesystems found while it was closed have no row yet. */
	for (struct md_fs *fs = d->fs_list; fs; fs = fs->next) {
		struct map_store_fs sf;

		if (!fs->fs_id && map_store_fs_by_uuid(d->st, fs->uuid, &sf) == 0)
			fs->fs_id = sf.id;
	}
}

void md_db_fs_added(struct md_daemon *d, struct md_fs *fs)
{
	if (holds_db(d, fs))
		log_warn("%s %s: the database %s is on this watched filesystem: mapperd keeps it "
			 "open, so this filesystem cannot be unmounted while mapperd runs, except "
			 "after a shutdown; and its own errors are recorded only once it works "
			 "again (kept in the spool meanwhile).  Put the database on another "
			 "filesystem (database = in mapperd.conf)", fs->uuid, fs->mountpoint,
			 d->db_path);
	if (!d->st)
		reopen(d);
}

void md_db_fs_shut_down(struct md_daemon *d, struct md_fs *fs)
{
	if (!holds_db(d, fs))
		return;
	log_err("%s %s: the filesystem holding the database %s is shut down: closing the "
		"database so that it can be unmounted; reports wait in the spool until it is "
		"mounted again", fs->uuid, fs->mountpoint, d->db_path);
	if (d->st) {
		map_store_close(d->st);
		d->st = NULL;
	}
	d->db_retry = md_now_ms() + DB_RETRY_MS;
	if (d->pipe)
		md_pipeline_release_db(d->pipe);
	md_sched_release_db(d);
}

int md_db_tick(struct md_daemon *d)
{
	int64_t now = md_now_ms();

	if (d->st || !d->db_dev)
		return -1;
	if (now >= d->db_retry)
		reopen(d);
	if (d->st)
		return -1;
	return (int)(d->db_retry > now ? d->db_retry - now : 0);
}
