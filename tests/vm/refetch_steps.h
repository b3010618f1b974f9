/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The steps of mapctl refetch's restore of one regular file (cli/
 * restore_copy.c), told apart from outside by the system calls it makes and
 * the files they name: the copy into an unnamed file (O_TMPFILE) of the
 * file's folder, the copy's verify, the re-check of the mirror, the write
 * over the old inode, its attributes, the final compare, the record in the
 * database.  Each step has one call that starts or is inside it: the place
 * where a test kills mapctl or changes the mirror.
 */
#ifndef MAPPER_REFETCH_STEPS_H
#define MAPPER_REFETCH_STEPS_H

#include <stdbool.h>

#include "syscall_stop.h"

enum rs_step {
	RS_COPY,	/* the second write into the unnamed copy: part copied */
	RS_VERIFY,	/* the first read of the copy back */
	RS_RECHECK,	/* the fstat of the mirror's file after the copy was read back */
	RS_BEFORE_WRITE,/* the first open after that re-check: the old file's, for writing */
	RS_WRITE,	/* the second write into the old inode: part written */
	RS_ATTRS,	/* the second extended attribute set on it (its owner set before) */
	RS_COMPARE,	/* the first read of it back */
	RS_RECORD,	/* the first write into the database after that */
	RS_NR
};

extern const char *const rs_step_name[RS_NR];

/* One file's restore: its folder, path and the mirror's path (as the
 * kernel names them in /proc/PID/fd), the database path. */
struct rs_watch {
	const char *dir, *target, *mirror, *db;
	int copy_writes, target_writes, xattr_sets;
	bool copy_read, rechecked, opened, compared, recorded;
};

/* Feed one call of the run: the step whose call this is (each step once,
 * the first time), or -1. */
int rs_step_of(struct rs_watch *w, const struct ss_call *c);

#endif
