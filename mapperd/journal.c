// SPDX-License-Identifier: GPL-2.0-or-later
/* Records for journald's native protocol, through libsystemd. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
/* CODE_FILE= and CODE_LINE= would always name this file: leave them out. */
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>

#include "journal.h"

/* Where journald listens for the native protocol (systemd's fixed path). */
#define JOURNAL_SOCKET "/run/systemd/journal/socket"

bool md_journal_stderr_is_journal(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	int end = 0;

	if (!e || sscanf(e, "%llu:%llu%n", &dev, &ino, &end) != 2 || e[end] != '\0')
		return false;
	if (fstat(2, &st) < 0)
		return false;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

/* The most fields a record has: MESSAGE, PRIORITY, SYSLOG_IDENTIFIER and
 * every member of struct log_ctx. */
#define MAX_FIELDS 16

/* The numeric fields: PRIORITY, MAPPER_PATHS, _INODE, _OFFSET, _PHYSICAL,
 * _LENGTH; each "NAME=" and at most 20 digits fits in NUM_LEN. */
#define MAX_NUMS 6
#define NUM_LEN 48

struct record {
	struct iovec iov[MAX_FIELDS];
	int n;
	char num[MAX_NUMS][NUM_LEN];	/* the numeric fields, formatted */
	int nnum;
};

/* "NAME=" and @value as two iovecs would make two fields: journald wants
 * each field in one iovec, so the name is copied in front of the value. */
static void add_str(struct record *r, const char *name, const char *value, char **owned)
{
	size_t nl = strlen(name), vl = strlen(value);
	char *s = malloc(nl + 1 + vl + 1);

	if (!s || r->n >= MAX_FIELDS) {
		free(s);
		return;
	}
	memcpy(s, name, nl);
	s[nl] = '=';
	memcpy(s + nl + 1, value, vl + 1);
	*owned = s;
	r->iov[r->n].iov_base = s;
	r->iov[r->n].iov_len = nl + 1 + vl;
	r->n++;
}

static void add_num(struct record *r, const char *name, uint64_t v)
{
	char *s;
	int len;

	if (r->nnum >= MAX_NUMS || r->n >= MAX_FIELDS)
		return;
	s = r->num[r->nnum++];
	len = snprintf(s, sizeof(r->num[0]), "%s=%" PRIu64, name, v);
	r->iov[r->n].iov_base = s;
	r->iov[r->n].iov_len = (size_t)len;
	r->n++;
}

int md_journal_send(int prio, const char *message, const struct log_ctx *ctx)
{
	struct record r = { .n = 0 };
	char *owned[MAX_FIELDS] = { 0 };
	int no = 0, rc;

	add_str(&r, "MESSAGE", message, &owned[no++]);
	add_num(&r, "PRIORITY", (uint64_t)prio);
	add_str(&r, "SYSLOG_IDENTIFIER", "mapperd", &owned[no++]);
	if (ctx) {
		if (ctx->message_id)
			add_str(&r, "MESSAGE_ID", ctx->message_id, &owned[no++]);
		if (ctx->uuid)
			add_str(&r, "MAPPER_FS_UUID", ctx->uuid, &owned[no++]);
		if (ctx->mountpoint)
			add_str(&r, "MAPPER_MOUNTPOINT", ctx->mountpoint, &owned[no++]);
		if (ctx->path)
			add_str(&r, "MAPPER_PATH", ctx->path, &owned[no++]);
		if (ctx->npaths > 1)
			add_num(&r, "MAPPER_PATHS", ctx->npaths);
		if (ctx->ino)
			add_num(&r, "MAPPER_INODE", ctx->ino);
		if (ctx->has_offset)
			add_num(&r, "MAPPER_OFFSET", ctx->offset);
		if (ctx->has_physical)
			add_num(&r, "MAPPER_PHYSICAL", ctx->physical);
		if (ctx->has_offset || ctx->has_physical)
			add_num(&r, "MAPPER_LENGTH", ctx->length);
		if (ctx->kind)
			add_str(&r, "MAPPER_KIND", ctx->kind, &owned[no++]);
		if (ctx->source)
			add_str(&r, "MAPPER_SOURCE", ctx->source, &owned[no++]);
	}
	/* Without its MESSAGE (out of memory) the record is not sent: the
	 * caller's line on stderr says it instead.  So too when journald is
	 * not there: libsystemd then drops the record and reports success. */
	if (!owned[0])
		rc = -ENOMEM;
	else if (access(JOURNAL_SOCKET, F_OK) != 0)
		rc = -errno;
	else
		rc = sd_journal_sendv(r.iov, r.n);
	for (int i = 0; i < no; i++)
		free(owned[i]);
	return rc;
}
