/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One run of the verifier, shared by its readers (verify.c) and the threads
 * that find the written ranges for them (verify_written.c).  Private to
 * libmap.
 */
#ifndef MAP_VERIFY_INTERNAL_H
#define MAP_VERIFY_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "map_fsmap.h"
#include "map_internal.h"

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
	pthread_cond_t more;		/* pieces were added, or there will be no more */
	bool input_done;
	struct piece *pieces;
	size_t npieces, next, low;	/* next to hand out; lowest not done */

	/* Finding the written ranges ourselves, AG by AG (map_verify_written):
	 * several AGs are queried at once, and each AG's pieces are added in
	 * AG order so that "lowest piece not done" stays a resume position. */
	struct map_fs *fs;
	uint64_t from;
	uint32_t next_ag, added_ag;
	struct map_range_list *ag_ranges;
	bool *ag_ready;
	uint64_t written;		/* every written byte, also below from */
	bool clip;			/* ranges may hold unwritten space: clip bad
					 * ranges to written space before reporting */
	uint64_t done_bytes;
	int64_t last_progress_ns;
	/* The caller's callbacks run under their own lock, not under @lock,
	 * so that slow work in them (recording findings at a checkpoint)
	 * does not stop the other readers. */
	pthread_mutex_t cb_lock;
	uint64_t cb_done, cb_position;	/* last reported: never go back */
	int64_t rate_next_ns;		/* token bucket: when the next read may start */
	int error;			/* first fatal error */
	bool cancelled;
	struct map_verify_stats stats;
};

/* verify.c */
/* Queue bytes [@start, @start + @length) of the device for a reader; @arg is
 * the struct verify.  -ENOMEM. */
int verify_collect_piece(uint64_t start, uint64_t length, void *arg);

/* verify_written.c */
/* A GETFSMAP record of written space joins @arg (a struct map_range_list,
 * sorted): free space, CoW staging and unwritten extents are left out. */
int verify_add_written(const struct fsmap *rec, void *arg);
/* Thread: AG after AG, the written ranges from v->from on become pieces
 * for the readers, in AG order. */
void *verify_find_written(void *arg);

#endif
