// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Online repair of an inode cluster that cannot be read in full (issue 11,
 * item 1; both profiles).  512-byte inodes in 4 KiB blocks: a 16 KiB cluster
 * holds 32 inodes, one block 8 of them.  44 files with known content, owner,
 * mode and mtime; dm-dust makes the block that holds the last file's inode
 * unreadable (some files and some free inodes).  Then:
 *
 * - stat fails with EIO for every file in the cluster, not only those in the
 *   bad block, and scrub of the inode says EIO or CORRUPT (stock 6.12: EIO
 *   for scrub and REPAIR alike);
 * - REPAIR of an inode in the bad block succeeds; xrep_icluster_unreadable
 *   names each unreadable piece of the block, xrep_icluster_rebuild each of
 *   its 8 inodes (regular files for ours, free inodes with mode 0);
 * - every file stats again; the rebuilt ones are regular files with their
 *   exact size (file sizes are whole blocks), root-owned without access
 *   bits and one link; a character device made after the files, in the bad
 *   block too, comes back as a character device with device number 0 (the
 *   number was in the lost inode; its attr fork must sit where the inode
 *   verifier wants a device's); the files that shared the cluster but not the bad
 *   block keep size, mode, owner, mtime and generation exactly;
 * - every inode of the cluster scrubs clean (INODE and BMBTD for those in
 *   use, ENOENT for free ones); on the modern profile the rebuilt files lost
 *   their parent pointers (inline xattrs), PARENT repair puts them back;
 *   the link counts scrub clean (NLINKS);
 * - all file data equals the checksums taken before the damage, the
 *   filesystem is alive; after a remount (dm-dust still on) the cluster
 *   reads: the repair wrote it back, which cleared the bad block;
 * and xfs_repair -n is clean after unmount (dm-dust disabled: it reads
 * free space too), and the kernel log has no BUG, WARNING, lockdep or KASAN
 * report.
 *
 * Two more rounds, each on a fresh filesystem, as a repair tool meets the
 * damage: 72 files fill a whole cluster, its last block is unreadable, and
 * so is the first block of a 500-entry directory elsewhere, which a DIR
 * scrub marks sick first.  The first REPAIR targets the first inode of the
 * cluster, in a readable sector, without and then with FORCE_REBUILD.  It
 * must succeed and rebuild the 8 lost inodes (trace and kernel log line, and
 * the log line about the directory it could not search); every file keeps
 * its inode number, the 24 in readable sectors keep mode, owner, size, mtime
 * and generation, all 32 scrub clean.  Before the fix the directory scan
 * failed on the sick directory: REPAIR returned 0 with CORRUPT and nothing
 * was rebuilt.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "badblock.h"
#include "check.h"
#include "ktest.h"
#include "map_scrub.h"
#include "vmtest.h"
#include "xfs_abi.h"

/* The original round: the last file's block holds some files, some free inodes. */
#define ORIGINAL_FILES 44
/* The readable rounds: enough files to fill the cluster after the root's. */
#define MAX_FILES 72
/* A file in that cluster (files 29..60 get inodes 160..191; checked below). */
#define FULL_CLUSTER_FILE 40
#define INODE_SIZE 512			/* the v5 default: the geometry */
#define FS_BLOCK 4096
#define INODES_PER_BLOCK (FS_BLOCK / INODE_SIZE)
#define CLUSTER_INODES 32		/* 16 KiB clusters of 512-byte inodes (v5) */
#define DUST_BLOCK 4096			/* dm-dust counts in 4 KiB blocks */
/* A directory of several blocks, so that one of them can be damaged. */
#define BIGDIR_ENTRIES 500
/* A device node among the lost inodes of the original round. */
#define CDEV BB_MNT "/cdev"

struct file {
	char path[64];
	size_t size;
	struct stat st;			/* before the damage */
	uint32_t gen;
	bool in_cluster;
	bool in_bad_block;
};

static struct file files[MAX_FILES];
static int nfiles;

/* stat: 0 or -errno. */
static int stat_rc(const char *path, struct stat *st)
{
	return stat(path, st) == 0 ? 0 : -errno;
}

static int scrub_ino(uint32_t type, uint64_t ino, uint32_t gen, uint32_t iflags,
		     uint32_t *oflags)
{
	return kt_scrub_ino(BB_MNT, type, ino, gen, iflags, oflags);
}

static void populate(void)
{
	for (int i = 0; i < nfiles; i++) {
		struct file *f = &files[i];
		struct timespec times[2] = {
			{ .tv_sec = 1500000000 + i * 3601, .tv_nsec = 1000 * i },
			{ .tv_sec = 1600000000 + i * 7919, .tv_nsec = 123456 + i },
		};

		snprintf(f->path, sizeof(f->path), BB_MNT "/f%02d", i);
		f->size = (size_t)(1 + i % 6) * FS_BLOCK;
		tl_write_file(f->path, f->size, (unsigned int)(100 + i), true);
		REQUIRE(chown(f->path, 1000 + i, 2000 + i) == 0 &&
				chmod(f->path, 0600 | (i % 8) << 3) == 0 &&
				utimensat(AT_FDCWD, f->path, times, 0) == 0,
			"set attributes of %s: %s", f->path, strerror(errno));
	}
	/* Settle: a remount drops speculative preallocations and caches. */
	tl_umount(BB_MNT);
	tl_mount(BB_DEV, BB_MNT, NULL);
	for (int i = 0; i < nfiles; i++) {
		uint64_t ino;

		tl_ino_gen(files[i].path, &ino, &files[i].gen);
		REQUIRE(stat(files[i].path, &files[i].st) == 0, "stat %s", files[i].path);
	}
}

/* The inodes of the cluster in use, per bulkstat; returns how many. */
static int cluster_inuse(uint64_t first, struct xfs_bstat *bs)
{
	static struct xfs_bstat buf[CLUSTER_INODES];
	__u64 last = first - 1;
	__s32 count = 0;
	struct xfs_fsop_bulkreq req = {
		.lastip = &last, .icount = CLUSTER_INODES, .ubuffer = buf, .ocount = &count,
	};
	int fd = tl_open(BB_MNT, O_RDONLY | O_DIRECTORY);
	int n = 0;

	REQUIRE(ioctl(fd, XFS_IOC_FSBULKSTAT, &req) == 0, "bulkstat: %s", strerror(errno));
	close(fd);
	for (int i = 0; i < count; i++)
		if (buf[i].bs_ino < first + CLUSTER_INODES)
			bs[n++] = buf[i];
	return n;
}

static bool scrub_clean(uint32_t type, uint64_t ino, uint32_t gen, const char *what)
{
	uint32_t oflags;
	int rc = scrub_ino(type, ino, gen, 0, &oflags);

	CHECK(rc == 0 && oflags == 0, "scrub %s of inode %llu: rc %d flags 0x%x", what,
	      (unsigned long long)ino, rc, oflags);
	return rc == 0 && oflags == 0;
}

static void check_cluster_scrubs(uint64_t first, const bool *rebuilt)
{
	struct xfs_bstat bs[CLUSTER_INODES];
	int n = cluster_inuse(first, bs);
	uint32_t oflags;
	int rc;

	printf("%d inodes of the cluster in use\n", n);
	for (uint64_t ino = first; ino < first + CLUSTER_INODES; ino++) {
		const struct xfs_bstat *b = NULL;

		for (int i = 0; i < n; i++)
			if (bs[i].bs_ino == ino)
				b = &bs[i];
		if (!b) {
			rc = scrub_ino(XFS_SCRUB_TYPE_INODE, ino, 0, 0, &oflags);
			CHECK(rc == -ENOENT, "scrub of free inode %llu: rc %d flags 0x%x",
			      (unsigned long long)ino, rc, oflags);
			continue;
		}
		if (vt_modern() && rebuilt[ino - first]) {
			/* The parent pointer was inline in the lost inode. */
			rc = scrub_ino(XFS_SCRUB_TYPE_PARENT, ino, b->bs_gen,
				       XFS_SCRUB_IFLAG_REPAIR, &oflags);
			CHECK(rc == 0 && oflags == 0, "PARENT repair of inode %llu: rc %d flags 0x%x",
			      (unsigned long long)ino, rc, oflags);
		}
		scrub_clean(XFS_SCRUB_TYPE_INODE, ino, b->bs_gen, "INODE");
		scrub_clean(XFS_SCRUB_TYPE_BMBTD, ino, b->bs_gen, "BMBTD");
		if (vt_modern())
			scrub_clean(XFS_SCRUB_TYPE_PARENT, ino, b->bs_gen, "PARENT");
	}
}

/*
 * The first REPAIR of a round targets an inode in the bad block (the
 * original case), or one in a readable sector of the cluster, without and
 * with IFLAG_FORCE_REBUILD: whichever inode is targeted, the cluster must be
 * rebuilt, and the inodes in readable sectors kept.
 */
enum round { TARGET_LOST, TARGET_READABLE, TARGET_READABLE_FORCE, NR_ROUNDS };

static const char *const round_names[NR_ROUNDS] = {
	"target in the bad block", "target in a readable sector",
	"target in a readable sector, FORCE_REBUILD",
};

/* Kernel log lines that report a rebuild of the cluster at @cluster_daddr. */
static int rebuild_log_lines(unsigned long long cluster_daddr, int nlost)
{
	return atoi(tl_out("dmesg | grep -c 'inode cluster at daddr 0x%llx: rebuilt %d "
			   "unreadable inodes' || true", cluster_daddr, nlost));
}

/* ... and that say a damaged directory was left out of the name search. */
static int skipped_dir_log_lines(unsigned long long cluster_daddr)
{
	return atoi(tl_out("dmesg | grep -c 'inode cluster at daddr 0x%llx: 1 damaged "
			   "directories not searched' || true", cluster_daddr));
}

static unsigned long long ino_daddr(uint64_t ino)
{
	unsigned long long daddr;
	const char *out = tl_out("xfs_db -r -c 'convert ino %llu daddr' %s",
				 (unsigned long long)ino, BB_DEV);

	REQUIRE(sscanf(out, "%*s (%llu)", &daddr) == 1, "xfs_db convert: %s", out);
	return daddr;
}

static void run_round(const char *backing, enum round round)
{
	static const char *const events[] = {
		"xfs_scrub:xrep_icluster_unreadable", "xfs_scrub:xrep_icluster_rebuild",
	};
	bool readable_target = round != TARGET_LOST;
	uint32_t iflags = XFS_SCRUB_IFLAG_REPAIR |
			  (round == TARGET_READABLE_FORCE ? XFS_SCRUB_IFLAG_FORCE_REBUILD : 0);
	struct xfs_fsop_geom geo;
	bool rebuilt[CLUSTER_INODES] = { false };
	struct file *target = NULL;
	unsigned long long daddr, cluster_daddr;
	uint64_t first, bad_first;
	uint32_t oflags;
	char needle[64];
	struct stat st;
	uint64_t bigdir_ino = 0, cdev_ino = 0;
	unsigned long long bigdir_blk = 0;
	int fd, rc, nbad = 0, nneighbours = 0, nlog, nskipped;

	printf("=== round %d: %s\n", round, round_names[round]);
	memset(files, 0, sizeof(files));
	/* The readable rounds fill the whole cluster after the root's. */
	nfiles = readable_target ? MAX_FILES : ORIGINAL_FILES;
	bb_setup(backing, "-d agcount=4");
	fd = tl_open(BB_MNT, O_RDONLY | O_DIRECTORY);
	kt_geometry(fd, &geo);
	close(fd);
	REQUIRE(geo.inodesize == INODE_SIZE && geo.blocksize == FS_BLOCK,
		"geometry: inode size %u, block size %u", geo.inodesize, geo.blocksize);

	populate();
	if (readable_target) {
		/* After the files: their inode numbers stay as they are. */
		tl_must("mkdir " BB_MNT "/bigdir && cd " BB_MNT "/bigdir && for i in $(seq %d); "
			"do : > entry-$i-with-a-longer-name-than-usual; done && sync", BIGDIR_ENTRIES);
		REQUIRE(stat(BB_MNT "/bigdir", &st) == 0, "stat bigdir: %s", strerror(errno));
		bigdir_ino = st.st_ino;
	} else {
		/* Allocated after the last file: in the free slots of its block. */
		REQUIRE(mknod(CDEV, S_IFCHR | 0640, makedev(1, 3)) == 0, "mknod: %s",
			strerror(errno));
		REQUIRE(stat(CDEV, &st) == 0, "stat " CDEV ": %s", strerror(errno));
		cdev_ino = st.st_ino;
	}
	char *sums = tl_checksums(BB_MNT);

	/*
	 * Clusters are aligned (inode chunk alignment), so is each block.  The
	 * original round damages the block that holds the last file (some
	 * files, some free inodes); the readable rounds damage the last block
	 * of a cluster full of our files and repair its first inode.
	 */
	if (readable_target) {
		first = files[FULL_CLUSTER_FILE].st.st_ino & ~(uint64_t)(CLUSTER_INODES - 1);
		bad_first = first + CLUSTER_INODES - INODES_PER_BLOCK;
		for (int i = 0; i < nfiles; i++)
			if (files[i].st.st_ino == first)
				target = &files[i];
		REQUIRE(target, "no file of ours has inode %llu, the first of its cluster",
			(unsigned long long)first);
	} else {
		target = &files[nfiles - 1];
		first = target->st.st_ino & ~(uint64_t)(CLUSTER_INODES - 1);
		bad_first = target->st.st_ino & ~(uint64_t)(INODES_PER_BLOCK - 1);
	}
	for (int i = 0; i < nfiles; i++) {
		uint64_t ino = files[i].st.st_ino;

		files[i].in_cluster = ino >= first && ino < first + CLUSTER_INODES;
		files[i].in_bad_block = ino >= bad_first && ino < bad_first + INODES_PER_BLOCK;
		nbad += files[i].in_bad_block;
		nneighbours += files[i].in_cluster && !files[i].in_bad_block;
		if (files[i].in_bad_block)
			rebuilt[ino - first] = true;
		printf("%s: ino %llu%s\n", files[i].path, (unsigned long long)ino,
		       files[i].in_bad_block ? " (bad block)" :
		       files[i].in_cluster ? " (cluster)" : "");
	}
	if (readable_target)
		REQUIRE(nbad == INODES_PER_BLOCK &&
				nneighbours == CLUSTER_INODES - INODES_PER_BLOCK,
			"the cluster holds %d + %d files, want all %d inodes in use", nbad,
			nneighbours, CLUSTER_INODES);
	else
		REQUIRE(nbad > 0 && nbad < INODES_PER_BLOCK && nneighbours > 0,
			"the bad block holds %d files (want some, and some free inodes), the "
			"rest of the cluster %d", nbad, nneighbours);
	if (!readable_target) {
		REQUIRE(cdev_ino >= bad_first && cdev_ino < bad_first + INODES_PER_BLOCK,
			"the device node (inode %llu) is not in the bad block",
			(unsigned long long)cdev_ino);
		rebuilt[cdev_ino - first] = true;
	}
	REQUIRE(stat(BB_MNT, &st) == 0 && (st.st_ino < first || st.st_ino >= first + CLUSTER_INODES),
		"the root directory is in the damaged cluster");
	REQUIRE(bigdir_ino < first || bigdir_ino >= first + CLUSTER_INODES,
		"the damaged directory is in the damaged cluster");

	/* Damage: the 4 KiB block that holds inode bad_first. */
	tl_umount(BB_MNT);
	daddr = ino_daddr(bad_first);
	cluster_daddr = ino_daddr(first);
	printf("inodes %llu-%llu: daddr %llu, dust block %llu; target %s, ino %llu\n",
	       (unsigned long long)bad_first,
	       (unsigned long long)bad_first + INODES_PER_BLOCK - 1, daddr,
	       daddr * 512 / DUST_BLOCK, target->path, (unsigned long long)target->st.st_ino);
	kt_dust_add(BB_DUST, daddr * 512 / DUST_BLOCK, 0);
	if (readable_target) {
		bigdir_blk = bb_fork_daddr(bigdir_ino, false, 0) * 512 / DUST_BLOCK;
		printf("bigdir: ino %llu, first block: dust block %llu\n",
		       (unsigned long long)bigdir_ino, bigdir_blk);
		kt_dust_add(BB_DUST, bigdir_blk, 0);
	}
	kt_dust_enable(BB_DUST, true);
	tl_mount(BB_DEV, BB_MNT, NULL);
	if (readable_target) {
		/* As a scan does before any repair: the directory is marked sick. */
		rc = bb_scrub(BB_MNT "/bigdir", XFS_SCRUB_TYPE_DIR, 0, &oflags);
		CHECK(rc == 0 && (oflags & XFS_SCRUB_OFLAG_CORRUPT),
		      "scrub of the damaged directory: rc %d flags 0x%x", rc, oflags);
	}

	/* The whole cluster is unreadable; the rest of the files are not. */
	for (int i = 0; i < nfiles; i++)
		CHECK_INT(stat_rc(files[i].path, &st), files[i].in_cluster ? -EIO : 0);
	rc = scrub_ino(XFS_SCRUB_TYPE_INODE, target->st.st_ino, target->gen, 0, &oflags);
	printf("scrub of the target inode: rc %d flags 0x%x\n", rc, oflags);
	CHECK(rc == -EIO || (rc == 0 && (oflags & XFS_SCRUB_OFLAG_CORRUPT)),
	      "scrub of the target inode: rc %d flags 0x%x, expected EIO or CORRUPT", rc,
	      oflags);

	nlog = rebuild_log_lines(cluster_daddr, INODES_PER_BLOCK);
	nskipped = skipped_dir_log_lines(cluster_daddr);
	CHECK_INT(bb_trace_start(events, sizeof(events) / sizeof(events[0])), 0);
	rc = scrub_ino(XFS_SCRUB_TYPE_INODE, target->st.st_ino, target->gen, iflags, &oflags);
	char *trace = kt_trace_stop();
	printf("repair (iflags 0x%x): rc %d flags 0x%x\n%s", iflags, rc, oflags, trace);
	CHECK(rc == 0 && !(oflags & (XFS_SCRUB_OFLAG_CORRUPT | XFS_SCRUB_OFLAG_INCOMPLETE)),
	      "REPAIR of the target inode: rc %d flags 0x%x", rc, oflags);
	CHECK_INT(rebuild_log_lines(cluster_daddr, INODES_PER_BLOCK), nlog + 1);
	if (readable_target) {
		CHECK_INT(skipped_dir_log_lines(cluster_daddr), nskipped + 1);
		/* The directory is readable again and scrubs clean (not sick). */
		tl_must("dmsetup message " BB_DUST " 0 removebadblock %llu", bigdir_blk);
		rc = bb_scrub(BB_MNT "/bigdir", XFS_SCRUB_TYPE_DIR, 0, &oflags);
		CHECK(rc == 0 && oflags == 0, "scrub of the directory made readable: rc %d "
		      "flags 0x%x", rc, oflags);
	}

	/* Every piece of the bad block (sector or inode sized) failed its three
	 * attempts, and only those. */
	unsigned int piece = geo.sectsize > INODE_SIZE ? geo.sectsize : INODE_SIZE;

	CHECK_INT(kt_trace_count(trace, "xrep_icluster_unreadable", "try 3/3", "error -5", NULL),
		  FS_BLOCK / piece);
	snprintf(needle, sizeof(needle), "daddr 0x%llx ", daddr);
	CHECK_INT(kt_trace_count(trace, "xrep_icluster_unreadable", "try 3/3", needle, NULL), 1);
	CHECK_INT(kt_trace_count(trace, "xrep_icluster_rebuild", NULL), INODES_PER_BLOCK);
	for (uint64_t ino = bad_first; ino < bad_first + INODES_PER_BLOCK; ino++) {
		bool ours = rebuilt[ino - first], dev = ino == cdev_ino;

		snprintf(needle, sizeof(needle), "ino 0x%llx mode 0%s ", (unsigned long long)ino,
			 dev ? "20000" : ours ? "100000" : "0");
		CHECK(kt_trace_count(trace, "xrep_icluster_rebuild", needle, NULL) == 1,
		      "inode %llu is not traced as a rebuilt %s", (unsigned long long)ino,
		      dev ? "device" : ours ? "regular file" : "free inode");
	}
	free(trace);

	/* The rebuilt files and their neighbours, which must not change at all. */
	for (int i = 0; i < nfiles; i++) {
		const struct file *f = &files[i];
		uint64_t ino;
		uint32_t gen;

		rc = stat_rc(f->path, &st);
		CHECK(rc == 0, "stat %s after the repair: %s", f->path, strerror(-rc));
		if (rc != 0 || !f->in_cluster)
			continue;
		CHECK(st.st_ino == f->st.st_ino && S_ISREG(st.st_mode) &&
			      (size_t)st.st_size == f->size,
		      "%s: ino %llu mode 0%o size %lld", f->path, (unsigned long long)st.st_ino,
		      st.st_mode, (long long)st.st_size);
		tl_ino_gen(f->path, &ino, &gen);
		if (f->in_bad_block) {
			CHECK(st.st_uid == 0 && st.st_gid == 0 && (st.st_mode & 07777) == 0 &&
				      st.st_nlink == 1,
			      "rebuilt %s: uid %u gid %u mode 0%o nlink %lu, expected root, no "
			      "access, 1 link", f->path, st.st_uid, st.st_gid, st.st_mode,
			      (unsigned long)st.st_nlink);
			if (f == target)
				CHECK_INT(gen, f->gen);
			continue;
		}
		CHECK(st.st_mode == f->st.st_mode && st.st_uid == f->st.st_uid &&
			      st.st_gid == f->st.st_gid && st.st_nlink == f->st.st_nlink &&
			      st.st_size == f->st.st_size &&
			      st.st_mtim.tv_sec == f->st.st_mtim.tv_sec &&
			      st.st_mtim.tv_nsec == f->st.st_mtim.tv_nsec && gen == f->gen,
		      "neighbour %s changed: mode 0%o uid %u gid %u size %lld mtime %lld.%09ld "
		      "gen %u", f->path, st.st_mode, st.st_uid, st.st_gid, (long long)st.st_size,
		      (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, gen);
	}

	if (cdev_ino) {
		/* Type from the directory entry; the device number was lost. */
		rc = stat_rc(CDEV, &st);
		CHECK(rc == 0, "stat " CDEV " after the repair: %s", strerror(-rc));
		CHECK(rc != 0 || (st.st_ino == cdev_ino && S_ISCHR(st.st_mode) &&
				  st.st_rdev == 0 && (st.st_mode & 07777) == 0 && st.st_uid == 0 &&
				  st.st_nlink == 1),
		      "rebuilt " CDEV ": ino %llu mode 0%o rdev %llu uid %u nlink %lu",
		      (unsigned long long)st.st_ino, st.st_mode, (unsigned long long)st.st_rdev,
		      st.st_uid, (unsigned long)st.st_nlink);
	}
	check_cluster_scrubs(first, rebuilt);
	fd = tl_open(BB_MNT, O_RDONLY | O_DIRECTORY);
	rc = map_scrub_call(fd, XFS_SCRUB_TYPE_NLINKS, 0, 0, 0, 0, &oflags);
	close(fd);
	CHECK(rc == 0 && oflags == 0, "scrub of the link counts: rc %d flags 0x%x", rc, oflags);
	CHECK(bb_fs_alive(), "the filesystem is shut down or unmounted");
	char *now = tl_checksums(BB_MNT);
	CHECK_STR(now, sums);
	free(now);

	/* The repair wrote the cluster back, which cleared the bad block. */
	tl_umount(BB_MNT);
	tl_mount(BB_DEV, BB_MNT, NULL);
	for (int i = 0; i < nfiles; i++)
		CHECK_INT(stat_rc(files[i].path, &st), 0);
	now = tl_checksums(BB_MNT);
	CHECK_STR(now, sums);
	free(now);

	CHECK_INT(bb_finish(), 0);
	free(sums);
}

int main(int argc, char **argv)
{
	const char *backing = argc > 1 ? argv[1] : "/dev/vda";

	vt_require_vm();
	for (int round = 0; round < NR_ROUNDS; round++)
		run_round(backing, (enum round)round);
	return check_done();
}
