/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The control socket (default /run/mapper/mapperd.sock): one request per
 * line, reply lines ending with a line "ok[: text]" or "error: text".
 *
 *   status [json]                 daemon, event counters, every filesystem
 *   progress [json]               the running and queued scans
 *   scan full|metadata|media TARGET   queue a scan (TARGET: path or UUID)
 *   cancel TARGET                 stop a scan at its checkpoint, drop queued
 *   reload                        re-read the configuration (like SIGHUP)
 *   help
 *
 * Anyone may ask for status and progress.  scan, cancel and reload need
 * root or membership of control_group (checked with SO_PEERCRED and
 * SO_PEERGROUPS).
 */
#ifndef MAPPERD_CONTROL_H
#define MAPPERD_CONTROL_H

#include <stdbool.h>
#include <sys/types.h>

#include "textbuf.h"

struct md_daemon;

int md_control_start(struct md_daemon *d, const char *path);
void md_control_stop(struct md_daemon *d);

/* Who is asking. */
struct md_peer {
	pid_t pid;
	uid_t uid;
	gid_t gid;
	gid_t groups[64];
	int ngroups;
	bool privileged;		/* root or in control_group */
	char name[64];			/* "root", "alice (uid 1000)" */
};

/* Handle one request line; the reply (with its final line) goes to @out. */
void md_control_handle(struct md_daemon *d, const struct md_peer *peer, const char *line,
		       struct md_buf *out);

#endif
