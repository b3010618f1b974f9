// SPDX-License-Identifier: GPL-2.0-or-later
#include <string.h>
#include <sys/syscall.h>

#include "refetch_steps.h"

const char *const rs_step_name[RS_NR] = {
	[RS_COPY] = "copy into the unnamed file",
	[RS_VERIFY] = "verify of the copy",
	[RS_RECHECK] = "re-check of the mirror",
	[RS_BEFORE_WRITE] = "between the verify and the in-place write",
	[RS_WRITE] = "write over the old inode",
	[RS_ATTRS] = "owner and extended attributes",
	[RS_COMPARE] = "final compare",
	[RS_RECORD] = "database update",
};

/* The unnamed copy: "DIR/#INODE (deleted)". */
static bool is_copy(const struct rs_watch *w, const char *p)
{
	size_t n = strlen(w->dir), len = strlen(p);
	static const char gone[] = " (deleted)";

	return strncmp(p, w->dir, n) == 0 && p[n] == '/' && p[n + 1] == '#' &&
	       len > sizeof(gone) && strcmp(p + len - (sizeof(gone) - 1), gone) == 0;
}

int rs_step_of(struct rs_watch *w, const struct ss_call *c)
{
	const char *p = c->fd_path;

	if (!p[0] && c->nr != SYS_openat)
		return -1;
	if (is_copy(w, p)) {
		if (ss_is_write(c) && ++w->copy_writes == 2 && !w->copy_read)
			return RS_COPY;
		if (ss_is_read(c) && w->copy_writes && !w->copy_read) {
			w->copy_read = true;
			return RS_VERIFY;
		}
		return -1;
	}
	if (strcmp(p, w->mirror) == 0) {
		if (ss_is_fstat(c) && w->copy_read && !w->rechecked && !w->target_writes) {
			w->rechecked = true;
			return RS_RECHECK;
		}
		return -1;
	}
	if (c->nr == SYS_openat) {
		if (w->rechecked && !w->opened) {
			w->opened = true;
			return RS_BEFORE_WRITE;
		}
		return -1;
	}
	if (strcmp(p, w->target) == 0) {
		if (ss_is_write(c) && ++w->target_writes == 2)
			return RS_WRITE;
		if (c->nr == SYS_fsetxattr && w->target_writes && ++w->xattr_sets == 2)
			return RS_ATTRS;
		if (ss_is_read(c) && w->xattr_sets && !w->compared) {
			w->compared = true;
			return RS_COMPARE;
		}
		return -1;
	}
	if (strncmp(p, w->db, strlen(w->db)) == 0 && ss_is_write(c) && w->compared &&
	    !w->recorded) {
		w->recorded = true;
		return RS_RECORD;
	}
	return -1;
}
