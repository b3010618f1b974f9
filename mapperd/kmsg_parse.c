// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Recognise the kernel log lines that tell of damaged data or metadata.
 * Each shape is matched whole, left to right, with a cursor: a literal, a
 * number, a word from a fixed table or of a fixed set of characters, up to
 * the end of the text.  Anything else in between, or after, and the line is
 * not ours.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "kmsg_parse.h"

/* The block layer's status words (block/blk-core.c, blk_errors[], 6.12;
 * "critical nexus" is 5.x's name for the reservation conflict). */
static const char *const blk_status[] = {
	"operation not supported", "timeout", "critical space allocation",
	"recoverable transport", "critical target", "reservation conflict", "critical nexus",
	"critical medium", "protection", "kernel resource", "device resource",
	"nonblocking retry", "device offline", "dm internal retry", "open zones exceeded",
	"active zones exceeded", "duration limit exceeded", "invalid", "I/O",
};

/* Request operations: their codes and names (include/linux/blk_types.h,
 * 6.12).  UNKNOWN is what the kernel prints for a code not in its table. */
static const struct {
	unsigned int code;
	const char *name;
} blk_ops[MD_BLK_OP_NR] = {
	[MD_BLK_OP_NONE] = { 0, "" },
	[MD_BLK_OP_READ] = { 0, "READ" },
	[MD_BLK_OP_WRITE] = { 1, "WRITE" },
	[MD_BLK_OP_FLUSH] = { 2, "FLUSH" },
	[MD_BLK_OP_DISCARD] = { 3, "DISCARD" },
	[MD_BLK_OP_SECURE_ERASE] = { 5, "SECURE_ERASE" },
	[MD_BLK_OP_ZONE_APPEND] = { 7, "ZONE_APPEND" },
	[MD_BLK_OP_WRITE_ZEROES] = { 9, "WRITE_ZEROES" },
	[MD_BLK_OP_ZONE_OPEN] = { 11, "ZONE_OPEN" },
	[MD_BLK_OP_ZONE_CLOSE] = { 13, "ZONE_CLOSE" },
	[MD_BLK_OP_ZONE_FINISH] = { 15, "ZONE_FINISH" },
	[MD_BLK_OP_ZONE_RESET] = { 17, "ZONE_RESET" },
	[MD_BLK_OP_ZONE_RESET_ALL] = { 19, "ZONE_RESET_ALL" },
	[MD_BLK_OP_DRV_IN] = { 34, "DRV_IN" },
	[MD_BLK_OP_DRV_OUT] = { 35, "DRV_OUT" },
	[MD_BLK_OP_UNKNOWN] = { 0, "UNKNOWN" },
};

const char *md_blk_op_name(enum md_blk_op op)
{
	return (unsigned int)op < MD_BLK_OP_NR ? blk_ops[op].name : "?";
}

int md_blk_op_from_name(const char *name)
{
	for (int i = MD_BLK_OP_NONE + 1; i < MD_BLK_OP_NR; i++)
		if (strcmp(blk_ops[i].name, name) == 0)
			return i;
	return -ENOENT;
}

/* Whether the kernel names request operation @code @op: its own name, or
 * UNKNOWN for a code its table does not have. */
static bool op_names_code(enum md_blk_op op, uint64_t code)
{
	if (op != MD_BLK_OP_UNKNOWN)
		return blk_ops[op].code == code;
	for (int i = MD_BLK_OP_NONE + 1; i < MD_BLK_OP_UNKNOWN; i++)
		if (blk_ops[i].code == code)
			return false;
	return true;
}

/* Longest decimal and hexadecimal numbers a 64-bit value prints as. */
#define DEC_DIGITS_MAX 20
#define HEX_DIGITS_MAX 16

static bool lit(const char **p, const char *s)
{
	size_t n = strlen(s);

	if (strncmp(*p, s, n) != 0)
		return false;
	*p += n;
	return true;
}

static bool dec(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	int n = 0;

	while (*s >= '0' && *s <= '9') {
		unsigned int d = (unsigned int)(*s - '0');

		if (++n > DEC_DIGITS_MAX || x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
		s++;
	}
	if (!n)
		return false;
	*v = x;
	*p = s;
	return true;
}

/* "0x" and 1..16 lower- or upper-case hex digits. */
static bool hex(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	int n = 0;

	if (!lit(&s, "0x"))
		return false;
	for (;; s++, n++) {
		unsigned int d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned int)(*s - '0');
		else if (*s >= 'a' && *s <= 'f')
			d = (unsigned int)(*s - 'a' + 10);
		else if (*s >= 'A' && *s <= 'F')
			d = (unsigned int)(*s - 'A' + 10);
		else
			break;
		if (n >= HEX_DIGITS_MAX)
			return false;
		x = x << 4 | d;
	}
	if (!n)
		return false;
	*v = x;
	*p = s;
	return true;
}

static bool is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool in_set(char c, const char *set)
{
	return is_alnum(c) || (c && strchr(set, c));
}


/*
 * A word of letters, digits and the characters of @set, up to (not
 * including) @stop, which must follow; at least one character and shorter
 * than @len.  @dst may be NULL.
 */
static bool word(const char **p, const char *set, const char *stop, char *dst, size_t len)
{
	const char *s = *p, *end = strstr(s, stop);
	size_t n;

	if (!end || end == s || (size_t)(end - s) >= len)
		return false;
	for (const char *c = s; c < end; c++)
		if (!in_set(*c, set))
			return false;
	n = (size_t)(end - s);
	if (dst) {
		memcpy(dst, s, n);
		dst[n] = '\0';
	}
	*p = end;
	return true;
}

/* Kernel device names: "sda", "dm-0", "nvme0n1p1", "md127", "cciss!c0d0". */
#define DEVNAME_CHARS "-_.!:"
/* %pS: "xfs_dir3_data_read_verify+0x9a/0x100 [xfs]" */
#define SYMBOL_CHARS "_.+/[] "

/* A device name: starts with a letter or digit (never "." or ".."), and is
 * shorter than the kernel's DISK_NAME_LEN of 32 with its NUL. */
static bool devname(const char **p, const char *stop, char *dst)
{
	return is_alnum(**p) && word(p, DEVNAME_CHARS, stop, dst, 32);
}

/*
 * blk_print_req_error() (6.12; 5.x the same with "blk_update_request: " in
 * front):
 * "<status> error, dev <disk>, sector <n> op 0x<op>:(<OP>) flags 0x<f>
 *  phys_seg <n> prio class <n>"
 */
static bool parse_block(const char *text, struct md_kmsg_line *out)
{
	const char *p = text;
	uint64_t v, code;
	char name[16];
	size_t i;
	int op;

	lit(&p, "blk_update_request: ");
	for (i = 0; i < sizeof(blk_status) / sizeof(blk_status[0]); i++) {
		const char *q = p;

		if (lit(&q, blk_status[i]) && lit(&q, " error, dev ")) {
			snprintf(out->what, sizeof(out->what), "%s", blk_status[i]);
			p = q;
			break;
		}
	}
	if (i == sizeof(blk_status) / sizeof(blk_status[0]))
		return false;
	if (!devname(&p, ",", out->dev) || !lit(&p, ", sector ") ||
	    !dec(&p, &out->sector) || !lit(&p, " op ") || !hex(&p, &code) || !lit(&p, ":(") ||
	    !word(&p, "_", ")", name, sizeof(name)) || !lit(&p, ") flags ") ||
	    !hex(&p, &v) || !lit(&p, " phys_seg ") || !dec(&p, &v) || !lit(&p, " prio class ") ||
	    !dec(&p, &v) || *p)
		return false;
	/* The name must be the one the kernel gives that code. */
	op = md_blk_op_from_name(name);
	if (op < 0 || !op_names_code((enum md_blk_op)op, code))
		return false;
	out->op = (enum md_blk_op)op;
	out->kind = MD_KMSG_BLOCK_ERROR;
	return true;
}

/* The optional last word of a verifier message: "", " ", " dinode", " data fork". */
static bool verifier_tail(const char *p)
{
	if (!*p)
		return true;
	if (*p++ != ' ')
		return false;
	for (; *p; p++)
		if (!in_set(*p, "_ "))
			return false;
	return true;
}

/* xfs_buf_ioerror_alert(): metadata I/O error in "SYM" at daddr 0xD len N error E */
static bool xfs_metadata_io(const char *p, struct md_kmsg_line *out)
{
	uint64_t error;

	if (!lit(&p, "metadata I/O error in \"") || !word(&p, SYMBOL_CHARS, "\"", NULL, 128) ||
	    !lit(&p, "\" at daddr ") || !hex(&p, &out->sector) || !lit(&p, " len ") ||
	    !dec(&p, &out->length) || !lit(&p, " error ") || !dec(&p, &error) || *p ||
	    error > 4095)
		return false;
	out->error = (int)error;
	out->kind = MD_KMSG_XFS_METADATA_IO;
	return true;
}

/*
 * xfs_buf_corruption_error(), xfs_buf_verifier_error(), xfs_inode_verifier_error():
 * Metadata {corruption|CRC error} detected at SYM, {TYPE block 0xD|inode 0xI}[ NAME]
 */
static bool xfs_metadata_corrupt(const char *p, struct md_kmsg_line *out)
{
	if (!lit(&p, "Metadata "))
		return false;
	if (lit(&p, "CRC error"))
		out->error = EBADMSG;
	else if (lit(&p, "corruption"))
		out->error = EUCLEAN;
	else
		return false;
	if (!lit(&p, " detected at ") || !word(&p, SYMBOL_CHARS, ", ", NULL, 128) ||
	    !lit(&p, ", "))
		return false;
	if (lit(&p, "inode ")) {
		if (!hex(&p, &out->ino) || !verifier_tail(p))
			return false;
		out->kind = MD_KMSG_XFS_CORRUPT_INODE;
		return true;
	}
	if (!word(&p, "_", " block 0x", out->what, sizeof(out->what)) || !lit(&p, " block ") ||
	    !hex(&p, &out->sector) || !verifier_tail(p))
		return false;
	out->kind = MD_KMSG_XFS_CORRUPT_BLOCK;
	return true;
}

/*
 * xfs_do_force_shutdown():
 *   WHY (0xF) detected at SYM (FILE:LINE).  Shutting down filesystem.
 * xlog_force_shutdown():
 *   Filesystem has been shut down due to log error (0xF).
 */
static bool xfs_shutdown(const char *p)
{
	const char *q = p;
	uint64_t v;

	if (lit(&q, "Filesystem has been shut down due to log error (") && hex(&q, &v) &&
	    lit(&q, ").") && !*q)
		return true;
	return word(&p, " -/", " (0x", NULL, 64) && lit(&p, " (") && hex(&p, &v) &&
	       lit(&p, ") detected at ") && word(&p, SYMBOL_CHARS, " (", NULL, 128) &&
	       lit(&p, " (") && word(&p, "_./-", ":", NULL, 128) && lit(&p, ":") && dec(&p, &v) &&
	       lit(&p, ").  Shutting down filesystem.") && !*p;
}

/* __xfs_printk(): "XFS (<s_id>): <message>" */
static bool parse_xfs(const char *text, struct md_kmsg_line *out)
{
	const char *p = text;

	if (!lit(&p, "XFS (") || !devname(&p, ")", out->dev) || !lit(&p, "): "))
		return false;
	if (xfs_metadata_io(p, out) || xfs_metadata_corrupt(p, out))
		return true;
	if (xfs_shutdown(p)) {
		out->kind = MD_KMSG_XFS_SHUTDOWN;
		out->error = ESHUTDOWN;
		return true;
	}
	if (strcmp(p, "Corruption detected. Unmount and run xfs_repair") == 0) {
		out->kind = MD_KMSG_XFS_CORRUPTION;
		out->error = EUCLEAN;
		return true;
	}
	return false;
}

void md_kmsg_parse_text(const char *text, struct md_kmsg_line *out)
{
	out->kind = MD_KMSG_OTHER;
	snprintf(out->text, sizeof(out->text), "%s", text);
	if (parse_xfs(text, out) || parse_block(text, out))
		return;
	out->kind = MD_KMSG_OTHER;
	out->dev[0] = out->what[0] = '\0';
	out->op = MD_BLK_OP_NONE;
	out->sector = out->length = out->ino = 0;
	out->error = 0;
}

/* The continuation lines " KEY=value\n" after the text: SUBSYSTEM and DEVICE. */
static void parse_fields(const char *p, const char *end, struct md_kmsg_line *out)
{
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = nl ? nl : end;
		size_t n;

		if (*p == ' ') {
			p++;
			n = (size_t)(line_end - p);
			if (n > 10 && strncmp(p, "SUBSYSTEM=", 10) == 0 &&
			    n - 10 < sizeof(out->subsystem)) {
				memcpy(out->subsystem, p + 10, n - 10);
				out->subsystem[n - 10] = '\0';
			} else if (n > 7 && strncmp(p, "DEVICE=", 7) == 0 &&
				   n - 7 < sizeof(out->device)) {
				memcpy(out->device, p + 7, n - 7);
				out->device[n - 7] = '\0';
			} else if (n >= 10 && strncmp(p, "SUBSYSTEM=", 10) == 0) {
				/* too long to be a real one: still says "not ours" */
				snprintf(out->subsystem, sizeof(out->subsystem), "?");
			}
		}
		p = line_end + 1;
	}
}

int md_kmsg_parse_record(const char *rec, size_t len, struct md_kmsg_line *out)
{
	char text[1024];
	const char *p = rec, *end = rec + len, *semi;
	uint64_t prio, seq;
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	semi = memchr(rec, ';', len);
	if (!semi)
		return -EINVAL;
	if (!dec(&p, &prio) || *p != ',')
		return -EINVAL;
	p++;
	if (!dec(&p, &seq) || *p != ',')
		return -EINVAL;
	out->facility = (int)(prio >> 3);
	out->level = (int)(prio & 7);
	out->seq = seq;
	/* The text runs to the first newline; the kernel escapes others
	 * (and every control character) as \xNN, so the continuation lines
	 * that follow cannot be forged from inside a message. */
	for (p = semi + 1; p < end && *p != '\n' && n < sizeof(text) - 1; p++)
		text[n++] = *p;
	text[n] = '\0';
	if (p < end && *p != '\n')
		return 0;	/* longer than any message of ours: kind OTHER */
	md_kmsg_parse_text(text, out);
	if (p < end)
		parse_fields(p + 1, end, out);
	return 0;
}
