// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Media verification options: exact bad ranges from splitting failed reads (a run of
 * bad blocks and a lone one in one read), progress that only moves forward
 * and ends at the total, the I/O priority of the reader threads,
 * cancellation and resumption from the reported position, and the byte
 * rate limit.
 *
 * Usage (in the guest): vm_verify_options DEVICE
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "map.h"
#include "map_testing.h"
#include "vmtest.h"

#define MiB (1024ULL * 1024)
#define IOPRIO_CLASS_IDLE 3

struct watch {
	uint64_t last_done, last_pos, total, end;
	int calls, backwards, wrong_prio;
	int ioprio_class;
	pthread_t main_thread;	/* the final report comes from the caller's thread */
	uint64_t cancel_after;
	volatile int cancel;
	struct map_range bad[8];
	int nbad;
	pthread_mutex_t lock;
};

static void on_progress(uint64_t done, uint64_t total, uint64_t position, void *arg)
{
	struct watch *w = arg;
	/* Called from a reader thread: its I/O priority is the one asked for. */
	long prio = syscall(SYS_ioprio_get, 1, 0);

	if (w->ioprio_class && !pthread_equal(pthread_self(), w->main_thread) &&
	    (prio >> 13) != w->ioprio_class)
		w->wrong_prio++;
	if (done < w->last_done || position < w->last_pos)
		w->backwards++;
	w->last_done = done;
	w->last_pos = position;
	w->total = total;
	w->calls++;
	if (w->cancel_after && done >= w->cancel_after)
		w->cancel = 1;
}

static void on_bad(uint64_t start, uint64_t length, int error, void *arg)
{
	struct watch *w = arg;

	(void)error;
	pthread_mutex_lock(&w->lock);
	if (w->nbad < 8)
		w->bad[w->nbad++] = (struct map_range){ start, length };
	pthread_mutex_unlock(&w->lock);
}

static int cmp_range(const void *a, const void *b)
{
	const struct map_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The run of three bad blocks at @run and the lone one at @lone, exactly,
 * and nothing else. */
static void check_exact(const struct watch *w, const struct map_verify_stats *st, uint64_t run,
			uint64_t lone, const char *what)
{
	REQUIRE(w->nbad == 2, "%s: %d bad ranges", what, w->nbad);
	CHECK_INT(w->bad[0].start, run);
	CHECK_INT(w->bad[0].length, 3 * 4096);
	CHECK_INT(w->bad[1].start, lone);
	CHECK_INT(w->bad[1].length, 4096);
	CHECK_INT(st->bytes_bad, 4 * 4096);
}

/* With native AIO refused (aio-max-nr 0: a local user can use up the
 * system's contexts), before anything in this process made one. */
static struct map_verify_stats verify_without_aio(struct map_fs *fs,
						  const struct map_range_list *all,
						  struct watch *w);
/* map_read_parts reads parts together and gives each its own outcome; the
 * verifier found the same ranges with the same reads without it. */
static void check_read_parts(struct map_fs *fs, uint64_t lone, const struct map_verify_stats *aio,
			     const struct map_verify_stats *one_by_one);

static struct map_verify_stats verify(struct map_fs *fs, const struct map_range_list *l,
				      struct watch *w, uint32_t io_size, uint64_t rate, int rc_want)
{
	struct map_verify_opts o = {
		.io_size = io_size, .inflight = 3, .ioprio_class = w->ioprio_class, .rate = rate,
		.progress = on_progress, .bad = on_bad, .cancel = &w->cancel, .arg = w,
	};
	struct map_verify_stats st;

	w->last_done = w->last_pos = 0;
	w->calls = w->backwards = w->wrong_prio = w->nbad = 0;
	w->cancel = 0;
	CHECK_INT(map_verify_media(fs, l, &o, &st), rc_want);
	qsort(w->bad, (size_t)w->nbad, sizeof(w->bad[0]), cmp_range);
	return st;
}

/* The filesystem's device, O_DIRECT, and an aligned buffer of @size. */
static int open_direct(struct map_fs *fs, char **buf, size_t size)
{
	int fd = open(map_fs_info(fs)->device, O_RDONLY | O_DIRECT | O_CLOEXEC);

	REQUIRE(fd >= 0 && posix_memalign((void **)buf, 4096, size) == 0, "open %s: %s",
		map_fs_info(fs)->device, strerror(errno));
	return fd;
}

static struct map_verify_stats verify_without_aio(struct map_fs *fs,
						  const struct map_range_list *all,
						  struct watch *w)
{
	struct map_range part = { 0, 4096 };
	char *buf = NULL;
	long old_max;
	int err, fd;
	FILE *f;

	f = fopen("/proc/sys/fs/aio-max-nr", "r");
	REQUIRE(f && fscanf(f, "%ld", &old_max) == 1, "read aio-max-nr");
	fclose(f);
	tl_must("echo 0 > /proc/sys/fs/aio-max-nr");
	fd = open_direct(fs, &buf, 4096);
	CHECK_INT(map_read_parts(fd, buf, &part, 1, &err), -EAGAIN);
	close(fd);
	free(buf);
	struct map_verify_stats st = verify(fs, all, w, 4 * MiB, 0, 0);
	tl_must("echo %ld > /proc/sys/fs/aio-max-nr", old_max);
	return st;
}

static void check_read_parts(struct map_fs *fs, uint64_t lone, const struct map_verify_stats *aio,
			     const struct map_verify_stats *one_by_one)
{
	struct map_range parts[4];
	int err[4], fd;
	char *buf = NULL;

	fd = open_direct(fs, &buf, 4 * 4096);
	/* Four blocks around the lone bad one: the third fails. */
	for (int i = 0; i < 4; i++)
		parts[i] = (struct map_range){ lone - 2 * 4096 + (uint64_t)i * 4096, 4096 };
	CHECK_INT(map_read_parts(fd, buf, parts, 4, err), 0);
	CHECK(err[0] == 0 && err[1] == 0 && err[2] == EIO && err[3] == 0,
	      "part errors %d %d %d %d, expected 0 0 EIO 0", err[0], err[1], err[2], err[3]);
	close(fd);
	free(buf);
	CHECK_INT(one_by_one->reads, aio->reads);
	CHECK_INT(one_by_one->failed_reads, aio->failed_reads);
	printf("parts read one by one: %llu reads, %llu failed, as with AIO\n",
	       (unsigned long long)one_by_one->reads, (unsigned long long)one_by_one->failed_reads);
}

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : "/dev/vda";
	struct watch w;
	struct map_fs *fs;
	struct map_range_list all = { 0 }, rest = { 0 };

	vt_require_vm();
	memset(&w, 0, sizeof(w));
	pthread_mutex_init(&w.lock, NULL);
	w.main_thread = pthread_self();
	fx_setup(dev, vt_features());
	tl_must("head -c 200M /dev/urandom > " FX_MNT "/data && sync");

	/* Three bad blocks in a row 1 MiB into the file and a lone one 1 MiB
	 * later: one 4 MiB read holds both. */
	uint64_t run = fx_file_physical("data", 1 * MiB);
	uint64_t lone = fx_file_physical("data", 2 * MiB);
	REQUIRE(lone == run + MiB, "the file is not contiguous enough for this test");
	uint64_t blocks[4] = { run / 4096, run / 4096 + 1, run / 4096 + 2, lone / 4096 };
	fx_umount();
	fx_add_bad_blocks(blocks, 4);
	fx_mount();
	REQUIRE(map_fs_open(FX_MNT, &fs) == 0, "map_fs_open");
	REQUIRE(map_written_ranges(fs, &all) == 0, "map_written_ranges");
	uint64_t total = map_range_total(&all);
	uint64_t end = all.v[all.n - 1].start + all.v[all.n - 1].length;
	CHECK(total >= 200 * MiB, "written %llu", (unsigned long long)total);

	struct map_verify_stats one_by_one = verify_without_aio(fs, &all, &w);
	check_exact(&w, &one_by_one, run, lone, "4 MiB reads, parts one by one");

	/* Whole run, idle priority: exact bad ranges, forward-only progress. */
	w.ioprio_class = IOPRIO_CLASS_IDLE;
	struct map_verify_stats st = verify(fs, &all, &w, 4 * MiB, 0, 0);
	check_exact(&w, &st, run, lone, "4 MiB reads");
	CHECK_INT(st.bytes_verified, total);
	CHECK(w.calls > 1 && w.backwards == 0, "%d progress calls, %d went backwards", w.calls,
	      w.backwards);
	CHECK_INT(w.last_done, total);
	CHECK_INT(w.last_pos, end);
	CHECK_INT(w.wrong_prio, 0);
	printf("verified %llu bytes in %.2f s: %llu reads, %llu failed\n",
	       (unsigned long long)total, st.seconds, (unsigned long long)st.reads,
	       (unsigned long long)st.failed_reads);

	check_read_parts(fs, lone, &st, &one_by_one);

	/* Small reads find the same ranges. */
	verify(fs, &all, &w, 64 * 1024, 0, 0);
	REQUIRE(w.nbad >= 2, "%d bad ranges with 64 KiB reads", w.nbad);
	CHECK_INT(w.bad[0].start, run);
	CHECK_INT(w.bad[0].length, 3 * 4096);
	CHECK_INT(w.bad[w.nbad - 1].start, lone);

	/* Cancel a third of the way, then resume from the position it gave. */
	w.cancel_after = total / 3;
	st = verify(fs, &all, &w, 4 * MiB, 0, -MAP_ECANCELED);
	w.cancel_after = 0;
	uint64_t pos = w.last_pos;
	CHECK(pos > 0 && pos < end, "stopped at %llu of %llu", (unsigned long long)pos,
	      (unsigned long long)end);
	CHECK(st.bytes_verified < total, "cancelled run verified %llu of %llu",
	      (unsigned long long)st.bytes_verified, (unsigned long long)total);
	for (size_t i = 0; i < all.n; i++)
		map_range_add(&rest, all.v[i].start, all.v[i].length);
	map_range_clip_below(&rest, pos);
	st = verify(fs, &rest, &w, 4 * MiB, 0, 0);
	CHECK_INT(st.bytes_total, map_range_total(&rest));
	CHECK_INT(w.last_pos, end);
	/* Every bad range is reported by the run that covers it. */
	int expect = (run >= pos) + (lone >= pos);
	CHECK_INT(w.nbad, expect);

	/* The rate limit holds the run back: 40 MiB/s over 200 MiB takes at
	 * least ~5 s (checked from below only: sleeping cannot be faster). */
	st = verify(fs, &all, &w, 4 * MiB, 40 * MiB, 0);
	double floor = (double)total / (40.0 * MiB) * 0.8;
	CHECK(st.seconds >= floor, "rate-limited run took %.2f s, at least %.2f expected",
	      st.seconds, floor);

	/* map_verify_written reads all allocated space unless told written_only
	 * (the free space map is far cheaper to get than the reverse mapping),
	 * so it reads a preallocated extent too: a bad block there is not
	 * damage and must not be reported, while the written file's bad ranges
	 * are, exactly, in both modes. */
	tl_must("xfs_io -f -c 'falloc 0 4m' " FX_MNT "/prealloc && sync");
	uint64_t pre = fx_file_physical("prealloc", 2 * MiB);
	tl_must("dmsetup message dust 0 addbadblock %llu", (unsigned long long)(pre / 4096));
	struct map_range_list now = { 0 };
	uint64_t failed[2] = { 0, 0 };
	REQUIRE(map_written_ranges(fs, &now) == 0, "map_written_ranges");
	for (int exact = 0; exact < 2; exact++) {
		const char *mode = exact ? "written only" : "allocated";
		struct map_verify_opts o = { .io_size = 4 * MiB, .inflight = 3, .written_only = exact,
					     .bad = on_bad, .arg = &w };
		struct map_verify_stats vs;
		uint64_t written = 0;

		w.nbad = 0;
		CHECK_INT(map_verify_written(fs, 0, &o, &vs, &written), 0);
		qsort(w.bad, (size_t)w.nbad, sizeof(w.bad[0]), cmp_range);
		check_exact(&w, &vs, run, lone, mode);
		CHECK_INT(vs.bytes_verified, written);
		if (exact)
			CHECK_INT(written, map_range_total(&now));
		else
			CHECK(written >= map_range_total(&now) + 4 * MiB,
			      "allocated %llu, written %llu: the preallocated extent not read",
			      (unsigned long long)written,
			      (unsigned long long)map_range_total(&now));
		failed[exact] = vs.failed_reads;
		printf("%s: %llu bytes, %llu reads, %llu failed\n", mode,
		       (unsigned long long)written, (unsigned long long)vs.reads,
		       (unsigned long long)vs.failed_reads);
	}
	/* The bad block in the preallocated extent was read (and its read split). */
	CHECK(failed[0] > failed[1], "failed reads: %llu allocated, %llu written only",
	      (unsigned long long)failed[0], (unsigned long long)failed[1]);
	map_range_free(&now);
	tl_must("dmsetup message dust 0 removebadblock %llu", (unsigned long long)(pre / 4096));

	/* An open but unlinked file: its bad block is found and mapped, and it is
	 * reported as unlinked (no name left), not as a name we failed to find. */
	tl_must("head -c 65536 /dev/urandom > " FX_MNT "/ghost && sync");
	int fd = open(FX_MNT "/ghost", O_RDONLY);
	REQUIRE(fd >= 0, "open ghost");
	uint64_t ghost_ino = fx_ino("ghost");
	uint64_t ghost = fx_file_physical("ghost", 16384);
	tl_must("rm " FX_MNT "/ghost && dmsetup message dust 0 addbadblock %llu",
		(unsigned long long)(ghost / 4096));
	struct map_owner_list owners = { 0 };
	struct map_paths *paths = NULL;
	CHECK_INT(map_locate_paths(fs, ghost, 4096, &owners, &paths), 0);
	REQUIRE(owners.n == 1, "%zu owners of the unlinked file's block", owners.n);
	CHECK_INT(owners.v[0].kind, MAP_OWNER_FILE);
	CHECK_INT(owners.v[0].ino, ghost_ino);
	CHECK_INT(owners.v[0].offset, 16384);
	CHECK(paths[0].unlinked, "unlinked file not reported as such");
	CHECK_INT(paths[0].npaths, 0);
	CHECK_INT(paths[0].nlink, 0);
	map_paths_free(paths, owners.n);
	map_owner_list_free(&owners);
	close(fd);

	map_range_free(&all);
	map_range_free(&rest);
	map_fs_close(fs);
	fx_teardown();
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
