// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapperd's journal records, with the test as journald: the guest has no
 * journald, so the test binds /run/systemd/journal/socket itself (the
 * guest's /run is its own tmpfs) and reads the native protocol.
 *  1. With JOURNAL_STREAM naming mapperd's stderr (what systemd sets when
 *     stderr is the journal): a read over a dm-dust bad block in a file whose
 *     name holds a newline gives one record with the damage MESSAGE_ID,
 *     PRIORITY=3, MAPPER_FS_UUID, MAPPER_MOUNTPOINT, MAPPER_PATH (the exact
 *     path, newline included, in one field), MAPPER_INODE, MAPPER_OFFSET and
 *     MAPPER_LENGTH; its MESSAGE is escaped (no newline); "started" came with
 *     its own MESSAGE_ID; nothing went to stderr as a line.
 *  2. The same with no journal socket: the "<3>" line on stderr instead.
 *  3. A socket but no JOURNAL_STREAM (run by hand): lines on stderr, no
 *     record.
 *
 * Usage (in the guest): vm_mapperd_journal MAPPERD MAPCTL DEVICE
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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

#define JOURNAL_DIR "/run/systemd/journal"
#define JOURNAL_SOCK JOURNAL_DIR "/socket"
/* The ids of mapperd/journal_ids.h, written out: a test of the ABI. */
#define ID_DAMAGE "a497cc9eb63543f69374b97abe65ce6d"
#define ID_STARTED "dbe90944c5384e999527410aa3235107"
#define VICTIM "odd\nname.dat"
#define VICTIM2 "second.dat"
/* Records kept; a run sends a few dozen. */
#define MAX_RECS 1024
/* Fields per record; mapperd sends at most 14. */
#define MAX_FIELDS 32

struct field {
	char *name;
	char *value;	/* NUL-terminated; may hold newlines */
	size_t len;
};
struct record {
	struct field f[MAX_FIELDS];
	int n;
};

static struct record recs[MAX_RECS];
static int nrecs;
static int sock = -1;

static void add_field(struct record *r, const char *name, size_t nl, const char *v, size_t vl)
{
	if (r->n >= MAX_FIELDS)
		return;
	r->f[r->n].name = strndup(name, nl);
	r->f[r->n].value = malloc(vl + 1);
	REQUIRE(r->f[r->n].name && r->f[r->n].value, "out of memory");
	memcpy(r->f[r->n].value, v, vl);
	r->f[r->n].value[vl] = '\0';
	r->f[r->n].len = vl;
	r->n++;
}

/*
 * journald's native protocol: "NAME=value\n", or for a value with a
 * newline "NAME\n", its length as a little-endian 64-bit number, the bytes
 * and "\n".  Returns false on a malformed datagram.
 */
static bool parse(const char *p, size_t len, struct record *r)
{
	const char *end = p + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eq = memchr(p, '=', nl ? (size_t)(nl - p) : (size_t)(end - p));

		if (!nl)
			return false;
		if (eq) {
			add_field(r, p, (size_t)(eq - p), eq + 1, (size_t)(nl - eq - 1));
			p = nl + 1;
			continue;
		}
		uint64_t vl = 0;
		if (end - (nl + 1) < 8)
			return false;
		for (int i = 7; i >= 0; i--)
			vl = vl << 8 | (unsigned char)nl[1 + i];
		const char *v = nl + 9;
		if ((uint64_t)(end - v) < vl + 1 || v[vl] != '\n')
			return false;
		add_field(r, p, (size_t)(nl - p), v, (size_t)vl);
		p = v + vl + 1;
	}
	return true;
}

/* Take the records that arrive within @timeout seconds.  A large record
 * comes as a sealed memfd (SCM_RIGHTS) and an empty datagram. */
static void receive(double timeout)
{
	double end = tl_mono() + timeout;
	static char buf[1 << 20];

	for (;;) {
		double left = end - tl_mono();
		struct pollfd p = { .fd = sock, .events = POLLIN };
		union {
			struct cmsghdr h;
			char b[CMSG_SPACE(sizeof(int))];
		} cm;
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = &cm, .msg_controllen = sizeof(cm) };

		if (left < 0)
			left = 0;
		if (poll(&p, 1, (int)(left * 1000)) <= 0)
			return;
		ssize_t n = recvmsg(sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n < 0)
			continue;
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			int fd;

			memcpy(&fd, CMSG_DATA(c), sizeof(fd));
			n = pread(fd, buf, sizeof(buf), 0);
			close(fd);
			REQUIRE(n >= 0, "reading a memfd record: %s", strerror(errno));
		}
		REQUIRE(nrecs < MAX_RECS, "more than %d records", MAX_RECS);
		CHECK(parse(buf, (size_t)n, &recs[nrecs]), "malformed record of %zd bytes", n);
		nrecs++;
	}
}

static const char *field(const struct record *r, const char *name)
{
	for (int i = 0; i < r->n; i++)
		if (!strcmp(r->f[i].name, name))
			return r->f[i].value;
	return NULL;
}

static const struct record *find(const char *name, const char *value)
{
	for (int i = 0; i < nrecs; i++) {
		const char *v = field(&recs[i], name);

		if (v && !strcmp(v, value))
			return &recs[i];
	}
	return NULL;
}

static const struct record *wait_record(const char *name, const char *value, double timeout)
{
	double end = tl_mono() + timeout;
	const struct record *r;

	while (!(r = find(name, value)) && tl_mono() < end)
		receive(0.2);
	return r;
}

static void show(const struct record *r)
{
	printf("---- record ----\n");
	for (int i = 0; i < r->n; i++) {
		char *esc = map_escape_text(r->f[i].value);

		printf("%s=%s\n", r->f[i].name, esc ? esc : "?");
		free(esc);
	}
}

static void check_field(const struct record *r, const char *name, const char *want)
{
	const char *got = field(r, name);
	char *eg = got ? map_escape_text(got) : NULL, *ew = map_escape_text(want);

	CHECK(got && !strcmp(got, want), "%s is %s, want %s", name, eg ? eg : "absent", ew);
	free(eg);
	free(ew);
}

static void bind_journal(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = JOURNAL_SOCK };

	tl_must("mkdir -p " JOURNAL_DIR);
	unlink(JOURNAL_SOCK);
	sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	REQUIRE(sock >= 0 && bind(sock, (struct sockaddr *)&sa, sizeof(sa)) == 0,
		"bind %s: %s", JOURNAL_SOCK, strerror(errno));
	/* Room for a burst of records while the test sleeps. */
	int size = 4 << 20;
	setsockopt(sock, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
}

static void unbind_journal(void)
{
	close(sock);
	sock = -1;
	unlink(JOURNAL_SOCK);
}

/* Lines of the daemon's stderr that hold @text. */
static int log_count(const char *text)
{
	return atoi(tl_out("grep -cF -- '%s' " MDT_LOG " || true", text));
}

static bool wait_log(const char *text, double timeout)
{
	double end = tl_mono() + timeout;

	while (log_count(text) == 0) {
		if (tl_mono() > end)
			return false;
		tl_sleep(0.2);
	}
	return true;
}

/* Make @rel's block at @offset bad and read the file: EIO. */
static void damage(const char *rel, uint64_t offset)
{
	char path[256];
	uint64_t phys = fx_file_physical(rel, offset);

	snprintf(path, sizeof(path), FX_MNT "/%s", rel);
	tl_must("dmsetup message dust 0 addbadblock %llu", (unsigned long long)(phys / 4096));
	tl_must("dmsetup message dust 0 enable");
	tl_evict(path);
	CHECK_INT(tl_read_file(path), EIO);
}

int main(int argc, char **argv)
{
	char uuid[64], want[512];
	struct stat st;
	int arg;

	vt_require_vm();
	arg = mdt_args(argc, argv);
	REQUIRE(arg < argc, "which device?");
	fx_setup(argv[arg], vt_features());
	tl_must("xfs_io -f -c 'pwrite -q -S 0x5a 0 64k' -c fsync \"%s/$(printf 'odd\\nname.dat')\"",
		FX_MNT);
	tl_must("xfs_io -f -c 'pwrite -q -S 0x5a 0 64k' -c fsync %s/" VICTIM2, FX_MNT);
	uint64_t ino = fx_ino(VICTIM);
	snprintf(uuid, sizeof(uuid), "%s", tl_out("blkid -o value -s UUID %s", FX_DUST));
	uuid[strcspn(uuid, "\n")] = '\0';
	REQUIRE(uuid[0], "no UUID");

	/* mapperd's stderr is MDT_LOG (mdt_start appends to it): that file
	 * is "the journal's stream" here. */
	mdt_write_config(NULL);
	unlink(MDT_LOG);
	int fd = open(MDT_LOG, O_WRONLY | O_CREAT, 0644);
	REQUIRE(fd >= 0 && fstat(fd, &st) == 0, "%s: %s", MDT_LOG, strerror(errno));
	close(fd);
	snprintf(want, sizeof(want), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", want, 1);

	/* 1. */
	bind_journal();
	pid_t pid = mdt_start(NULL);
	REQUIRE(mdt_wait_watched(FX_MNT, true, 10) >= 0, "mapperd does not watch %s", FX_MNT);
	const struct record *r = wait_record("MESSAGE_ID", ID_STARTED, 10);
	CHECK(r != NULL, "no record with the MESSAGE_ID of \"started\"");
	if (r) {
		show(r);
		check_field(r, "PRIORITY", "5");
		check_field(r, "SYSLOG_IDENTIFIER", "mapperd");
		CHECK(!field(r, "CODE_FILE"), "CODE_FILE names journal.c, not the caller");
	}
	damage(VICTIM, 32768);
	r = wait_record("MESSAGE_ID", ID_DAMAGE, 20);
	CHECK(r != NULL, "no record with the damage MESSAGE_ID");
	if (r) {
		show(r);
		check_field(r, "PRIORITY", "3");
		check_field(r, "MAPPER_FS_UUID", uuid);
		check_field(r, "MAPPER_MOUNTPOINT", FX_MNT);
		check_field(r, "MAPPER_PATH", FX_MNT "/" VICTIM);
		snprintf(want, sizeof(want), "%" PRIu64, ino);
		check_field(r, "MAPPER_INODE", want);
		check_field(r, "MAPPER_OFFSET", "32768");
		check_field(r, "MAPPER_LENGTH", "4096");
		const char *m = field(r, "MESSAGE");
		CHECK(m && strchr(m, '\n') == NULL, "a newline in MESSAGE");
		/* Escaped once, as on stderr: a backslash and "n". */
		CHECK(m && strstr(m, "damaged file " FX_MNT "/odd\\nname.dat offset 32768"),
		      "MESSAGE does not name the file, escaped once");
	}
	/* Every message went to the journal, none to stderr as well. */
	CHECK_INT(log_count("damaged file"), 0);
	CHECK_INT(log_count("started"), 0);
	CHECK_INT(mdt_stop(pid), 0);

	/* 2. No journal: the lines, new damage at priority 3. */
	unbind_journal();
	pid = mdt_start(NULL);
	REQUIRE(mdt_wait_watched(FX_MNT, true, 10) >= 0, "mapperd does not watch %s", FX_MNT);
	CHECK(wait_log("started:", 5) && log_count("<5>mapperd ") == 1,
	      "no \"<5>mapperd ... started\" line without a journal");
	damage(VICTIM2, 0);
	CHECK(wait_log("<3>", 20), "no <3> line for new damage without a journal");
	snprintf(want, sizeof(want), "<3>%s " FX_MNT ": damaged file " FX_MNT "/" VICTIM2, uuid);
	CHECK_INT(log_count(want), 1);
	CHECK_INT(mdt_stop(pid), 0);

	/* 3. A journal socket, but stderr is not its stream. */
	unsetenv("JOURNAL_STREAM");
	bind_journal();
	nrecs = 0;
	pid = mdt_start(NULL);
	REQUIRE(mdt_wait_watched(FX_MNT, true, 10) >= 0, "mapperd does not watch %s", FX_MNT);
	CHECK(wait_log("<5>mapperd ", 5) && log_count("<5>mapperd ") == 2,
	      "no second \"started\" line on stderr");
	CHECK_INT(mdt_stop(pid), 0);
	receive(1);
	CHECK_INT(nrecs, 0);
	unbind_journal();

	if (check_failures)
		mdt_show_log();
	fx_teardown();
	return check_done();
}
