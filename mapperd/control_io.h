/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One control client's bounded buffers, without sockets' policy: the
 * request line being assembled, the reply bytes the client has not taken
 * yet, and the request budget of its user.  Pure except md_ctl_out_send,
 * so the host tests and the fuzzers drive them directly.
 */
#ifndef MAPPERD_CONTROL_IO_H
#define MAPPERD_CONTROL_IO_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest request line, newline included: the longest request is
 * "scan metadata " followed by a path, and a path may be PATH_MAX long. */
#define MD_CTL_LINE_MAX (PATH_MAX + 64)

/* A client's reply bytes not yet sent may not grow past this: a reply is
 * queued whole, and the largest one (status with every filesystem, about
 * 1 KiB each) stays far below it.  A reply that would cross it is an error. */
#define MD_CTL_OUT_HARD (8u << 20)

struct md_ctl_in {
	char buf[MD_CTL_LINE_MAX];
	size_t len;
};

/* Where the next recv() goes, and how much fits (0: a full line is waiting). */
char *md_ctl_in_tail(struct md_ctl_in *in);
size_t md_ctl_in_room(const struct md_ctl_in *in);
void md_ctl_in_added(struct md_ctl_in *in, size_t n);
/*
 * Move the first complete line (without "\n" or "\r\n", NUL-terminated)
 * into @line (@cap >= MD_CTL_LINE_MAX) and drop it from @in.  Returns 1,
 * 0 when no line is complete yet, -E2BIG when the buffer is full and holds
 * no newline, -EBADMSG for a line with a NUL byte in it.
 */
int md_ctl_in_take(struct md_ctl_in *in, char *line, size_t cap);
/* Is a complete line waiting? */
bool md_ctl_in_has_line(const struct md_ctl_in *in);

struct md_ctl_out {
	char *p;
	size_t off, len, cap;		/* bytes p[off..len) are waiting */
};

size_t md_ctl_out_pending(const struct md_ctl_out *out);
/* Queue @n bytes; -EMSGSIZE past MD_CTL_OUT_HARD, -ENOMEM.  Nothing is
 * queued on failure. */
int md_ctl_out_add(struct md_ctl_out *out, const char *data, size_t n);
/*
 * Send what the socket takes now, never waiting.  0 when everything went,
 * -EAGAIN when some is left for EPOLLOUT, another negative errno when the
 * peer is gone.  *@sent (may be NULL) gets the bytes sent by this call.
 */
int md_ctl_out_send(struct md_ctl_out *out, int fd, size_t *sent);
void md_ctl_out_free(struct md_ctl_out *out);

#endif
