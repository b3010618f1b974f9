// SPDX-License-Identifier: GPL-2.0-or-later
/* Recognise the kernel log lines that tell of damaged data or metadata. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmsg_parse.h"

/* Copy up to @stop (or the end), at most len-1 bytes. */
static const char *copy_until(const char *s, const char *stop, char *dst, size_t len)
{
	size_t n = 0;

	while (*s && !strchr(stop, *s)) {
		if (n < len - 1)
			dst[n++] = *s;
		s++;
	}
	dst[n] = '\0';
	return s;
}

static bool number(const char **p, int base, uint64_t *v)
{
	char *end;

	*v = strtoull(*p, &end, base);
	if (end == *p)
		return false;
	*p = end;
	return true;
}

/* "<status> error, dev NAME, sector N[ op 0xX:(OP)...]" anywhere in the line
 * (older kernels put "blk_update_request: " in front). */
static bool parse_block(const char *text, struct md_kmsg_line *out)
{
	const char *mark = strstr(text, " error, dev ");
	const char *p, *status;

	if (!mark)
		return false;
	status = mark;
	while (status > text && status[-1] != ':')
		status--;
	while (*status == ' ')
		status++;
	if (mark - status <= 0 || (size_t)(mark - status) >= sizeof(out->what))
		return false;
	memcpy(out->what, status, (size_t)(mark - status));
	out->what[mark - status] = '\0';
	p = copy_until(mark + strlen(" error, dev "), ", ", out->dev, sizeof(out->dev));
	if (!out->dev[0] || strncmp(p, ", sector ", 9) != 0)
		return false;
	p += 9;
	if (!number(&p, 10, &out->sector))
		return false;
	p = strstr(p, " op 0x");
	if (p && (p = strchr(p, '(')))
		copy_until(p + 1, ")", out->op, sizeof(out->op));
	out->kind = MD_KMSG_BLOCK_ERROR;
	return true;
}

static bool parse_xfs(const char *text, struct md_kmsg_line *out)
{
	const char *p;
	uint64_t v;

	if (strncmp(text, "XFS (", 5) != 0)
		return false;
	p = copy_until(text + 5, ")", out->dev, sizeof(out->dev));
	if (strncmp(p, "): ", 3) != 0 || !out->dev[0])
		return false;
	p += 3;

	if (strncmp(p, "metadata I/O error in ", 22) == 0) {
		const char *q = strstr(p, " at daddr 0x");

		if (!q)
			return false;
		q += 12;
		if (!number(&q, 16, &out->sector))
			return false;
		if (strncmp(q, " len ", 5) == 0) {
			q += 5;
			if (number(&q, 10, &out->length) && strncmp(q, " error ", 7) == 0) {
				q += 7;
				if (number(&q, 10, &v))
					out->error = (int)v;
			}
		}
		out->kind = MD_KMSG_XFS_METADATA_IO;
		return true;
	}
	if (strncmp(p, "Metadata ", 9) == 0 && strstr(p, " detected at ")) {
		const char *q = strstr(p, ", inode 0x");

		out->error = strncmp(p, "Metadata CRC error", 18) == 0 ? EBADMSG : EUCLEAN;
		if (q) {
			q += 10;
			if (!number(&q, 16, &out->ino))
				return false;
			out->kind = MD_KMSG_XFS_CORRUPT_INODE;
			return true;
		}
		q = strstr(p, " block 0x");
		if (!q)
			return false;
		/* ", TYPE block 0x..." : the buffer type is the word before */
		const char *type = q;
		while (type > p && type[-1] != ' ')
			type--;
		if (q > type && (size_t)(q - type) < sizeof(out->what)) {
			memcpy(out->what, type, (size_t)(q - type));
			out->what[q - type] = '\0';
		}
		q += 9;
		if (!number(&q, 16, &out->sector))
			return false;
		out->kind = MD_KMSG_XFS_CORRUPT_BLOCK;
		return true;
	}
	if (strstr(p, "Shutting down filesystem") || strstr(p, "Filesystem has been shut down")) {
		out->kind = MD_KMSG_XFS_SHUTDOWN;
		out->error = ESHUTDOWN;
		return true;
	}
	if (strncmp(p, "Corruption detected", 19) == 0) {
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
	if (!number(&p, 10, &prio) || *p != ',')
		return -EINVAL;
	p++;
	if (!number(&p, 10, &seq) || *p != ',')
		return -EINVAL;
	out->facility = (int)(prio >> 3);
	out->level = (int)(prio & 7);
	out->seq = seq;
	/* The text runs to the first newline; the kernel escapes others. */
	for (p = semi + 1; p < end && *p != '\n' && n < sizeof(text) - 1; p++)
		text[n++] = *p;
	text[n] = '\0';
	md_kmsg_parse_text(text, out);
	return 0;
}
