// SPDX-License-Identifier: GPL-2.0-or-later
/* READY=1, STATUS= and STOPPING=1 for systemd (Type=notify). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>

#include "daemon.h"
#include "log.h"
#include "scheduler.h"
#include "sdnotify.h"

/* systemd keeps only the latest STATUS and people read it: a second
 * between two is fresh enough, and a burst of reports costs one message
 * (and one look at the filesystems, not one per event of the loop). */
#define STATUS_MIN_MS 1000
/* A scan's progress moves without any event waking the loop: look again
 * this often while one runs. */
#define SCAN_REFRESH_MS 5000
/* STATUS= is one line of "systemctl status"; a mount point longer than
 * this is cut (escaped, it is at most four times its bytes). */
#define STATUS_MAX 512

static bool enabled;
static char sent[STATUS_MAX];	/* the last STATUS sent */
static int64_t looked_at;	/* mono_ms() of the last build_status */
static bool scanning;		/* the status shows a running scan */

static int64_t mono_ms(void)
{
	return (int64_t)(md_mono() * 1000);
}

/*
 * "scanning /srv (media 42%); watching 3 XFS filesystems", or without the
 * scan.  The mount point is escaped: the protocol is one assignment per
 * line, and a newline in a mount point (any user may mount under their own
 * directories with FUSE or in a user namespace; a name is what they chose)
 * must not add one, such as MAINPID=.
 */
static void build_status(struct md_daemon *d, char *out, size_t len)
{
	char scan[STATUS_MAX / 2] = "";
	int nfs = 0;

	scanning = false;
	for (struct md_fs *fs = d->fs_list; fs; fs = fs->next) {
		struct md_scan_state s;

		nfs++;
		if (scanning)
			continue;
		md_sched_state(d, fs, &s);
		if (!s.running)
			continue;
		char *mnt = map_escape_text(fs->mountpoint);
		unsigned pct = s.total ? (unsigned)(s.done * 100 / s.total) : 0;

		snprintf(scan, sizeof(scan), "scanning %.160s (%s %u%%); ", mnt ? mnt : "?",
			 s.phase[0] ? s.phase : "starting", pct > 100 ? 100 : pct);
		free(mnt);
		scanning = true;
	}
	snprintf(out, len, "%swatching %d XFS filesystem%s%s", scan, nfs, nfs == 1 ? "" : "s",
		 d->st ? "" : "; database closed");
}

static void send_status(const char *status)
{
	char msg[STATUS_MAX + 16];

	snprintf(msg, sizeof(msg), "STATUS=%s", status);
	sd_notify(0, msg);
	snprintf(sent, sizeof(sent), "%s", status);
}

void md_sdnotify_ready(struct md_daemon *d)
{
	char status[STATUS_MAX], msg[STATUS_MAX + 32];
	int rc;

	enabled = getenv("NOTIFY_SOCKET") != NULL;
	if (!enabled)
		return;
	build_status(d, status, sizeof(status));
	snprintf(msg, sizeof(msg), "READY=1\nSTATUS=%s", status);
	rc = sd_notify(0, msg);
	if (rc < 0)
		log_warn("cannot tell systemd the service is ready: %s", map_strerror(rc));
	snprintf(sent, sizeof(sent), "%s", status);
	looked_at = mono_ms();
}

int md_sdnotify_tick(struct md_daemon *d)
{
	char status[STATUS_MAX];
	int64_t wait;

	if (!enabled)
		return -1;
	/* Looked a moment ago: look again when the second is over, so that
	 * what changed meanwhile is sent then. */
	wait = looked_at + STATUS_MIN_MS - mono_ms();
	if (wait > 0)
		return (int)wait;
	build_status(d, status, sizeof(status));
	looked_at = mono_ms();
	if (strcmp(status, sent) != 0)
		send_status(status);
	return scanning ? SCAN_REFRESH_MS : -1;
}

void md_sdnotify_stopping(void)
{
	if (enabled)
		sd_notify(0, "STOPPING=1\nSTATUS=stopping");
}
