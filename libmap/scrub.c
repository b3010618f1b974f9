// SPDX-License-Identifier: GPL-2.0-or-later
/* Metadata scrub through XFS_IOC_SCRUB_METADATA. */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "map_internal.h"

/* Busy objects (EBUSY) and lock inversions the kernel gave up on (EDEADLOCK)
 * usually clear within milliseconds; back off up to about two seconds. */
#define SCRUB_RETRIES	8
/* AG headers and btrees, then inodes, are scrubbed by one thread per CPU,
 * each taking whole AGs, like xfs_scrub: the kernel's checking is CPU work,
 * and AGs are independent. */
#define MAX_STAGE_THREADS 8

int map_scrub_call(int fd, uint32_t type, uint32_t agno, uint64_t ino, uint32_t gen,
		   uint32_t iflags, uint32_t *oflags)
{
	struct timespec delay = { 0, 1000000 };	/* 1 ms, doubling */

	for (int attempt = 0;; attempt++) {
		struct xfs_scrub_metadata sm;

		memset(&sm, 0, sizeof(sm));
		sm.sm_type = type;
		sm.sm_flags = iflags;
		sm.sm_agno = agno;
		sm.sm_ino = ino;
		sm.sm_gen = gen;
		if (ioctl(fd, XFS_IOC_SCRUB_METADATA, &sm) == 0) {
			if (oflags)
				*oflags = sm.sm_flags & ~iflags;
			return 0;
		}
		int err = errno;
		if ((err != EBUSY && err != EDEADLOCK) || attempt >= SCRUB_RETRIES)
			return -err;
		nanosleep(&delay, NULL);
		delay.tv_nsec *= 2;
		if (delay.tv_nsec >= 1000000000L) {
			delay.tv_sec += 1;
			delay.tv_nsec -= 1000000000L;
		}
	}
}

/*
 * Without CONFIG_XFS_ONLINE_SCRUB (Debian's stock kernels) the ioctl is not
 * there at all: every call fails ENOTTY, or EOPNOTSUPP through some
 * compatibility layers.  The PROBE type checks nothing and always succeeds
 * where scrub exists, so one call tells the two apart before anything is
 * taken for damage.
 */
int map_scrub_probe(int fd)
{
	int rc = map_scrub_call(fd, XFS_SCRUB_TYPE_PROBE, 0, 0, 0, 0, NULL);

	if (rc == -ENOTTY || rc == -EOPNOTSUPP)
		return -MAP_ENOSCRUB;
	return rc;
}

/* ---- scrubbing a whole filesystem ---- */

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_TYPES 16	/* scrub types of one scope (AG: 10, inode: 9, FS: 9) */
#define MAX_VEC 16
#define SV_NOT_RUN INT32_MIN	/* sv_ret of items a failed barrier skipped */

/* Whether scrub type @type applies to an inode of @mode. */
static bool inode_type_applies(const struct map_geometry *geo, uint32_t type, uint32_t mode,
			       bool has_attr)
{
	switch (type) {
	case XFS_SCRUB_TYPE_INODE:
	case XFS_SCRUB_TYPE_BMBTD:
		return true;
	case XFS_SCRUB_TYPE_BMBTA:
	case XFS_SCRUB_TYPE_XATTR:
		return has_attr;
	case XFS_SCRUB_TYPE_BMBTC:
		return geo->reflink && S_ISREG(mode);
	case XFS_SCRUB_TYPE_DIR:
		return S_ISDIR(mode);
	case XFS_SCRUB_TYPE_SYMLINK:
		return S_ISLNK(mode);
	case XFS_SCRUB_TYPE_PARENT:
		return S_ISDIR(mode) || geo->parent;
	case XFS_SCRUB_TYPE_DIRTREE:
		return S_ISDIR(mode) && geo->parent;
	default:
		return false;
	}
}

/* In the order of the scrub type table's phases: the order a repair
 * rebuilds them in. */
size_t map_scrub_inode_types(const struct map_geometry *geo, uint32_t mode, bool has_attr,
			     uint32_t *types, size_t max)
{
	uint32_t all[MAX_TYPES];
	size_t nall = map_scrub_types_in_order(MAP_SCOPE_INODE, 0, 0, all, MAX_TYPES);
	size_t n = 0;

	for (size_t i = 0; i < nall && i < MAX_TYPES && n < max; i++)
		if (inode_type_applies(geo, all[i], mode, has_attr))
			types[n++] = all[i];
	return n;
}

int map_scrub_has_vector(int fd)
{
	struct map_xfs_scrub_vec_head head;

	memset(&head, 0, sizeof(head));
	if (ioctl(fd, MAP_XFS_IOC_SCRUBV_METADATA, &head) == 0)
		return 1;
	if (errno == ENOTTY || errno == EOPNOTSUPP || errno == EINVAL)
		return 0;
	return -errno;
}

struct scrubber {
	struct map_fs *fs;
	const struct map_scrub_opts *opts;
	map_scrub_fn fn;
	void *arg;
	struct map_scrub_stats *stats;
	bool vectored;
	uint64_t done, total;
	int rc;		/* first nonzero callback return or fatal error */
	/* Stage workers: results, progress and rc under @lock; next_item
	 * hands out the stage's items (scrub_item). */
	pthread_mutex_t lock;
	bool inodes;			/* the inode stage, not the AG stage */
	uint32_t nwalks;		/* walk_types in the inode stage */
	/* The scrub type table's types in their order (map_scrub_types_in_order):
	 * per AG; whole-filesystem checks that walk every inode themselves,
	 * each one long call on one CPU (nlinks: about 4.5 s of a 50 s scan of
	 * 100 000 files), handed out first in the inode stage so the other
	 * CPUs check inodes meanwhile; the other whole-filesystem checks, after
	 * every AG and inode, HEALTHY last of all. */
	uint32_t ag_types[MAX_TYPES], walk_types[MAX_TYPES], fs_types[MAX_TYPES];
	size_t nag_types, nwalk_types, nfs_types;
	uint32_t next_item, nitems;
};

/* Results go to the caller one at a time, whichever thread found them. */
static int emit(struct scrubber *s, uint32_t type, uint32_t agno, uint64_t ino, uint32_t gen,
		uint32_t oflags, int error)
{
	struct map_scrub_result r = {
		.type = type, .agno = agno, .ino = ino, .gen = gen,
		.oflags = error ? 0 : oflags, .error = error, .absent = error == -ENOENT,
	};
	int rc;

	pthread_mutex_lock(&s->lock);
	s->stats->objects++;
	if (!error && (oflags & (XFS_SCRUB_OFLAG_CORRUPT | XFS_SCRUB_OFLAG_XCORRUPT)))
		s->stats->corrupt++;
	if (error && error != -ENOENT && error != -ECANCELED)
		s->stats->errors++;
	rc = s->rc ? s->rc : s->fn(&r, s->arg);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

static void count_call(struct scrubber *s)
{
	pthread_mutex_lock(&s->lock);
	s->stats->calls++;
	pthread_mutex_unlock(&s->lock);
}

uint64_t map_inodes_in_use(uint64_t allocino, uint64_t freeino)
{
	return freeino < allocino ? allocino - freeino : 0;
}

static void progress(struct scrubber *s, uint64_t step, bool inode)
{
	pthread_mutex_lock(&s->lock);
	s->done += step;
	if (inode)
		s->stats->inodes++;
	if (s->done > s->total)
		s->total = s->done;
	if (s->opts->progress)
		s->opts->progress(s->done, s->total, s->opts->arg);
	pthread_mutex_unlock(&s->lock);
}

/* One call per type; a corrupt inode core (the first type, with
 * @barrier_after_first) cancels the rest. */
static int scrub_each(struct scrubber *s, const uint32_t *types, size_t n, uint32_t agno,
		      uint64_t ino, uint32_t gen, bool barrier_after_first)
{
	uint32_t iflags = s->opts->iflags;
	bool core_bad = false;
	int rc;

	for (size_t i = 0; i < n; i++) {
		uint32_t oflags = 0;

		if (core_bad) {
			rc = emit(s, types[i], agno, ino, gen, 0, -ECANCELED);
		} else {
			count_call(s);
			int err = map_scrub_call(s->fs->fd, types[i], agno, ino, gen, iflags,
						 &oflags);
			rc = emit(s, types[i], agno, ino, gen, oflags, err);
			if (i == 0 && barrier_after_first &&
			    (err || (oflags & (XFS_SCRUB_OFLAG_CORRUPT |
					       XFS_SCRUB_OFLAG_XCORRUPT))))
				core_bad = err != -ENOENT;
		}
		if (rc)
			return rc;
	}
	return 0;
}

/* One vectored call for every type; the kernel's barrier after the inode
 * core stands for the check above. */
static int scrub_vectored(struct scrubber *s, const uint32_t *types, size_t n, uint32_t agno,
			  uint64_t ino, uint32_t gen, bool barrier_after_first)
{
	uint32_t iflags = s->opts->iflags;
	struct map_xfs_scrub_vec vec[MAX_VEC + 1];
	struct map_xfs_scrub_vec_head head;
	int slot_of[MAX_VEC + 1];
	size_t nv = 0;
	int rc;

	for (size_t i = 0; i < n && nv < MAX_VEC; i++) {
		vec[nv] = (struct map_xfs_scrub_vec){ types[i], iflags, SV_NOT_RUN, 0 };
		slot_of[nv++] = (int)i;
		if (i == 0 && barrier_after_first && n > 1) {
			vec[nv] = (struct map_xfs_scrub_vec){
				MAP_SCRUB_TYPE_BARRIER,
				XFS_SCRUB_OFLAG_CORRUPT | XFS_SCRUB_OFLAG_XCORRUPT, SV_NOT_RUN, 0 };
			slot_of[nv++] = -1;
		}
	}
	memset(&head, 0, sizeof(head));
	head.svh_ino = ino;
	head.svh_gen = gen;
	head.svh_agno = agno;
	head.svh_nr = (uint16_t)nv;
	head.svh_vectors = (uintptr_t)vec;
	count_call(s);
	if (ioctl(s->fs->fd, MAP_XFS_IOC_SCRUBV_METADATA, &head) != 0) {
		int err = -errno;

		if (err == -EINTR)
			return -MAP_ECANCELED;
		/* The call as a whole failed: say so for every item. */
		for (size_t i = 0; i < n; i++) {
			rc = emit(s, types[i], agno, ino, gen, 0, err);
			if (rc)
				return rc;
		}
		return 0;
	}
	for (size_t v = 0; v < nv; v++) {
		int err, i = slot_of[v];
		uint32_t oflags;

		if (i < 0)
			continue;	/* the barrier itself */
		err = vec[v].sv_ret == SV_NOT_RUN ? -ECANCELED : vec[v].sv_ret;
		oflags = vec[v].sv_flags & ~iflags;
		if (err == -EBUSY || err == -EDEADLOCK) {
			/* Contention: try this one again on its own, with backoff. */
			count_call(s);
			err = map_scrub_call(s->fs->fd, types[i], agno, ino, gen, iflags, &oflags);
		}
		rc = emit(s, types[i], agno, ino, gen, oflags, err);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * Scrub @types of one object.  With vectored scrub it is one call; a
 * barrier after the inode core means "don't check the forks of an inode
 * whose core is broken", and those items come back as ECANCELED.
 */
static int scrub_object(struct scrubber *s, const uint32_t *types, size_t n, uint32_t agno,
			uint64_t ino, uint32_t gen, bool barrier_after_first)
{
	if (map_cancelled(s->opts->cancel))
		return -MAP_ECANCELED;
	if (!s->vectored)
		return scrub_each(s, types, n, agno, ino, gen, barrier_after_first);
	return scrub_vectored(s, types, n, agno, ino, gen, barrier_after_first);
}

static int scrub_inode(struct map_fs *fs, const struct xfs_bulkstat *bs, void *arg)
{
	struct scrubber *s = arg;
	uint32_t types[12];
	size_t n = map_scrub_inode_types(&fs->info.geo, bs->bs_mode,
					 bs->bs_forkoff != 0 || bs->bs_aextents != 0, types,
					 NELEM(types));
	int rc = scrub_object(s, types, n, 0, bs->bs_ino, bs->bs_gen, true);

	progress(s, 1, true);
	return rc;
}

/* Bulkstat could not read this inode: ask the scrubber about its core. */
static void scrub_unreadable_inode(struct map_fs *fs, uint64_t ino, int error, void *arg)
{
	struct scrubber *s = arg;
	uint32_t oflags = 0;
	int err;

	(void)fs;
	(void)error;
	count_call(s);
	err = map_scrub_call(s->fs->fd, XFS_SCRUB_TYPE_INODE, 0, ino, 0, s->opts->iflags, &oflags);
	progress(s, 0, true);
	int rc = emit(s, XFS_SCRUB_TYPE_INODE, 0, ino, 0, oflags, err);
	if (rc) {
		pthread_mutex_lock(&s->lock);
		if (!s->rc)
			s->rc = rc;
		pthread_mutex_unlock(&s->lock);
	}
}

/*
 * One piece of a stage's work: item @i of the list scrub_stage() hands out.
 * The inode stage's list is the whole-filesystem walks first (each one long
 * call), then every AG's inodes; the AG stage's is every AG's own metadata.
 */
static int scrub_item(struct scrubber *s, uint32_t i)
{
	const struct map_geometry *geo = &s->fs->info.geo;
	int rc;

	if (!s->inodes) {
		rc = scrub_object(s, s->ag_types, s->nag_types, i, 0, 0, false);
		progress(s, 1, false);
		return rc;
	}
	if (i < s->nwalks) {
		rc = scrub_object(s, &s->walk_types[i], 1, 0, 0, 0, false);
		progress(s, 1, false);
		return rc;
	}
	uint32_t agno = i - s->nwalks;
	uint64_t end = agno + 1 < geo->agcount ? map_geo_ino(geo, agno + 1, 0) : UINT64_MAX;

	return map_bulkstat_walk_range(s->fs, map_geo_ino(geo, agno, 0), end, scrub_inode,
				       scrub_unreadable_inode, s);
}

/* A stage worker: take the next item, until none is left or something
 * failed. */
static void *stage_worker(void *arg)
{
	struct scrubber *s = arg;

	for (;;) {
		pthread_mutex_lock(&s->lock);
		uint32_t i = s->next_item++;
		bool stop = s->rc != 0 || i >= s->nitems;
		pthread_mutex_unlock(&s->lock);
		if (stop)
			break;

		int rc = scrub_item(s, i);
		if (rc) {
			pthread_mutex_lock(&s->lock);
			if (!s->rc)
				s->rc = rc;
			pthread_mutex_unlock(&s->lock);
		}
	}
	return NULL;
}

/* Every AG's own metadata (@inodes false), or the whole-filesystem walks and
 * every AG's inodes (unless skip_inodes), on one thread per CPU; all done
 * when this returns. */
static int scrub_stage(struct scrubber *s, bool inodes)
{
	pthread_t tid[MAX_STAGE_THREADS];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int n = s->opts->threads ? s->opts->threads : (cpus > 0 ? (unsigned int)cpus : 1);
	unsigned int started = 0;

	s->inodes = inodes;
	s->next_item = 0;
	s->nitems = inodes ? s->nwalks : 0;
	if (!inodes || !s->opts->skip_inodes)
		s->nitems += s->fs->info.geo.agcount;
	if (n > MAX_STAGE_THREADS)
		n = MAX_STAGE_THREADS;
	if (n > s->nitems)
		n = s->nitems;
	/* The calling thread is one of the workers. */
	while (started + 1 < n && pthread_create(&tid[started], NULL, stage_worker, s) == 0)
		started++;
	stage_worker(s);
	for (unsigned int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	return s->rc;
}

/* What each stage checks, in the order of the scrub type table. */
static void order_types(struct scrubber *s)
{
	s->nag_types = map_scrub_types_in_order(MAP_SCOPE_AG, 0, 0, s->ag_types, MAX_TYPES);
	s->nwalk_types = map_scrub_types_in_order(MAP_SCOPE_FS, MAP_SCRUB_F_WALKS_INODES, 0,
						  s->walk_types, MAX_TYPES);
	s->nfs_types = map_scrub_types_in_order(MAP_SCOPE_FS, 0, MAP_SCRUB_F_WALKS_INODES,
						s->fs_types, MAX_TYPES);
}

int map_scrub_fs(struct map_fs *fs, const struct map_scrub_opts *opts, map_scrub_fn fn,
		 void *arg, struct map_scrub_stats *stats)
{
	static const struct map_scrub_opts defaults;
	struct map_scrub_stats dummy;
	struct scrubber s;
	struct xfs_fsop_counts counts;
	int rc = 0;

	memset(&s, 0, sizeof(s));
	s.fs = fs;
	s.opts = opts ? opts : &defaults;
	s.fn = fn;
	s.arg = arg;
	s.stats = stats ? stats : &dummy;
	memset(s.stats, 0, sizeof(*s.stats));
	rc = map_scrub_probe(fs->fd);
	if (rc)
		return rc;	/* no scrub: nothing can be checked, nothing is damaged */
	s.vectored = !s.opts->no_vector && map_scrub_has_vector(fs->fd) == 1;
	s.stats->vectored = s.vectored;

	memset(&counts, 0, sizeof(counts));
	ioctl(fs->fd, XFS_IOC_FSCOUNTS, &counts);
	order_types(&s);
	s.total = (uint64_t)fs->info.geo.agcount + s.nfs_types + s.nwalk_types +
		  (s.opts->skip_inodes ? 0 : map_inodes_in_use(counts.allocino, counts.freeino));

	pthread_mutex_init(&s.lock, NULL);
	/* Every AG's own metadata before any inode: an inode check that
	 * cross-references a btree already found bad skips it instead of
	 * reporting the inode too. */
	rc = scrub_stage(&s, false);
	/* A repair fixes what the walks count before they count it. */
	s.nwalks = (s.opts->iflags & XFS_SCRUB_IFLAG_REPAIR) ? 0 : (uint32_t)s.nwalk_types;
	if (rc == 0)
		rc = scrub_stage(&s, true);
	for (size_t i = s.nwalks; i < s.nwalk_types && rc == 0; i++) {
		rc = scrub_object(&s, &s.walk_types[i], 1, 0, 0, 0, false);
		progress(&s, 1, false);
	}
	for (size_t i = 0; i < s.nfs_types && rc == 0; i++) {
		rc = scrub_object(&s, &s.fs_types[i], 1, 0, 0, 0, false);
		progress(&s, 1, false);
	}
	pthread_mutex_destroy(&s.lock);
	return rc;
}
