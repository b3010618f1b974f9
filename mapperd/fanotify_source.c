// SPDX-License-Identifier: GPL-2.0-or-later
/* fanotify FAN_FS_ERROR reports of watched XFS filesystems into the pipeline. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/fanotify.h>
#include <unistd.h>

#include "daemon.h"
#include "dbguard.h"
#include "discovery.h"
#include "fanotify_source.h"
#include "journal_ids.h"
#include "log.h"
#include "map.h"
#include "notify.h"
#include "pipeline.h"

#define FILEID_NONE	0xff	/* FILEID_INVALID: no inode */

/* One info record of an error report. */
static int report_record(int type, const unsigned char *p, size_t len, void *arg)
{
	struct md_fan_report *r = arg;

	if (type == FAN_EVENT_INFO_TYPE_ERROR) {
		struct fanotify_event_info_error e;

		if (len < sizeof(e))
			return -EINVAL;
		memcpy(&e, p, sizeof(e));
		r->error = e.error;
		r->count = e.error_count;
	} else if (type == FAN_EVENT_INFO_TYPE_FID) {
		const unsigned char *h, *rest;
		size_t hlen, restlen;

		if (map_fan_fid(p, len, &r->handle_type, &h, &hlen, &rest, &restlen))
			return -EINVAL;
		if (hlen > 0 && r->handle_type != FILEID_NONE &&
		    map_xfs_handle_decode(r->handle_type, h, hlen, &r->ino, &r->gen) == 0)
			r->has_inode = true;
	}
	return 0;
}

int md_fanotify_decode(const void *buf, size_t len,
		       void (*fn)(const struct md_fan_report *r, void *arg), void *arg)
{
	const unsigned char *p = buf;
	int n = 0;

	while (len >= sizeof(struct fanotify_event_metadata)) {
		struct fanotify_event_metadata m;
		struct md_fan_report r = { .handle_type = -1, .count = 1 };

		memcpy(&m, p, sizeof(m));
		if (m.event_len < m.metadata_len || m.metadata_len < sizeof(m) || m.event_len > len ||
		    m.vers != FANOTIFY_METADATA_VERSION)
			return -EINVAL;
		if (m.mask & FAN_Q_OVERFLOW) {
			r.overflow = true;
			r.count = 2;	/* at least one more than we were told */
			r.error = EIO;
			fn(&r, arg);
			n++;
		} else if (m.mask & FAN_FS_ERROR) {
			if (map_fan_info_each(p + m.metadata_len, m.event_len - m.metadata_len,
					      report_record, &r))
				return -EINVAL;
			if (r.count == 0)
				r.count = 1;
			fn(&r, arg);
			n++;
		}
		if (m.fd >= 0)
			close(m.fd);	/* never for FID groups, but never leak one */
		p += m.event_len;
		len -= m.event_len;
	}
	return len ? -EINVAL : n;
}

struct report_ctx {
	struct md_daemon *d;
	struct md_fs *fs;
	double received;
};

static void on_report(const struct md_fan_report *r, void *arg)
{
	struct report_ctx *c = arg;
	struct md_fs *fs = c->fs;
	struct md_event *ev = md_event_new(r->has_inode ? MD_EV_INODE : MD_EV_FS,
					   MAP_EVENT_FANOTIFY);
	char what[64];

	if (r->has_inode)
		snprintf(what, sizeof(what), "inode %" PRIu64 " gen %" PRIu32, r->ino, r->gen);
	else
		snprintf(what, sizeof(what), "the filesystem");
	struct log_ctx lc = {
		.message_id = MD_MSGID_REPORTS_LOST, .uuid = fs->uuid, .mountpoint = fs->mountpoint,
		.source = map_event_source_name(MAP_EVENT_FANOTIFY),
	};

	if (r->overflow)
		log_ctx_msg(LOG_WARNING, &lc, "%s %s: fanotify queue overflowed: error reports "
			    "were lost", fs->uuid, fs->mountpoint);
	else
		log_notice("%s %s: kernel reports %s (%s) on %s%s", fs->uuid, fs->mountpoint,
			   strerrorname_np(r->error) ? strerrorname_np(r->error) : "error",
			   map_strerror(r->error), what,
			   r->count > 1 ? " and more errors merged into this report" : "");
	if (r->error == ESHUTDOWN && !fs->shut_down) {
		fs->shut_down = true;
		lc.message_id = MD_MSGID_SHUTDOWN;
		log_ctx_msg(LOG_ERR, &lc, "%s %s: the filesystem was shut down", fs->uuid,
			    fs->mountpoint);
		md_db_fs_shut_down(c->d, fs);
		md_notify_post(MD_NOTIFY_SHUTDOWN, fs->uuid, fs->mountpoint, 0, -1);
	}
	if (r->overflow || (r->error == ENOBUFS && !r->has_inode))
		md_notify_post(MD_NOTIFY_REPORTS_LOST, fs->uuid, fs->mountpoint, 0, -1);
	if (!ev) {
		log_err("%s: out of memory for an error report", fs->uuid);
		return;
	}
	snprintf(ev->uuid, sizeof(ev->uuid), "%s", fs->uuid);
	snprintf(ev->mountpoint, sizeof(ev->mountpoint), "%s", fs->mountpoint);
	ev->dev = fs->dev;
	ev->fs_id = fs->fs_id;
	ev->ino = r->ino;
	ev->gen = r->gen;
	ev->error = r->error;
	ev->count = r->count;
	ev->received = c->received;
	if (r->count > 1)
		snprintf(ev->detail, sizeof(ev->detail), "%s on %s, %" PRIu32 " errors merged",
			 r->overflow ? "queue overflow" : map_strerror(r->error), what, r->count);
	else
		snprintf(ev->detail, sizeof(ev->detail), "%s on %s", map_strerror(r->error), what);
	if (md_pipeline_submit(c->d->pipe, ev) < 0) {
		log_warn("%s: event queue full, report dropped", fs->uuid);
		md_notify_post(MD_NOTIFY_REPORTS_LOST, fs->uuid, fs->mountpoint, 0, -1);
	}
}

static void fan_ready(struct md_daemon *d, struct md_watch *w, uint32_t events)
{
	struct report_ctx c = { .d = d, .fs = w->arg };
	/* fanotify wants a buffer that holds at least one whole event */
	uint64_t buf[4096 / sizeof(uint64_t)];

	(void)events;
	for (;;) {
		ssize_t n = read(w->fd, buf, sizeof(buf));

		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				log_err("%s: reading fanotify: %s", c.fs->uuid, map_strerror(errno));
			return;
		}
		if (n == 0)
			return;
		c.received = md_mono();
		if (md_fanotify_decode(buf, (size_t)n, on_report, &c) < 0)
			log_err("%s: malformed fanotify event", c.fs->uuid);
	}
}

int md_fanotify_watch(struct md_daemon *d, struct md_fs *fs)
{
	int fd, root, rc;

	if (fs->fan.fd >= 0)
		return 0;
	/* The mark goes on the filesystem of the directory we checked, not on
	 * whatever the mount point's path leads to by the time of the call. */
	root = md_fs_open_root(fs, "fanotify");
	if (root < 0)
		return root;
	fd = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID | FAN_CLOEXEC | FAN_NONBLOCK,
			   O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		close(root);
		return rc;
	}
	rc = fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_FS_ERROR, root, NULL) != 0
	     ? -errno : 0;
	close(root);
	if (rc) {
		close(fd);
		return rc;
	}
	fs->fan.fd = fd;
	fs->fan.ready = fan_ready;
	fs->fan.arg = fs;
	rc = md_watch_add(d, &fs->fan, EPOLLIN);
	if (rc) {
		close(fd);
		fs->fan.fd = -1;
	}
	return rc;
}

void md_fanotify_unwatch(struct md_daemon *d, struct md_fs *fs)
{
	if (fs->fan.fd < 0)
		return;
	md_watch_del(d, &fs->fan);
	close(fs->fan.fd);
	fs->fan.fd = -1;
}
