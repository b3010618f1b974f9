// SPDX-License-Identifier: GPL-2.0-or-later
/* /dev/kmsg lines about damage, mapped to watched filesystems. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "daemon.h"
#include "dbguard.h"
#include "journal_ids.h"
#include "kmsg_parse.h"
#include "kmsg_source.h"
#include "log.h"
#include "notify.h"
#include "pipeline.h"
#include "ratelimit.h"

#define KMSG_RECORD_MAX 16384	/* the kernel's records are at most 8 KiB */
#define DEFAULT_WINDOW (1024 * 1024)	/* when the disk does not say its request size */
/*
 * Reports per filesystem: the kernel prints its block-layer error lines and
 * XFS its metadata I/O errors through printk ratelimits of 10 lines per 5 s
 * per call site, so a real failing device gives at most a few lines a second
 * per filesystem.  Two and a half times that never drops what the kernel
 * itself lets through, and bounds what forged lines can queue.
 */
#define KMSG_BURST 30.0
#define KMSG_RATE 4.0			/* per second */
#define KMSG_FS_SLOTS 64		/* buckets kept; the least recently used is reused */
/* Records handled per wakeup: a flood of kernel lines must not keep the
 * loop (control socket, fanotify, signals) waiting; epoll wakes us again. */
#define KMSG_RECORDS_PER_WAKEUP 256
#define KMSG_WARN_SECS 10.0		/* at most one "reports dropped" line this often */

struct kmsg_bucket {
	char uuid[40];
	struct md_ratelimit rl;
};

struct md_kmsg {
	struct md_watch w;
	struct kmsg_bucket bucket[KMSG_FS_SLOTS];
	uint64_t limited, dropped;	/* since the last warning */
	double warned;			/* md_mono() of the last warning */
};

/* The watched filesystem on whole disk @disk that holds disk sector @sector. */
static struct md_fs *fs_by_disk_sector(struct md_daemon *d, const char *disk, uint64_t sector)
{
	for (struct md_fs *fs = d->fs_list; fs; fs = fs->next) {
		if (strcmp(fs->bdev.disk, disk) != 0)
			continue;
		if (sector >= fs->bdev.start &&
		    (fs->bdev.sectors == 0 || sector < fs->bdev.start + fs->bdev.sectors))
			return fs;
	}
	return NULL;
}

static struct md_event *new_event(struct md_fs *fs, enum md_event_kind kind,
				  const struct md_kmsg_line *l)
{
	struct md_event *ev = md_event_new(kind, MAP_EVENT_KMSG);

	if (!ev)
		return NULL;
	snprintf(ev->uuid, sizeof(ev->uuid), "%s", fs->uuid);
	snprintf(ev->mountpoint, sizeof(ev->mountpoint), "%s", fs->mountpoint);
	ev->dev = fs->dev;
	ev->fs_id = fs->fs_id;
	ev->error = l->error;
	ev->received = md_mono();
	snprintf(ev->detail, sizeof(ev->detail), "%s", l->text);
	return ev;
}

/*
 * The block layer and XFS print these lines without structured fields (6.12:
 * printk_ratelimited, and XFS's own printk): a record that has them came from
 * a driver's dev_printk, with text of its choosing.  Only a record that says
 * it is about the very disk its text names is still taken.
 */
static bool own_record(const struct md_kmsg_line *l)
{
	char path[128], devt[32], want[40];
	ssize_t n;
	int fd;

	if (!l->subsystem[0] && !l->device[0])
		return true;
	if (l->kind != MD_KMSG_BLOCK_ERROR || strcmp(l->subsystem, "block") != 0)
		return false;
	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", l->dev);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, devt, sizeof(devt) - 1);
	close(fd);
	if (n <= 0)
		return false;
	devt[n] = '\0';
	devt[strcspn(devt, "\n")] = '\0';
	snprintf(want, sizeof(want), "b%s", devt);
	return strcmp(l->device, want) == 0;
}

/* Within this filesystem's share of reports?  Buckets by UUID. */
static bool within_rate(struct md_kmsg *k, const char *uuid, double now)
{
	struct kmsg_bucket *b = NULL, *oldest = &k->bucket[0];

	for (int i = 0; i < KMSG_FS_SLOTS && !b; i++) {
		if (strcmp(k->bucket[i].uuid, uuid) == 0)
			b = &k->bucket[i];
		else if (k->bucket[i].rl.last < oldest->rl.last)
			oldest = &k->bucket[i];
	}
	if (!b) {
		b = oldest;
		memset(b, 0, sizeof(*b));
		snprintf(b->uuid, sizeof(b->uuid), "%s", uuid);
	}
	return md_ratelimit_take(&b->rl, now, KMSG_RATE, KMSG_BURST);
}

/* One warning per KMSG_WARN_SECS for what was dropped, with the counts. */
static void warn_dropped(struct md_kmsg *k, double now)
{
	if (!k->limited && !k->dropped)
		return;
	if (k->warned && now - k->warned < KMSG_WARN_SECS)
		return;
	struct log_ctx lc = {
		.message_id = MD_MSGID_REPORTS_LOST, .source = map_event_source_name(MAP_EVENT_KMSG),
	};

	log_ctx_msg(LOG_WARNING, &lc, "kmsg: %" PRIu64 " reports over the per-filesystem limit "
		    "(%.0f a second) and %" PRIu64 " with the event queue full were not taken",
		    k->limited, KMSG_RATE, k->dropped);
	k->limited = k->dropped = 0;
	k->warned = now;
}

static bool is_media_errno(int e)
{
	return e == EIO || e == ENODATA || e == EILSEQ || e == EREMOTEIO || e == ENOLINK ||
	       e == ETIMEDOUT;
}

/*
 * The line's sector and length in bytes.  Sector numbers are text: one whose
 * byte offset or end does not fit in 64 bits is no real disk's (and would
 * wrap below): false.
 */
static bool sector_bytes(const struct md_kmsg_line *l, uint64_t *start, uint64_t *length)
{
	uint64_t end;

	return !__builtin_mul_overflow(l->sector, 512, start) &&
	       !__builtin_mul_overflow(l->length ? l->length : 1, 512, length) &&
	       !__builtin_add_overflow(*start, *length, &end);
}

/* A block-layer error: the request's extent under a watched filesystem. */
static struct md_event *block_event(struct md_daemon *d, const struct md_kmsg_line *l)
{
	struct md_event *ev;
	struct md_fs *fs;

	if (l->op != MD_BLK_OP_NONE && l->op != MD_BLK_OP_READ && l->op != MD_BLK_OP_WRITE)
		return NULL;	/* discard, flush, zone ops: no data at stake */
	fs = fs_by_disk_sector(d, l->dev, l->sector);
	if (!fs) {
		log_debug("kmsg: %s sector %" PRIu64 " is not under a watched filesystem",
			  l->dev, l->sector);
		return NULL;
	}
	uint64_t byte = (l->sector - fs->bdev.start) * 512;	/* fits: sector_bytes() */
	uint64_t window = fs->bdev.max_io ? fs->bdev.max_io : DEFAULT_WINDOW;
	if (d->pipe && md_pipeline_self_inflicted(d->pipe, fs->dev, byte, 512)) {
		log_debug("kmsg: %s sector %" PRIu64 ": our own read", l->dev, l->sector);
		return NULL;
	}
	/* The sector is where the failed request started; the bad
	 * part is somewhere in it: read the request's extent. */
	ev = new_event(fs, MD_EV_RANGE, l);
	if (ev) {
		ev->start = byte;
		ev->length = window;
		ev->verify = true;
		ev->block_layer = true;
		ev->error = ev->error ? ev->error : EIO;
	}
	return ev;
}

/* The kernel says @fs was shut down: logged, recorded and notified once. */
static void note_shutdown(struct md_daemon *d, struct md_fs *fs)
{
	struct log_ctx lc = {
		.message_id = MD_MSGID_SHUTDOWN, .uuid = fs->uuid,
		.mountpoint = fs->mountpoint, .source = map_event_source_name(MAP_EVENT_KMSG),
	};

	if (fs->shut_down)
		return;
	log_ctx_msg(LOG_ERR, &lc, "%s %s: the filesystem was shut down", fs->uuid,
		    fs->mountpoint);
	fs->shut_down = true;
	md_db_fs_shut_down(d, fs);
	md_notify_post(MD_NOTIFY_SHUTDOWN, fs->uuid, fs->mountpoint, 0, -1);
}

/* An XFS line: the bytes, inode or filesystem it names. */
static struct md_event *xfs_event(struct md_daemon *d, const struct md_kmsg_line *l,
				  uint64_t start_bytes, uint64_t length_bytes)
{
	struct md_event *ev = NULL;
	struct md_fs *fs = md_fs_by_devname(d, l->dev);

	if (!fs) {
		log_debug("kmsg: XFS (%s) is not a watched filesystem", l->dev);
		return NULL;
	}
	switch (l->kind) {
	case MD_KMSG_XFS_METADATA_IO:
		ev = new_event(fs, MD_EV_RANGE, l);
		if (ev) {
			ev->start = start_bytes;
			ev->length = length_bytes;
			/* Unreadable: find exactly what.  Read but wrong: the
			 * whole buffer is damaged, reading it again says nothing. */
			ev->verify = is_media_errno(l->error);
		}
		break;
	case MD_KMSG_XFS_CORRUPT_BLOCK:
		ev = new_event(fs, MD_EV_RANGE, l);
		if (ev) {
			ev->start = start_bytes;
			ev->length = fs->blocksize ? fs->blocksize : 4096;
		}
		break;
	case MD_KMSG_XFS_CORRUPT_INODE:
		ev = new_event(fs, MD_EV_INODE, l);
		if (ev)
			ev->ino = l->ino;
		break;
	case MD_KMSG_XFS_SHUTDOWN:
		note_shutdown(d, fs);
		/* fall through */
	case MD_KMSG_XFS_CORRUPTION:
		ev = new_event(fs, MD_EV_FS, l);
		break;
	default:
		break;
	}
	return ev;
}

/* Turn a recognised line into an event for the filesystem it concerns. */
static struct md_event *event_for(struct md_daemon *d, const struct md_kmsg_line *l)
{
	uint64_t start_bytes, length_bytes;

	if (!own_record(l)) {
		log_debug("kmsg: a line shaped like the %s's own came with SUBSYSTEM=%s DEVICE=%s: "
			  "not taken", l->kind == MD_KMSG_BLOCK_ERROR ? "block layer" : "XFS",
			  l->subsystem, l->device);
		return NULL;
	}
	if (!sector_bytes(l, &start_bytes, &length_bytes)) {
		log_debug("kmsg: %s sector %" PRIu64 ": beyond any disk", l->dev, l->sector);
		return NULL;
	}
	if (l->kind == MD_KMSG_BLOCK_ERROR)
		return block_event(d, l);
	return xfs_event(d, l, start_bytes, length_bytes);
}

static void kmsg_ready(struct md_daemon *d, struct md_watch *w, uint32_t events)
{
	struct md_kmsg *k = w->arg;
	char *rec = malloc(KMSG_RECORD_MAX);

	(void)events;
	if (!rec)
		return;
	for (int records = 0; records < KMSG_RECORDS_PER_WAKEUP; records++) {
		struct md_kmsg_line l;
		ssize_t n = read(w->fd, rec, KMSG_RECORD_MAX - 1);

		if (n < 0) {
			if (errno == EPIPE) {
				log_warn("kmsg: the kernel log wrapped before we read it: "
					 "some messages were lost");
				continue;
			}
			if (errno == EINVAL) {
				/* a record larger than we expected: skip past it
				 * rather than be woken for it forever */
				log_warn("kmsg: a record too large to read; skipping to the end");
				lseek(w->fd, 0, SEEK_END);
			} else if (errno != EAGAIN && errno != EINTR) {
				log_err("kmsg: read: %s", map_strerror(errno));
			}
			break;
		}
		if (n == 0)
			break;
		rec[n] = '\0';
		if (md_kmsg_parse_record(rec, (size_t)n, &l) != 0 || l.kind == MD_KMSG_OTHER)
			continue;
		/* Only the kernel's own lines: anyone with write access to
		 * /dev/kmsg can add lines, but not with facility 0. */
		if (l.facility != 0)
			continue;
		struct md_event *ev = event_for(d, &l);
		if (!ev)
			continue;
		if (!within_rate(k, ev->uuid, md_mono())) {
			k->limited++;
			md_pipeline_count_limited(d->pipe, 1);
			free(ev);
			continue;
		}
		log_notice("%s %s: kernel log: %s", ev->uuid, ev->mountpoint, l.text);
		char uuid[sizeof(ev->uuid)], mnt[sizeof(ev->mountpoint)];
		snprintf(uuid, sizeof(uuid), "%s", ev->uuid);
		snprintf(mnt, sizeof(mnt), "%s", ev->mountpoint);
		if (md_pipeline_submit(d->pipe, ev) < 0) {	/* frees ev */
			k->dropped++;
			md_notify_post(MD_NOTIFY_REPORTS_LOST, uuid, mnt, 0, -1);
		}
	}
	warn_dropped(k, md_mono());
	free(rec);
}

int md_kmsg_start(struct md_daemon *d)
{
	struct md_kmsg *k;
	int rc;

	if (d->kmsg)
		return 0;
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->w.fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (k->w.fd < 0) {
		rc = -errno;
		free(k);
		return rc;
	}
	/* From now on only: old lines were dealt with, or are for a scan. */
	if (lseek(k->w.fd, 0, SEEK_END) < 0) {
		rc = -errno;
		close(k->w.fd);
		free(k);
		return rc;
	}
	k->w.ready = kmsg_ready;
	k->w.arg = k;
	rc = md_watch_add(d, &k->w, EPOLLIN);
	if (rc) {
		close(k->w.fd);
		free(k);
		return rc;
	}
	d->kmsg = k;
	return 0;
}

void md_kmsg_stop(struct md_daemon *d)
{
	struct md_kmsg *k = d->kmsg;

	if (!k)
		return;
	md_watch_del(d, &k->w);
	close(k->w.fd);
	free(k);
	d->kmsg = NULL;
}
