// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The event pipeline: a queue with de-duplication in front of one worker
 * thread.  The worker owns its own database connection and opens the
 * filesystem for each event only (a descriptor kept open would make umount
 * fail with EBUSY).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"
#include "dbwriter.h"
#include "dedup.h"
#include "dirwatch.h"
#include "fscache.h"
#include "findlog.h"
#include "health.h"
#include "log.h"
#include "map_healthmon.h"
#include "metrics_file.h"
#include "notify.h"
#include "pipeline.h"
#include "warmup.h"

#define QUEUE_MAX 1024
/* The kernel log can be made to say things by anyone (see kmsg_parse.h):
 * its reports may fill only half the queue, fanotify's always find room. */
#define KMSG_QUEUE_MAX (QUEUE_MAX / 2)
#define MAX_REQUESTS 32
#define READ_CURSORS 64		/* files whose partial reads we remember (LRU) */
#define SCAN_MARKS 64		/* filesystems whose last requested scans we remember */
#define RECENT_RANGES 64
#define SELF_INFLICTED_SECS 10.0	/* how long our own reads explain kernel log lines */
#define KMSG_WAIT_SECS 1.0		/* how long a fs-wide report waits for a located one */
#define MAX_SICK_INODES 64

struct recent_range {
	dev_t dev;
	uint64_t start, length;
	double until;			/* md_mono() */
};

struct located_fs {
	char uuid[40];
	double at;			/* md_mono() when a range was last located */
};

/* Where the next report of a file larger than the read limit starts reading,
 * so repeated reports cover it piece by piece instead of its start again. */
struct read_cursor {
	char uuid[40];
	uint64_t ino;
	uint32_t gen;
	uint64_t next;			/* bytes into its written extents */
	double used;			/* md_mono(); 0: free */
};

/* When a scan of a filesystem was last requested, per kind. */
struct scan_mark {
	char uuid[40];
	double metadata, media;		/* md_mono(); 0: never */
};

/* Start or stop a filesystem's directory index, or make it ready for its
 * first report (main thread to worker). */
struct dirwatch_req {
	char uuid[40];
	char mountpoint[PATH_MAX];
	bool on;
	bool warm;			/* md_pipeline_warm: not about the index */
};
#define DIRWATCH_REQS	64
/* While an index is built, slices of this many seconds between reports. */
#define DIRWATCH_SLICE	0.05
/* Otherwise its directory events are applied at least this often. */
#define DIRWATCH_EVERY	1.0

struct md_pipeline {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct md_event *head, *tail;
	size_t queued;
	bool stop;
	char db_path[PATH_MAX];
	size_t queued_kmsg;		/* of queued, from the kernel log */
	struct md_dedup dedup;
	struct md_pipeline_conf conf;
	struct md_pipeline_stats stats;
	struct recent_range recent[RECENT_RANGES];
	unsigned int next_recent;
	struct located_fs located[16];
	unsigned int next_located;
	struct md_scan_req reqs[MAX_REQUESTS];
	size_t nreqs;
	struct scan_mark marks[SCAN_MARKS];
	struct read_cursor cursors[READ_CURSORS];	/* worker thread only */
	struct md_dbwriter *db;				/* worker thread only */
	struct md_dbwriter_stats dbstats;		/* its last figures */
	bool release_db;				/* asked to give the database up */
	int notify_fd;
	struct dirwatch_req dwreqs[DIRWATCH_REQS];	/* for the worker, oldest first */
	size_t ndwreqs;
	struct md_dirwatch *dirwatch;			/* worker thread only */
	struct md_fscache *fscache;			/* worker thread only */
};

/* What one event turned into, before it is written. */
struct outcome {
	struct map_finding *v;
	size_t n;
	int bad_ranges;
	double read_s;			/* in verify(), for the debug log */
	uint64_t reads, failed_reads;
	char note[160];			/* appended to the event's detail */
	uint64_t healthy_ino;		/* an inode marked healthy: close its findings */
	uint32_t healthy_gen;
	char healthy_scrub[96];		/* of these scrub types */
};

/* ---- queue ---- */

static bool from_kmsg(const struct md_event *ev)
{
	return strcmp(ev->source, "kmsg") == 0;
}

void md_pipeline_count_limited(struct md_pipeline *p, uint64_t n)
{
	pthread_mutex_lock(&p->lock);
	p->stats.rate_limited += n;
	pthread_mutex_unlock(&p->lock);
}

int md_pipeline_submit(struct md_pipeline *p, struct md_event *ev)
{
	char key[MD_DEDUP_KEY];
	int rc = 0;

	md_dedup_key(ev, key, sizeof(key));
	pthread_mutex_lock(&p->lock);
	p->stats.received++;
	md_dedup_health(&p->dedup, ev);
	if (ev->count > 1)
		p->stats.merged++;
	/* A merged report stands for errors we have not seen: never drop it. */
	if (ev->count <= 1 &&
	    md_dedup_seen(&p->dedup, key, md_now_ms(), p->conf.dedup_window_ms)) {
		p->stats.duplicates++;
		rc = 1;
	} else if (p->queued >= QUEUE_MAX || (from_kmsg(ev) && p->queued_kmsg >= KMSG_QUEUE_MAX)) {
		p->stats.dropped++;
		rc = -ENOSPC;
	} else {
		ev->next = NULL;
		if (p->tail)
			p->tail->next = ev;
		else
			p->head = ev;
		p->tail = ev;
		p->queued++;
		p->queued_kmsg += from_kmsg(ev);
		pthread_cond_signal(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	if (rc)
		free(ev);
	return rc;
}

/*
 * The next event to handle.  Reports that name an inode or a place go
 * first: a filesystem-wide one is often explained by one of those (XFS
 * reports a metadata read error fs-wide and logs its daddr at once).
 */
static struct md_event *next_event(struct md_pipeline *p, double wait)
{
	struct md_event *ev = NULL, **pp;
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	if (wait >= 0) {
		until.tv_sec += (time_t)wait;
		until.tv_nsec += (long)((wait - (double)(time_t)wait) * 1e9);
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
	}
	pthread_mutex_lock(&p->lock);
	/* Woken for a report, a stop, a release of the database, or when the
	 * database writer has something due (@wait seconds; < 0: nothing). */
	while (!p->head && !p->stop && !p->release_db && !p->ndwreqs) {
		if (wait < 0)
			pthread_cond_wait(&p->cond, &p->lock);
		else if (pthread_cond_timedwait(&p->cond, &p->lock, &until) == ETIMEDOUT)
			break;
	}
	if (!p->stop && p->head) {
		for (pp = &p->head; *pp && (*pp)->kind == MD_EV_FS; pp = &(*pp)->next)
			;
		if (!*pp)
			pp = &p->head;
		ev = *pp;
		*pp = ev->next;
		if (p->tail == ev) {
			/* find the new tail */
			struct md_event *t = p->head;

			while (t && t->next)
				t = t->next;
			p->tail = t;
		}
		p->queued--;
		p->queued_kmsg -= from_kmsg(ev);
	}
	pthread_mutex_unlock(&p->lock);
	return ev;
}

/* ---- our own reads (block-layer lines they cause are not news) ---- */

/* Our reads of [start, start+length) explain kernel log lines until @until
 * (the same range again updates its entry). */
static void remember_read(struct md_pipeline *p, dev_t dev, uint64_t start, uint64_t length,
			  double until)
{
	pthread_mutex_lock(&p->lock);
	for (unsigned int i = 0; i < RECENT_RANGES; i++) {
		struct recent_range *r = &p->recent[i];

		if (r->dev == dev && r->start == start && r->length == length) {
			r->until = until;
			pthread_mutex_unlock(&p->lock);
			return;
		}
	}
	p->recent[p->next_recent] = (struct recent_range){ dev, start, length, until };
	p->next_recent = (p->next_recent + 1) % RECENT_RANGES;
	pthread_mutex_unlock(&p->lock);
}

bool md_pipeline_self_inflicted(struct md_pipeline *p, dev_t dev, uint64_t start,
				uint64_t length)
{
	double now = md_mono();
	bool ours = false;

	pthread_mutex_lock(&p->lock);
	for (unsigned int i = 0; i < RECENT_RANGES && !ours; i++) {
		const struct recent_range *r = &p->recent[i];

		ours = r->until > now && r->dev == dev && start < r->start + r->length &&
		       r->start < start + length;
	}
	pthread_mutex_unlock(&p->lock);
	return ours;
}

static void note_located(struct md_pipeline *p, const char *uuid)
{
	pthread_mutex_lock(&p->lock);
	snprintf(p->located[p->next_located].uuid, sizeof(p->located[0].uuid), "%s", uuid);
	p->located[p->next_located].at = md_mono();
	p->next_located = (p->next_located + 1) % 16;
	pthread_mutex_unlock(&p->lock);
}

/*
 * Did the kernel log locate an error of this filesystem a moment ago, or is
 * such a report waiting in the queue?  Then a fs-wide report needs no scan.
 */
static bool located_recently(struct md_pipeline *p, const char *uuid, double since)
{
	bool found = false;

	pthread_mutex_lock(&p->lock);
	for (unsigned int i = 0; i < 16 && !found; i++)
		found = p->located[i].at >= since && strcmp(p->located[i].uuid, uuid) == 0;
	for (struct md_event *e = p->head; e && !found; e = e->next)
		found = e->kind == MD_EV_RANGE && strcmp(e->uuid, uuid) == 0;
	pthread_mutex_unlock(&p->lock);
	return found;
}

/* ---- scan requests for the scheduler ---- */

static bool event_scans(struct md_pipeline *p)
{
	bool yes;

	pthread_mutex_lock(&p->lock);
	yes = p->conf.event_scans;
	pthread_mutex_unlock(&p->lock);
	return yes;
}

/*
 * Was a scan of this kind requested for @uuid less than event_scan_interval
 * ago?  Otherwise note that one is requested now.  Reports a user can cause
 * (reading a damaged file again) must not turn into one scan each.
 */
static bool scan_too_soon(struct md_pipeline *p, const char *uuid, bool metadata, bool media,
			  double now)
{
	double interval = (double)p->conf.scan_interval_ms / 1000;
	struct scan_mark *m = NULL, *oldest = &p->marks[0];

	for (int i = 0; i < SCAN_MARKS && !m; i++) {
		struct scan_mark *c = &p->marks[i];

		if (strcmp(c->uuid, uuid) == 0)
			m = c;
		else if ((c->metadata > c->media ? c->metadata : c->media) <
			 (oldest->metadata > oldest->media ? oldest->metadata : oldest->media))
			oldest = c;
	}
	if (!m) {
		m = oldest;
		memset(m, 0, sizeof(*m));
		snprintf(m->uuid, sizeof(m->uuid), "%s", uuid);
	}
	if ((metadata && m->metadata && now - m->metadata < interval) ||
	    (media && m->media && now - m->media < interval))
		return true;
	if (metadata)
		m->metadata = now;
	if (media)
		m->media = now;
	return false;
}

/* Ask the scheduler for a scan; false (and counted) when within the interval. */
static bool request_scan(struct md_pipeline *p, const char *uuid, bool metadata, bool media,
			 const char *reason)
{
	uint64_t one = 1;

	pthread_mutex_lock(&p->lock);
	if (scan_too_soon(p, uuid, metadata, media, md_mono())) {
		p->stats.scans_limited++;
		pthread_mutex_unlock(&p->lock);
		log_info("%s: no %s scan requested for \"%s\": one was requested less than "
			 "event_scan_interval ago", uuid, media ? "media" : "metadata", reason);
		return false;
	}
	if (p->nreqs < MAX_REQUESTS) {
		struct md_scan_req *r = &p->reqs[p->nreqs++];

		snprintf(r->uuid, sizeof(r->uuid), "%s", uuid);
		r->metadata = metadata;
		r->media = media;
		snprintf(r->reason, sizeof(r->reason), "%s", reason);
		p->stats.scans_requested++;
	}
	pthread_mutex_unlock(&p->lock);
	if (write(p->notify_fd, &one, sizeof(one)) < 0) {
		/* the counter is only a wake-up */
	}
	return true;
}

size_t md_pipeline_take_requests(struct md_pipeline *p, struct md_scan_req *out, size_t max)
{
	uint64_t v;
	size_t n;

	if (read(p->notify_fd, &v, sizeof(v)) < 0) {
		/* nothing to clear */
	}
	pthread_mutex_lock(&p->lock);
	n = p->nreqs < max ? p->nreqs : max;
	memcpy(out, p->reqs, n * sizeof(*out));
	memmove(p->reqs, p->reqs + n, (p->nreqs - n) * sizeof(*out));
	p->nreqs -= n;
	pthread_mutex_unlock(&p->lock);
	return n;
}

int md_pipeline_notify_fd(struct md_pipeline *p)
{
	return p->notify_fd;
}

/* ---- findings ---- */

static int outcome_add(struct outcome *o, struct map_finding *f)
{
	struct map_finding *v = realloc(o->v, (o->n + 1) * sizeof(*v));

	if (!v) {
		map_finding_clear(f);
		return -ENOMEM;
	}
	o->v = v;
	v[o->n++] = *f;		/* takes the paths */
	return 0;
}

static void outcome_free(struct outcome *o)
{
	for (size_t i = 0; i < o->n; i++)
		map_finding_clear(&o->v[i]);
	free(o->v);
	memset(o, 0, sizeof(*o));
}

static bool have_finding(const struct outcome *o, uint64_t ino, const char *kind,
			 uint64_t physical)
{
	for (size_t i = 0; i < o->n; i++)
		if (o->v[i].ino == ino && strcmp(o->v[i].kind, kind) == 0 &&
		    o->v[i].physical == physical)
			return true;
	return false;
}

/* Owners and paths of bad device bytes, as findings. */
static int locate_range(struct map_fs *fs, uint64_t start, uint64_t length, struct outcome *o)
{
	struct map_owner_list owners = { 0 };
	struct map_paths *paths = NULL;
	double t0 = md_mono();
	int rc = map_locate_paths(fs, start, length, &owners, &paths);

	log_debug("%s: located %" PRIu64 "+%" PRIu64 ": %zu owners in %.3f s", map_fs_info(fs)->uuid,
		  start, length, owners.n, md_mono() - t0);
	for (size_t k = 0; rc == 0 && k < owners.n; k++) {
		const struct map_owner *ow = &owners.v[k];
		struct map_finding f;

		if (ow->kind == MAP_OWNER_FREE) {
			log_info("%s: bad bytes %" PRIu64 "+%" PRIu64 " are free space: nothing lost",
				 map_fs_info(fs)->uuid, ow->physical, ow->length);
			continue;
		}
		if (ow->kind == MAP_OWNER_INODES && owners.n > 1)
			continue;	/* its inodes are recorded one by one */
		if (have_finding(o, ow->ino, map_owner_kind_name(ow->kind), ow->physical))
			continue;
		map_finding_from_owner(&f, "event", ow, paths ? &paths[k] : NULL);
		rc = outcome_add(o, &f);
	}
	map_paths_free(paths, owners.n);
	map_owner_list_free(&owners);
	return rc;
}

struct bad_list {
	struct map_range_list ranges;
	int error;
};

static void on_bad(uint64_t start, uint64_t length, int error, void *arg)
{
	struct bad_list *b = arg;

	(void)error;
	if (map_range_add(&b->ranges, start, length) && !b->error)
		b->error = -ENOMEM;
}

/* Every range a read proved bad, counted and mapped to its owners. */
static int locate_bad(struct map_fs *fs, const struct map_range_list *bad, struct outcome *o)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < bad->n; i++) {
		o->bad_ranges++;
		rc = locate_range(fs, bad->v[i].start, bad->v[i].length, o);
	}
	return rc;
}

/* Read @ranges of the data device; the bad ones go to @bad. */
static int verify(struct md_pipeline *p, struct map_fs *fs, const struct map_range_list *ranges,
		  struct bad_list *bad, struct outcome *o)
{
	const struct map_fs_info *info = map_fs_info(fs);
	/* Normal priority even when the service runs in the idle I/O class:
	 * these few reads stand between an error and its report.  Four 2 MiB
	 * reads at once: a 10 MiB file is read in two rounds, and a failed
	 * read is split in two more.  Larger reads would cost memory, and each
	 * failed one is read again whole (a report's reads beyond
	 * event_read_limit, which vm.mapperd_amplify bounds). */
	struct map_verify_opts vo = {
		.io_size = 2 * 1024 * 1024, .inflight = 4, .ioprio_class = 2, .ioprio_level = 4,
		.bad = on_bad, .arg = bad,
	};
	int rc;

	/* Failed reads of ours show up in the kernel log: mark them first. */
	for (size_t i = 0; i < ranges->n; i++)
		remember_read(p, (dev_t)info->dev, ranges->v[i].start, ranges->v[i].length,
			      md_mono() + 3600);
	double t0 = md_mono();
	struct map_verify_stats st = { 0 };
	rc = map_verify_media(fs, ranges, &vo, &st);
	o->read_s += md_mono() - t0;
	o->reads += st.reads;
	o->failed_reads += st.failed_reads;
	for (size_t i = 0; i < ranges->n; i++)
		remember_read(p, (dev_t)info->dev, ranges->v[i].start, ranges->v[i].length,
			      md_mono() + SELF_INFLICTED_SECS);
	return rc ? rc : bad->error;
}

/* A read of a filesystem made ready for reports (warmup.h). */
static void warm_read(struct map_fs *fs, const struct map_range_list *ranges, void *arg)
{
	struct bad_list bad = { 0 };
	struct outcome o = { 0 };

	verify(arg, fs, ranges, &bad, &o);
	if (bad.ranges.n)
		log_warn("%s: the block of the root directory's inode cannot be read",
			 map_fs_info(fs)->uuid);
	map_range_free(&bad.ranges);
}

static int look_at_range(struct md_pipeline *p, struct map_fs *fs, uint64_t start,
			 uint64_t length, bool do_verify, struct outcome *o)
{
	const struct map_fs_info *info = map_fs_info(fs);
	uint64_t size = info->geo.datablocks * info->geo.blocksize;
	struct bad_list bad = { 0 };
	int rc = 0;

	if (start >= size) {
		snprintf(o->note, sizeof(o->note), "; beyond the filesystem's end");
		return 0;
	}
	if (length > size - start)
		length = size - start;
	if (do_verify) {
		struct map_range_list want = { 0 };

		/* Whole filesystem blocks, so the reads are aligned. */
		uint64_t bs = info->geo.blocksize;
		uint64_t a = start / bs * bs, b = (start + length + bs - 1) / bs * bs;
		rc = map_range_add(&want, a, (b < size ? b : size) - a);
		if (rc == 0)
			rc = verify(p, fs, &want, &bad, o);
		map_range_free(&want);
	} else {
		rc = map_range_add(&bad.ranges, start, length);
	}
	if (rc == 0)
		rc = locate_bad(fs, &bad.ranges, o);
	if (rc == 0 && do_verify && bad.ranges.n == 0)
		snprintf(o->note, sizeof(o->note), "; the range reads fine now");
	map_range_free(&bad.ranges);
	return rc;
}

/* Ask the kernel's scrub about one inode; corrupt results become findings. */
static int scrub_inode(struct map_fs *fs, const struct md_sick_inode *si, struct outcome *o)
{
	const struct map_fs_info *info = map_fs_info(fs);
	uint32_t types[16];
	size_t n = map_scrub_inode_types(&info->geo, si->mode, si->has_attr, types, 16);
	struct map_paths *paths = NULL;
	size_t first = o->n;
	int rc = 0;

	/* Without online scrub every call fails ENOTTY: that says nothing
	 * about the inode, and must not become a finding. */
	if (map_scrub_probe(map_fs_fd(fs)) == -MAP_ENOSCRUB)
		return 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct map_scrub_result r = { .type = types[i], .ino = si->ino, .gen = si->gen };

		r.error = map_scrub_call(map_fs_fd(fs), types[i], 0, si->ino, si->gen, 0, &r.oflags);
		if (r.error == -ENOENT || r.error == -EBUSY || r.error == -EOPNOTSUPP)
			continue;
		if (!r.error && !map_scrub_oflags_corrupt(r.oflags))
			continue;
		struct map_finding f;

		map_finding_from_scrub(&f, &r);
		snprintf(f.source, sizeof(f.source), "event");
		f.mode = si->mode;
		rc = outcome_add(o, &f);
	}
	if (rc || o->n == first)
		return rc;
	if (map_resolve_paths(fs, &si->ino, 1, &paths, NULL) == 0) {
		for (size_t i = first; i < o->n; i++)
			for (size_t k = 0; k < paths[0].npaths; k++)
				map_finding_add_path(&o->v[i], paths[0].paths[k]);
		map_paths_free(paths, 1);
	}
	return 0;
}

/* The cursor of a file, a free or the least recently used one when new. */
static struct read_cursor *cursor_of(struct md_pipeline *p, const char *uuid, uint64_t ino,
				     uint32_t gen)
{
	struct read_cursor *c = NULL, *lru = &p->cursors[0];

	for (int i = 0; i < READ_CURSORS && !c; i++) {
		struct read_cursor *x = &p->cursors[i];

		if (x->used && x->ino == ino && x->gen == gen && strcmp(x->uuid, uuid) == 0)
			c = x;
		else if (x->used < lru->used)
			lru = x;
	}
	if (!c) {
		c = lru;
		*c = (struct read_cursor){ .ino = ino, .gen = gen };
		snprintf(c->uuid, sizeof(c->uuid), "%s", uuid);
	}
	c->used = md_mono();
	return c;
}

/* Bytes [skip, skip+max) of the concatenated @all, as device ranges in @out. */
static int ranges_window(const struct map_range_list *all, uint64_t skip, uint64_t max,
			 struct map_range_list *out)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < all->n && max; i++) {
		uint64_t start = all->v[i].start, len = all->v[i].length;

		if (skip >= len) {
			skip -= len;
			continue;
		}
		start += skip;
		len -= skip;
		skip = 0;
		if (len > max)
			len = max;
		rc = map_range_add(out, start, len);
		max -= len;
	}
	return rc;
}

/*
 * Which of a file's written ranges this report reads: all of them, or at most
 * event_read_limit bytes (whole blocks) from where the last report of the same
 * file stopped.  Says so in the note; *partial when not the whole file.
 */
static int choose_reads(struct md_pipeline *p, struct map_fs *fs, uint64_t ino, uint32_t gen,
			struct map_range_list *all, struct map_range_list *out, bool *partial,
			struct outcome *o)
{
	const struct map_fs_info *info = map_fs_info(fs);
	uint64_t total = map_range_total(all), limit, bs = info->geo.blocksize;
	struct read_cursor *c;
	int rc;

	pthread_mutex_lock(&p->lock);
	limit = p->conf.read_limit;
	pthread_mutex_unlock(&p->lock);
	*partial = false;
	if (!limit || total <= limit) {
		*out = *all;
		*all = (struct map_range_list){ 0 };
		return 0;
	}
	limit = bs && limit >= bs ? limit / bs * bs : (bs ? bs : limit);
	c = cursor_of(p, info->uuid, ino, gen);
	if (c->next >= total)
		c->next = 0;
	rc = ranges_window(all, c->next, limit, out);
	if (rc)
		return rc;
	snprintf(o->note, sizeof(o->note), "; read %" PRIu64 " of the file's %" PRIu64
		 " bytes from byte %" PRIu64 " (event_read_limit)", map_range_total(out), total,
		 c->next);
	c->next += limit;
	*partial = true;
	pthread_mutex_lock(&p->lock);
	p->stats.reads_limited++;
	pthread_mutex_unlock(&p->lock);
	return 0;
}

/*
 * An inode: read the extents of its data fork to find exactly which bytes
 * are bad (at most event_read_limit of them per report); when none are, ask
 * scrub whether its metadata is broken, and leave the rest of a file too
 * large to read at once to a media scan.
 */
static int look_at_inode(struct md_pipeline *p, struct map_fs *fs, uint64_t ino, uint32_t gen,
			 struct outcome *o)
{
	const struct map_fs_info *info = map_fs_info(fs);
	struct md_sick_inode si = { .ino = ino, .gen = gen };
	struct map_range_list ranges = { 0 }, reads = { 0 };
	struct bad_list bad = { 0 };
	bool partial = false;
	int fd, rc;

	rc = md_health_inode(fs, ino, &si);
	if (rc == -ENOENT || (rc == 0 && gen && si.gen != gen)) {
		snprintf(o->note, sizeof(o->note), "; inode %" PRIu64 " is gone", ino);
		return 0;
	}
	if (rc == -EUCLEAN && gen) {
		/* The kernel named an inode whose core fails verification: it
		 * cannot be loaded, but scrub can say so, and its names are in
		 * the directories. */
		si = (struct md_sick_inode){ .ino = ino, .gen = gen };
		return scrub_inode(fs, &si, o);
	}
	if (rc) {
		/* The inode itself cannot be read: its cluster is the damage. */
		uint64_t byte = map_geo_ino_to_byte(&info->geo, ino);

		return look_at_range(p, fs, byte, info->geo.inodesize, true, o);
	}
	fd = map_open_inode(fs, ino, si.gen, 0);
	if (fd >= 0) {
		rc = map_file_ranges(fd, &ranges);
		close(fd);
		if (rc == 0)
			rc = choose_reads(p, fs, ino, si.gen, &ranges, &reads, &partial, o);
		if (rc == 0 && reads.n)
			rc = verify(p, fs, &reads, &bad, o);
	} else if (fd != -ELOOP && fd != -EINVAL) {
		log_debug("%s: cannot open inode %" PRIu64 ": %s", info->uuid, ino, map_strerror(fd));
	}
	if (rc == 0)
		rc = locate_bad(fs, &bad.ranges, o);
	if (rc == 0 && bad.ranges.n == 0)
		rc = scrub_inode(fs, &si, o);
	if (rc == 0 && bad.ranges.n == 0 && o->n == 0 && partial && event_scans(p) &&
	    request_scan(p, info->uuid, false, true, "a file report larger than event_read_limit"))
		snprintf(o->note + strlen(o->note), sizeof(o->note) - strlen(o->note),
			 "; media scan requested for the rest");
	map_range_free(&ranges);
	map_range_free(&reads);
	map_range_free(&bad.ranges);
	return rc;
}

/*
 * File bytes whose I/O failed (health monitor): only the blocks under them
 * are read, never the whole file; a failed write is taken as it is (what
 * was meant to be there never reached the disk, so reading proves nothing).
 */
static int look_at_file_range(struct md_pipeline *p, struct map_fs *fs, const struct md_event *ev,
			      struct outcome *o)
{
	const struct map_fs_info *info = map_fs_info(fs);
	uint64_t bs = info->geo.blocksize ? info->geo.blocksize : 4096;
	uint64_t a = ev->start / bs * bs, limit;
	uint64_t b = ev->start + ev->length > UINT64_MAX - bs ? UINT64_MAX / bs * bs
		     : (ev->start + ev->length + bs - 1) / bs * bs;
	struct map_range_list dev = { 0 }, reads = { 0 };
	struct bad_list bad = { 0 };
	int fd, rc;

	fd = map_open_inode(fs, ev->ino, ev->gen, 0);
	if (fd < 0)	/* gone, or its inode cannot be read: as a whole-inode report */
		return look_at_inode(p, fs, ev->ino, ev->gen, o);
	rc = map_file_span_ranges(fd, a, b - a, &dev);
	close(fd);
	if (rc == 0 && dev.n == 0) {
		snprintf(o->note, sizeof(o->note), "; no written blocks under bytes %" PRIu64 "+%"
			 PRIu64 " now", ev->start, ev->length);
		return 0;
	}
	pthread_mutex_lock(&p->lock);
	limit = p->conf.read_limit;
	pthread_mutex_unlock(&p->lock);
	if (rc == 0 && ev->write) {
		bad.ranges = dev;
		dev = (struct map_range_list){ 0 };
	} else if (rc == 0) {
		/* The kernel's range is a folio or a bio: bounded, but a hostile
		 * file's could be large; at most event_read_limit is read. */
		uint64_t max = limit < bs ? bs : limit / bs * bs;

		if (limit && map_range_total(&dev) > max) {
			rc = ranges_window(&dev, 0, max, &reads);
			snprintf(o->note, sizeof(o->note), "; read the first %" PRIu64 " bytes of the "
				 "range (event_read_limit)", max);
		} else {
			reads = dev;
			dev = (struct map_range_list){ 0 };
		}
		if (rc == 0)
			rc = verify(p, fs, &reads, &bad, o);
		if (rc == 0 && bad.ranges.n == 0)
			snprintf(o->note, sizeof(o->note), "; the range reads fine now");
	}
	if (rc == 0)
		rc = locate_bad(fs, &bad.ranges, o);
	map_range_free(&dev);
	map_range_free(&reads);
	map_range_free(&bad.ranges);
	return rc;
}

/*
 * An object the kernel marked sick or corrupt (health monitor): an inode is
 * scrubbed, so what scrub confirms becomes a finding with its paths; the
 * filesystem's or a group's metadata gets a metadata scan.  An inode healthy
 * again closes its metadata findings of the aspects the kernel names (when
 * the event is recorded); a group or the filesystem healthy again is
 * recorded as an event only (a later scan resolves what it no longer sees).
 */
static int look_at_sick(struct md_pipeline *p, struct map_fs *fs, const struct md_event *ev,
			struct outcome *o)
{
	const struct map_fs_info *info = map_fs_info(fs);
	struct md_sick_inode si = { .ino = ev->ino, .gen = ev->gen };
	char why[96];
	int rc;

	if (ev->type == MAP_HM_TYPE_HEALTHY) {
		if (ev->domain == MAP_HM_DOMAIN_INODE &&
		    map_healthmon_inode_scrub(ev->mask, o->healthy_scrub,
					      sizeof(o->healthy_scrub))) {
			o->healthy_ino = ev->ino;
			o->healthy_gen = ev->gen;
		}
		snprintf(o->note, sizeof(o->note), "; marked healthy again");
		return 0;
	}
	if (ev->domain == MAP_HM_DOMAIN_INODE) {
		rc = md_health_inode(fs, ev->ino, &si);
		if (rc == -ENOENT || (rc == 0 && ev->gen && si.gen != ev->gen)) {
			snprintf(o->note, sizeof(o->note), "; inode %" PRIu64 " is gone", ev->ino);
			return 0;
		}
		if (rc)
			si = (struct md_sick_inode){ .ino = ev->ino, .gen = ev->gen };
		return scrub_inode(fs, &si, o);
	}
	if (ev->type == MAP_HM_TYPE_MEDIA_ERROR) {
		snprintf(o->note, sizeof(o->note), "; not mapped: only the data device is");
		return 0;
	}
	if (ev->domain == MAP_HM_DOMAIN_AG && ev->gno >= info->geo.agcount) {
		snprintf(o->note, sizeof(o->note), "; no allocation group %" PRIu32, ev->gno);
		return 0;
	}
	if (!event_scans(p))
		return 0;
	snprintf(why, sizeof(why), "kernel marked %s %s (healthmon)",
		 ev->domain == MAP_HM_DOMAIN_FS ? "filesystem metadata" :
		 ev->domain == MAP_HM_DOMAIN_AG ? "an allocation group" : "a realtime group",
		 map_healthmon_type_name(ev->type));
	bool asked = request_scan(p, info->uuid, true, false, why);
	snprintf(o->note, sizeof(o->note), "; %s", asked ? "metadata scan requested"
		 : "no metadata scan: one was requested within event_scan_interval");
	return 0;
}

static bool is_media_error(int error)
{
	return error == EIO || error == ENODATA || error == EILSEQ || error == EREMOTEIO ||
	       error == ENOLINK || error == ETIMEDOUT || error == ENODEV;
}

/* Wait up to KMSG_WAIT_SECS for the kernel log to place an error of @uuid. */
static bool wait_located(struct md_pipeline *p, const char *uuid, double reported)
{
	while (!located_recently(p, uuid, reported - 5)) {
		if (md_mono() >= reported + KMSG_WAIT_SECS)
			return false;
		usleep(50 * 1000);
	}
	return true;
}

/*
 * fanotify kept only the first of several errors, or named no inode: look
 * at what the kernel marked sick, and scan for what it cannot tell us.
 */
static int look_at_health(struct md_pipeline *p, struct map_fs *fs, const struct md_event *ev,
			  struct outcome *o)
{
	const struct map_fs_info *info = map_fs_info(fs);
	struct md_health h;
	bool scans;
	int rc;

	pthread_mutex_lock(&p->lock);
	scans = p->conf.event_scans;
	pthread_mutex_unlock(&p->lock);

	if (ev->kind == MD_EV_FS && ev->error == ESHUTDOWN) {
		snprintf(o->note, sizeof(o->note), "; the filesystem is shut down");
		return 0;
	}
	if (ev->kind == MD_EV_FS && ev->error == ENOBUFS) {
		/* The kernel had no room for some of its error reports: they
		 * may be anywhere, and only scanning everything finds them. */
		if (scans) {
			char why[96];

			snprintf(why, sizeof(why), "the kernel lost error reports (%s)",
				 strcmp(ev->source, "fanotify") ? ev->source : "fanotify ENOBUFS");
			bool asked = request_scan(p, info->uuid, true, true, why);
			snprintf(o->note, sizeof(o->note), "; %s", asked ? "full scan requested: the "
				 "kernel lost error reports" : "no scan: one was requested within "
				 "event_scan_interval");
		}
		return 0;
	}
	if (ev->kind == MD_EV_FS && ev->count <= 1 && is_media_error(ev->error)) {
		/* A metadata block could not be read (file data errors name
		 * their inode).  Read errors mark nothing sick; the kernel log
		 * line has the place.  Without it only a scan can find it. */
		if (wait_located(p, info->uuid, ev->received)) {
			snprintf(o->note, sizeof(o->note), "; placed by the kernel log");
		} else if (scans) {
			bool asked = request_scan(p, info->uuid, true, false, "metadata read error "
						  "the kernel did not place (fanotify)");
			snprintf(o->note, sizeof(o->note), "; %s", asked ? "metadata scan requested"
				 : "no metadata scan: one was requested within event_scan_interval");
		}
		return 0;
	}
	rc = md_health_geometry(fs, &h);
	if (rc == 0)
		rc = md_health_inodes(fs, &h, MAX_SICK_INODES);
	for (size_t i = 0; rc == 0 && i < h.ninodes; i++) {
		if (h.inodes[i].ino == ev->ino)
			continue;	/* already looked at */
		rc = scrub_inode(fs, &h.inodes[i], o);
	}
	if (rc == 0 && (h.fs_sick || h.sick_ags) && scans) {
		char why[96];

		snprintf(why, sizeof(why), "kernel marked %s sick (%s report)",
			 h.sick_ags ? "allocation groups" : "filesystem metadata", ev->source);
		bool asked = request_scan(p, info->uuid, true, false, why);
		snprintf(o->note, sizeof(o->note), "; %s", asked ? "metadata scan requested"
			 : "no metadata scan: one was requested within event_scan_interval");
	}
	if (rc == 0 && scans && ev->count > 1 && is_media_error(ev->error)) {
		/* Merged read errors: only the first one's inode is known; the
		 * others may be file data anywhere, which only reading finds. */
		if (request_scan(p, info->uuid, false, true,
				 "several read errors merged into one report (fanotify)"))
			snprintf(o->note, sizeof(o->note), "; media scan requested for the other %"
				 PRIu32 " errors", ev->count - 1);
		else
			snprintf(o->note, sizeof(o->note), "; no media scan for the other %" PRIu32
				 " errors: one was requested within event_scan_interval",
				 ev->count - 1);
	}
	md_health_free(&h);
	return rc;
}

/* ---- one event ---- */

static bool stopping_cb(void *arg)
{
	struct md_pipeline *p = arg;
	bool stop;

	pthread_mutex_lock(&p->lock);
	stop = p->stop;
	pthread_mutex_unlock(&p->lock);
	return stop;
}


/*
 * Write what @ev turned into through the database writer (or its spool).
 * @info is the filesystem's, or NULL when it could not be opened (then only
 * the report's uuid and mount point are known).  0 written or kept.
 */
static int record(struct md_pipeline *p, const struct map_fs_info *info, const struct md_event *ev,
		  struct outcome *o, int *nnew)
{
	struct md_spool_entry *e = calloc(1, sizeof(*e));
	int rc;

	*nnew = 0;
	if (!e)
		return -ENOMEM;
	if (info) {
		e->have_info = true;
		e->info = *info;
	} else {
		snprintf(e->info.uuid, sizeof(e->info.uuid), "%s", ev->uuid);
		snprintf(e->info.mountpoint, sizeof(e->info.mountpoint), "%s", ev->mountpoint);
	}
	e->row = (struct map_event){ .ino = ev->ino, .gen = ev->gen, .error = ev->error };
	snprintf(e->row.source, sizeof(e->row.source), "%s", ev->source);
	snprintf(e->row.detail, sizeof(e->row.detail), "%.160s; %zu finding%s%.80s", ev->detail,
		 o->n, o->n == 1 ? "" : "s", o->note);
	e->v = o->v;			/* lent, not given */
	e->n = o->n;
	e->healthy_ino = o->healthy_ino;
	e->healthy_gen = o->healthy_gen;
	snprintf(e->healthy_scrub, sizeof(e->healthy_scrub), "%s", o->healthy_scrub);
	md_notify_batch_begin(e->info.uuid, e->info.mountpoint);
	rc = md_dbwriter_write(p->db, e, nnew, stopping_cb, p);
	md_notify_batch_end(e->info.uuid, e->info.mountpoint, rc == 0 ? *nnew : 0, -1);
	free(e);
	pthread_mutex_lock(&p->lock);
	md_dbwriter_get_stats(p->db, &p->dbstats);
	pthread_mutex_unlock(&p->lock);
	return rc < 0 ? rc : 0;
}


static int process(struct md_pipeline *p, struct md_event *ev)
{
	struct outcome o = { 0 };
	struct map_fs *fs;
	int nnew = 0, rc;
	double t_start = md_mono();

	rc = md_fscache_open(p->fscache, ev->mountpoint, ev->uuid, &fs);
	double t_opened = md_mono();
	if (rc == 0)
		md_dirwatch_attach(p->dirwatch, ev->uuid, fs);
	if (rc) {
		if (ev->kind == MD_EV_FS && ev->error == ESHUTDOWN && rc != -MAP_EUNMOUNTED) {
			/* A shut-down filesystem cannot be opened, but its
			 * shutdown is news worth a row all the same. */
			snprintf(o.note, sizeof(o.note), "; the filesystem is shut down");
			return record(p, NULL, ev, &o, &nnew);
		}
		log_notice("%s %s: %s report dropped: %s", ev->uuid, ev->mountpoint, ev->source,
			   map_strerror(rc));
		return rc;
	}
	switch (ev->kind) {
	case MD_EV_INODE:
		rc = look_at_inode(p, fs, ev->ino, ev->gen, &o);
		break;
	case MD_EV_RANGE:
		rc = look_at_range(p, fs, ev->start, ev->length, ev->verify, &o);
		if (rc == 0 && o.bad_ranges)
			note_located(p, ev->uuid);
		break;
	case MD_EV_FILE:
		rc = look_at_file_range(p, fs, ev, &o);
		break;
	case MD_EV_HEALTH:
		rc = look_at_sick(p, fs, ev, &o);
		break;
	case MD_EV_FS:
		break;
	}
	double t_looked = md_mono();
	if (rc == 0 && (ev->kind == MD_EV_FS || ev->count > 1))
		rc = look_at_health(p, fs, ev, &o);
	double t_health = md_mono();
	/* The filesystem is closed first: nothing of it stays open while
	 * the database (maybe busy, maybe away) is written. */
	struct map_fs_info *info = rc == 0 ? malloc(sizeof(*info)) : NULL;
	if (info)
		*info = *map_fs_info(fs);
	else if (rc == 0)
		rc = -ENOMEM;
	map_fs_close(fs);
	fs = NULL;
	if (rc == 0)
		rc = record(p, info, ev, &o, &nnew);
	free(info);
	log_debug("%s: %s report handled in %.3f s after it was read: queued %.3f, open %.3f, "
		  "read+locate %.3f (reads %.3f: %" PRIu64 ", %" PRIu64 " failed), health %.3f, "
		  "store %.3f", ev->uuid, ev->source, md_mono() - ev->received,
		  t_start - ev->received, t_opened - t_start, t_looked - t_opened, o.read_s,
		  o.reads, o.failed_reads, t_health - t_looked, md_mono() - t_health);
	if (rc)
		log_err("%s %s: %s report (%s): %s", ev->uuid, ev->mountpoint, ev->source, ev->detail,
			map_strerror(rc));
	else if (o.n == 0)
		log_notice("%s %s: %s report (%s): nothing damaged found%s", ev->uuid,
			   ev->mountpoint, ev->source, ev->detail, o.note);

	double latency = md_mono() - ev->received;
	pthread_mutex_lock(&p->lock);
	if (rc == 0) {
		p->stats.findings += o.n;
		p->stats.new_findings += (uint64_t)nnew;
		p->stats.last_latency = latency;
		if (latency > p->stats.max_latency)
			p->stats.max_latency = latency;
	}
	pthread_mutex_unlock(&p->lock);
	outcome_free(&o);
	return rc;
}

static void fs_request(struct md_pipeline *p, const char *uuid, const char *mountpoint, bool on,
		       bool warm)
{
	pthread_mutex_lock(&p->lock);
	if (warm && p->ndwreqs == DIRWATCH_REQS) {
		pthread_mutex_unlock(&p->lock);	/* only a head start: never in the way */
		return;
	}
	if (p->ndwreqs == DIRWATCH_REQS) {	/* bounded: the oldest goes */
		memmove(&p->dwreqs[0], &p->dwreqs[1], (DIRWATCH_REQS - 1) * sizeof(p->dwreqs[0]));
		p->ndwreqs--;
	}
	struct dirwatch_req *r = &p->dwreqs[p->ndwreqs++];
	snprintf(r->uuid, sizeof(r->uuid), "%s", uuid);
	snprintf(r->mountpoint, sizeof(r->mountpoint), "%s", mountpoint);
	r->on = on;
	r->warm = warm;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

void md_pipeline_track_dirs(struct md_pipeline *p, const char *uuid, const char *mountpoint,
			    bool on)
{
	fs_request(p, uuid, mountpoint, on, false);
}

void md_pipeline_warm(struct md_pipeline *p, const char *uuid, const char *mountpoint)
{
	fs_request(p, uuid, mountpoint, false, true);
}

/* Requests from the main thread, then events and a slice of building when
 * due; returns how long the worker may sleep (< 0: until woken). */
static double keep_dirs(struct md_pipeline *p, double wait, double *last, bool *building)
{
	struct dirwatch_req reqs[DIRWATCH_REQS];
	size_t n;
	bool busy;

	pthread_mutex_lock(&p->lock);
	n = p->ndwreqs;
	memcpy(reqs, p->dwreqs, n * sizeof(reqs[0]));
	p->ndwreqs = 0;
	busy = p->head != NULL;
	pthread_mutex_unlock(&p->lock);
	for (size_t i = 0; i < n; i++) {
		if (reqs[i].warm) {
			md_warmup_fs(p->fscache, p->db, warm_read, p, reqs[i].uuid,
				     reqs[i].mountpoint);
			continue;
		}
		md_dirwatch_set(p->dirwatch, reqs[i].uuid, reqs[i].mountpoint, reqs[i].on);
		*building = true;	/* look at it now */
	}
	if ((*building && !busy) || md_mono() - *last >= DIRWATCH_EVERY) {
		*building = md_dirwatch_work(p->dirwatch, busy ? 0 : DIRWATCH_SLICE);
		*last = md_mono();
	}
	if (*building)
		return 0;
	if (wait < 0 || wait > DIRWATCH_EVERY)
		return DIRWATCH_EVERY;
	return wait;
}

static void *worker(void *arg)
{
	struct md_pipeline *p = arg;
	struct md_event *ev;
	double dir_last = 0;
	bool dir_building = false;
	double wait = keep_dirs(p, md_dbwriter_tick(p->db), &dir_last, &dir_building);

	for (;;) {
		bool release;

		ev = next_event(p, wait);
		pthread_mutex_lock(&p->lock);
		release = p->release_db;
		p->release_db = false;
		pthread_mutex_unlock(&p->lock);
		if (release)
			md_dbwriter_release(p->db);
		if (ev) {
			int rc = process(p, ev);

			md_fscache_relearn(p->fscache);	/* after the report, not before */

			pthread_mutex_lock(&p->lock);
			if (rc)
				p->stats.failed++;
			else
				p->stats.processed++;
			pthread_mutex_unlock(&p->lock);
			free(ev);
		} else if (stopping_cb(p)) {
			break;
		}
		pthread_mutex_lock(&p->lock);
		struct md_report_counts counts = {
			.received = p->stats.received, .duplicates = p->stats.duplicates,
			.queue_full = p->stats.dropped, .rate_limited = p->stats.rate_limited,
			.spool_full = p->stats.spool_dropped, .failed = p->stats.failed,
		};
		pthread_mutex_unlock(&p->lock);
		md_metrics_file_set_counts(&counts);
		wait = keep_dirs(p, md_dbwriter_tick(p->db), &dir_last, &dir_building);
		struct md_dirwatch_stats dws;
		md_dirwatch_get_stats(p->dirwatch, &dws);
		struct md_fscache_stats fcs;
		md_fscache_get_stats(p->fscache, &fcs);
		pthread_mutex_lock(&p->lock);
		p->stats.dirindex = dws;
		p->stats.fs_reopens = fcs.reopens;
		p->stats.fs_full_opens = fcs.full_opens;
		md_dbwriter_get_stats(p->db, &p->dbstats);
		pthread_mutex_unlock(&p->lock);
	}
	return NULL;
}

void md_pipeline_release_db(struct md_pipeline *p)
{
	pthread_mutex_lock(&p->lock);
	p->release_db = true;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

/* ---- life cycle ---- */

int md_pipeline_start(const char *db_path, const char *spool_dir, struct md_pipeline **out)
{
	struct md_pipeline *p = calloc(1, sizeof(*p));
	int rc;

	*out = NULL;
	if (!p)
		return -ENOMEM;
	snprintf(p->db_path, sizeof(p->db_path), "%s", db_path);
	p->conf = (struct md_pipeline_conf){ .dedup_window_ms = 2000, .event_scans = true };
	rc = md_dbwriter_open(db_path, spool_dir, &p->db);
	if (rc) {
		free(p);
		return rc;
	}
	md_dbwriter_get_stats(p->db, &p->dbstats);
	p->fscache = md_fscache_new();
	p->dirwatch = p->fscache ? md_dirwatch_new(p->fscache) : NULL;
	p->notify_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (p->notify_fd < 0 || !p->dirwatch) {
		rc = p->notify_fd < 0 ? -errno : -ENOMEM;
		if (p->notify_fd >= 0)
			close(p->notify_fd);
		md_dirwatch_free(p->dirwatch);
		md_fscache_free(p->fscache);
		md_dbwriter_close(p->db);
		free(p);
		return rc;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	rc = -pthread_create(&p->thread, NULL, worker, p);
	if (rc) {
		md_dbwriter_close(p->db);
		md_dirwatch_free(p->dirwatch);
		md_fscache_free(p->fscache);
		close(p->notify_fd);
		pthread_mutex_destroy(&p->lock);
		pthread_cond_destroy(&p->cond);
		free(p);
		return rc;
	}
	*out = p;
	return 0;
}

void md_pipeline_configure(struct md_pipeline *p, const struct md_pipeline_conf *conf)
{
	pthread_mutex_lock(&p->lock);
	p->conf = *conf;
	pthread_mutex_unlock(&p->lock);
}

void md_pipeline_get_stats(struct md_pipeline *p, struct md_pipeline_stats *out)
{
	pthread_mutex_lock(&p->lock);
	*out = p->stats;
	out->queued = p->queued;
	out->spooled = p->dbstats.spooled;
	out->spool_dropped = p->dbstats.spool_dropped;
	out->replayed = p->dbstats.replayed;
	out->spool_pending = p->dbstats.pending;
	out->db_down = p->dbstats.down;
	pthread_mutex_unlock(&p->lock);
}

void md_pipeline_stop(struct md_pipeline *p)
{
	size_t dropped = 0;

	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	while (p->head) {
		struct md_event *ev = p->head;

		p->head = ev->next;
		free(ev);
		dropped++;
	}
	if (dropped)
		log_notice("event pipeline: %zu queued reports dropped at exit", dropped);
	md_dbwriter_close(p->db);
	md_dirwatch_free(p->dirwatch);
	md_fscache_free(p->fscache);
	close(p->notify_fd);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	free(p);
}
