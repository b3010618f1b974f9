// SPDX-License-Identifier: GPL-2.0-or-later
/* XFS health monitor records of watched filesystems into the pipeline. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "daemon.h"
#include "dbguard.h"
#include "discovery.h"
#include "healthmon_source.h"
#include "journal_ids.h"
#include "log.h"
#include "map_healthmon.h"
#include "notify.h"
#include "pipeline.h"

/* Reads per wake-up: the rest waits for the next turn of the loop, so a
 * flood of records cannot keep the control socket waiting. */
#define READS_PER_WAKE 16

struct hm_ctx {
	struct md_daemon *d;
	struct md_fs *fs;
	double received;
	bool gone;			/* the unmount record came */
};

static struct md_event *new_event(struct hm_ctx *c, enum md_event_kind kind)
{
	struct md_event *ev = md_event_new(kind, MAP_EVENT_HEALTHMON);

	if (!ev) {
		log_err("%s: out of memory for a health monitor record", c->fs->uuid);
		return NULL;
	}
	snprintf(ev->uuid, sizeof(ev->uuid), "%s", c->fs->uuid);
	snprintf(ev->mountpoint, sizeof(ev->mountpoint), "%s", c->fs->mountpoint);
	ev->dev = c->fs->dev;
	ev->fs_id = c->fs->fs_id;
	ev->received = c->received;
	return ev;
}

static void submit(struct hm_ctx *c, struct md_event *ev)
{
	if (ev && md_pipeline_submit(c->d->pipe, ev) < 0) {
		log_warn("%s: event queue full, health monitor record dropped", c->fs->uuid);
		md_notify_post(MD_NOTIFY_REPORTS_LOST, c->fs->uuid, c->fs->mountpoint, 0, -1);
	}
}

static void on_shutdown(struct hm_ctx *c, const struct map_hm_record *r)
{
	struct md_fs *fs = c->fs;
	struct log_ctx lc = {
		.message_id = MD_MSGID_SHUTDOWN, .uuid = fs->uuid, .mountpoint = fs->mountpoint,
		.source = map_event_source_name(MAP_EVENT_HEALTHMON),
	};
	struct md_event *ev;

	if (!fs->shut_down) {
		fs->shut_down = true;
		log_ctx_msg(LOG_ERR, &lc, "%s %s: the filesystem was shut down (reasons 0x%" PRIx32
			    ")", fs->uuid, fs->mountpoint, r->reasons);
		md_db_fs_shut_down(c->d, fs);
		md_notify_post(MD_NOTIFY_SHUTDOWN, fs->uuid, fs->mountpoint, 0, -1);
	}
	ev = new_event(c, MD_EV_FS);
	if (ev) {
		ev->error = ESHUTDOWN;
		snprintf(ev->detail, sizeof(ev->detail), "shutdown, reasons 0x%" PRIx32, r->reasons);
	}
	submit(c, ev);
}

static void on_lost(struct hm_ctx *c, const struct map_hm_record *r)
{
	struct md_fs *fs = c->fs;
	struct log_ctx lc = {
		.message_id = MD_MSGID_REPORTS_LOST, .uuid = fs->uuid, .mountpoint = fs->mountpoint,
		.source = map_event_source_name(MAP_EVENT_HEALTHMON),
	};
	struct md_event *ev;

	log_ctx_msg(LOG_WARNING, &lc, "%s %s: the health monitor lost %" PRIu64 " records",
		    fs->uuid, fs->mountpoint, r->lost);
	md_notify_post(MD_NOTIFY_REPORTS_LOST, fs->uuid, fs->mountpoint, 0, -1);
	/* As a fanotify ENOBUFS: the lost ones may be anywhere, a scan finds them. */
	ev = new_event(c, MD_EV_FS);
	if (ev) {
		ev->error = ENOBUFS;
		snprintf(ev->detail, sizeof(ev->detail), "%" PRIu64 " records lost", r->lost);
	}
	submit(c, ev);
}

static void on_file(struct hm_ctx *c, const struct map_hm_record *r)
{
	struct md_event *ev = new_event(c, MD_EV_FILE);
	const char *type = map_healthmon_type_name(r->type), *error = map_strerror(r->error);
	char where[96];

	snprintf(where, sizeof(where), "inode %" PRIu64 " gen %" PRIu32 " bytes %" PRIu64 "+%"
		 PRIu64, r->ino, r->gen, r->start, r->length);
	log_notice("%s %s: kernel reports %s (%s) on %s", c->fs->uuid, c->fs->mountpoint, type,
		   error, where);
	if (!ev)
		return;
	ev->ino = r->ino;
	ev->gen = r->gen;
	ev->start = r->start;
	ev->length = r->length;
	ev->error = r->error;
	ev->write = r->type == MAP_HM_TYPE_BUFWRITE || r->type == MAP_HM_TYPE_DIOWRITE;
	snprintf(ev->detail, sizeof(ev->detail), "%s: %s on %s", type, error, where);
	submit(c, ev);
}

static void on_media(struct hm_ctx *c, const struct map_hm_record *r)
{
	struct md_event *ev;

	log_notice("%s %s: kernel reports a media error on the %s device, bytes %" PRIu64 "+%"
		   PRIu64, c->fs->uuid, c->fs->mountpoint, map_healthmon_domain_name(r->domain),
		   r->start, r->length);
	if (r->domain != MAP_HM_DOMAIN_DATADEV) {
		/* Only the data device is mapped (no realtime, no external log):
		 * an events row says where. */
		ev = new_event(c, MD_EV_HEALTH);
		if (ev) {
			ev->domain = r->domain;
			ev->type = r->type;
			ev->start = r->start;
			ev->length = r->length;
			ev->error = EIO;
			snprintf(ev->detail, sizeof(ev->detail), "media error on the %s device, "
				 "bytes %" PRIu64 "+%" PRIu64, map_healthmon_domain_name(r->domain),
				 r->start, r->length);
		}
		submit(c, ev);
		return;
	}
	ev = new_event(c, MD_EV_RANGE);
	if (!ev)
		return;
	ev->start = r->start;
	ev->length = r->length;
	ev->error = EIO;
	/* The kernel says these sectors failed: map them as a media scan's
	 * failed read is mapped, without reading them again. */
	ev->verify = false;
	snprintf(ev->detail, sizeof(ev->detail), "media error at device bytes %" PRIu64 "+%" PRIu64,
		 r->start, r->length);
	submit(c, ev);
}

static void on_health(struct hm_ctx *c, const struct map_hm_record *r)
{
	struct md_event *ev;
	char what[64];

	if (r->domain == MAP_HM_DOMAIN_INODE)
		snprintf(what, sizeof(what), "inode %" PRIu64 " gen %" PRIu32, r->ino, r->gen);
	else if (r->domain == MAP_HM_DOMAIN_FS)
		snprintf(what, sizeof(what), "filesystem metadata");
	else
		snprintf(what, sizeof(what), "%s %" PRIu32, map_healthmon_domain_name(r->domain),
			 r->gno);
	log_notice("%s %s: kernel marks %s %s (mask 0x%" PRIx32 ")", c->fs->uuid, c->fs->mountpoint,
		   what, map_healthmon_type_name(r->type), r->mask);
	ev = new_event(c, MD_EV_HEALTH);
	if (!ev)
		return;
	ev->domain = r->domain;
	ev->type = r->type;
	ev->mask = r->mask;
	ev->gno = r->gno;
	ev->ino = r->ino;
	ev->gen = r->gen;
	ev->error = r->type == MAP_HM_TYPE_HEALTHY ? 0 : EUCLEAN;
	snprintf(ev->detail, sizeof(ev->detail), "%s %s, mask 0x%" PRIx32, what,
		 map_healthmon_type_name(r->type), r->mask);
	submit(c, ev);
}

static void on_record(const struct map_hm_record *r, void *arg)
{
	struct hm_ctx *c = arg;

	switch (r->kind) {
	case MAP_HM_RUNNING:
		log_info("%s %s: health monitor running", c->fs->uuid, c->fs->mountpoint);
		break;
	case MAP_HM_UNMOUNT:
		log_notice("%s %s: health monitor: the filesystem is being unmounted", c->fs->uuid,
			   c->fs->mountpoint);
		c->gone = true;
		break;
	case MAP_HM_SHUTDOWN:
		on_shutdown(c, r);
		break;
	case MAP_HM_LOST:
		on_lost(c, r);
		break;
	case MAP_HM_FILE:
		on_file(c, r);
		break;
	case MAP_HM_MEDIA:
		on_media(c, r);
		break;
	case MAP_HM_HEALTH:
		on_health(c, r);
		break;
	}
}

/* A partial record at the end of one read is completed by the next. */
static void hm_ready(struct md_daemon *d, struct md_watch *w, uint32_t events)
{
	struct md_fs *fs = w->arg;
	struct hm_ctx c = { .d = d, .fs = fs };
	uint64_t buf[(64 * sizeof(struct map_hm_raw)) / sizeof(uint64_t)];
	unsigned char *b = (unsigned char *)buf;

	(void)events;
	for (int i = 0; i < READS_PER_WAKE && !c.gone; i++) {
		size_t have = fs->hmon_carry_len, used = 0, skipped = 0;
		ssize_t n;

		memcpy(b, fs->hmon_carry, have);
		n = read(w->fd, b + have, sizeof(buf) - have);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			/* End of file: the kernel detached the monitor. */
			if (n < 0)
				log_err("%s: reading the health monitor: %s", fs->uuid,
					map_strerror(errno));
			c.gone = true;
			break;
		}
		c.received = md_mono();
		have += (size_t)n;
		map_healthmon_decode(b, have, &used, &skipped, on_record, &c);
		if (skipped) {
			fs->hmon_skipped += skipped;
			log_warn("%s %s: %zu health monitor records skipped: unknown or out of range "
				 "(%" PRIu64 " so far)", fs->uuid, fs->mountpoint, skipped,
				 fs->hmon_skipped);
		}
		fs->hmon_carry_len = have - used;	/* < one record */
		memcpy(fs->hmon_carry, b + used, fs->hmon_carry_len);
	}
	if (c.gone) {
		/* Nothing more will come: the mount table says the rest. */
		md_healthmon_unwatch(d, fs);
		snprintf(fs->hmon_state, sizeof(fs->hmon_state), "off: the filesystem went away");
	}
}

static void set_state(struct md_fs *fs, int rc)
{
	const char *why;

	switch (rc) {
	case 0:
		why = "on";
		break;
	case -ENOTTY:
	case -EINVAL:
		why = "off: not in this kernel";
		break;
	case -EEXIST:
		why = "off: another monitor is attached";
		break;
	case -EPERM:
		why = "off: not permitted";
		break;
	case -EXDEV:
		why = "off: the mount point leads to another filesystem";
		break;
	default:
		why = "off: error";
		break;
	}
	snprintf(fs->hmon_state, sizeof(fs->hmon_state), "%s", why);
}

int md_healthmon_watch(struct md_daemon *d, struct md_fs *fs)
{
	int root, fd, rc;

	if (fs->hmon.fd >= 0)
		return 0;
	/* The kernel wants the root directory; a descriptor of anything else
	 * is refused with EPERM.  Held only for the ioctl: umount must work. */
	root = md_fs_open_root(fs, "health monitor");
	if (root < 0) {
		set_state(fs, root);
		return root;
	}
	fd = map_healthmon_open(root);
	close(root);
	if (fd < 0) {
		set_state(fs, fd);
		if (fd == -EEXIST || fd == -EPERM)
			log_notice("%s %s: no XFS health monitor (%s%s); using fanotify", fs->uuid,
				   fs->mountpoint, map_strerror(fd), fd == -EEXIST ?
				   ": another one, e.g. xfs_healer's, is attached" : "");
		else if (fd != -ENOTTY && fd != -EINVAL)
			log_warn("%s %s: no XFS health monitor: %s", fs->uuid, fs->mountpoint,
				 map_strerror(fd));
		return fd;
	}
	fs->hmon.fd = fd;
	fs->hmon.ready = hm_ready;
	fs->hmon.arg = fs;
	fs->hmon_carry_len = 0;
	rc = md_watch_add(d, &fs->hmon, EPOLLIN);
	if (rc) {
		close(fd);
		fs->hmon.fd = -1;
	}
	set_state(fs, rc);
	return rc;
}

void md_healthmon_unwatch(struct md_daemon *d, struct md_fs *fs)
{
	if (fs->hmon.fd < 0)
		return;
	md_watch_del(d, &fs->hmon);
	close(fs->hmon.fd);
	fs->hmon.fd = -1;
	fs->hmon_carry_len = 0;
	snprintf(fs->hmon_state, sizeof(fs->hmon_state), "off");
}
