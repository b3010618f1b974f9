/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Notification hooks ("Tell people"): when findings are stored, a scan ends
 * with findings open, a filesystem shuts down or error reports are lost,
 * mapperd runs the executables of notify_directory, like zed's zedlets or
 * smartd's -M exec.  Any thread posts; the main thread runs the hooks
 * (notify_run.c) without ever waiting for one.
 */
#ifndef MAPPERD_NOTIFY_H
#define MAPPERD_NOTIFY_H

#include <stdbool.h>

#include "map.h"

struct md_daemon;
struct md_notification;

enum md_notify_event {
	MD_NOTIFY_DAMAGE,		/* new findings stored (event or scan) */
	MD_NOTIFY_SCAN_DONE,		/* a scan completed, findings remain open */
	MD_NOTIFY_SHUTDOWN,		/* the filesystem shut down */
	MD_NOTIFY_REPORTS_LOST,		/* error reports lost (kernel or our queue) */
};

const char *md_notify_event_name(enum md_notify_event ev);

/*
 * Post a notification (any thread; never blocks on a hook).  @open_findings
 * < 0: the main thread counts them from the store when the hooks start.
 */
void md_notify_post(enum md_notify_event ev, const char *uuid, const char *mountpoint,
		    int new_findings, int open_findings);

/*
 * A batch: the new findings of one write or one scan, posted as one "damage"
 * notification whose findings JSON lists them.  md_notify_batch_new starts
 * one for a caller that hands it every finding itself (a scan: its media
 * readers store findings on threads of their own; the caller serializes the
 * adds); md_notify_batch_post posts it when @nnew > 0 and frees it.
 */
struct md_notification *md_notify_batch_new(const char *uuid, const char *mountpoint);
void md_notify_batch_add(struct md_notification *b, const struct map_finding *f, bool is_new);
void md_notify_batch_post(struct md_notification *b, const char *uuid, const char *mountpoint,
			  int nnew, int open_findings);

/*
 * The same bound to the calling thread, for a write that stores its findings
 * on that thread (findlog.c hands each to md_notify_note_finding, a no-op
 * outside a batch).  @uuid, @mountpoint: the filesystem of the findings.
 */
void md_notify_batch_begin(const char *uuid, const char *mountpoint);
void md_notify_note_finding(const struct map_finding *f, bool is_new);
void md_notify_batch_end(const char *uuid, const char *mountpoint, int nnew, int open_findings);

/* Main thread: start and stop the runner (stop kills running hooks). */
int md_notify_start(struct md_daemon *d);
void md_notify_stop(struct md_daemon *d);

#endif
