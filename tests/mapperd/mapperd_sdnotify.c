// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapperd and systemd's readiness protocol (Type=notify), with the test as
 * the service manager: NOTIFY_SOCKET names a datagram socket it bound.
 *  1. READY=1 arrives once the mounted filesystem is watched: its STATUS=
 *     says "watching 1 XFS filesystem";
 *  2. a filesystem mounted at a path with a newline and "MAINPID=1" in it
 *     and scanned there: STATUS= shows the scan with the mount point
 *     escaped, and no datagram ever carries a MAINPID= line (a forged one
 *     would make systemd watch some other process as the service);
 *  3. two STATUS= updates are at least a second apart (rate limit);
 *  4. SIGTERM: STOPPING=1, exit status 0.
 *
 * Usage (in the guest): vm_mapperd_sdnotify MAPPERD MAPCTL DEVICE
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "mdtest.h"
#include "vmtest.h"

#define NOTIFY_SOCK MDT_DIR "/notify.sock"
#define EVIL_MNT "/mnt/evil\nMAINPID=1"
#define EVIL_ESCAPED "/mnt/evil\\nMAINPID=1"
/* Datagrams kept; the daemon sends a few dozen in this test. */
#define MAX_MSGS 512

struct msg {
	char *text;
	double at;		/* when the kernel queued it (SO_TIMESTAMPNS), seconds */
};

static struct msg msgs[MAX_MSGS];
static int nmsgs;
static int sock = -1;

/* Take what arrives within @timeout seconds into msgs[]. */
static void receive(double timeout)
{
	double end = tl_mono() + timeout;

	for (;;) {
		double left = end - tl_mono();
		struct pollfd p = { .fd = sock, .events = POLLIN };
		char buf[4096];
		union {
			struct cmsghdr h;
			char b[CMSG_SPACE(sizeof(struct timespec))];
		} cm;
		struct iovec iov = { buf, sizeof(buf) - 1 };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = &cm, .msg_controllen = sizeof(cm) };
		struct timespec ts = { 0, 0 };

		if (left < 0)
			left = 0;
		if (poll(&p, 1, (int)(left * 1000)) <= 0)
			return;
		ssize_t n = recvmsg(sock, &mh, MSG_DONTWAIT);
		if (n < 0)
			continue;
		buf[n] = '\0';
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS)
				memcpy(&ts, CMSG_DATA(c), sizeof(ts));
		REQUIRE(ts.tv_sec, "no SCM_TIMESTAMPNS on a notification");
		REQUIRE(nmsgs < MAX_MSGS, "more than %d notifications", MAX_MSGS);
		msgs[nmsgs].text = strdup(buf);
		msgs[nmsgs].at = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
		printf("notify (%.3f): %s\n", msgs[nmsgs].at, buf);
		nmsgs++;
	}
}

/* The index of the first datagram from @from on with a line that is
 * @line (exact) or starts with @line when it ends in '*'; -1. */
static int find_line(int from, const char *line)
{
	size_t len = strlen(line);
	bool prefix = len && line[len - 1] == '*';

	if (prefix)
		len--;
	for (int i = from; i < nmsgs; i++) {
		for (const char *p = msgs[i].text; *p;) {
			size_t l = strcspn(p, "\n");

			if (prefix ? l >= len && !strncmp(p, line, len) :
				     l == len && !strncmp(p, line, len))
				return i;
			p += l + (p[l] == '\n');
		}
	}
	return -1;
}

/* Wait until a datagram from @from on has @line; its index or -1. */
static int wait_line(int from, const char *line, double timeout)
{
	double end = tl_mono() + timeout;
	int i;

	while ((i = find_line(from, line)) < 0 && tl_mono() < end)
		receive(0.2);
	return i;
}

/*
 * Send the request ourselves and take the whole reply up to "queued" (or
 * 5 s), so that a reply split by the mount point's newline is seen as such.
 */
static bool request_scan(const char *line, char *reply, size_t len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = MDT_SOCK };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	size_t got = 0;
	double end = tl_mono() + 5;

	reply[0] = '\0';
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    dprintf(fd, "%s\n", line) < 0) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	while (!strstr(reply, "queued") && got + 1 < len && tl_mono() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 200) <= 0)
			continue;
		ssize_t n = read(fd, reply + got, len - 1 - got);
		if (n <= 0)
			break;
		got += (size_t)n;
		reply[got] = '\0';
	}
	close(fd);
	return strstr(reply, "queued") != NULL;
}

int main(int argc, char **argv)
{
	char reply[65536], uuid[64], line[512];
	int arg, i;

	vt_require_vm();
	arg = mdt_args(argc, argv);
	REQUIRE(arg < argc, "which device?");
	fx_setup(argv[arg], vt_features());
	/* Enough data for a media scan that lasts while we look at it. */
	tl_must("xfs_io -f -c 'pwrite -q -S 0x5a 0 48m' -c fsync %s/big.dat", FX_MNT);
	snprintf(uuid, sizeof(uuid), "%s", tl_out("blkid -o value -s UUID %s", FX_DUST));
	uuid[strcspn(uuid, "\n")] = '\0';
	REQUIRE(uuid[0], "no UUID");

	mkdir(MDT_DIR, 0755);
	unlink(NOTIFY_SOCK);
	sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = NOTIFY_SOCK };
	REQUIRE(sock >= 0 && bind(sock, (struct sockaddr *)&sa, sizeof(sa)) == 0,
		"bind %s: %s", NOTIFY_SOCK, strerror(errno));
	/* The kernel stamps each datagram as it is queued: the rate limit is
	 * measured on the daemon's sends, not on when this test reads them. */
	int on = 1;
	REQUIRE(setsockopt(sock, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on)) == 0,
		"SO_TIMESTAMPNS: %s", strerror(errno));
	setenv("NOTIFY_SOCKET", NOTIFY_SOCK, 1);

	/* 2 MB/s: the 48 MiB scan takes about 25 s. */
	mdt_write_config("rate_limit = 2M\n");
	pid_t pid = mdt_start(NULL);

	/* 1. */
	int ready = wait_line(0, "READY=1", 20);
	REQUIRE(ready >= 0, "no READY=1 within 20 s");
	CHECK(find_line(ready, "STATUS=watching 1 XFS filesystem") == ready,
	      "READY=1 came without the watched filesystem in its STATUS: %s", msgs[ready].text);
	CHECK(find_line(0, "READY=1") == ready && ready == 0, "something came before READY=1");

	/* 2. */
	tl_must("umount " FX_MNT);
	int gone = wait_line(ready, "STATUS=watching 0 XFS filesystems", 10);
	CHECK(gone >= 0, "STATUS did not follow the unmount");
	REQUIRE(mkdir(EVIL_MNT, 0755) == 0 || errno == EEXIST, "mkdir: %s", strerror(errno));
	tl_must("mount %s \"$(printf '/mnt/evil\\nMAINPID=1')\"", FX_DUST);
	REQUIRE(wait_line(gone < 0 ? ready : gone + 1, "STATUS=watching 1 XFS filesystem", 10) >= 0,
		"STATUS did not follow the new mount");
	snprintf(line, sizeof(line), "scan media %s", uuid);
	double t0 = tl_mono();
	bool rc;
	while (!(rc = request_scan(line, reply, sizeof(reply))) && tl_mono() - t0 < 10)
		tl_sleep(0.2);
	REQUIRE(rc, "%s: %s", line, reply);
	/* The reply names the mount point escaped, on one line: a raw newline
	 * would let whoever mounts forge reply lines for mapctl. */
	CHECK(strchr(reply, '\n') == reply + strlen(reply) - 1 && strstr(reply, EVIL_ESCAPED),
	      "the scan reply is not one line naming " EVIL_ESCAPED ": '%s'", reply);
	int scanning = wait_line(0, "STATUS=scanning " EVIL_ESCAPED " (*", 15);
	CHECK(scanning >= 0, "no STATUS=scanning " EVIL_ESCAPED " (...)");
	/* Progress moves; a few updates. */
	receive(8);
	CHECK(find_line(0, "MAINPID=*") < 0, "a MAINPID= line reached the service manager");

	/* 3. STATUS-only datagrams (not READY=1, not STOPPING=1). */
	double last = -1, min_gap = 1e9;
	int nstatus = 0;
	for (i = 0; i < nmsgs; i++) {
		if (strncmp(msgs[i].text, "STATUS=", 7) != 0)
			continue;
		if (last >= 0 && msgs[i].at - last < min_gap)
			min_gap = msgs[i].at - last;
		last = msgs[i].at;
		nstatus++;
	}
	printf("%d STATUS updates, the closest %.2f s apart\n", nstatus, min_gap);
	CHECK(nstatus >= 3, "only %d STATUS updates", nstatus);
	/* The daemon's clock and the kernel's stamp differ by the time
	 * between the check and the send: a little slack. */
	CHECK(min_gap >= 0.95, "two STATUS updates %.3f s apart", min_gap);

	/* 4. */
	int before = nmsgs;
	int status = mdt_stop(pid);
	receive(0.5);
	CHECK(wait_line(before, "STOPPING=1", 5) >= 0, "no STOPPING=1 at SIGTERM");
	CHECK_INT(status, 0);
	CHECK(find_line(0, "MAINPID=*") < 0, "a MAINPID= line reached the service manager");

	tl_sh("umount \"$(printf '/mnt/evil\\nMAINPID=1')\"");
	rmdir(EVIL_MNT);
	if (check_failures)
		mdt_show_log();
	fx_teardown();
	return check_done();
}
