/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * refetch, for a directory finding: put back the mirror's entries that are
 * missing here (one level), then remove the orphans in lost+found that are
 * copies of what was put back.  See act_refetch_dir.c.
 */
#ifndef MAP_ACT_REFETCH_DIR_H
#define MAP_ACT_REFETCH_DIR_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "map.h"

/* What the put-back needs from the refetch run. */
struct refetch_src {
	struct map_fs *fs;
	int rootfd;		/* the mount root */
	uint64_t dev;
	const char *from;	/* the mirror as given */
	int mirror_fd;		/* the mirror's root (O_PATH) */
};

struct put_back_file;
struct put_back_dir;

/* The files put back in this run, for the orphan pass. */
struct put_back_set {
	struct put_back_dir *dirs;
	size_t ndirs;
	struct put_back_file *files;
	size_t nfiles;
};

/*
 * Folder @rel (the recorded inode @ino, @gen; its own restore verified) gets
 * the mirror's entries it lacks, without touching a name it has.  @note says
 * what was put back (counts, names: bounded).  0 all put back and verified,
 * 1 something could not be (see @note), or -errno.
 */
int refetch_dir_put_back(const struct refetch_src *src, const char *rel, uint64_t ino,
			 uint32_t gen, struct put_back_set *set, char *note, size_t len);

struct orphan_fate {
	char name[NAME_MAX + 1];	/* in lost+found */
	bool removed;
	char why[300];
};

struct orphan_report {
	bool examined;		/* lost+found was read */
	struct orphan_fate *v;
	size_t n;
	size_t others;		/* not a regular file with one name: left alone */
	bool truncated;		/* more entries than one run examines: kept */
	char note[480];		/* why lost+found was not read, if so */
};

/* Remove each regular, single-name orphan of lost+found that has the bytes
 * (or is a damaged copy) of a file in @set, one orphan per file. */
void refetch_dir_orphans(const struct refetch_src *src, struct put_back_set *set,
			 struct orphan_report *rep);

void put_back_set_free(struct put_back_set *set);
void orphan_report_free(struct orphan_report *rep);

/*
 * Remove orphan @name of folder @dirfd (@fd: the orphan, any descriptor)
 * once compared: after checking right before that @name is still inode
 * @ino, and that its extended attributes can be read (XFS cannot free an
 * attribute fork it cannot read).  1 removed; 0 kept, with @why; -errno.
 */
int orphan_remove(int dirfd, const char *name, uint64_t ino, int fd, char *why, size_t len);

#endif
