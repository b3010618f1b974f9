// SPDX-License-Identifier: GPL-2.0-or-later
/* Log lines for findings: the filesystem's UUID and every name an admin needs. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findlog.h"
#include "journal_ids.h"
#include "log.h"
#include "notify.h"

void md_log_finding(const char *uuid, const char *mountpoint, const struct map_finding *f,
		    bool is_new, const char *source)
{
	const char *state = is_new ? "damaged" : "still damaged";
	const char *sep = strcmp(mountpoint, "/") ? "/" : "";
	/* New damage is an error: data is lost until restored. */
	int prio = is_new ? LOG_ERR : LOG_INFO;
	char where[96] = "", scrub[256] = "";
	char *whole = NULL;
	struct log_ctx ctx = {
		.message_id = is_new ? MD_MSGID_DAMAGE : MD_MSGID_DAMAGE_AGAIN,
		.uuid = uuid,
		.mountpoint = mountpoint,
		.npaths = (unsigned)f->npaths,
		.ino = f->ino,
		.has_offset = f->has_offset,
		.offset = f->offset,
		.has_physical = f->has_range,
		.physical = f->physical,
		.length = f->length,
		.kind = f->kind,
		.source = source,
	};

	md_notify_note_finding(f, is_new);	/* for the hooks, when a batch is open */
	if (prio > log_get_level())
		return;
	/* The journal's MAPPER_PATH is the whole path, unescaped: a field of
	 * its own, which no byte in it can leave. */
	if (f->npaths && log_to_journal() &&
	    asprintf(&whole, "%s%s%s", mountpoint, sep, f->paths[0]) >= 0)
		ctx.path = whole;
	else
		whole = NULL;
	if (f->has_offset)
		snprintf(where, sizeof(where), " offset %" PRIu64 " length %" PRIu64, f->offset,
			 f->length);
	else if (f->has_range)
		snprintf(where, sizeof(where), " at device byte %" PRIu64 " length %" PRIu64,
			 f->physical, f->length);
	if (f->scrub[0] && !f->has_range)
		snprintf(scrub, sizeof(scrub), " (scrub %s: %s)", f->scrub, f->detail);
	if (f->npaths) {
		/* log_ctx_msg escapes the whole line, the path with it (once:
		 * escaped here as well, a newline would read "\\n"). */
		log_ctx_msg(prio, &ctx, "%s %s: %s %s %s%s%s%s%s%s (inode %" PRIu64 ", %s)", uuid,
			    mountpoint, state, f->kind, mountpoint, sep, f->paths[0],
			    f->npaths > 1 ? " and its other names" : "", where, scrub, f->ino,
			    source);
	} else if (f->ino) {
		log_ctx_msg(prio, &ctx, "%s %s: %s %s of inode %" PRIu64 "%s%s (%s)", uuid,
			    mountpoint, state, f->kind, f->ino, where, scrub, source);
	} else if (f->agno >= 0) {
		log_ctx_msg(prio, &ctx, "%s %s: %s %s in AG %" PRId64 "%s%s (%s)", uuid,
			    mountpoint, state, f->kind, f->agno, where, scrub, source);
	} else {
		log_ctx_msg(prio, &ctx, "%s %s: %s %s%s%s (%s)", uuid, mountpoint, state, f->kind,
			    where, scrub, source);
	}
	free(whole);
}
