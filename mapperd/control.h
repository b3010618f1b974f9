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
 *   repair-plan TARGET            what mapctl repair would do there (JSON)
 *   help
 *
 * Anyone may ask for status and progress.  The others need
 * root or membership of control_group, decided for every request (see
 * md_peer_privileged).
 *
 * No client can hold up the daemon's one loop: sockets are non-blocking,
 * replies wait in a per-client queue sent on EPOLLOUT, and each client's
 * input, output, requests per wakeup, request rate, idle time and
 * connections per user are bounded (the limits are in control.c); what
 * repair-plan needs from the filesystem itself is found in a thread
 * (plan_look.h) and its reply queued when it comes.
 */
#ifndef MAPPERD_CONTROL_H
#define MAPPERD_CONTROL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "textbuf.h"

struct md_daemon;

int md_control_start(struct md_daemon *d, const char *path);
void md_control_stop(struct md_daemon *d);

/* For status: connections now, and those refused or cut off so far. */
struct md_control_stats {
	int clients;
	uint64_t refused;		/* over a connection limit */
	uint64_t cut_off;		/* over the request rate */
	uint64_t timed_out;		/* idle or not reading */
};
void md_control_stats(const struct md_daemon *d, struct md_control_stats *s);

/* Who is asking: the credentials the kernel recorded at connect(). */
struct md_peer {
	pid_t pid;
	uid_t uid;
	gid_t gid;
	gid_t groups[64];
	int ngroups;
	char name[64];			/* "root", "alice (uid 1000)"; "" until asked */
	bool refusal_logged;		/* a refused request was logged already */
};

/* Fill @peer from a connected socket (SO_PEERCRED, SO_PEERGROUPS). */
void md_peer_identify(int fd, struct md_peer *peer);
/* May @peer start and cancel scans and reload, under today's configuration? */
bool md_peer_privileged(const struct md_daemon *d, const struct md_peer *peer);
/* The peer's name for logs and scan records (looked up on first use). */
const char *md_peer_name(struct md_peer *peer);

/*
 * Handle one request line; the reply (with its final line) goes to @out,
 * or *@later is set: the reply is worked out off the loop for @owner (the
 * connection), and md_control_plan_reply() writes it when it is done.
 */
void md_control_handle(struct md_daemon *d, struct md_peer *peer, const char *line,
		       struct md_buf *out, void *owner, bool *later);

struct md_plan_answer;
struct md_plan_looks;
/* The repair-plan looks of the socket's clients, or NULL (no socket). */
struct md_plan_looks *md_control_looks(struct md_daemon *d);
/* The reply to repair-plan once its look at the filesystem is done. */
void md_control_plan_reply(struct md_daemon *d, const struct md_plan_answer *a,
			   struct md_buf *out);

#endif
