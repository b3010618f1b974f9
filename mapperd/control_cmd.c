// SPDX-License-Identifier: GPL-2.0-or-later
/* The control socket's requests: status, progress, scan, cancel, reload,
 * repair-plan.
 * The JSON replies are mapctl daemon's, documented in mapper-json(7). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "control.h"
#include "daemon.h"
#include "log.h"
#include "map_act.h"
#include "pipeline.h"
#include "plan_look.h"
#include "scheduler.h"

#ifndef MAPPER_VERSION
#define MAPPER_VERSION "0"
#endif

static const char help_text[] =
	"status [json]                      the daemon, its event counters, every filesystem\n"
	"progress [json]                    running and queued scans\n"
	"scan full|metadata|media TARGET    queue a scan of the filesystem holding TARGET\n"
	"                                   (a path or a filesystem UUID)\n"
	"cancel TARGET                      stop its scan at the next checkpoint\n"
	"repair-plan TARGET                 what mapctl repair would do there (JSON)\n"
	"reload                             read the configuration file again\n";

/* "in 6d 23h", "in 42 s", "now", "off" */
static const char *when(int64_t at_ms, char *buf, size_t len)
{
	int64_t now = md_now_ms(), s;

	if (!at_ms) {
		snprintf(buf, len, "off");
		return buf;
	}
	s = (at_ms - now) / 1000;
	if (s <= 0)
		snprintf(buf, len, "now");
	else if (s < 120)
		snprintf(buf, len, "in %" PRId64 " s", s);
	else if (s < 7200)
		snprintf(buf, len, "in %" PRId64 " min", s / 60);
	else if (s < 2 * 86400)
		snprintf(buf, len, "in %" PRId64 "h %" PRId64 "m", s / 3600, s / 60 % 60);
	else
		snprintf(buf, len, "in %" PRId64 "d %" PRId64 "h", s / 86400, s / 3600 % 24);
	return buf;
}

static int open_findings(struct md_daemon *d, const struct md_fs *fs)
{
	int counts[MAP_STATE_NR];

	if (!d->st || !fs->fs_id || map_store_count(d->st, fs->fs_id, counts) != 0)
		return 0;
	return map_counts_open(counts);
}

static const char *scan_kind(bool metadata, bool media)
{
	return metadata && media ? "full" : metadata ? "metadata" : "media";
}

/* Unix seconds of a time kept in ms, or null for none (0). */
static void json_ms_time(struct map_json *j, const char *key, int64_t ms)
{
	if (ms > 0)
		map_json_int(j, key, ms / 1000);
	else
		map_json_null(j, key);
}

static void scan_json(struct map_json *j, const struct md_scan_state *s)
{
	bool busy = s->running || s->queued;

	map_json_obj(j, "scan");
	map_json_bool(j, "running", s->running);
	map_json_bool(j, "queued", s->queued);
	map_json_str_or_null(j, "kind", busy ? scan_kind(s->metadata, s->media) : NULL);
	map_json_str_or_null(j, "phase", s->phase);
	map_json_uint(j, "done", s->done);
	map_json_uint(j, "total", s->total);
	map_json_str_or_null(j, "unit", !s->phase[0] ? NULL :
			     strcmp(s->phase, "media") == 0 ? "bytes" : "objects");
	map_json_uint(j, "bad_ranges", s->bad_ranges);
	map_json_double(j, "elapsed_seconds", s->elapsed);
	map_json_str_or_null(j, "user", s->user);
	map_json_str_or_null(j, "reason", s->reason);
	json_ms_time(j, "queue_time", s->queued_at);
	map_json_end_obj(j);
}

static void scan_text(struct md_buf *out, const struct md_scan_state *s)
{
	char b[32];

	if (s->running) {
		double pct = s->total ? 100.0 * (double)s->done / (double)s->total : 0;

		md_buf_printf(out, "  scan: %s scan running, %s phase %.0f%% (%" PRIu64 " of %" PRIu64
			      "%s), %" PRIu64 " bad so far, %.0f s; %s, by %s\n",
			      scan_kind(s->metadata, s->media), s->phase, pct, s->done, s->total,
			      strcmp(s->phase, "media") == 0 ? " bytes" : " objects", s->bad_ranges,
			      s->elapsed, s->reason, s->user);
	}
	if (s->queued)
		md_buf_printf(out, "  scan: %s scan queued, starts %s (%s, by %s)\n",
			      scan_kind(s->metadata, s->media), when(s->queued_at, b, sizeof(b)),
			      s->reason, s->user);
	if (!s->running && !s->queued)
		md_buf_printf(out, "  scan: idle\n");
}

/* The event counters and every filesystem, for mapctl daemon status --json. */
static void status_json(struct md_daemon *d, const struct md_pipeline_stats *ps,
			const struct md_control_stats *cs, struct md_buf *out)
{
	struct map_json j;

	md_json_start(&j, out);
	map_json_obj(&j, NULL);
	map_json_output_version(&j, "mapctl daemon status");
	map_json_str(&j, "daemon_version", MAPPER_VERSION);
	map_json_int(&j, "pid", getpid());
	map_json_int(&j, "uptime_seconds", (md_now_ms() - d->started) / 1000);
	map_json_str_or_null(&j, "database", d->db_path);
	map_json_str_or_null(&j, "config", d->cfg.path);
	map_json_bool(&j, "kmsg", d->kmsg != NULL);
	map_json_obj(&j, "events");
	map_json_uint(&j, "received", ps->received);
	map_json_uint(&j, "merged", ps->merged);
	map_json_uint(&j, "duplicates", ps->duplicates);
	map_json_uint(&j, "dropped", ps->dropped);
	map_json_uint(&j, "processed", ps->processed);
	map_json_uint(&j, "failed", ps->failed);
	map_json_uint(&j, "queued", ps->queued);
	map_json_uint(&j, "findings", ps->findings);
	map_json_uint(&j, "new_findings", ps->new_findings);
	map_json_uint(&j, "scans_requested", ps->scans_requested);
	map_json_uint(&j, "rate_limited", ps->rate_limited);
	map_json_uint(&j, "reads_limited", ps->reads_limited);
	map_json_uint(&j, "scans_limited", ps->scans_limited);
	map_json_uint(&j, "spooled", ps->spooled);
	map_json_uint(&j, "spool_dropped", ps->spool_dropped);
	map_json_uint(&j, "replayed", ps->replayed);
	map_json_uint(&j, "spool_pending", ps->spool_pending);
	map_json_bool(&j, "database_down", ps->db_down || !d->st);
	map_json_double(&j, "last_latency_seconds", ps->last_latency);
	map_json_double(&j, "max_latency_seconds", ps->max_latency);
	map_json_uint(&j, "fs_reopens", ps->fs_reopens);
	map_json_uint(&j, "fs_full_opens", ps->fs_full_opens);
	map_json_end_obj(&j);
	map_json_obj(&j, "directory_index");
	map_json_uint(&j, "ready", ps->dirindex.ready);
	map_json_uint(&j, "building", ps->dirindex.building);
	map_json_uint(&j, "unneeded", ps->dirindex.unneeded);
	map_json_uint(&j, "directories", ps->dirindex.dirs);
	map_json_uint(&j, "events_applied", ps->dirindex.events);
	map_json_uint(&j, "uses", ps->dirindex.uses);
	map_json_uint(&j, "retries", ps->dirindex.retries);
	map_json_uint(&j, "resets", ps->dirindex.resets);
	map_json_end_obj(&j);
	map_json_obj(&j, "control");
	map_json_int(&j, "clients", cs->clients);
	map_json_uint(&j, "refused", cs->refused);
	map_json_uint(&j, "cut_off", cs->cut_off);
	map_json_uint(&j, "timed_out", cs->timed_out);
	map_json_end_obj(&j);
	map_json_arr(&j, "filesystems");
	for (struct md_fs *fs = d->fs_list; fs; fs = fs->next) {
		struct md_scan_state s;

		md_sched_state(d, fs, &s);
		map_json_obj(&j, NULL);
		map_json_str(&j, "fs_uuid", fs->uuid);
		map_json_str(&j, "mountpoint", fs->mountpoint);
		map_json_str_or_null(&j, "device", fs->device);
		map_json_str_or_null(&j, "devname", fs->bdev.name);
		map_json_bool(&j, "fanotify", fs->fan.fd >= 0);
		map_json_str(&j, "health_monitor", fs->hmon_state);
		map_json_str_or_null(&j, "autofsck", fs->autofsck[0] ? fs->autofsck : NULL);
		map_json_bool(&j, "shut_down", fs->shut_down);
		map_json_int(&j, "open_findings", open_findings(d, fs));
		json_ms_time(&j, "next_metadata_time", fs->next_metadata);
		json_ms_time(&j, "next_media_time", fs->next_media);
		scan_json(&j, &s);
		map_json_end_obj(&j);
	}
	map_json_end_arr(&j);
	map_json_end_obj(&j);
	md_buf_printf(out, "\nok\n");
}

static void status_text(struct md_daemon *d, const struct md_pipeline_stats *ps,
			const struct md_control_stats *cs, struct md_buf *out)
{
	int nfan = 0, nhm = 0, nfs = 0;
	char a[32], b[32];

	for (struct md_fs *fs = d->fs_list; fs; fs = fs->next) {
		nfs++;
		nfan += fs->fan.fd >= 0;
		nhm += fs->hmon.fd >= 0;
	}
	md_buf_printf(out, "mapperd %s (pid %d), up %" PRId64 " s; database %s\n", MAPPER_VERSION,
		      (int)getpid(), (md_now_ms() - d->started) / 1000, d->db_path);
	md_buf_printf(out, "event sources: health monitor on %d, fanotify on %d of %d filesystems, "
		      "kernel log %s\n", nhm, nfan, nfs, d->kmsg ? "on" : "off");
	md_buf_printf(out, "events: %" PRIu64 " received (%" PRIu64 " merged), %" PRIu64
		      " duplicates dropped, %" PRIu64 " processed, %" PRIu64 " failed, %zu queued; %"
		      PRIu64 " findings (%" PRIu64 " new); latency last %.3f s, max %.3f s\n",
		      ps->received, ps->merged, ps->duplicates, ps->processed, ps->failed, ps->queued,
		      ps->findings, ps->new_findings, ps->last_latency, ps->max_latency);
	if (ps->dropped || ps->rate_limited || ps->reads_limited || ps->scans_limited)
		md_buf_printf(out, "limits: %" PRIu64 " reports dropped (queue full), %" PRIu64
			      " not taken (over a source's rate), %" PRIu64 " file reports read only "
			      "event_read_limit bytes, %" PRIu64 " scans not requested "
			      "(event_scan_interval)\n", ps->dropped, ps->rate_limited,
			      ps->reads_limited, ps->scans_limited);
	if (ps->db_down || !d->st || ps->spooled || ps->spool_pending)
		md_buf_printf(out, "database: %s; %zu reports wait in the spool (%" PRIu64 " kept so "
			      "far, %" PRIu64 " written since, %" PRIu64 " lost: spool full)\n",
			      ps->db_down || !d->st ? "cannot be written now" : "writable",
			      ps->spool_pending, ps->spooled, ps->replayed, ps->spool_dropped);
	md_buf_printf(out, "control socket: %d connected; %" PRIu64 " connections refused (limits), %"
		      PRIu64 " clients cut off (request rate), %" PRIu64 " timed out\n", cs->clients,
		      cs->refused, cs->cut_off, cs->timed_out);
	if (!d->fs_list)
		md_buf_printf(out, "no XFS filesystem is watched\n");
	for (struct md_fs *fs = d->fs_list; fs; fs = fs->next) {
		struct md_scan_state s;
		char *mnt = map_escape_text(fs->mountpoint);

		md_sched_state(d, fs, &s);
		md_buf_printf(out, "%s  uuid %s  device %s (%s)%s\n", mnt ? mnt : "?", fs->uuid,
			      fs->device, fs->bdev.name, fs->shut_down ? "  SHUT DOWN" : "");
		md_buf_printf(out, "  health monitor: %s; fanotify: %s; autofsck: %s; open findings: "
			      "%d\n", fs->hmon_state, fs->fan.fd >= 0 ? "on" : "off",
			      fs->autofsck[0] ? fs->autofsck : "not set", open_findings(d, fs));
		scan_text(out, &s);
		md_buf_printf(out, "  next metadata scan %s, next media scan %s\n",
			      when(fs->next_metadata, a, sizeof(a)), when(fs->next_media, b, sizeof(b)));
		free(mnt);
	}
	md_buf_printf(out, "ok\n");
}

static void do_status(struct md_daemon *d, bool json, struct md_buf *out)
{
	struct md_pipeline_stats ps;
	struct md_control_stats cs;

	md_pipeline_get_stats(d->pipe, &ps);
	md_control_stats(d, &cs);
	if (json)
		status_json(d, &ps, &cs, out);
	else
		status_text(d, &ps, &cs, out);
}

static void do_progress(struct md_daemon *d, bool json, struct md_buf *out)
{
	struct map_json j;
	int n = 0;

	if (json) {
		md_json_start(&j, out);
		map_json_obj(&j, NULL);
		map_json_output_version(&j, "mapctl daemon progress");
		map_json_arr(&j, "scans");
	}
	for (struct md_fs *fs = d->fs_list; fs; fs = fs->next) {
		struct md_scan_state s;

		md_sched_state(d, fs, &s);
		if (!s.running && !s.queued)
			continue;
		n++;
		if (json) {
			map_json_obj(&j, NULL);
			map_json_str(&j, "fs_uuid", fs->uuid);
			map_json_str(&j, "mountpoint", fs->mountpoint);
			scan_json(&j, &s);
			map_json_end_obj(&j);
		} else {
			char *mnt = map_escape_text(fs->mountpoint);

			md_buf_printf(out, "%s  uuid %s\n", mnt ? mnt : "?", fs->uuid);
			scan_text(out, &s);
			free(mnt);
		}
	}
	if (json) {
		map_json_end_arr(&j);
		map_json_end_obj(&j);
		md_buf_printf(out, "\n");
	} else if (n == 0) {
		md_buf_printf(out, "no scan is running or queued\n");
	}
	md_buf_printf(out, "ok\n");
}

/* The watched filesystem named by a UUID or holding a path. */
static struct md_fs *target(struct md_daemon *d, const char *t, struct md_buf *out)
{
	struct md_fs *fs = NULL;

	if (!*t) {
		md_buf_printf(out, "error: which filesystem? (a path or a UUID)\n");
		return NULL;
	}
	if (t[0] == '/')
		fs = md_fs_by_path(d, t);
	else
		fs = md_fs_by_uuid(d, t);
	if (!fs) {
		char *e = map_escape_text(t);

		md_buf_printf(out, "error: %s is not on a filesystem mapperd watches\n", e ? e : "?");
		free(e);
	}
	return fs;
}

/*
 * repair-plan: what mapctl repair --dry-run --json would say for @fs, the
 * same planner and document, nothing changed.  What it needs from the
 * filesystem itself (a fresh open of the mount, checked to be still @fs,
 * and the probe of online repair) can wait as long as a frozen, suspended
 * or failing device does, so it is found off the loop (plan_look.h) and
 * the reply comes from md_control_plan_reply().
 */
static void start_repair_plan(struct md_daemon *d, const struct md_fs *fs, struct md_buf *out,
			      void *owner, bool *later)
{
	struct md_plan_looks *looks = md_control_looks(d);
	int rc;

	if (!d->st || !fs->fs_id) {
		md_buf_printf(out, "error: the database cannot be read now\n");
		return;
	}
	rc = looks ? md_plan_look_start(looks, fs->uuid, fs->mountpoint, owner) : -ENOTCONN;
	if (rc == 0)
		*later = true;
	else if (rc == -EBUSY)
		md_buf_printf(out, "error: no repair plan: an earlier look at this filesystem has "
			      "not returned yet (frozen, or its device suspended or failing?); ask "
			      "again later\n");
	else if (rc == -EAGAIN)
		md_buf_printf(out, "error: no repair plan: too many filesystems do not answer; ask "
			      "again later\n");
	else
		md_buf_printf(out, "error: no repair plan: %s\n", map_strerror(rc));
}

/* The plan from the main thread's store connection and what the look found. */
void md_control_plan_reply(struct md_daemon *d, const struct md_plan_answer *a,
			   struct md_buf *out)
{
	struct md_fs *fs = md_fs_by_uuid(d, a->uuid);
	struct repair_plan plan = { 0 };
	bool only_is_data;
	int rc = a->rc;

	if (!fs || strcmp(fs->mountpoint, a->mountpoint) != 0)
		rc = -MAP_EUNMOUNTED;	/* gone while we looked */
	else if (!d->st || !fs->fs_id) {
		md_buf_printf(out, "error: the database cannot be read now\n");
		return;
	}
	if (rc == 0)
		rc = repair_plan_collect(d->st, fs->fs_id, 0, a->caps, &plan, &only_is_data);
	if (rc == 0) {
		struct map_json j;

		md_json_start(&j, out);
		map_json_obj(&j, NULL);
		map_json_output_version(&j, "mapctl daemon repair-plan");
		repair_plan_json(&j, &plan, a->caps, fs->uuid, fs->mountpoint, true);
		map_json_end_obj(&j);
		md_buf_printf(out, "\nok\n");
	} else if (rc == -ETIMEDOUT) {
		md_buf_printf(out, "error: no repair plan: the filesystem has not answered for %d "
			      "s (frozen, or its device suspended or failing?); ask again later\n",
			      PLAN_WAIT_S);
	} else {
		md_buf_printf(out, "error: no repair plan: %s\n", map_strerror(rc));
	}
	repair_plan_free(&plan);
}

/* "ok: MSG" or "error: MSG" on one line.  MSG names a mount point, and a
 * mount point's name can come from a filesystem label (udisks mounts at
 * /media/USER/LABEL): a newline in it must not forge reply lines. */
static void reply_line(struct md_buf *out, int rc, const char *msg)
{
	char *e = map_escape_text(msg);

	md_buf_printf(out, "%s: %s\n", rc ? "error" : "ok", e ? e : "?");
	free(e);
}
static bool need_privilege(struct md_daemon *d, struct md_peer *peer, const char *what,
			   struct md_buf *out)
{
	if (md_peer_privileged(d, peer))
		return true;
	if (!peer->refusal_logged)	/* once per connection: no log flood */
		log_notice("control: %s refused for %s (pid %d): not root or in control_group", what,
			   md_peer_name(peer), (int)peer->pid);
	peer->refusal_logged = true;
	md_buf_printf(out, "error: permission denied: %s needs root or the control group\n", what);
	return false;
}

void md_control_handle(struct md_daemon *d, struct md_peer *peer, const char *line,
		       struct md_buf *out, void *owner, bool *later)
{
	char cmd[16] = "", arg[16] = "";
	const char *rest;
	char msg[512];
	int n = 0;

	while (*line == ' ')
		line++;
	sscanf(line, "%15s %n", cmd, &n);
	rest = line + n;
	if (!strcmp(cmd, "status") || !strcmp(cmd, "progress")) {
		bool json = !strcmp(rest, "json");

		if (*rest && !json) {
			md_buf_printf(out, "error: %s takes no argument but 'json'\n", cmd);
			return;
		}
		if (!strcmp(cmd, "status"))
			do_status(d, json, out);
		else
			do_progress(d, json, out);
	} else if (!strcmp(cmd, "scan")) {
		bool metadata, media;

		n = 0;
		sscanf(rest, "%15s %n", arg, &n);
		metadata = !strcmp(arg, "metadata") || !strcmp(arg, "full");
		media = !strcmp(arg, "media") || !strcmp(arg, "full");
		if (!metadata && !media) {
			md_buf_printf(out, "error: scan wants full, metadata or media, then a path or "
				      "UUID\n");
			return;
		}
		if (!need_privilege(d, peer, "starting a scan", out))
			return;
		struct md_fs *fs = target(d, rest + n, out);
		if (!fs)
			return;
		char reason[96];
		snprintf(reason, sizeof(reason), "requested through the control socket");
		int rc = md_sched_request(d, fs, metadata, media, md_peer_name(peer), reason, msg,
					  sizeof(msg));
		reply_line(out, rc, msg);
		if (rc == 0)
			md_sched_tick(d);
	} else if (!strcmp(cmd, "cancel")) {
		if (!need_privilege(d, peer, "cancelling a scan", out))
			return;
		struct md_fs *fs = target(d, rest, out);
		if (!fs)
			return;
		int rc = md_sched_cancel(d, fs, msg, sizeof(msg));
		reply_line(out, rc, msg);
	} else if (!strcmp(cmd, "reload")) {
		if (!need_privilege(d, peer, "reloading the configuration", out))
			return;
		md_reload(d);
		md_buf_printf(out, "ok: configuration %s read again\n",
			      d->cfg.path[0] ? d->cfg.path : "(defaults)");
	} else if (!strcmp(cmd, "repair-plan")) {
		/* Read-only, but the plan names damaged files, which the
		 * database (mode 0640) shows only to root and its group. */
		if (!need_privilege(d, peer, "a repair plan", out))
			return;
		struct md_fs *fs = target(d, rest, out);
		if (fs)
			start_repair_plan(d, fs, out, owner, later);
	} else if (!strcmp(cmd, "help")) {
		md_buf_printf(out, "%sok\n", help_text);
	} else {
		md_buf_printf(out, "error: unknown request '%s' (try 'help')\n", cmd);
	}
}
