/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * systemd's readiness protocol (sd_notify, Type=notify): READY=1 once the
 * database is open and the mounted filesystems are watched, STATUS= with
 * what the daemon does (what "systemctl status" shows), STOPPING=1 at
 * shutdown.  Does nothing when NOTIFY_SOCKET is not set.  Main thread only.
 */
#ifndef MAPPERD_SDNOTIFY_H
#define MAPPERD_SDNOTIFY_H

struct md_daemon;

void md_sdnotify_ready(struct md_daemon *d);
/* Send the status when it changed (at most once a second); milliseconds
 * until it should be looked at again, or -1 when only events change it. */
int md_sdnotify_tick(struct md_daemon *d);
void md_sdnotify_stopping(void);

#endif
