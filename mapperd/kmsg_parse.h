/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel log records (/dev/kmsg) that tell of damage: the block layer's
 * "<status> error, dev NAME, sector N op 0xO:(OP) flags 0xF phys_seg S prio
 * class C", and XFS's metadata I/O error, corruption and shutdown messages.
 * Pure text parsing.
 *
 * Any local user can get text of their choosing into the kernel log (a path
 * or a name that some other subsystem echoes in its own message), so a line
 * is recognised only when the whole message has the exact shape the 6.12
 * kernel prints, from its first character to its last: a status word from
 * the block layer's own table, an operation name that agrees with its code,
 * a device name of the characters the kernel uses.  The record's structured
 * fields (SUBSYSTEM=, DEVICE=) are returned for the caller to check against
 * the device the text names: the block layer and XFS print these messages
 * without them, so a record that has them came from some other printer.
 */
#ifndef MAPPERD_KMSG_PARSE_H
#define MAPPERD_KMSG_PARSE_H

#include <stddef.h>
#include <stdint.h>

enum md_kmsg_kind {
	MD_KMSG_OTHER,			/* nothing for us */
	MD_KMSG_BLOCK_ERROR,		/* dev = disk name, sector = disk sector */
	MD_KMSG_XFS_METADATA_IO,	/* dev = fs device name, sector = daddr, length, error */
	MD_KMSG_XFS_CORRUPT_BLOCK,	/* dev, sector = daddr, what = buffer type */
	MD_KMSG_XFS_CORRUPT_INODE,	/* dev, ino */
	MD_KMSG_XFS_CORRUPTION,		/* dev: corruption somewhere */
	MD_KMSG_XFS_SHUTDOWN,		/* dev */
};

/* A block request's operation (include/linux/blk_types.h, 6.12), as a
 * block-layer line names it. */
enum md_blk_op {
	MD_BLK_OP_NONE,			/* not a block-layer line */
	MD_BLK_OP_READ, MD_BLK_OP_WRITE, MD_BLK_OP_FLUSH, MD_BLK_OP_DISCARD,
	MD_BLK_OP_SECURE_ERASE, MD_BLK_OP_ZONE_APPEND, MD_BLK_OP_WRITE_ZEROES,
	MD_BLK_OP_ZONE_OPEN, MD_BLK_OP_ZONE_CLOSE, MD_BLK_OP_ZONE_FINISH, MD_BLK_OP_ZONE_RESET,
	MD_BLK_OP_ZONE_RESET_ALL, MD_BLK_OP_DRV_IN, MD_BLK_OP_DRV_OUT,
	MD_BLK_OP_UNKNOWN,		/* a code the kernel has no name for */
	MD_BLK_OP_NR
};
/* The kernel's name of @op ("READ", "WRITE", ...; "" for NONE). */
const char *md_blk_op_name(enum md_blk_op op);
/* The operation of that name (never NONE), or -ENOENT. */
int md_blk_op_from_name(const char *name);

struct md_kmsg_line {
	enum md_kmsg_kind kind;
	int facility, level;
	uint64_t seq;
	char dev[64];
	uint64_t sector;		/* 512-byte units */
	uint64_t length;		/* 512-byte units, 0 when not said */
	uint64_t ino;
	int error;			/* positive errno when said */
	char what[48];			/* "I/O", "critical medium"; "xfs_dir3_data" */
	enum md_blk_op op;		/* block lines */
	char subsystem[32];		/* the record's SUBSYSTEM=, "" when it has none */
	char device[48];		/* its DEVICE= ("b8:0", "+scsi:0:0:0:0"), or "" */
	char text[256];			/* the message, for the record */
};

/*
 * Parse one record as read(2) returns it from /dev/kmsg
 * ("PRI,SEQ,TS,FLAGS;text\n KEY=value\n...").  0 (kind may be OTHER) or
 * -EINVAL when it is not a kmsg record.
 */
int md_kmsg_parse_record(const char *rec, size_t len, struct md_kmsg_line *out);
/* Classify the message text alone (no prefix); fills kind and the fields. */
void md_kmsg_parse_text(const char *text, struct md_kmsg_line *out);

#endif
