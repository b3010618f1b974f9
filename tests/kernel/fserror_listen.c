// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <linux/fanotify.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <unistd.h>

#include "check.h"
#include "fserror_listen.h"

/* Unread error events of one filesystem merge into one; give reports that
 * are still on their way this long to join the first. */
#define SETTLE_US 300000

int kt_fserror_listen(const char *mnt)
{
	int fd = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID | FAN_CLOEXEC | FAN_NONBLOCK,
			       O_RDONLY);

	if (fd < 0)
		REQUIRE(false, "fanotify_init: %s", strerror(errno));
	if (fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_FS_ERROR, AT_FDCWD, mnt))
		REQUIRE(false, "fanotify_mark FAN_FS_ERROR on %s: %s", mnt, strerror(errno));
	return fd;
}

static void decode_handle(struct kt_fserror *ev)
{
	ev->has_inode = false;
	if (ev->handle_type == KT_FILEID_INO64_GEN && ev->handle_bytes == 12) {
		memcpy(&ev->ino, ev->handle, 8);
		memcpy(&ev->gen, ev->handle + 8, 4);
		ev->has_inode = true;
	} else if (ev->handle_type == KT_FILEID_INO32_GEN && ev->handle_bytes == 8) {
		uint32_t ino32;

		memcpy(&ino32, ev->handle, 4);
		memcpy(&ev->gen, ev->handle + 4, 4);
		ev->ino = ino32;
		ev->has_inode = true;
	}
}

/* Parse the info records of one FAN_FS_ERROR event. */
static void parse_event(const struct fanotify_event_metadata *md, struct kt_fserror *ev)
{
	const char *p = (const char *)md + md->metadata_len;
	const char *end = (const char *)md + md->event_len;
	bool have_error = false;

	memset(ev, 0, sizeof(*ev));
	ev->handle_type = -1;
	while (p + sizeof(struct fanotify_event_info_header) <= end) {
		const struct fanotify_event_info_header *hdr = (const void *)p;

		if (hdr->len < sizeof(*hdr) || p + hdr->len > end)
			REQUIRE(false, "bad info record length %u", hdr->len);
		if (hdr->info_type == FAN_EVENT_INFO_TYPE_ERROR) {
			const struct fanotify_event_info_error *err = (const void *)p;

			ev->error = err->error;
			ev->count = err->error_count;
			have_error = true;
		} else if (hdr->info_type == FAN_EVENT_INFO_TYPE_FID) {
			const struct fanotify_event_info_fid *fid = (const void *)p;
			const struct file_handle *fh = (const void *)fid->handle;

			memcpy(ev->fsid, &fid->fsid, sizeof(ev->fsid));
			ev->handle_type = fh->handle_type;
			ev->handle_bytes = fh->handle_bytes;
			if (fh->handle_bytes > sizeof(ev->handle) ||
			    fid->handle + sizeof(*fh) + fh->handle_bytes > (const unsigned char *)p + hdr->len)
				REQUIRE(false, "bad file handle of %u bytes", fh->handle_bytes);
			memcpy(ev->handle, fh->f_handle, fh->handle_bytes);
			decode_handle(ev);
		} else {
			REQUIRE(false, "unexpected info record type %u", hdr->info_type);
		}
		p += hdr->len;
	}
	if (!have_error)
		REQUIRE(false, "FAN_FS_ERROR event without an error record");
	if (ev->handle_type < 0)
		REQUIRE(false, "FAN_FS_ERROR event without a FID record");
}

int kt_fserror_read(int fd, int timeout_ms, struct kt_fserror *ev, int max)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char buf[8192] __attribute__((aligned(8)));
	int n = 0;

	int rc = poll(&pfd, 1, timeout_ms);
	if (rc < 0)
		REQUIRE(false, "poll: %s", strerror(errno));
	if (rc == 0)
		return 0;
	usleep(SETTLE_US);

	for (;;) {
		ssize_t len = read(fd, buf, sizeof(buf));

		if (len < 0 && errno == EAGAIN)
			break;
		if (len <= 0)
			REQUIRE(false, "read fanotify: %s", len < 0 ? strerror(errno) : "end of file");
		const struct fanotify_event_metadata *md = (const void *)buf;
		for (; FAN_EVENT_OK(md, len); md = FAN_EVENT_NEXT(md, len)) {
			if (md->vers != FANOTIFY_METADATA_VERSION)
				REQUIRE(false, "fanotify metadata version %u", md->vers);
			if (md->mask != FAN_FS_ERROR)
				REQUIRE(false, "unexpected fanotify event mask 0x%llx",
				     (unsigned long long)md->mask);
			if (md->fd != FAN_NOFD)
				REQUIRE(false, "FAN_FS_ERROR event with an fd");
			if (n < max)
				parse_event(md, &ev[n]);
			n++;
		}
	}
	return n < max ? n : max;
}

void kt_fserror_print(const char *what, const struct kt_fserror *ev)
{
	if (ev->has_inode)
		printf("%s: FAN_FS_ERROR error %d (%s) count %u handle 0x%x ino %llu gen %u\n",
		       what, ev->error, strerror(ev->error), ev->count, ev->handle_type,
		       (unsigned long long)ev->ino, ev->gen);
	else
		printf("%s: FAN_FS_ERROR error %d (%s) count %u handle 0x%x (%u bytes)\n", what,
		       ev->error, strerror(ev->error), ev->count, ev->handle_type,
		       ev->handle_bytes);
	fflush(stdout);
}

bool kt_fserror_read_one(int fd, int timeout_ms, const char *step, struct kt_fserror *ev)
{
	struct kt_fserror all[8];
	int n = kt_fserror_read(fd, timeout_ms, all, 8);

	CHECK(n == 1, "%s: %d events, expected 1", step, n);
	for (int i = 0; i < n; i++)
		kt_fserror_print(step, &all[i]);
	if (n < 1)
		return false;
	*ev = all[0];
	return true;
}

void kt_fserror_expect_file(int fd, int timeout_ms, const char *step, int error, uint64_t ino,
			    uint32_t gen)
{
	struct kt_fserror ev;

	if (!kt_fserror_read_one(fd, timeout_ms, step, &ev))
		return;
	CHECK_INT(ev.error, error);
	CHECK(ev.has_inode && ev.ino == ino && ev.gen == gen,
	      "%s: the event does not name inode %llu gen %u", step, (unsigned long long)ino, gen);
}

void kt_fserror_expect_none(int fd, int timeout_ms, const char *step)
{
	struct kt_fserror ev[8];
	int n = kt_fserror_read(fd, timeout_ms, ev, 8);

	for (int i = 0; i < n; i++)
		kt_fserror_print(step, &ev[i]);
	CHECK(n == 0, "%s: %d more events", step, n);
}
