// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The event pipeline's reads: device ranges read at normal priority with the
 * bad ones collected, and read cursors, so repeated reports of a file larger
 * than event_read_limit read it piece by piece instead of its start again.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "daemon.h"
#include "pipeline_internal.h"

#define SELF_INFLICTED_SECS 10.0	/* how long our own reads explain kernel log lines */

static void on_bad(uint64_t start, uint64_t length, int error, void *arg)
{
	struct bad_list *b = arg;

	(void)error;
	if (map_range_add(&b->ranges, start, length) && !b->error)
		b->error = -ENOMEM;
}

/* Read @ranges of the data device; the bad ones go to @bad. */
int pipeline_verify(struct md_pipeline *p, struct map_fs *fs, const struct map_range_list *ranges,
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
		pipeline_remember_read(p, (dev_t)info->dev, ranges->v[i].start,
				       ranges->v[i].length, md_mono() + 3600);
	double t0 = md_mono();
	struct map_verify_stats st = { 0 };
	rc = map_verify_media(fs, ranges, &vo, &st);
	o->read_s += md_mono() - t0;
	o->reads += st.reads;
	o->failed_reads += st.failed_reads;
	for (size_t i = 0; i < ranges->n; i++)
		pipeline_remember_read(p, (dev_t)info->dev, ranges->v[i].start,
				       ranges->v[i].length, md_mono() + SELF_INFLICTED_SECS);
	return rc ? rc : bad->error;
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
int pipeline_ranges_window(const struct map_range_list *all, uint64_t skip, uint64_t max,
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
int pipeline_choose_reads(struct md_pipeline *p, struct map_fs *fs, uint64_t ino, uint32_t gen,
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
	rc = pipeline_ranges_window(all, c->next, limit, out);
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
