// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The control socket's pieces that need no daemon: request framing and
 * its limits, the reply queue over a socket that takes only part of it,
 * the per-user request budget, and privilege decided against the
 * configuration in force (a reload that drops control_group takes the
 * right away from a peer that connected before it).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "control.h"
#include "control_io.h"
#include "daemon.h"

static char line[MD_CTL_LINE_MAX];

static void feed(struct md_ctl_in *in, const char *s, size_t n)
{
	REQUIRE(n <= md_ctl_in_room(in), "feeding %zu bytes, room %zu", n, md_ctl_in_room(in));
	memcpy(md_ctl_in_tail(in), s, n);
	md_ctl_in_added(in, n);
}

static void test_framing(void)
{
	static struct md_ctl_in in;

	CHECK_INT(md_ctl_in_room(&in), MD_CTL_LINE_MAX);
	CHECK_INT(md_ctl_in_take(&in, line, sizeof(line)), 0);
	/* a line in two pieces, CRLF */
	feed(&in, "sta", 3);
	CHECK_INT(md_ctl_in_take(&in, line, sizeof(line)), 0);
	CHECK(!md_ctl_in_has_line(&in), "half a line counted as a line");
	feed(&in, "tus\r\n", 5);
	CHECK(md_ctl_in_has_line(&in), "a complete line not seen");
	CHECK_INT(md_ctl_in_take(&in, line, sizeof(line)), 1);
	CHECK_STR(line, "status");
	CHECK_INT(in.len, 0);
	/* several lines in one read, an empty one among them, a partial last */
	feed(&in, "help\n\nprogress json\nsca", strlen("help\n\nprogress json\nsca"));
	CHECK_INT(md_ctl_in_take(&in, line, sizeof(line)), 1);
	CHECK_STR(line, "help");
	CHECK_INT(md_ctl_in_take(&in, line, sizeof(line)), 1);
	CHECK_STR(line, "");
	CHECK_INT(md_ctl_in_take(&in, line, sizeof(line)), 1);
	CHECK_STR(line, "progress json");
	CHECK_INT(md_ctl_in_take(&in, line, sizeof(line)), 0);
	CHECK_INT(in.len, 3);
	in.len = 0;
	/* a NUL byte makes the line an error, the next line still counts */
	feed(&in, "status\0json\nhelp\n", 17);
	CHECK_INT(md_ctl_in_take(&in, line, sizeof(line)), -EBADMSG);
	CHECK_INT(md_ctl_in_take(&in, line, sizeof(line)), 1);
	CHECK_STR(line, "help");
	/* the longest line that fits, newline included */
	static char big[MD_CTL_LINE_MAX];
	memset(big, 'x', sizeof(big));
	big[sizeof(big) - 1] = '\n';
	feed(&in, big, sizeof(big));
	CHECK_INT(md_ctl_in_room(&in), 0);
	CHECK_INT(md_ctl_in_take(&in, line, sizeof(line)), 1);
	CHECK_INT(strlen(line), MD_CTL_LINE_MAX - 1);
	/* one byte longer: the buffer fills without a newline */
	feed(&in, big, sizeof(big) - 1);
	feed(&in, "x", 1);
	CHECK_INT(md_ctl_in_room(&in), 0);
	CHECK_INT(md_ctl_in_take(&in, line, sizeof(line)), -E2BIG);
	/* md_ctl_in_added never counts past the buffer */
	in.len = sizeof(in.buf) - 2;
	md_ctl_in_added(&in, 100);
	CHECK_INT(in.len, sizeof(in.buf));
}

/* Bytes 0, 1, 2, ... as a recognisable stream. */
static void pattern(char *p, size_t n, size_t from)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (char)((from + i) % 251);
}

static void test_out_queue(void)
{
	static char chunk[100000], got[1 << 20];
	struct md_ctl_out out = { 0 };
	int sv[2], small = 4096;
	size_t sent = 0, total = 0, rcvd = 0;

	REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0, "socketpair: %s",
		strerror(errno));
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	for (int i = 0; i < 5; i++) {
		pattern(chunk, sizeof(chunk), total);
		CHECK_INT(md_ctl_out_add(&out, chunk, sizeof(chunk)), 0);
		total += sizeof(chunk);
	}
	CHECK_INT(md_ctl_out_pending(&out), total);
	/* The socket takes part; the rest waits, and nothing blocks. */
	CHECK_INT(md_ctl_out_send(&out, sv[0], &sent), -EAGAIN);
	CHECK(sent > 0 && sent < total, "sent %zu of %zu", sent, total);
	CHECK_INT(md_ctl_out_pending(&out), total - sent);
	/* More is queued behind what waits; the order holds. */
	pattern(chunk, 1000, total);
	CHECK_INT(md_ctl_out_add(&out, chunk, 1000), 0);
	total += 1000;
	for (int rounds = 0; rounds < 10000 && rcvd < total; rounds++) {
		ssize_t n = recv(sv[1], got + rcvd, sizeof(got) - rcvd, MSG_DONTWAIT);

		if (n > 0)
			rcvd += (size_t)n;
		int rc = md_ctl_out_send(&out, sv[0], NULL);
		CHECK(rc == 0 || rc == -EAGAIN, "send: %s", strerror(-rc));
	}
	CHECK_INT(rcvd, total);
	CHECK_INT(md_ctl_out_pending(&out), 0);
	static char want[sizeof(got)];
	pattern(want, total, 0);
	CHECK(memcmp(got, want, total) == 0, "the reply bytes arrived changed or out of order");
	/* A big drained queue gives its memory back. */
	CHECK(out.p == NULL && out.cap == 0, "a drained 500 KB queue kept %zu bytes", out.cap);

	/* The hard cap: a reply that would cross it is refused whole. */
	static char huge[MD_CTL_OUT_HARD];
	CHECK_INT(md_ctl_out_add(&out, huge, 10), 0);
	CHECK_INT(md_ctl_out_add(&out, huge, MD_CTL_OUT_HARD - 9), -EMSGSIZE);
	CHECK_INT(md_ctl_out_pending(&out), 10);
	CHECK_INT(md_ctl_out_add(&out, huge, MD_CTL_OUT_HARD - 10), 0);
	CHECK_INT(md_ctl_out_pending(&out), MD_CTL_OUT_HARD);
	/* The peer has gone: an error, not EAGAIN. */
	close(sv[1]);
	int rc = md_ctl_out_send(&out, sv[0], NULL);
	CHECK(rc < 0 && rc != -EAGAIN, "send to a closed peer: %d", rc);
	md_ctl_out_free(&out);
	close(sv[0]);
}

static void test_privilege(void)
{
	static struct md_daemon d;
	struct md_peer root = { .uid = 0, .gid = 0 };
	struct md_peer alice = { .uid = 1000, .gid = 1000, .groups = { 1000, 100 }, .ngroups = 2 };
	struct md_peer bob = { .uid = 1001, .gid = 100 };
	struct md_peer eve = { .uid = 1002, .gid = 1002 };

	CHECK(md_peer_privileged(&d, &root), "root refused");
	CHECK(!md_peer_privileged(&d, &alice), "no control_group, yet alice may");
	snprintf(d.cfg.control_group, sizeof(d.cfg.control_group), "users");
	d.cfg.control_gid = 100;
	CHECK(md_peer_privileged(&d, &alice), "alice (supplementary group users) refused");
	CHECK(md_peer_privileged(&d, &bob), "bob (primary group users) refused");
	CHECK(!md_peer_privileged(&d, &eve), "eve is not in users, yet may");
	/* The same peers after a reload that removes control_group. */
	d.cfg.control_group[0] = '\0';
	CHECK(!md_peer_privileged(&d, &alice), "alice keeps the right after control_group went");
	CHECK(!md_peer_privileged(&d, &bob), "bob keeps the right after control_group went");
	CHECK(md_peer_privileged(&d, &root), "root refused");
	CHECK_STR(md_peer_name(&root), "root");
	struct md_peer ghost = { .uid = 4000000000u };
	CHECK_STR(md_peer_name(&ghost), "uid 4000000000");
}

/* A control client's path picks its filesystem by name alone. */
static void test_fs_by_path(void)
{
	static struct md_daemon d;
	static struct md_fs root, srv, data;

	snprintf(root.mountpoint, sizeof(root.mountpoint), "/");
	snprintf(srv.mountpoint, sizeof(srv.mountpoint), "/srv");
	snprintf(data.mountpoint, sizeof(data.mountpoint), "/srv/data");
	d.fs_list = &srv;
	srv.next = &data;
	CHECK(md_fs_by_path(&d, "/srv") == &srv, "the mount point itself");
	CHECK(md_fs_by_path(&d, "/srv/a/b") == &srv, "a path below it");
	CHECK(md_fs_by_path(&d, "/srv/data/x") == &data, "the longest match wins");
	CHECK(md_fs_by_path(&d, "/srv/database") == &srv, "/srv/database is not under /srv/data");
	CHECK(md_fs_by_path(&d, "/srvx") == NULL, "/srvx is not under /srv");
	CHECK(md_fs_by_path(&d, "srv") == NULL, "a relative path names nothing");
	data.next = &root;
	CHECK(md_fs_by_path(&d, "/etc/passwd") == &root, "everything is under /");
	CHECK(md_fs_by_path(&d, "/srv/data") == &data, "the deeper mount point");
}

int main(void)
{
	test_fs_by_path();
	test_framing();
	test_out_queue();
	test_privilege();
	return check_done();
}
