// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel log records as read(2) gives them from /dev/kmsg: any user can
 * make the kernel print text of their choosing, so the parser must stay
 * inside the record, and whatever it recognises must be well formed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kmsg_parse.h"

#define TERMINATED(a) (memchr((a), '\0', sizeof(a)) != NULL)

static void check(const struct md_kmsg_line *l)
{
	if (!TERMINATED(l->dev) || !TERMINATED(l->what) || (unsigned int)l->op >= MD_BLK_OP_NR ||
	    !TERMINATED(l->subsystem) || !TERMINATED(l->device) || !TERMINATED(l->text))
		abort();
	if (l->kind == MD_KMSG_OTHER && (l->dev[0] || l->sector || l->length || l->ino))
		abort();	/* "not ours" carries no target */
	if (l->kind != MD_KMSG_OTHER && !l->dev[0])
		abort();	/* every report names its device */
	if (l->error < 0)
		abort();	/* positive errnos only */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct md_kmsg_line l;
	/* An exact-size copy: a read past the record is an ASan report. */
	char *rec = malloc(size ? size : 1);

	if (!rec)
		return 0;
	memcpy(rec, data, size);
	if (md_kmsg_parse_record(rec, size, &l) == 0)
		check(&l);
	free(rec);

	/* The message text alone, as the parser's second entry point takes it. */
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&l, 0, sizeof(l));
	md_kmsg_parse_text(text, &l);
	check(&l);
	free(text);
	return 0;
}
