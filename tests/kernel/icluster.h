/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fixture of the inode cluster salvage tests (issue 34): a fresh filesystem
 * on dm-dust with 72 files f00..f71 of known content, owner, mode and mtime.
 * 512-byte inodes in 4 KiB blocks: files 29..60 fill the 16 KiB cluster of
 * inodes 160..191 (checked), whose last 4 KiB block (8 inodes, files 53..60)
 * is the one the tests make unreadable.  ic_setup_shape() makes the same
 * layout in other geometries.
 */
#ifndef MAPPER_ICLUSTER_H
#define MAPPER_ICLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#define IC_FILES 72
#define IC_INODE_SIZE 512
#define IC_FS_BLOCK 4096
#define IC_INODES_PER_BLOCK (IC_FS_BLOCK / IC_INODE_SIZE)
#define IC_CLUSTER_INODES 32
/* A file in the cluster the tests damage. */
#define IC_CLUSTER_FILE 40
/* The entries of the directory that ic_setup() may make. */
#define IC_DIR_ENTRIES 3

struct ic_file {
	char path[64];
	bool is_dir;
	size_t size;			/* of a regular file */
	struct stat st;			/* before the damage */
	uint32_t gen;
	bool in_cluster;
	bool in_bad_block;
};

struct ic_fs {
	struct ic_file f[IC_FILES];
	unsigned int inode_size;	/* bytes */
	unsigned int bad_inodes;	/* inodes in the bad 4 KiB block */
	uint64_t first;			/* first inode of the cluster */
	uint64_t bad_first;		/* first inode of its last 4 KiB */
	unsigned long long daddr;	/* of that block (512-byte sectors) */
	unsigned long long cluster_daddr;
	uint64_t dust_blk;		/* dm-dust block (4 KiB) of daddr */
	unsigned int piece;		/* the salvage's read unit in bytes */
	char *sums;			/* tl_checksums() before the damage */
};

/*
 * bb_setup() on @backing, the 72 files; file @dir_index (if >= 0) is a
 * short form directory made right after a remount (the first directory of a
 * mount goes to AG 0, next to its siblings) holding IC_DIR_ENTRIES files.
 * Records everything after a remount and leaves the filesystem mounted with
 * @mount_opts (may be NULL), with cold caches and no damage yet.
 */
void ic_setup(struct ic_fs *fs, const char *backing, int dir_index, const char *mount_opts);

/*
 * Another geometry or other kinds of files (issue 34, item 8).  Every
 * geometry tested has 32-inode clusters, and the 72 files fill the second
 * cluster of the root's chunk as above; the bad 4 KiB block at its end holds
 * 4096 / inode size of them (fs->bad_inodes).
 */
struct ic_shape {
	/* mkfs.xfs options after the profile's features and "-d agcount=4";
	 * with @v4 the options alone (a V4 filesystem has neither the reverse
	 * map nor reflink). */
	const char *mkfs_opts;
	bool v4;
	unsigned int inode_size;	/* expected; 0: IC_INODE_SIZE */
	unsigned int block_size;	/* expected; 0: IC_FS_BLOCK */
	/* Makes entry @i itself (fills f->path, f->is_dir, f->size) and
	 * returns true, or leaves it to the fixture (a regular file); NULL:
	 * all regular files. */
	bool (*make)(struct ic_file *f, int i, void *arg);
	void *arg;
};
void ic_setup_shape(struct ic_fs *fs, const char *backing, const struct ic_shape *shape,
		    const char *mount_opts);

/* Remaining bad blocks of dm-dust ("countbadblocks"): a write clears one. */
int ic_dust_bad_blocks(void);

/* The file of @fs with inode @ino, or NULL. */
struct ic_file *ic_file_of(struct ic_fs *fs, uint64_t ino);

/* Every file of the cluster outside the bad block (and with @all, inside it
 * too) stats exactly as recorded: mode, owner, size, mtime, links, gen. */
void ic_check_unchanged(const struct ic_fs *fs, bool all);

/* A file of the bad block rebuilt from evidence: a regular file of its
 * size, owned by root, mode 0000, one link. */
void ic_check_rebuilt(const struct ic_file *f);
/* After a repair of the cluster: ic_check_unchanged(@fs, false), then
 * ic_check_rebuilt() for every file of the lost block. */
void ic_check_repaired(const struct ic_fs *fs);

/* All files read back the data recorded before the damage. */
void ic_check_sums(const struct ic_fs *fs);

/* Every inode of the cluster in use scrubs clean (INODE, BMBTD; on the
 * modern profile PARENT, after a PARENT repair of the files whose inode
 * was rebuilt from evidence, @rebuilt), and the link counts too. */
void ic_check_scrubs(const struct ic_fs *fs, bool rebuilt);

/* Scrub (with @iflags) @type of inode @ino with generation @gen. */
int ic_scrub(uint32_t type, uint64_t ino, uint32_t gen, uint32_t iflags, uint32_t *oflags);

/* stat: 0 or -errno. */
int ic_stat(const char *path, struct stat *st);

/* How many names in directory @dir start with @prefix; -errno if it
 * cannot be opened (a lost directory that stayed damaged). */
int ic_count_names(const char *dir, const char *prefix);

/* Mount BB_DEV at BB_MNT.  On failure count a failed check, print the end
 * of the kernel log and what xfs_repair -n says (dm-dust disabled), remove
 * dm-dust and return false: the caller's round cannot go on. */
bool ic_mount_checked(const char *opts);

/* Power cut: shut the filesystem down after flushing the log, unmount. */
void ic_power_cut(void);

#endif
