// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The inode cluster salvage in the geometries it claims or refuses (issue
 * 34, item 8).  Each round makes a fresh filesystem with the fixture of
 * icluster.h in another geometry: 32 files fill the second cluster of the
 * root's inode chunk, and the last 4 KiB of that cluster (dm-dust) becomes
 * unreadable; it holds 4096 / inode size of the files.
 *
 * Rebuilt (both profiles): 1024- and 2048-byte inodes (32 KiB and 64 KiB
 * clusters, 4 and 2 inodes lost), and 1 KiB blocks (a 16 KiB cluster of 16
 * blocks).  REPAIR of the last file of the cluster succeeds; exactly the
 * lost inodes are rebuilt (one xrep_icluster_rebuild line each, one
 * xrep_icluster_write) as root-owned regular files of their size, mode 0,
 * one link; the other 32 - n are unchanged (mode, owner, size, mtime,
 * links, generation), all data reads back, the write cleared the bad block,
 * and after a remount the cluster scrubs clean (INODE, BMBTD, PARENT after
 * a PARENT repair on modern), the link counts too, xfs_repair -n is clean.
 *
 * Refused (classic only: the modern profile's features need V5):
 * - a V4 filesystem, 256-byte inodes (`-m crc=0`, an 8 KiB cluster, 16
 *   inodes lost): no reverse map to find the forks, so REPAIR fails with
 *   EOPNOTSUPP and writes nothing (dm-dust still has its bad block, the
 *   inodes still fail to load); once the block reads again, all 32 files
 *   are exactly as before and xfs_repair -n is clean;
 * - 64 KiB blocks: the guest kernel has no large folios
 *   (CONFIG_TRANSPARENT_HUGEPAGE off), and 6.12 then refuses a block size
 *   above the page size at mount ("block size (65536 bytes) not
 *   supported"), so there is no cluster to salvage.  With large folios the
 *   512-byte inodes of a 64 KiB block make 128-inode clusters, which the
 *   salvage refuses (EOPNOTSUPP, more than one inode btree record).
 * The kernel log has no BUG, WARNING or lockdep report in any round.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "badblock.h"
#include "check.h"
#include "icluster.h"
#include "ktest.h"
#include "vmtest.h"
#include "xfs_abi.h"

struct geometry {
	const char *name;
	struct ic_shape shape;
	bool classic_only;
	int expect;			/* REPAIR's result: 0 or -EOPNOTSUPP */
};

static const struct geometry geometries[] = {
	{ "1024-byte inodes", { .mkfs_opts = "-i size=1024", .inode_size = 1024 }, false, 0 },
	{ "2048-byte inodes", { .mkfs_opts = "-i size=2048", .inode_size = 2048 }, false, 0 },
	{ "1 KiB blocks", { .mkfs_opts = "-b size=1024", .block_size = 1024 }, false, 0 },
	{ "V4, 256-byte inodes",
	  { .mkfs_opts = "-m crc=0 -i size=256", .v4 = true, .inode_size = 256 }, true,
	  -EOPNOTSUPP },
};

static struct ic_fs fs;

/* The last file of the cluster: always in the bad block. */
static struct ic_file *target(void)
{
	struct ic_file *t = ic_file_of(&fs, fs.first + IC_CLUSTER_INODES - 1);

	REQUIRE(t && t->in_bad_block, "no file of ours at the end of the cluster");
	return t;
}

static void damage(void)
{
	tl_umount(BB_MNT);
	kt_dust_add(BB_DUST, fs.dust_blk, 0);
	kt_dust_enable(BB_DUST, true);
	tl_mount(BB_DEV, BB_MNT, NULL);
}

static const char *const events[] = {
	"xfs_scrub:xrep_icluster_rebuild",
	"xfs_scrub:xrep_icluster_write",
};

static void rebuilt_round(void)
{
	struct ic_file *t = target();
	uint32_t oflags;
	struct stat st;
	char *trace;
	int rc;

	damage();
	CHECK_INT(ic_stat(t->path, &st), -EIO);
	CHECK_INT(bb_trace_start(events, 2), 0);
	rc = ic_scrub(XFS_SCRUB_TYPE_INODE, t->st.st_ino, t->gen, XFS_SCRUB_IFLAG_REPAIR,
		      &oflags);
	trace = kt_trace_stop();
	printf("repair of %s: rc %d flags 0x%x\n%s", t->path, rc, oflags, trace);
	CHECK(rc == 0 && !(oflags & XFS_SCRUB_OFLAG_CORRUPT), "REPAIR: rc %d flags 0x%x", rc,
	      oflags);
	CHECK_INT(kt_trace_count(trace, "xrep_icluster_rebuild", NULL), fs.bad_inodes);
	CHECK_INT(kt_trace_count(trace, "xrep_icluster_write", NULL), 1);
	for (uint64_t ino = fs.bad_first; ino < fs.bad_first + fs.bad_inodes; ino++) {
		char needle[48];

		snprintf(needle, sizeof(needle), "ino 0x%llx ", (unsigned long long)ino);
		CHECK(kt_trace_count(trace, "xrep_icluster_rebuild", needle, NULL) == 1,
		      "inode %llu was not rebuilt exactly once", (unsigned long long)ino);
	}
	free(trace);
	CHECK_INT(ic_dust_bad_blocks(), 0);

	/* From the disk, not from the buffer the repair left in memory. */
	tl_umount(BB_MNT);
	if (!ic_mount_checked(NULL))
		return;
	ic_check_repaired(&fs);
	ic_check_sums(&fs);
	ic_check_scrubs(&fs, true);
	CHECK_INT(bb_finish(), 0);
}

static void refused_round(int expect)
{
	struct ic_file *t = target();
	uint32_t oflags;
	struct stat st;
	int rc;

	damage();
	rc = ic_scrub(XFS_SCRUB_TYPE_INODE, t->st.st_ino, t->gen, XFS_SCRUB_IFLAG_REPAIR,
		      &oflags);
	printf("repair of %s: rc %d flags 0x%x\n", t->path, rc, oflags);
	CHECK(rc == expect, "REPAIR: rc %d (%s) flags 0x%x, expected %s", rc, strerror(-rc),
	      oflags, strerror(-expect));
	CHECK_INT(ic_dust_bad_blocks(), 1);
	CHECK_INT(ic_stat(t->path, &st), -EIO);
	CHECK(bb_fs_alive(), "the filesystem is shut down or unmounted");

	/* The block reads again: nothing of the cluster has changed. */
	tl_umount(BB_MNT);
	kt_dust_enable(BB_DUST, false);
	if (!ic_mount_checked(NULL))
		return;
	ic_check_unchanged(&fs, true);
	ic_check_sums(&fs);
	CHECK_INT(bb_finish(), 0);
}

/* 64 KiB blocks: what mount says on this kernel. */
static void large_block_round(const char *backing)
{
	int rc;

	printf("=== 64 KiB blocks\n");
	tl_allow_small_fs(BB_DEV);
	kt_dust_create(BB_DUST, backing);
	/* Four 64 MiB AGs leave no room for the log of a 64 KiB block size. */
	tl_mkfs(BB_DEV, "%s -d agcount=2 -b size=65536", vt_features());
	rc = tl_sh("mkdir -p %s && mount %s %s", BB_MNT, BB_DEV, BB_MNT);
	CHECK(rc != 0, "a 64 KiB block filesystem mounted on a kernel without large folios: "
	      "test the salvage on it (128-inode clusters: EOPNOTSUPP)");
	if (rc == 0)
		tl_umount(BB_MNT);
	CHECK_STR(tl_out("dmesg | grep -o 'block size (65536 bytes) not supported' | head -n 1"),
		  "block size (65536 bytes) not supported");
	kt_dust_remove(BB_DUST);
	CHECK_INT(vt_kernel_log_problems(), 0);
}

int main(int argc, char **argv)
{
	const char *backing = argc > 1 ? argv[1] : "/dev/vda";

	vt_require_vm();
	for (size_t i = 0; i < sizeof(geometries) / sizeof(geometries[0]); i++) {
		const struct geometry *g = &geometries[i];

		if (g->classic_only && vt_modern())
			continue;
		printf("=== %s: %s\n", g->name, g->expect ? "refused" : "rebuilt");
		ic_setup_shape(&fs, backing, &g->shape, NULL);
		if (g->expect)
			refused_round(g->expect);
		else
			rebuilt_round();
		free(fs.sums);
	}
	if (!vt_modern())
		large_block_round(backing);
	return check_done();
}
