/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A client of mapperd's control socket (control_client.c): connect, send
 * one request line, read the reply up to its final line ("ok", "ok: ...",
 * "error: ...").  What the reply means is the caller's.
 */
#ifndef MAP_CONTROL_CLIENT_H
#define MAP_CONTROL_CLIENT_H

#include <stddef.h>

struct map_control_reply {
	char *text;		/* every line before the last */
	size_t len;
	char *last;		/* the final line (points into text) */
};

/* Where a request failed. */
enum map_control_fail {
	MAP_CONTROL_WRITE,	/* writing the request */
	MAP_CONTROL_READ,	/* no memory for the reply */
	MAP_CONTROL_CLOSED,	/* the daemon closed the connection before the end */
};

/* A socket connected to @path, or a negative errno. */
int map_control_connect(const char *path);

/* Send @request (one line, no newline) on @fd and read the reply into @r
 * (free r->text in any case).  0, or -1 with where it failed in *@where and
 * the negative errno in *@err (0 when the daemon closed the connection
 * without an error). */
int map_control_ask(int fd, const char *request, struct map_control_reply *r,
		    enum map_control_fail *where, int *err);

/* The sum of every "open_findings" in a status JSON reply. */
long map_control_open_findings(const char *json);

#endif
