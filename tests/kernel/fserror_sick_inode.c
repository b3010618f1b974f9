// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Metadata found sick with a spinlock held under RCU still reaches fanotify.
 *
 * xfs_db marks an inode that is in use as free in both inode btrees (and
 * counts it in the AGI, so that everything but the inode agrees).  While
 * that inode is open (so it is in the inode cache), creating a file next to
 * it makes the allocator pick it; the inode cache lookup then notices, under
 * i_flags_lock and rcu_read_lock, that the "free" inode is in use, marks the
 * inode btree of the AG sick, and the create fails with EFSCORRUPTED.  The
 * cancelled transaction shuts the filesystem down.
 *
 * The listener must get EFSCORRUPTED without a file handle first, then the
 * shutdown, and the kernel log must have no "sleeping function called from
 * invalid context", lockdep or other report (run this on the debug kernel
 * variant to have those checkers armed).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fserror_listen.h"
#include "ktest.h"
#include "vmtest.h"

#define MNT "/tmp/mnt"
#define DIR MNT "/victims"
#define VICTIM 3

static unsigned int log2_ceil(unsigned int v)
{
	unsigned int l = 0;

	while ((1u << l) < v)
		l++;
	return l;
}

/* Mark AG-relative inode @agino free in the inode btree rooted at @root. */
static void mark_free(const char *dev, uint32_t agno, const char *root, uint32_t agino)
{
	const char *recs = tl_out("xfs_db -r -c 'agi %u' -c 'addr %s' -c 'print recs' %s", agno,
				  root, dev);
	const char *p = recs;

	for (;;) {
		unsigned int idx, startino, holemask, count, freecount;
		unsigned long long mask;
		int used;

		p = strchr(p, '\n');
		REQUIRE(p, "no %s record holds AG inode %u:\n%s", root, agino, recs);
		p++;
		if (sscanf(p, "%u:[%u,%u,%u,%u,%llx]%n", &idx, &startino, &holemask, &count,
			   &freecount, &mask, &used) != 6)
			continue;
		if (agino < startino || agino >= startino + 64)
			continue;
		REQUIRE(!(mask & (1ull << (agino - startino))), "inode %u is free already", agino);
		mask |= 1ull << (agino - startino);
		tl_must("xfs_db -x -c 'agi %u' -c 'addr %s' -c 'write recs[%u].free -- %lld' "
			"-c 'write recs[%u].freecount %u' %s",
			agno, root, idx, (long long)mask, idx, freecount + 1, dev);
		return;
	}
}

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : "/dev/vda";
	struct kt_fserror ev[4];
	struct xfs_fsop_geom geo;
	char path[256];
	uint64_t ino;
	uint32_t gen;

	vt_require_vm();
	tl_allow_small_fs(dev);
	tl_mkfs(dev, "%s -d agcount=4,size=256m", vt_features());
	tl_mount(dev, MNT, NULL);
	REQUIRE(mkdir(DIR, 0755) == 0, "mkdir: %s", strerror(errno));
	for (int i = 0; i < 10; i++) {
		snprintf(path, sizeof(path), DIR "/f%d", i);
		close(tl_open(path, O_WRONLY | O_CREAT));
	}
	snprintf(path, sizeof(path), DIR "/f%d", VICTIM);
	tl_ino_gen(path, &ino, &gen);
	int fd = tl_open(MNT, O_RDONLY | O_DIRECTORY);
	kt_geometry(fd, &geo);
	close(fd);
	tl_umount(MNT);

	unsigned int agino_bits = log2_ceil(geo.agblocks) + log2_ceil(geo.blocksize / geo.inodesize);
	uint32_t agno = (uint32_t)(ino >> agino_bits);
	uint32_t agino = (uint32_t)(ino & ((1ull << agino_bits) - 1));
	printf("victim inode %llu: AG %u, AG inode %u\n", (unsigned long long)ino, agno, agino);
	CHECK_INT(atoi(tl_out("xfs_db -r -c 'agi %u' -c 'print level' %s | sed 's/.* = //'", agno,
			      dev)), 1);
	mark_free(dev, agno, "root", agino);
	mark_free(dev, agno, "free_root", agino);
	int agi_free = atoi(tl_out("xfs_db -r -c 'agi %u' -c 'print freecount' %s | sed 's/.* = //'",
				   agno, dev));
	tl_must("xfs_db -x -c 'agi %u' -c 'write freecount %d' %s", agno, agi_free + 1, dev);

	/*
	 * The cancelled dirty transaction is an "Internal error" that XFS
	 * reports with a stack dump; that is XFS's own report, not a kernel
	 * problem, so keep it out of the log that is checked below.
	 */
	tl_write_str("/proc/sys/fs/xfs/error_level", "0");
	tl_mount(dev, MNT, NULL);
	int fan = kt_fserror_listen(MNT);
	int victim = tl_open(path, O_RDONLY);	/* keep it in the inode cache */
	errno = 0;
	CHECK(open(DIR "/new", O_WRONLY | O_CREAT, 0644) < 0 && errno == EUCLEAN,
	      "creating a file next to the victim: %s", strerror(errno));
	close(victim);

	int n = kt_fserror_read(fan, 10000, ev, 4);
	uint32_t errors = 0;
	for (int i = 0; i < n; i++) {
		kt_fserror_print("event", &ev[i]);
		errors += ev[i].count;
	}
	CHECK(n >= 1, "no FAN_FS_ERROR event");
	if (n >= 1) {
		CHECK_INT(ev[0].error, EUCLEAN);
		CHECK_INT(ev[0].handle_type, KT_FILEID_INVALID);
	}
	/* the sick inode btree, then the shutdown (merged or not) */
	CHECK_INT(errors, 2);
	if (n == 2)
		CHECK_INT(ev[1].error, ESHUTDOWN);
	close(fan);
	tl_umount(MNT);

	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
