/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Running xfs_repair for mapctl repair --offline. */
#ifndef MAPCTL_XFS_REPAIR_RUN_H
#define MAPCTL_XFS_REPAIR_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Output lines are looked at in pieces of at most this size. */
#define REPAIR_LINE 512

struct xfs_repair_result {
	int status;			/* exit status; -1 not run, 127 could not exec */
	uint64_t moved;			/* "moving to lost+found" lines: inodes moved */
	char last[REPAIR_LINE];		/* its last line that says something */
	char would[REPAIR_LINE];	/* with -n: the first thing it would change */
};

/*
 * Run the first xfs_repair in PATH on @device (with -n when @check), stdin
 * from /dev/null.  Its output is passed on to @say, escaped (it prints names
 * from the filesystem), unless @check.  0, or a negative errno when it could
 * not be started or waited for.
 */
int run_xfs_repair(const char *device, bool check, FILE *say, struct xfs_repair_result *r);

#endif
