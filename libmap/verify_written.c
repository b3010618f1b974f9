// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Verify media: which bytes to read.
 *
 * Which bytes are in use comes from GETFSMAP.  With rmapbt and CAP_SYS_ADMIN
 * the kernel walks the reverse mapping btree and returns one record per
 * extent of every file: on a filesystem of 100 000 files that walk costs more
 * CPU than reading the data, and in a slow (emulated) machine it, not the
 * disk, set the pace.  A caller without CAP_SYS_ADMIN is answered from the
 * free space btree instead: one record per free extent, everything between
 * them reported as in use (measured in the TCG guest, 100 000 files: 8
 * records in 3 ms instead of 102 514 in about 1 s).  So by default the
 * threads that find the ranges drop CAP_SYS_ADMIN (credentials are per
 * thread), and the verifier reads all allocated space, preallocated
 * (unwritten) extents and CoW staging included; a bad range is then checked
 * against the reverse mapping (a query over that range only) and reported
 * only where it hits written space.
 */
#include <errno.h>
#include <linux/capability.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "map_fsmap.h"
#include "map_internal.h"
#include "verify_internal.h"

int verify_add_written(const struct fsmap *rec, void *arg)
{
	struct map_range_list *out = arg;

	if (rec->fmr_flags & FMR_OF_PREALLOC)
		return 0;	/* unwritten: reads return zeroes, nothing to lose */
	if (rec->fmr_flags & FMR_OF_SPECIAL_OWNER) {
		if (rec->fmr_owner == FMR_OWN_FREE || rec->fmr_owner == XFS_FMR_OWN_COW)
			return 0;
	}
	/* Records come sorted by start: extend the last range in place instead
	 * of keeping (and later sorting) one entry per extent. */
	if (out->n) {
		struct map_range *last = &out->v[out->n - 1];
		uint64_t end = last->start + last->length, rec_end;

		if (rec->fmr_physical >= last->start && rec->fmr_physical <= end &&
		    !__builtin_add_overflow(rec->fmr_physical, rec->fmr_length, &rec_end)) {
			if (rec_end > end)
				last->length = rec_end - last->start;
			return 0;
		}
	}
	return map_range_add(out, rec->fmr_physical, rec->fmr_length);
}

/*
 * Drop CAP_SYS_ADMIN from the calling thread's effective set, so that
 * GETFSMAP answers from the free space btree (see the top of this file).
 * The raw system call changes this thread only.  0 or a negative errno
 * (a seccomp filter may refuse capset: the caller then takes the slow, exact
 * path).
 */
static int drop_sys_admin(void)
{
	struct __user_cap_header_struct head = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &head, data) != 0)
		return -errno;
	if (!(data[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective & CAP_TO_MASK(CAP_SYS_ADMIN)))
		return 0;
	data[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective &= ~CAP_TO_MASK(CAP_SYS_ADMIN);
	if (syscall(SYS_capset, &head, data) != 0)
		return -errno;
	return 0;
}

int map_written_ranges(struct map_fs *fs, struct map_range_list *out)
{
	uint64_t end = fs->info.geo.datablocks * fs->info.geo.blocksize;
	int rc = map_fsmap_query(fs, 0, end ? end - 1 : UINT64_MAX, verify_add_written, out);

	if (rc)
		return rc;
	/* Reflinked extents come once per owner; merging also drops those. */
	map_range_merge(out, 0);
	return 0;
}

/* ---- finding the written ranges while reading ---- */

/* Add the pieces of every AG that is ready and has no unready AG before it.
 * Called with the lock held. */
static int add_ready_ags(struct verify *v)
{
	const struct map_geometry *geo = &v->fs->info.geo;
	int rc = 0;

	while (v->added_ag < geo->agcount && v->ag_ready[v->added_ag]) {
		struct map_range_list *l = &v->ag_ranges[v->added_ag];

		for (size_t i = 0; i < l->n && rc == 0; i++) {
			rc = map_range_split(l->v[i].start, l->v[i].length, v->io_size, v->blocksize,
					     verify_collect_piece, v);
			v->stats.bytes_total += l->v[i].length;
		}
		map_range_free(l);
		v->added_ag++;
	}
	if (v->added_ag == geo->agcount)
		v->input_done = true;
	pthread_cond_broadcast(&v->more);
	return rc;
}

void *verify_find_written(void *arg)
{
	struct verify *v = arg;
	const struct map_geometry *geo = &v->fs->info.geo;

	if (!v->opts->written_only)
		drop_sys_admin();	/* failing that, the exact (slower) map */

	for (;;) {
		struct map_range_list l = { 0 };
		uint32_t ag;
		int rc;

		pthread_mutex_lock(&v->lock);
		ag = v->next_ag++;
		bool stop = v->error || v->cancelled;
		pthread_mutex_unlock(&v->lock);
		if (ag >= geo->agcount || stop)
			break;

		uint64_t first = (uint64_t)ag * geo->agblocks * geo->blocksize;
		uint64_t end_block = (uint64_t)(ag + 1) * geo->agblocks;
		if (end_block > geo->datablocks)
			end_block = geo->datablocks;
		rc = map_fsmap_query(v->fs, first, end_block * geo->blocksize - 1,
				     verify_add_written, &l);
		if (rc == 0) {
			/* Reflinked extents come once per owner; merging drops those. */
			map_range_merge(&l, 0);
		}
		pthread_mutex_lock(&v->lock);
		if (rc == 0) {
			v->written += map_range_total(&l);
			map_range_clip_below(&l, v->from);
			v->ag_ranges[ag] = l;
			v->ag_ready[ag] = true;
			rc = add_ready_ags(v);
		} else {
			map_range_free(&l);
		}
		if (rc && !v->error) {
			v->error = -rc;
			v->input_done = true;
			pthread_cond_broadcast(&v->more);
		}
		pthread_mutex_unlock(&v->lock);
	}
	return NULL;
}
