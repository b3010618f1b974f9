/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Structured records for the journal (sd_journal_sendv, journald's native
 * protocol): the message plus fields a program can select on.  Used only
 * when standard error is journald's stream for this process (systemd sets
 * JOURNAL_STREAM to its device and inode), so that run by hand in a
 * terminal mapperd still writes lines there.
 */
#ifndef MAPPERD_JOURNAL_H
#define MAPPERD_JOURNAL_H

#include <stdbool.h>
#include <stdint.h>

/* What a record is about; NULL or unset members add no field. */
struct log_ctx {
	const char *message_id;		/* journal_ids.h */
	const char *uuid;		/* MAPPER_FS_UUID */
	const char *mountpoint;		/* MAPPER_MOUNTPOINT */
	const char *path;		/* MAPPER_PATH: the whole path, as the kernel has it */
	unsigned npaths;		/* MAPPER_PATHS when > 1: the file's names */
	uint64_t ino;			/* MAPPER_INODE when non-zero */
	bool has_offset;		/* MAPPER_OFFSET, MAPPER_LENGTH: in the file */
	bool has_physical;		/* MAPPER_PHYSICAL, MAPPER_LENGTH: on the device */
	uint64_t offset, physical, length;
	const char *kind;		/* MAPPER_KIND: file, inode, agi, ... */
	const char *source;		/* MAPPER_SOURCE: fanotify, kmsg, scan */
};

/* Does JOURNAL_STREAM name the file on descriptor 2 (systemd's way of
 * saying standard error goes to journald)? */
bool md_journal_stderr_is_journal(void);

/*
 * Send one record: MESSAGE=@message (already escaped), PRIORITY=@prio,
 * SYSLOG_IDENTIFIER=mapperd and @ctx's fields, values as they are (the
 * native protocol keeps newlines and any byte inside one field).  0, or a
 * negative errno when journald did not take it (the caller writes the line
 * on stderr instead).
 */
int md_journal_send(int prio, const char *message, const struct log_ctx *ctx);

#endif
