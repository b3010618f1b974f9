/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A populated reflink filesystem for the scrub and repair tests: fragmented
 * free space, shared extents, and one inode of every interesting shape.
 */
#ifndef MAPPER_POPULATE_H
#define MAPPER_POPULATE_H

#include <stdint.h>
#include <sys/types.h>

/* Inodes for inode-scoped scrub calls, one of each shape. */
enum kt_sample_id {
	KT_ROOT,		/* root directory (short form) */
	KT_FILE,		/* regular file, a few extents */
	KT_BTREE_FILE,		/* data fork in btree format */
	KT_SHARED_FILE,		/* reflinked, with a CoW fork after a CoW write */
	KT_EMPTY_FILE,		/* no blocks */
	KT_XATTR_SHORT,		/* attr fork in local (short form) format */
	KT_XATTR_LEAF,		/* attr fork in extents format, many names */
	KT_XATTR_REMOTE,	/* attr value in a remote block */
	KT_BIG_DIR,		/* directory in node format */
	KT_SHORT_LINK,		/* symlink target inside the inode */
	KT_LONG_LINK,		/* symlink target in a block */
	KT_NSAMPLES
};

struct kt_sample {
	const char *label;
	char path[256];
	uint64_t ino;
	uint32_t gen;
	mode_t mode;
};

struct kt_population {
	struct kt_sample sample[KT_NSAMPLES];
	unsigned int files;		/* regular files made, clones included */
};

/*
 * Fill @mnt: per AG directory, @files_per_dir one-block files of which every
 * other one is deleted again (a free space record each) and the others are
 * cloned (a reference count record each), plus the samples.  Syncs at the end.
 */
void kt_populate(const char *mnt, unsigned int files_per_dir, struct kt_population *pop);

/* Generation and mode of inode @ino through bulkstat on @fd. */
void kt_bulkstat_one(int fd, uint64_t ino, uint32_t *gen, mode_t *mode);

#endif
