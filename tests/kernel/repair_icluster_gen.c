// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The generation of the inodes of a salvaged cluster (issue 34, item 5; both
 * profiles).  xfs_scrub passes sm_gen = 0 for an inode it could not
 * bulkstat, which is every inode of an unreadable cluster.  The fixture of
 * icluster.h: 32 files fill a 16 KiB cluster, its last 4 KiB block (8 of
 * them) is made unreadable; a file handle of a readable neighbour is taken
 * before the damage.
 *
 * Round 1: REPAIR with sm_gen = 0 of the first inode of the cluster, in a
 * readable block.  The 8 lost files are rebuilt; the target keeps its
 * generation from the disk, as every other readable neighbour does.
 *
 * Round 2: REPAIR with sm_gen = 0 of a lost inode.  It gets a generation,
 * but not the caller's 0 (before the fix it got 0).  Either call answers
 * ENOENT once the inode has a generation other than 0, as scrub does for
 * any generation that is not the inode's; the salvage happened all the
 * same (one kernel log line, the lost files rebuilt).  In both rounds the
 * handle taken before the damage still opens the neighbour, with its data;
 * the cluster scrubs clean and xfs_repair -n is clean.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "badblock.h"
#include "check.h"
#include "icluster.h"
#include "ktest.h"
#include "vmtest.h"
#include "xfs_abi.h"

/* The first inode of the cluster (readable) and one in the bad block. */
#define READABLE_FILE 29
#define LOST_FILE 60
/* The neighbour whose handle is taken before the damage. */
#define HANDLE_FILE 30

static struct ic_fs fs;

struct handle {
	struct file_handle fh;
	unsigned char bytes[MAX_HANDLE_SZ];
};

static void take_handle(const char *path, struct handle *h)
{
	int mount_id;

	h->fh.handle_bytes = MAX_HANDLE_SZ;
	REQUIRE(name_to_handle_at(AT_FDCWD, path, &h->fh, &mount_id, 0) == 0,
		"name_to_handle_at %s: %s", path, strerror(errno));
}

/* The handle opens the file, which has its inode number and all its data. */
static void check_handle(struct handle *h, const struct ic_file *f)
{
	int mfd = tl_open(BB_MNT, O_RDONLY | O_DIRECTORY);
	int fd = open_by_handle_at(mfd, &h->fh, O_RDONLY);
	static char buf[8 * 4096];
	struct stat st;
	ssize_t n;

	close(mfd);
	CHECK(fd >= 0, "open_by_handle_at of %s (handle taken before the damage): %s", f->path,
	      strerror(errno));
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf));
	CHECK(fstat(fd, &st) == 0 && st.st_ino == f->st.st_ino && n == (ssize_t)f->size,
	      "%s by handle: ino %llu, read %zd of %zu bytes", f->path,
	      (unsigned long long)st.st_ino, n, f->size);
	close(fd);
}

/* Kernel log lines about a rebuild of 8 inodes of a cluster. */
static int rebuild_log_lines(void)
{
	return atoi(tl_out("dmesg | grep -c 'inode cluster at daddr 0x%llx: rebuilt 8 "
			   "unreadable inodes' || true", fs.cluster_daddr));
}

static void run_round(const char *backing, int target_index)
{
	struct handle h;
	struct ic_file *t;
	uint32_t oflags;
	struct stat st;
	uint64_t ino;
	uint32_t gen;
	int rc, nlog;

	ic_setup(&fs, backing, -1, NULL);
	t = &fs.f[target_index];
	printf("=== target %s, inode %llu, generation %u, %s; REPAIR with sm_gen 0\n", t->path,
	       (unsigned long long)t->st.st_ino, t->gen, t->in_bad_block ? "lost" : "readable");
	REQUIRE(t->in_cluster && fs.f[HANDLE_FILE].in_cluster && !fs.f[HANDLE_FILE].in_bad_block,
		"unexpected layout");
	if (target_index == READABLE_FILE)
		REQUIRE(t->st.st_ino == fs.first, "%s is not the first inode of the cluster",
			t->path);
	take_handle(fs.f[HANDLE_FILE].path, &h);

	tl_umount(BB_MNT);
	kt_dust_add(BB_DUST, fs.dust_blk, 0);
	kt_dust_enable(BB_DUST, true);
	tl_mount(BB_DEV, BB_MNT, NULL);
	CHECK_INT(ic_stat(t->path, &st), -EIO);

	nlog = rebuild_log_lines();
	rc = ic_scrub(XFS_SCRUB_TYPE_INODE, t->st.st_ino, 0, XFS_SCRUB_IFLAG_REPAIR, &oflags);
	printf("repair: rc %d flags 0x%x\n", rc, oflags);
	tl_sh("dmesg | grep 'inode cluster at' | tail -n 2");
	/*
	 * The cluster is salvaged before the generation can be known; then
	 * an inode whose generation is not the caller's 0 is not the inode
	 * asked for (ENOENT, as for any wrong generation).
	 */
	CHECK(rc == -ENOENT || (rc == 0 && !(oflags & XFS_SCRUB_OFLAG_CORRUPT)),
	      "REPAIR with sm_gen 0: rc %d flags 0x%x", rc, oflags);
	CHECK_INT(rebuild_log_lines(), nlog + 1);

	rc = ic_stat(t->path, &st);
	CHECK(rc == 0, "stat %s after the repair: %s", t->path, strerror(-rc));
	if (rc == 0) {
		tl_ino_gen(t->path, &ino, &gen);
		printf("%s: generation %u after the repair (%u before)\n", t->path, gen, t->gen);
		if (t->in_bad_block)
			CHECK(gen != 0, "the lost inode %s got the caller's generation 0", t->path);
		else
			CHECK(gen == t->gen, "the readable inode %s changed generation: %u, was %u",
			      t->path, gen, t->gen);
	}
	/* The neighbours, the target if it was readable, keep everything. */
	ic_check_repaired(&fs);
	check_handle(&h, &fs.f[HANDLE_FILE]);
	ic_check_sums(&fs);
	ic_check_scrubs(&fs, true);
	CHECK_INT(bb_finish(), 0);
	free(fs.sums);
}

int main(int argc, char **argv)
{
	const char *backing = argc > 1 ? argv[1] : "/dev/vda";

	vt_require_vm();
	run_round(backing, READABLE_FILE);
	run_round(backing, LOST_FILE);
	return check_done();
}
