// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Verify media: read every written byte of the data device with O_DIRECT in
 * large reads, several in flight, and split failed reads (many parts read at
 * once) down to the block size to find the exact bad ranges.
 *
 * Which bytes are in use, and why the threads that find them drop
 * CAP_SYS_ADMIN, is verify_written.c's.
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
#include "verify_internal.h"

#define DEFAULT_IO_SIZE		MAP_VERIFY_IO_SIZE_DEFAULT
/*
 * Two reads in flight: while one read's data is handed back, the other keeps
 * the device busy.  The device sees more than two requests anyway, as the
 * block layer splits each 4 MiB read at the queue's max_sectors_kb (by
 * default at most 1280 KiB: 4 or more requests per read).  Measured
 * in our guest on one host CPU (bench, 300 MiB, medians of five): 2 reads in
 * flight at 714 MiB/s, 4 at 665, fio's best 769; at 2.4 GiB the depths tied.
 * Callers that want more pass map_verify_opts.inflight.
 */
#define DEFAULT_INFLIGHT	2
#define PROGRESS_INTERVAL_NS	250000000LL	/* report progress 4 times a second */

#define IOPRIO_CLASS_SHIFT	13
#define IOPRIO_WHO_PROCESS	1

/* ---- the reader pool ---- */

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

int verify_collect_piece(uint64_t start, uint64_t length, void *arg)
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
 * Hold back until the byte-rate limit allows @bytes more.  Re-reads of a
 * failed read's parts (@wait false) are only counted: they are small, and
 * making them queue behind every other reader's large reads would stall the
 * lowest unfinished piece, and with it the checkpoint position, for a long
 * time.
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

struct bad_report {
	struct verify *v;
	int error;
};

static int report_bad(uint64_t start, uint64_t length, void *arg)
{
	struct bad_report *r = arg;
	struct verify *v = r->v;

	pthread_mutex_lock(&v->lock);
	v->stats.bad_ranges++;
	v->stats.bytes_bad += length;
	pthread_mutex_unlock(&v->lock);
	if (v->opts->bad) {
		pthread_mutex_lock(&v->cb_lock);
		v->opts->bad(start, length, r->error, v->opts->arg);
		pthread_mutex_unlock(&v->cb_lock);
	}
	return 0;
}

/* Report a bad range.  A piece's bad ranges are reported before the piece is
 * marked done, so a progress position past it always comes after them. */
static void flush_bad(struct verify *v, struct bad_run *run)
{
	struct bad_report r = { v, run->error };
	struct map_range_list written = { 0 };

	if (!run->length)
		return;
	/* Only the written parts of allocated space are damage.  This thread
	 * kept CAP_SYS_ADMIN: the query walks the reverse mapping, over the
	 * bad range only.  If it fails, report the whole range (a false alarm
	 * in a preallocated extent beats a missed one). */
	if (v->clip && map_fsmap_query(v->fs, run->start, run->start + run->length - 1,
				       verify_add_written, &written) == 0) {
		map_range_merge(&written, 0);
		map_range_intersect(&written, run->start, run->length, report_bad, &r);
	} else {
		report_bad(run->start, run->length, &r);
	}
	map_range_free(&written);
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

/* Up to this many parts per split: a 1 MiB or 4 MiB read with one bad 4 KiB
 * block is found in two splits (halving takes 8 or 10, two reads each, one
 * after the other). */
#define SPLIT_WAYS MAP_READ_PARTS_MAX

/*
 * Read the @n parts of [start, ...) into @buf (which holds from @start),
 * each part's outcome in errs[].  Parts next to each other and issued
 * together are merged by the block layer into one request, which fails as a
 * whole (seen on scsi_debug): so every other part is read at once, then the
 * rest.  Where they cannot be issued together (see map_read_parts) they are
 * read one by one.
 */
static void read_apart(struct verify *v, char *buf, uint64_t start, const struct map_range *parts,
		       int n, int *errs)
{
	for (int first = 0; first < 2 && first < n; first++) {
		struct map_range batch[SPLIT_WAYS / 2];
		int berr[SPLIT_WAYS / 2], m = 0;
		uint64_t bytes = 0;

		for (int i = first; i < n; i += 2) {
			batch[m++] = parts[i];
			bytes += parts[i].length;
		}
		if (m == 0)
			break;
		if (map_read_parts(v->fd, buf + (batch[0].start - start), batch, m, berr) == 0)
			throttle(v, bytes, false);
		else
			for (int k = 0; k < m; k++)
				berr[k] = read_all(v, buf + (batch[k].start - start), batch[k].start,
						   batch[k].length, false);
		for (int k = 0; k < m; k++)
			errs[first + 2 * k] = berr[k];
	}
}

/*
 * [start, start+len) failed as a whole: read it again as up to SPLIT_WAYS
 * block-aligned parts (read_apart), and split each part that fails the same
 * way, down to single blocks.  On a device where a read costs milliseconds
 * whatever its size (and a failing one may cost seconds), the rounds are
 * the cost, not the bytes.  @buf holds @len bytes.  Returns 0 or a positive
 * errno that is not a media error.
 */
static int split_failed(struct verify *v, char *buf, uint64_t start, uint64_t len, int err,
			struct bad_run *run)
{
	uint64_t bs = v->blocksize;
	struct map_range parts[SPLIT_WAYS];
	int errs[SPLIT_WAYS], n = 0;

	if (len <= bs) {
		note_bad(v, run, start, len, err);
		return 0;
	}
	uint64_t per = ((len + bs - 1) / bs + SPLIT_WAYS - 1) / SPLIT_WAYS * bs;

	for (uint64_t off = 0; off < len; off += per)
		parts[n++] = (struct map_range){ start + off, len - off < per ? len - off : per };
	read_apart(v, buf, start, parts, n, errs);
	for (int i = 0; i < n; i++)
		count_read(v, parts[i].length, errs[i]);
	for (int i = 0; i < n; i++) {
		if (errs[i] == 0)
			continue;
		if (!is_media_error(errs[i]))
			return errs[i];
		int e = split_failed(v, buf + (parts[i].start - start), parts[i].start,
				     parts[i].length, errs[i], run);
		if (e)
			return e;
	}
	return 0;
}

struct progress_note {
	bool due;
	uint64_t done, total, position;
};

/* With @lock held: whether progress is due, and what to say. */
static struct progress_note progress_due(struct verify *v, bool force)
{
	struct progress_note n = { false, 0, 0, 0 };
	int64_t now = now_ns();

	if (!v->opts->progress)
		return n;
	if (!force && now - v->last_progress_ns < PROGRESS_INTERVAL_NS)
		return n;
	v->last_progress_ns = now;
	while (v->low < v->npieces && v->pieces[v->low].done)
		v->low++;
	if (v->low < v->npieces)
		n.position = v->pieces[v->low].start;
	else
		n.position = v->npieces ? v->pieces[v->npieces - 1].start +
					  v->pieces[v->npieces - 1].length : 0;
	n.due = true;
	n.done = v->done_bytes;
	n.total = v->stats.bytes_total;
	return n;
}

/* Without @lock: call the progress callback.  A routine report is skipped
 * while another callback is still running; a forced one waits. */
static void report_progress(struct verify *v, struct progress_note n, bool force)
{
	if (!n.due)
		return;
	if (force)
		pthread_mutex_lock(&v->cb_lock);
	else if (pthread_mutex_trylock(&v->cb_lock) != 0)
		return;
	/* Reports computed by different threads may arrive out of order. */
	if (n.done < v->cb_done)
		n.done = v->cb_done;
	if (n.position < v->cb_position)
		n.position = v->cb_position;
	v->cb_done = n.done;
	v->cb_position = n.position;
	v->opts->progress(n.done, n.total, n.position, v->opts->arg);
	pthread_mutex_unlock(&v->cb_lock);
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
		struct bad_run run = { 0, 0, 0 };
		uint64_t start, length;
		size_t idx;

		pthread_mutex_lock(&v->lock);
		for (;;) {
			if (!v->cancelled && map_cancelled(v->opts->cancel))
				v->cancelled = true;
			if (v->error || v->cancelled || v->next < v->npieces || v->input_done)
				break;
			/* Wait for the next AG's ranges; look at the cancel flag
			 * now and then. */
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 100000000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&v->more, &v->lock, &ts);
		}
		if (v->error || v->cancelled || v->next >= v->npieces) {
			pthread_mutex_unlock(&v->lock);
			break;
		}
		idx = v->next++;
		start = v->pieces[idx].start;
		length = v->pieces[idx].length;
		pthread_mutex_unlock(&v->lock);

		int err = read_all(v, buf, start, length, true);
		count_read(v, length, err);
		if (err && is_media_error(err))
			err = split_failed(v, buf, start, length, err, &run);
		flush_bad(v, &run);

		pthread_mutex_lock(&v->lock);
		if (err && !v->error)
			v->error = err;
		v->pieces[idx].done = true;
		v->done_bytes += length;
		struct progress_note note = progress_due(v, false);
		pthread_mutex_unlock(&v->lock);
		report_progress(v, note, false);
	}
	free(buf);
	return NULL;
}

/* ---- the verifier ---- */

static int run_verify(struct verify *v, struct map_fs *fs, uint32_t nproducers)
{
	const struct map_verify_opts *opts = v->opts;
	uint32_t nreaders = opts->inflight ? opts->inflight : DEFAULT_INFLIGHT;
	pthread_t *threads;
	uint32_t started = 0, producers = 0;
	int rc = 0;

	if (nreaders < 2)
		nreaders = 2;
	/* The device itself, not whatever its recorded path names now. */
	v->fd = map_open_dev_node((dev_t)fs->info.dev, fs->info.device,
				  O_RDONLY | O_DIRECT | O_NOATIME);
	if (v->fd < 0)
		return v->fd;
	threads = calloc(nreaders + nproducers, sizeof(*threads));
	if (!threads) {
		close(v->fd);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < nproducers; i++)
		if (pthread_create(&threads[started], NULL, verify_find_written, v) == 0)
			started++;
	producers = started;
	if (nproducers && producers == 0) {
		pthread_mutex_lock(&v->lock);
		v->error = EAGAIN;
		v->input_done = true;
		pthread_mutex_unlock(&v->lock);
	}
	for (uint32_t i = 0; i < nreaders; i++)
		if (pthread_create(&threads[started], NULL, reader, v) == 0)
			started++;
	if (started == producers)
		rc = -EAGAIN;
	if (rc) {
		pthread_mutex_lock(&v->lock);
		v->cancelled = true;	/* let the producers stop */
		pthread_mutex_unlock(&v->lock);
	}
	for (uint32_t i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	free(threads);
	close(v->fd);

	report_progress(v, progress_due(v, true), true);
	v->stats.bytes_verified = v->done_bytes;
	if (!rc && v->error)
		rc = -v->error;
	if (!rc && v->cancelled)
		rc = -MAP_ECANCELED;
	return rc;
}

static void verify_init(struct verify *v, struct map_fs *fs, const struct map_verify_opts *opts)
{
	memset(v, 0, sizeof(*v));
	v->opts = opts;
	v->fs = fs;
	v->blocksize = fs->info.geo.blocksize;
	v->io_size = opts->io_size ? opts->io_size : DEFAULT_IO_SIZE;
	if (v->io_size < v->blocksize)
		v->io_size = v->blocksize;
	v->io_size -= v->io_size % v->blocksize;
	pthread_mutex_init(&v->lock, NULL);
	pthread_mutex_init(&v->cb_lock, NULL);
	pthread_cond_init(&v->more, NULL);
}

static void verify_done(struct verify *v, int64_t t0, struct map_verify_stats *stats)
{
	pthread_cond_destroy(&v->more);
	pthread_mutex_destroy(&v->cb_lock);
	pthread_mutex_destroy(&v->lock);
	free(v->pieces);
	v->stats.seconds = (double)(now_ns() - t0) / 1e9;
	if (stats)
		*stats = v->stats;
}

int map_verify_media(struct map_fs *fs, const struct map_range_list *ranges,
		     const struct map_verify_opts *opts, struct map_verify_stats *stats)
{
	struct verify v;
	int64_t t0 = now_ns();
	int rc = 0;

	verify_init(&v, fs, opts);
	v.stats.bytes_total = map_range_total(ranges);
	for (size_t i = 0; i < ranges->n && rc == 0; i++)
		rc = map_range_split(ranges->v[i].start, ranges->v[i].length, v.io_size,
				     v.blocksize, verify_collect_piece, &v);
	v.input_done = true;
	if (rc == 0)
		rc = run_verify(&v, fs, 0);
	verify_done(&v, t0, stats);
	return rc;
}

int map_verify_written(struct map_fs *fs, uint64_t from, const struct map_verify_opts *opts,
		       struct map_verify_stats *stats, uint64_t *written)
{
	uint32_t agcount = fs->info.geo.agcount;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct verify v;
	int64_t t0 = now_ns();
	int rc;

	verify_init(&v, fs, opts);
	v.from = from;
	v.clip = !opts->written_only;
	v.ag_ranges = calloc(agcount, sizeof(*v.ag_ranges));
	v.ag_ready = calloc(agcount, sizeof(*v.ag_ready));
	if (!v.ag_ranges || !v.ag_ready) {
		rc = -ENOMEM;
	} else {
		/* GETFSMAP is CPU work in the kernel: one query per CPU. */
		uint32_t producers = cpus > 1 ? (uint32_t)(cpus > 4 ? 4 : cpus) : 1;

		rc = run_verify(&v, fs, producers < agcount ? producers : agcount);
	}
	if (written)
		*written = v.written;
	if (v.ag_ranges)
		for (uint32_t i = 0; i < agcount; i++)
			map_range_free(&v.ag_ranges[i]);
	free(v.ag_ranges);
	free(v.ag_ready);
	verify_done(&v, t0, stats);
	return rc;
}
