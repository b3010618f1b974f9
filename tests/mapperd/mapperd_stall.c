// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * No local user can stall mapperd through its control socket:
 *  1. privilege is decided per request: a connection of nobody in the
 *     control group may cancel; after a reload that drops control_group
 *     the same connection is refused;
 *  2. while four clients (uids 4201-4204) have asked for 60 big status
 *     replies each and read none of them, one client (uid 4300) floods
 *     requests, and nobody tries to hold 100 idle connections:
 *     - nobody holds at most 8 connections (the per-user limit);
 *     - a read that fails with EIO still becomes a finding within 10 s;
 *     - root's 'mapctl daemon status' answers within 5 s more than it
 *       took before, and root's request on a socket within 3 s;
 *     - the flooder is cut off ("too many requests") within 10 s;
 *     - the clients that do not read, and the idle ones, are dropped
 *       within 40 s (idle timeout 15 s);
 *  3. a request line that never ends is cut off ("too long");
 *  4. status json counts the refused, cut off and timed out clients, and
 *     SIGTERM still exits 0.
 * The second filesystem's mount point is 3600 characters long so that a
 * status reply is some 4 KiB and 60 of them overflow a socket buffer.
 *
 * Usage (in the guest): vm_mapperd_stall MAPPERD MAPCTL DEV1 DEV2
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "mdtest.h"
#include "vmtest.h"

#define NOBODY 65534
#define USERS_GID 100
#define NO_GROUP ((gid_t)-1)
#define PER_UID_MAX 8		/* control.c */
#define IDLE_HOLDERS 100
#define NON_READERS 4
#define NON_READER_REQS 60

static char reply[1 << 20];

/* A connection whose SO_PEERCRED/SO_PEERGROUPS are @uid, @gid and
 * (optionally) @extra: the kernel records the effective credentials at
 * connect(), so switching ours around the call is enough.  Non-blocking;
 * -1 when the listen backlog is full (the daemon is not accepting). */
static int connect_as(uid_t uid, gid_t gid, gid_t extra)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	gid_t groups[1] = { extra };
	int fd, err;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", MDT_SOCK);
	REQUIRE(setgroups(extra == NO_GROUP ? 0 : 1, groups) == 0, "setgroups: %s", strerror(errno));
	REQUIRE(setegid(gid) == 0 && seteuid(uid) == 0, "seteuid %u: %s", (unsigned int)uid,
		strerror(errno));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	err = fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 ? 0 : errno;
	REQUIRE(seteuid(0) == 0 && setegid(0) == 0 && setgroups(0, NULL) == 0, "back to root: %s",
		strerror(errno));
	REQUIRE(fd >= 0, "socket: %s", strerror(err));
	if (err) {
		REQUIRE(err == EAGAIN, "connect as uid %u: %s", (unsigned int)uid, strerror(err));
		close(fd);
		return -1;
	}
	return fd;
}

/* Read what is there within @ms; bytes read, 0 at end of file, -1 when
 * nothing came, -2 on a connection error (reset: closed by the daemon). */
static ssize_t read_within(int fd, char *buf, size_t len, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, ms) <= 0)
		return -1;
	ssize_t n = read(fd, buf, len);
	if (n < 0)
		return errno == EAGAIN ? -1 : -2;
	return n;
}

/* One request on an open connection; 0 "ok", 1 "error:", -1 no answer in 10 s. */
static int ask(int fd, const char *line, char *out, size_t len)
{
	size_t got = 0;
	double t0 = tl_mono();

	out[0] = '\0';
	if (write(fd, line, strlen(line)) != (ssize_t)strlen(line) || write(fd, "\n", 1) != 1)
		return -1;
	while (tl_mono() - t0 < 10 && got < len - 1) {
		ssize_t n = read_within(fd, out + got, len - 1 - got, 100);

		if (n == 0 || n == -2)
			break;
		if (n < 0)
			continue;
		got += (size_t)n;
		out[got] = '\0';
		char *last = got > 1 ? out + got - 2 : out;
		while (last > out && last[-1] != '\n')
			last--;
		if (out[got - 1] == '\n' && (!strncmp(last, "ok", 2) || !strncmp(last, "error:", 6)))
			return last[0] == 'o' ? 0 : 1;
	}
	return -1;
}

/* Wait until the daemon closes @fd (whatever it sent before); seconds
 * waited, or -1 if it is still open after @timeout. */
static double wait_closed(int fd, double timeout, double since)
{
	char buf[65536];

	while (tl_mono() - since < timeout) {
		ssize_t n = read_within(fd, buf, sizeof(buf), 100);

		if (n == 0 || n == -2)
			return tl_mono() - since;
	}
	return -1;
}

/*
 * The flooder: writes "help" requests as fast as the socket takes them and
 * reads every reply.  Exit status 0 when the daemon cut it off after
 * saying "too many requests", 1 when it was cut off without that, 2 when
 * it was still being served after 20 s.  The time it took goes to @tfd.
 */
static void flood(int fd, int tfd)
{
	static char req[7000], buf[1 << 16];
	char tail[64] = "";
	double t0 = tl_mono();
	bool said = false, sending = true;

	for (size_t i = 0; i + 5 <= sizeof(req); i += 5)
		memcpy(req + i, "help\n", 5);
	while (tl_mono() - t0 < 20) {
		struct pollfd p = { .fd = fd, .events = POLLIN | (sending ? POLLOUT : 0) };

		if (poll(&p, 1, 100) < 0)
			continue;
		/* A failed send means the daemon closed: read what it said. */
		if ((p.revents & POLLOUT) &&
		    send(fd, req, sizeof(req) - sizeof(req) % 5, MSG_NOSIGNAL) < 0 && errno != EAGAIN)
			sending = false;
		if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
			ssize_t n = read(fd, buf, sizeof(buf) - 1);

			if (n == 0 || (n < 0 && errno != EAGAIN))
				break;
			if (n > 0) {
				/* the message may straddle two reads: keep the last
				 * 40 bytes in front of the next ones */
				static char win[40 + sizeof(buf)];
				size_t keep = strlen(tail);

				memcpy(win, tail, keep);
				memcpy(win + keep, buf, (size_t)n);
				win[keep + (size_t)n] = '\0';
				said |= strstr(win, "too many requests") != NULL;
				size_t from = keep + (size_t)n > 40 ? keep + (size_t)n - 40 : 0;
				memcpy(tail, win + from, keep + (size_t)n - from + 1);
			}
		}
	}
	double t = tl_mono() - t0;
	if (write(tfd, &t, sizeof(t)) != sizeof(t))
		_exit(3);
	_exit(t >= 20 ? 2 : said ? 0 : 1);
}

static bool match_file(const struct map_finding *f, void *arg)
{
	const uint64_t *w = arg;

	return f->source == MAP_SOURCE_EVENT && !strcmp(f->kind, "file") && f->ino == w[0] &&
	       f->has_range && f->physical == w[1];
}

static void config(bool with_group)
{
	mdt_write_config(with_group ? "control_group = users\n" : NULL);
}

int main(int argc, char **argv)
{
	int arg;

	vt_require_vm();
	arg = mdt_args(argc, argv);
	REQUIRE(arg + 1 < argc, "which two devices?");
	const char *dev2 = argv[arg + 1];

	/* A victim file on dm-dust, and a second filesystem at a long path. */
	fx_setup(argv[arg], "-m rmapbt=1,reflink=1");
	tl_must("head -c 262144 /dev/urandom > %s/victim.dat && sync", FX_MNT);
	uint64_t want[2] = { fx_ino("victim.dat"), fx_file_physical("victim.dat", 128 * 1024) };
	REQUIRE(want[1] % 4096 == 0, "victim block not aligned");
	static char longmnt[4000];
	int off = snprintf(longmnt, sizeof(longmnt), "/mnt/stall");
	while (off < 3600)
		off += snprintf(longmnt + off, sizeof(longmnt) - (size_t)off, "/%.*s", 199,
				"ddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"
				"ddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"
				"ddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd");
	tl_mkfs_mount(dev2, "", longmnt);

	config(true);
	pid_t pid = mdt_start(NULL);
	REQUIRE(mdt_wait_watched(FX_MNT, true, 10) >= 0, "mapperd does not watch %s", FX_MNT);
	REQUIRE(mdt_wait_watched(longmnt, true, 10) >= 0, "mapperd does not watch the long path");
	REQUIRE(mdt_request("status json", reply, sizeof(reply)) == 0, "status json: %s", reply);
	printf("a status json reply is %zu bytes\n", strlen(reply));

	/* 1. Privilege per request, not per connection. */
	int priv = connect_as(NOBODY, NOBODY, USERS_GID);
	REQUIRE(priv >= 0, "cannot connect");
	int rc = ask(priv, "cancel " FX_MNT, reply, sizeof(reply));
	CHECK(rc >= 0 && !strstr(reply, "permission denied"),
	      "nobody in 'users' may not cancel: %s", reply);
	config(false);
	CHECK_INT(mdt_request("reload", reply, sizeof(reply)), 0);
	rc = ask(priv, "cancel " FX_MNT, reply, sizeof(reply));
	CHECK(rc == 1 && strstr(reply, "permission denied"),
	      "after control_group went, the old connection may still cancel: %s", reply);
	close(priv);
	config(true);
	CHECK_INT(mdt_request("reload", reply, sizeof(reply)), 0);

	double t_base = tl_mono();
	CHECK_INT(tl_sh("timeout 20 %s daemon status --socket %s >/dev/null", mdt_mapctl,
			MDT_SOCK), 0);
	t_base = tl_mono() - t_base;
	printf("root's mapctl daemon status before: %.3f s\n", t_base);

	/* 2. Clients that do not read, one that floods, many idle ones. */
	int silent[NON_READERS];
	static char reqs[NON_READER_REQS * 12 + 1];
	for (int i = 0; i < NON_READER_REQS; i++)
		memcpy(reqs + 12 * i, "status json\n", 12);
	double t_silent = tl_mono();
	for (int i = 0; i < NON_READERS; i++) {
		silent[i] = connect_as(4201 + (uid_t)i, 4201 + (gid_t)i, NO_GROUP);
		REQUIRE(silent[i] >= 0, "cannot connect");
		CHECK(write(silent[i], reqs, strlen(reqs)) == (ssize_t)strlen(reqs),
		      "writing requests: %s", strerror(errno));
	}
	int tpipe[2];
	REQUIRE(pipe(tpipe) == 0, "pipe");
	int ffd = connect_as(4300, 4300, NO_GROUP);
	REQUIRE(ffd >= 0, "cannot connect");
	pid_t flooder = fork();
	REQUIRE(flooder >= 0, "fork");
	if (flooder == 0)
		flood(ffd, tpipe[1]);
	close(ffd);
	close(tpipe[1]);

	int idle[IDLE_HOLDERS], held = 0, refused_seen = 0;
	double t_idle = tl_mono();
	for (int i = 0; i < IDLE_HOLDERS; i++)
		idle[i] = connect_as(NOBODY, NOBODY, NO_GROUP);
	tl_sleep(1);
	for (int i = 0; i < IDLE_HOLDERS; i++) {
		char b[256];

		if (idle[i] < 0)
			continue;
		if (read_within(idle[i], b, sizeof(b), 0) == -1) {
			held++;		/* accepted: nothing to say */
		} else {
			close(idle[i]);	/* refused: "too many connections", closed */
			idle[i] = -1;
			refused_seen++;
		}
	}
	printf("nobody holds %d of %d connections (%d refused)\n", held, IDLE_HOLDERS,
	       refused_seen);
	CHECK(held >= 1 && held <= PER_UID_MAX, "nobody holds %d connections", held);

	/* A read error still becomes a finding meanwhile. */
	tl_must("dmsetup message dust 0 addbadblock %llu", (unsigned long long)(want[1] / 4096));
	tl_must("dmsetup message dust 0 enable");
	tl_evict(FX_MNT "/victim.dat");
	double t0 = tl_mono();
	CHECK_INT(tl_read_file(FX_MNT "/victim.dat"), EIO);
	double t = mdt_wait_finding(match_file, want, t0, 10, NULL);
	printf("EIO -> finding in %.3f s while the clients misbehave\n", t);
	CHECK(t >= 0, "no finding for the EIO read within 10 s");

	/* Root is answered at once meanwhile: within 5 s more than before the
	 * clients came (starting mapctl alone can take seconds in a loaded
	 * guest), and a request on a socket within 3 s. */
	t0 = tl_mono();
	rc = tl_sh("timeout 20 %s daemon status --socket %s >/dev/null", mdt_mapctl, MDT_SOCK);
	t = tl_mono() - t0;
	printf("root's mapctl daemon status: exit %d after %.3f s\n", rc, t);
	/* exit 0: answered, nothing open; 1: answered, findings open */
	CHECK(rc <= 1 && t < t_base + 5, "root's mapctl daemon status: exit %d after %.3f s", rc,
	      t);
	t0 = tl_mono();
	int rfd = connect_as(0, 0, NO_GROUP);
	rc = rfd >= 0 ? ask(rfd, "status json", reply, sizeof(reply)) : -1;
	t = tl_mono() - t0;
	if (rfd >= 0)
		close(rfd);
	printf("root's status json: %d after %.3f s\n", rc, t);
	CHECK(rc == 0 && t < 3, "root's status json: %d after %.3f s", rc, t);

	/* The flooder was cut off. */
	int st;
	double tf = -1;
	REQUIRE(waitpid(flooder, &st, 0) == flooder, "waitpid");
	if (read(tpipe[0], &tf, sizeof(tf)) != sizeof(tf))
		tf = -1;
	close(tpipe[0]);
	printf("the flooder: exit %d after %.3f s\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1, tf);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0 && tf < 10,
	      "the flooder was not cut off with 'too many requests' within 10 s (status %#x, "
	      "%.3f s)", st, tf);

	/* Clients that do not read, and idle ones, are dropped. */
	for (int i = 0; i < NON_READERS; i++) {
		t = wait_closed(silent[i], 40, t_silent);
		printf("client %d that reads nothing dropped after %.1f s\n", i, t);
		CHECK(t >= 0, "a client that reads nothing is still connected after 40 s");
		close(silent[i]);
	}
	for (int i = 0; i < IDLE_HOLDERS; i++) {
		if (idle[i] < 0)
			continue;
		t = wait_closed(idle[i], 40, t_idle);
		CHECK(t >= 0, "an idle connection is still open after 40 s");
		if (t >= 0 && i == 0)
			printf("idle connections dropped after %.1f s\n", t);
		close(idle[i]);
	}

	/* 3. A line that never ends. */
	int lfd = connect_as(4301, 4301, NO_GROUP);
	REQUIRE(lfd >= 0, "cannot connect");
	static char xs[65536];
	memset(xs, 'x', sizeof(xs));
	if (send(lfd, xs, sizeof(xs), MSG_NOSIGNAL) < 0) {
		/* the daemon may have closed already */
	}
	ssize_t n = read_within(lfd, reply, sizeof(reply) - 1, 5000);
	reply[n > 0 ? n : 0] = '\0';
	CHECK(strstr(reply, "error: request line too long") != NULL, "endless line: '%s'", reply);
	CHECK(wait_closed(lfd, 5, tl_mono()) >= 0, "an endless line's connection stays open");
	close(lfd);

	/* 4. Counted, and the daemon is fine. */
	long long refused = mdt_status_number("\"refused\":");
	long long cut = mdt_status_number("\"cut_off\":");
	long long timed = mdt_status_number("\"timed_out\":");
	printf("status: %lld connections refused, %lld cut off, %lld timed out\n", refused, cut,
	       timed);
	CHECK(refused >= refused_seen && refused_seen > 0, "refused %lld, seen %d", refused,
	      refused_seen);
	CHECK(cut >= 1, "cut off %lld", cut);
	CHECK(timed >= NON_READERS + 1, "timed out %lld", timed);
	printf("mapperd: %d descriptors, %ld KiB resident\n", mdt_fd_count(pid), mdt_rss_kib(pid));
	/* exit 1: answered, and the finding above is open */
	CHECK_INT(tl_sh("%s daemon status --socket %s >/dev/null", mdt_mapctl, MDT_SOCK), 1);
	CHECK_INT(mdt_stop(pid), 0);
	mdt_show_log();
	tl_sh("umount '%s'", longmnt);
	fx_teardown();
	return check_done();
}
