// SPDX-License-Identifier: GPL-2.0-or-later
/* Log lines for findings: the filesystem's UUID and every name an admin needs. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findlog.h"
#include "log.h"
#include "notify.h"

void md_log_finding(const char *uuid, const char *mountpoint, const struct map_finding *f,
		    bool is_new, const char *source)
{
	const char *state = is_new ? "damaged" : "still damaged";
	const char *sep = strcmp(mountpoint, "/") ? "/" : "";
	int prio = is_new ? LOG_WARNING : LOG_INFO;
	char where[96] = "", scrub[256] = "";

	md_notify_note_finding(f, is_new);	/* for the hooks, when a batch is open */
	if (prio > log_get_level())
		return;
	if (f->has_offset)
		snprintf(where, sizeof(where), " offset %" PRIu64 " length %" PRIu64, f->offset,
			 f->length);
	else if (f->has_range)
		snprintf(where, sizeof(where), " at device byte %" PRIu64 " length %" PRIu64,
			 f->physical, f->length);
	if (f->scrub[0] && !f->has_range)
		snprintf(scrub, sizeof(scrub), " (scrub %s: %s)", f->scrub, f->detail);
	if (f->npaths) {
		char *path = map_escape_text(f->paths[0]);

		log_msg(prio, "%s %s: %s %s %s%s%s%s%s%s (inode %" PRIu64 ", %s)", uuid, mountpoint,
			state, f->kind, mountpoint, sep, path ? path : "?",
			f->npaths > 1 ? " and its other names" : "", where, scrub, f->ino, source);
		free(path);
	} else if (f->ino) {
		log_msg(prio, "%s %s: %s %s of inode %" PRIu64 "%s%s (%s)", uuid, mountpoint, state,
			f->kind, f->ino, where, scrub, source);
	} else if (f->agno >= 0) {
		log_msg(prio, "%s %s: %s %s in AG %" PRId64 "%s%s (%s)", uuid, mountpoint, state,
			f->kind, f->agno, where, scrub, source);
	} else {
		log_msg(prio, "%s %s: %s %s%s%s (%s)", uuid, mountpoint, state, f->kind, where, scrub,
			source);
	}
}
