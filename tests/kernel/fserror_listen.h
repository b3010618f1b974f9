/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fanotify FAN_FS_ERROR listener for the kernel tests: FAN_CLASS_NOTIF |
 * FAN_REPORT_FID group, FAN_MARK_FILESYSTEM mark, events decoded into plain
 * structs.
 */
#ifndef MAPPER_FSERROR_LISTEN_H
#define MAPPER_FSERROR_LISTEN_H

#include <stdbool.h>
#include <stdint.h>

/* File handle types XFS encodes (fs/xfs/xfs_export.c). */
#define KT_FILEID_INO32_GEN	0x01	/* {u32 ino; u32 gen} */
#define KT_FILEID_INO64_GEN	0x81	/* {u64 ino; u32 gen}, packed */
#define KT_FILEID_INVALID	0xff	/* event without a file */

struct kt_fserror {
	int error;			/* positive errno from the filesystem */
	uint32_t count;			/* errors merged into this event */
	int fsid[2];			/* statfs f_fsid of the filesystem */
	int handle_type;		/* -1 if the event had no FID record */
	uint32_t handle_bytes;
	unsigned char handle[64];
	bool has_inode;			/* handle decoded to ino/gen below */
	uint64_t ino;
	uint32_t gen;
};

/* fanotify group watching FAN_FS_ERROR on the filesystem of @mnt. */
int kt_fserror_listen(const char *mnt);
/*
 * Wait up to @timeout_ms for the first event, then collect what is queued.
 * Returns the number of FAN_FS_ERROR events stored in @ev (at most @max);
 * any other event, or an event that cannot be parsed, stops the test.
 */
int kt_fserror_read(int fd, int timeout_ms, struct kt_fserror *ev, int max);
/*
 * Read with kt_fserror_read and CHECK that exactly one event came; print what
 * came.  True, with the event in @ev, if at least one did.
 */
bool kt_fserror_read_one(int fd, int timeout_ms, const char *step, struct kt_fserror *ev);
/* kt_fserror_read_one, and CHECK that the event has errno @error and names
 * inode @ino generation @gen. */
void kt_fserror_expect_file(int fd, int timeout_ms, const char *step, int error, uint64_t ino,
			    uint32_t gen);
/* CHECK that no event comes within @timeout_ms (any that do are printed). */
void kt_fserror_expect_none(int fd, int timeout_ms, const char *step);
/* Print one event on stdout. */
void kt_fserror_print(const char *what, const struct kt_fserror *ev);

#endif
