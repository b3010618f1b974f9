// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Verify media: read every written byte of the data device with O_DIRECT in
 * large reads, several in flight, and bisect failed reads down to the block
 * size to find the exact bad ranges.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "map_fsmap.h"
#include "map_internal.h"

#define DEFAULT_IO_SIZE		(4u << 20)
#define DEFAULT_INFLIGHT	4
#define PROGRESS_INTERVAL_NS	250000000LL	/* report progress 4 times a second */

#define IOPRIO_CLASS_SHIFT	13
#define IOPRIO_WHO_PROCESS	1

/* ---- written space ---- */

static int add_written(const struct fsmap *rec, void *arg)
{
	struct map_range_list *out = arg;

	if (rec->fmr_flags & FMR_OF_PREALLOC)
		return 0;	/* unwritten: reads return zeroes, nothing to lose */
	if (rec->fmr_flags & FMR_OF_SPECIAL_OWNER) {
		if (rec->fmr_owner == FMR_OWN_FREE || rec->fmr_owner == XFS_FMR_OWN_COW)
			return 0;
	}
	return map_range_add(out, rec->fmr_physical, rec->fmr_length);
}

int map_written_ranges(struct map_fs *fs, struct map_range_list *out)
{
	uint64_t end = fs->info.geo.datablocks * fs->info.geo.blocksize;
	int rc = map_fsmap_query(fs, 0, end ? end - 1 : UINT64_MAX, add_written, out);

	if (rc)
		return rc;
	/* Reflinked extents come once per owner; merging also drops those. */
	map_range_merge(out, 0);
	return 0;
}

/* ---- the reader pool ---- */

struct piece {
	uint64_t start;
	uint64_t length;
	bool done;
};

struct verify {
	const struct map_verify_opts *opts;
	int fd;
	uint32_t blocksize;
	uint32_t io_size;

	pthread_mutex_t lock;
	struct piece *pieces;
	size_t npieces, next, low;	/* next to hand out; lowest not done */
	uint64_t done_bytes;
	int64_t last_progress_ns;
	int64_t rate_next_ns;		/* token bucket: when the next read may start */
	int error;			/* first fatal error */
	bool cancelled;
	struct map_verify_stats stats;
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_until(int64_t t)
{
	struct timespec ts = { t / 1000000000LL, t % 1000000000LL };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int collect_piece(uint64_t start, uint64_t length, void *arg)
{
	struct verify *v = arg;

	if (v->npieces % 1024 == 0) {
		struct piece *p = realloc(v->pieces, (v->npieces + 1024) * sizeof(*p));

		if (!p)
			return -ENOMEM;
		v->pieces = p;
	}
	v->pieces[v->npieces++] = (struct piece){ start, length, false };
	return 0;
}

/* Errors that mean "this part of the disk is bad", as opposed to "we cannot run". */
static bool is_media_error(int err)
{
	return err == EIO || err == EILSEQ || err == ENODATA || err == EREMOTEIO ||
	       err == EBADMSG;
}

/*
 * Hold back until the byte-rate limit allows @bytes more.  Bisection reads
 * (@wait false) are only counted: they are small, and making them queue
 * behind every other reader's large reads would stall the lowest unfinished
 * piece, and with it the checkpoint position, for a long time.
 */
static void throttle(struct verify *v, uint64_t bytes, bool wait)
{
	int64_t start;

	if (!v->opts->rate)
		return;
	pthread_mutex_lock(&v->lock);
	int64_t now = now_ns();
	if (v->rate_next_ns < now)
		v->rate_next_ns = now;
	start = v->rate_next_ns;
	v->rate_next_ns += (int64_t)(bytes * 1000000000.0 / (double)v->opts->rate);
	pthread_mutex_unlock(&v->lock);
	if (wait && start > now)
		sleep_until(start);
}

/* Read all of [start, start+len); 0, or the positive errno of the failure
 * (a read past the end of the device counts as EIO). */
static int read_all(struct verify *v, void *buf, uint64_t start, uint64_t len, bool wait)
{
	uint64_t got = 0;

	throttle(v, len, wait);
	while (got < len) {
		ssize_t n = pread(v->fd, (char *)buf + got, len - got, (off_t)(start + got));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (n == 0)
			return EIO;	/* device shorter than the filesystem */
		got += (uint64_t)n;
	}
	return 0;
}

struct bad_run {
	uint64_t start, length;
	int error;
};

static void flush_bad(struct verify *v, struct bad_run *run)
{
	if (!run->length)
		return;
	pthread_mutex_lock(&v->lock);
	v->stats.bad_ranges++;
	v->stats.bytes_bad += run->length;
	if (v->opts->bad)
		v->opts->bad(run->start, run->length, run->error, v->opts->arg);
	pthread_mutex_unlock(&v->lock);
	run->length = 0;
}

static void note_bad(struct verify *v, struct bad_run *run, uint64_t start, uint64_t len, int err)
{
	if (run->length && run->start + run->length == start && run->error == err) {
		run->length += len;
		return;
	}
	flush_bad(v, run);
	*run = (struct bad_run){ start, len, err };
}

static void count_read(struct verify *v, uint64_t len, int err)
{
	pthread_mutex_lock(&v->lock);
	v->stats.reads++;
	v->stats.bytes_read += len;
	if (err)
		v->stats.failed_reads++;
	pthread_mutex_unlock(&v->lock);
}

/*
 * [start, start+len) failed as a whole: read its halves (block aligned) and
 * recurse into the ones that fail, down to single blocks.  Returns 0 or a
 * positive errno that is not a media error.
 */
static int bisect(struct verify *v, void *buf, uint64_t start, uint64_t len, int err,
		  struct bad_run *run)
{
	uint64_t bs = v->blocksize;

	if (len <= bs) {
		note_bad(v, run, start, len, err);
		return 0;
	}
	uint64_t half = (len / 2 + bs - 1) / bs * bs;
	uint64_t parts[2][2] = { { start, half }, { start + half, len - half } };

	for (int i = 0; i < 2; i++) {
		int e = read_all(v, buf, parts[i][0], parts[i][1], false);

		count_read(v, parts[i][1], e);
		if (e == 0)
			continue;
		if (!is_media_error(e))
			return e;
		e = bisect(v, buf, parts[i][0], parts[i][1], e, run);
		if (e)
			return e;
	}
	return 0;
}

static void report_progress(struct verify *v, bool force)
{
	int64_t now = now_ns();
	uint64_t position;

	if (!v->opts->progress)
		return;
	if (!force && now - v->last_progress_ns < PROGRESS_INTERVAL_NS)
		return;
	v->last_progress_ns = now;
	while (v->low < v->npieces && v->pieces[v->low].done)
		v->low++;
	if (v->low < v->npieces)
		position = v->pieces[v->low].start;
	else
		position = v->npieces ? v->pieces[v->npieces - 1].start +
					v->pieces[v->npieces - 1].length : 0;
	v->opts->progress(v->done_bytes, v->stats.bytes_total, position, v->opts->arg);
}

static void set_ioprio(const struct map_verify_opts *opts)
{
	if (opts->ioprio_class <= 0)
		return;
	int value = (opts->ioprio_class << IOPRIO_CLASS_SHIFT) |
		    (opts->ioprio_class == 2 ? (opts->ioprio_level & 7) : 0);
	/* Per thread: "who" 0 is the calling thread. */
	syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, value);
}

static void *reader(void *arg)
{
	struct verify *v = arg;
	void *buf = NULL;

	set_ioprio(v->opts);
	if (posix_memalign(&buf, 4096, v->io_size) != 0) {
		pthread_mutex_lock(&v->lock);
		if (!v->error)
			v->error = ENOMEM;
		pthread_mutex_unlock(&v->lock);
		return NULL;
	}
	for (;;) {
		struct piece *p;
		struct bad_run run = { 0, 0, 0 };

		pthread_mutex_lock(&v->lock);
		if (!v->cancelled && map_cancelled(v->opts->cancel))
			v->cancelled = true;
		if (v->error || v->cancelled || v->next >= v->npieces) {
			pthread_mutex_unlock(&v->lock);
			break;
		}
		p = &v->pieces[v->next++];
		pthread_mutex_unlock(&v->lock);

		int err = read_all(v, buf, p->start, p->length, true);
		count_read(v, p->length, err);
		if (err && is_media_error(err))
			err = bisect(v, buf, p->start, p->length, err, &run);
		flush_bad(v, &run);

		pthread_mutex_lock(&v->lock);
		if (err && !v->error)
			v->error = err;
		p->done = true;
		v->done_bytes += p->length;
		report_progress(v, false);
		pthread_mutex_unlock(&v->lock);
	}
	free(buf);
	return NULL;
}

int map_verify_media(struct map_fs *fs, const struct map_range_list *ranges,
		     const struct map_verify_opts *opts, struct map_verify_stats *stats)
{
	struct verify v;
	uint32_t nthreads;
	pthread_t *threads;
	int64_t t0 = now_ns();
	int rc = 0;

	memset(&v, 0, sizeof(v));
	v.opts = opts;
	v.blocksize = fs->info.geo.blocksize;
	v.io_size = opts->io_size ? opts->io_size : DEFAULT_IO_SIZE;
	if (v.io_size < v.blocksize)
		v.io_size = v.blocksize;
	v.io_size -= v.io_size % v.blocksize;
	nthreads = opts->inflight ? opts->inflight : DEFAULT_INFLIGHT;
	if (nthreads < 2)
		nthreads = 2;
	v.stats.bytes_total = map_range_total(ranges);

	for (size_t i = 0; i < ranges->n; i++) {
		rc = map_range_split(ranges->v[i].start, ranges->v[i].length, v.io_size,
				     v.blocksize, collect_piece, &v);
		if (rc)
			goto out_free;
	}

	v.fd = open(fs->info.device, O_RDONLY | O_DIRECT | O_CLOEXEC | O_NOATIME);
	if (v.fd < 0 && errno == EPERM)
		v.fd = open(fs->info.device, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (v.fd < 0) {
		rc = -errno;
		goto out_free;
	}
	pthread_mutex_init(&v.lock, NULL);
	threads = calloc(nthreads, sizeof(*threads));
	if (!threads) {
		rc = -ENOMEM;
		goto out_close;
	}
	uint32_t started = 0;
	for (; started < nthreads; started++) {
		if (pthread_create(&threads[started], NULL, reader, &v) != 0)
			break;
	}
	if (started == 0)
		rc = -EAGAIN;
	for (uint32_t i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	free(threads);

	report_progress(&v, true);
	v.stats.bytes_verified = v.done_bytes;
	if (!rc && v.error)
		rc = -v.error;
	if (!rc && v.cancelled)
		rc = -MAP_ECANCELED;
out_close:
	pthread_mutex_destroy(&v.lock);
	close(v.fd);
out_free:
	free(v.pieces);
	v.stats.seconds = (double)(now_ns() - t0) / 1e9;
	if (stats)
		*stats = v.stats;
	return rc;
}
