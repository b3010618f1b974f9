// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The control socket as any local user reaches it: bytes arrive in pieces
 * of any size, are framed into lines within the per-client bound, and each
 * line goes to the request handler.  Only the public entry points
 * (control_io.h, control.h) are used, on a daemon with a real pipeline and
 * no filesystems.  The first input byte picks the peer: an ordinary user,
 * or root (whose scan and cancel requests then look for their target).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "control.h"
#include "control_io.h"
#include "daemon.h"
#include "log.h"
#include "pipeline.h"

/* Requests handled per input: bounded like the daemon's per-wakeup budget. */
#define MAX_LINES 64

static struct md_daemon d;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char dir[] = "/tmp/fuzz_control.XXXXXX";
	char db[128];

	(void)argc;
	(void)argv;
	log_set_level(LOG_CRIT);
	if (!mkdtemp(dir))
		abort();
	snprintf(db, sizeof(db), "%s/mapper.db", dir);
	config_defaults(&d.cfg);
	snprintf(d.db_path, sizeof(d.db_path), "%s", db);
	d.epfd = -1;
	if (md_pipeline_start(db, NULL, &d.pipe) != 0)
		abort();
	return 0;
}

/* The daemon's reload lives in its main.c, which is not linked here; the
 * harness never sends reload with privilege, and without it is refused. */
void md_reload(struct md_daemon *daemon)
{
	(void)daemon;
	abort();
}

static void handle(struct md_peer *peer, const char *line)
{
	struct md_buf out = { 0 };
	char cmd[16] = "";
	bool later = false;

	/* reload re-reads files and restarts event sources: not a parser */
	sscanf(line, " %15s", cmd);
	if (peer->uid == 0 && strcmp(cmd, "reload") == 0)
		return;
	md_control_handle(&d, peer, line, &out, NULL, &later);
	if (later)
		abort();	/* no filesystem, so no plan to work out */
	/* Every reply ends with its status line. */
	if (!out.failed && (out.len == 0 || out.p[out.len - 1] != '\n'))
		abort();
	md_buf_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct md_ctl_in *in = calloc(1, sizeof(*in));
	char *line = malloc(MD_CTL_LINE_MAX);
	struct md_peer peer = { .uid = 65534, .gid = 65534 };
	int lines = 0;

	if (!in || !line)
		abort();
	if (size && (data[0] & 1)) {
		peer.uid = 0;
		peer.gid = 0;
	}
	snprintf(peer.name, sizeof(peer.name), "fuzz");
	/* Pieces of 1..64 bytes, sizes taken from the input itself. */
	for (size_t pos = size ? 1 : 0; pos < size && lines < MAX_LINES;) {
		size_t want = (size_t)(data[pos] & 63) + 1, room = md_ctl_in_room(in);

		if (want > size - pos)
			want = size - pos;
		if (want > room)
			want = room;
		if (want) {
			memcpy(md_ctl_in_tail(in), data + pos, want);
			md_ctl_in_added(in, want);
			pos += want;
		}
		int rc;
		while (lines < MAX_LINES && (rc = md_ctl_in_take(in, line, MD_CTL_LINE_MAX)) != 0) {
			if (rc == 1) {
				if (strlen(line) >= MD_CTL_LINE_MAX)
					abort();
				handle(&peer, line);
				lines++;
			} else if (rc == -E2BIG || rc == -EBADMSG) {
				/* the daemon drops such a client: start over */
				memset(in, 0, sizeof(*in));
				lines++;
			} else {
				abort();
			}
		}
		if (!want && md_ctl_in_room(in) == 0)
			abort();	/* full, no line, and take() said nothing */
	}

	/* The reply queue: up to 8 replies of up to 4 KiB, sizes from the
	 * input (its 8 MiB bound is the unit test's: filling it here would
	 * make every run slow). */
	static char blob[1u << 12];
	struct md_ctl_out q = { 0 };

	for (size_t i = 0; i + 2 <= size && i < 16; i += 2) {
		size_t n = ((size_t)data[i] << 8 | data[i + 1]) & (sizeof(blob) - 1);
		size_t before = md_ctl_out_pending(&q);
		int rc = md_ctl_out_add(&q, blob, n);

		if (rc == 0 && md_ctl_out_pending(&q) != before + n)
			abort();
		if (rc != 0 && (rc != -EMSGSIZE || md_ctl_out_pending(&q) != before))
			abort();	/* nothing queued on failure */
		if (md_ctl_out_pending(&q) > MD_CTL_OUT_HARD)
			abort();
	}
	md_ctl_out_free(&q);
	free(line);
	free(in);
	return 0;
}
