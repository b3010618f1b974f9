// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reports into the database, or into the spool while it cannot take them.
 *
 * The connection is opened again only when the database file is there, on
 * the device it was on when we started: after its filesystem is unmounted
 * the same path names a folder of the filesystem below, where opening would
 * create a new, empty database.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "daemon.h"
#include "dbwriter.h"
#include "findlog.h"
#include "log.h"
#include "metrics_file.h"

/* How often a lost database is tried again: a remount is noticed within
 * seconds, and a failing disk is not hammered. */
#define DB_RETRY_SECS 5.0
#define BUSY_RETRIES 30		/* times the store's own 10 s busy timeout */

struct md_dbwriter {
	char db_path[PATH_MAX];
	dev_t db_dev;
	bool have_dev;
	struct map_store *st;
	double retry_at;		/* md_mono() of the next try when !st */
	struct md_spool *spool;
	struct md_dbwriter_stats stats;
};

static void connect_db(struct md_dbwriter *w, bool first)
{
	struct stat sb;
	int rc;

	if (w->st)
		return;
	w->retry_at = md_mono() + DB_RETRY_SECS;
	if (stat(w->db_path, &sb) != 0)
		return;
	if (w->have_dev && sb.st_dev != w->db_dev)
		return;
	rc = map_store_open(w->db_path, 0, &w->st);
	if (rc) {
		w->st = NULL;
		if (first)
			log_err("event pipeline: cannot open the database %s: %s", w->db_path,
				map_store_error(rc) ? map_store_error(rc) : map_strerror(rc));
		return;
	}
	w->db_dev = sb.st_dev;
	w->have_dev = true;
	w->stats.down = false;
}

int md_dbwriter_open(const char *db_path, const char *spool_dir, struct md_dbwriter **out)
{
	struct md_dbwriter *w = calloc(1, sizeof(*w));
	int rc;

	*out = NULL;
	if (!w)
		return -ENOMEM;
	snprintf(w->db_path, sizeof(w->db_path), "%s", db_path);
	if (spool_dir) {
		rc = md_spool_open(spool_dir, &w->spool);
		if (rc)
			log_err("spool %s: %s; reports the database cannot take will be lost",
				spool_dir, map_strerror(rc));
	}
	w->stats.down = true;
	connect_db(w, true);
	w->stats.pending = md_spool_pending(w->spool);
	*out = w;
	return 0;
}

void md_dbwriter_close(struct md_dbwriter *w)
{
	if (!w)
		return;
	map_store_close(w->st);
	md_spool_close(w->spool);
	free(w);
}

void md_dbwriter_release(struct md_dbwriter *w)
{
	if (w->st) {
		log_notice("event pipeline: database connection closed; reports go to the spool "
			   "until %s takes writes again", w->db_path);
		map_store_close(w->st);
		w->st = NULL;
	}
	w->stats.down = true;
	w->retry_at = md_mono() + DB_RETRY_SECS;
}

/* The kernel marked an inode healthy again: its metadata findings close. */
static int close_healthy(struct map_store *st, int64_t fs_id, const struct md_spool_entry *e,
			 bool log_them)
{
	char detail[256];
	int n, rc;

	snprintf(detail, sizeof(detail), "the kernel marked inode %" PRIu64 " healthy (%s)",
		 e->healthy_ino, e->healthy_scrub);
	rc = map_store_close_healthy(st, fs_id, e->healthy_ino, e->healthy_gen, e->healthy_scrub,
				     "kernel (healthmon)", detail, &n);
	if (rc == 0 && n && log_them)
		log_notice("%s %s: %d finding%s of inode %" PRIu64 " resolved: the kernel marked it "
			   "healthy (%s)", e->info.uuid, e->info.mountpoint, n, n == 1 ? "" : "s",
			   e->healthy_ino, e->healthy_scrub);
	return rc;
}

/* The filesystem's row, the findings, the event, in the open transaction. */
static int write_rows(struct map_store *st, struct md_spool_entry *e, int *nnew, bool log_them)
{
	int64_t fs_id = 0;
	int rc;

	if (e->have_info) {
		rc = map_store_fs_upsert(st, &e->info, &fs_id);
	} else {
		/* Only the uuid is known (the filesystem could not be opened):
		 * its row, when the daemon recorded one before. */
		struct map_store_fs sf;

		rc = map_store_fs_by_uuid(st, e->info.uuid, &sf);
		if (rc == 0)
			fs_id = sf.id;
		else if (rc == -ENOENT)
			rc = 0;
	}
	for (size_t i = 0; rc == 0 && i < e->n; i++) {
		bool is_new = false;

		e->v[i].fs_id = fs_id;
		rc = map_store_finding_record(st, 0, &e->v[i], &is_new);
		if (rc == 0 && is_new)
			(*nnew)++;
		if (rc == 0 && log_them)
			md_log_finding(e->info.uuid, e->info.mountpoint, &e->v[i], is_new,
				       map_event_source_name(e->row.source));
	}
	if (rc == 0 && e->healthy_ino && fs_id)
		rc = close_healthy(st, fs_id, e, log_them);
	if (rc == 0) {
		e->row.fs_id = fs_id;
		rc = map_store_event_add(st, &e->row);
	}
	return rc;
}

/* One transaction: the filesystem's row, the findings, the event. */
static int write_once(struct map_store *st, struct md_spool_entry *e, int *nnew, bool log_them)
{
	int rc;

	*nnew = 0;
	rc = map_store_begin(st);
	if (rc == 0)
		rc = write_rows(st, e, nnew, log_them);
	if (rc == 0)
		rc = map_store_commit(st);
	if (rc)
		map_store_rollback(st);
	return rc;
}

void md_dbwriter_rehearse(struct md_dbwriter *w, struct md_spool_entry *e)
{
	int nnew = 0;	/* write_rows() adds to it */

	/* Nothing to warm without a connection; a waiting spool is written
	 * first, by the tick. */
	if (!w->st || md_spool_pending(w->spool))
		return;
	/* Not worth a wait: another writer holding the lock would keep the
	 * worker, and the reports queued behind it, for the busy timeout. */
	if (map_store_begin_nowait(w->st) != 0)
		return;
	write_rows(w->st, e, &nnew, false);
	map_store_rollback(w->st);
}

static double db_tick(struct md_dbwriter *w);

/* Keep @e in the spool; its findings are logged now, as they would have been. */
static int keep(struct md_dbwriter *w, struct md_spool_entry *e, const char *why)
{
	const char *from = map_event_source_name(e->row.source);
	char source[40];

	int rc = w->spool ? md_spool_put(w->spool, e) : -ENOENT;

	if (rc) {
		w->stats.spool_dropped++;
		log_err("%s %s: %s report lost: the database cannot take it (%s) and the spool "
			"cannot keep it (%s)", e->info.uuid, e->info.mountpoint, from, why,
			map_strerror(rc));
		return rc;
	}
	w->stats.spooled++;
	w->stats.pending = md_spool_pending(w->spool);
	snprintf(source, sizeof(source), "%s, kept in the spool", from);
	for (size_t i = 0; i < e->n; i++)
		md_log_finding(e->info.uuid, e->info.mountpoint, &e->v[i], true, source);
	log_warn("%s %s: %s report kept in the spool (the database %s); %zu waiting",
		 e->info.uuid, e->info.mountpoint, from, why, w->stats.pending);
	return 1;
}

int md_dbwriter_write(struct md_dbwriter *w, struct md_spool_entry *e, int *nnew,
		      bool (*stopping)(void *arg), void *arg)
{
	char why[512];
	int rc;

	*nnew = 0;
	if (e->row.at == 0)
		e->row.at = (int64_t)time(NULL);
	for (size_t i = 0; i < e->n; i++)
		if (!e->v[i].last_seen)
			e->v[i].last_seen = e->row.at;
	/* Older reports first: while the spool holds some, new ones queue. */
	if (md_spool_pending(w->spool))
		db_tick(w);
	if (!w->st && md_mono() >= w->retry_at)
		connect_db(w, false);
	if (!w->st || md_spool_pending(w->spool))
		return keep(w, e, w->st ? "has older reports to take first" : "is closed");
	rc = write_once(w->st, e, nnew, true);
	/* Busy is another process's long transaction, not a failing disk:
	 * wait for it a good while (a finding must not be lost for that). */
	for (int tries = 1; rc == -EBUSY && tries <= BUSY_RETRIES && !stopping(arg); tries++) {
		log_notice("%s %s: the database is busy; trying again to record the %s report",
			   e->info.uuid, e->info.mountpoint, map_event_source_name(e->row.source));
		rc = write_once(w->st, e, nnew, true);
	}
	if (rc == 0) {
		md_metrics_file_changed();
		return 0;
	}
	if (rc != -EBUSY) {
		log_err("event pipeline: the database %s cannot be written: %s", w->db_path,
			map_strerror(rc));
		md_dbwriter_release(w);
	}
	/* Which file and SQLite's words (a full disk is the database's, not
	 * the reporting filesystem's). */
	snprintf(why, sizeof(why), "failed: %.480s",
		 map_store_error(rc) ? map_store_error(rc) : map_strerror(rc));
	return keep(w, e, why);
}

static int replay_one(struct md_spool_entry *e, void *arg)
{
	struct md_dbwriter *w = arg;
	int nnew;

	return write_once(w->st, e, &nnew, false);
}

/* The database half of md_dbwriter_tick(). */
static double db_tick(struct md_dbwriter *w)
{
	double now = md_mono();
	size_t done = 0;
	int rc;

	if (!w->st && now >= w->retry_at)
		connect_db(w, false);
	if (!w->st)
		return w->retry_at - now > 0 ? w->retry_at - now : 0;
	if (!md_spool_pending(w->spool))
		return -1;
	rc = md_spool_replay(w->spool, replay_one, w, &done);
	w->stats.replayed += done;
	w->stats.pending = md_spool_pending(w->spool);
	if (done) {
		md_metrics_file_changed();
		log_notice("event pipeline: %zu spooled reports written to the database; %zu "
			   "waiting", done, w->stats.pending);
	}
	if (rc) {
		if (rc != -EBUSY) {
			log_err("event pipeline: replaying the spool: %s", map_strerror(rc));
			md_dbwriter_release(w);
		} else {
			w->retry_at = now + DB_RETRY_SECS;
		}
		return DB_RETRY_SECS;
	}
	return w->stats.pending ? DB_RETRY_SECS : -1;
}

double md_dbwriter_tick(struct md_dbwriter *w)
{
	double db = db_tick(w);
	/* The metrics file is written here, through this connection: this
	 * thread reads the store while the epoll loop goes on. */
	double metrics = md_metrics_file_tick(w->st);

	if (db < 0 || (metrics >= 0 && metrics < db))
		return metrics;
	return db;
}

void md_dbwriter_get_stats(const struct md_dbwriter *w, struct md_dbwriter_stats *out)
{
	*out = w->stats;
	out->down = !w->st;
}
