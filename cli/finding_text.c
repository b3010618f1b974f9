// SPDX-License-Identifier: GPL-2.0-or-later
/* Findings for people: the pieces of a finding's line that files and status share. */
#include <stdio.h>
#include <string.h>

#include "mapctl.h"

struct sources {
	char *buf;
	size_t len;
	unsigned int seen;		/* 1 << source, for each one listed */
};

static int add_source(const struct map_evidence *e, void *arg)
{
	struct sources *s = arg;
	size_t used = strlen(s->buf);

	/* Each source once, in the order first seen: at most "media+scrub+event". */
	if (s->seen & (1u << e->source))
		return 0;
	s->seen |= 1u << e->source;
	snprintf(s->buf + used, s->len - used, "%s%s", used ? "+" : "",
		 map_finding_source_name(e->source));
	return 0;
}

int finding_sources(struct map_store *st, int64_t id, char *buf, size_t len)
{
	struct sources s = { buf, len, 0 };

	buf[0] = '\0';
	return map_store_finding_evidence(st, id, add_source, &s);
}

const char *finding_where(const struct map_finding *f, char *buf, size_t len)
{
	if (f->ino)
		snprintf(buf, len, "(no name found%s)", f->mode == 0 ? "; inode unreadable" : "");
	else if (!strcmp(f->kind, MAP_FINDING_KIND_SUMMARY) || !strcmp(f->kind, "log"))
		snprintf(buf, len, "(filesystem)");
	else if (f->agno >= 0 && f->has_range && !strcmp(f->kind, "inode-chunk"))
		snprintf(buf, len, "(AG %lld, device bytes %llu+%llu)", (long long)f->agno,
			 (unsigned long long)f->physical, (unsigned long long)f->length);
	else if (f->agno >= 0)
		snprintf(buf, len, "(AG %lld)", (long long)f->agno);
	else if (f->has_range)
		snprintf(buf, len, "(device bytes %llu+%llu)", (unsigned long long)f->physical,
			 (unsigned long long)f->length);
	else
		snprintf(buf, len, "(filesystem)");
	return buf;
}

int finding_evidence_note(struct map_store *st, const struct map_finding *f, char *buf,
			  size_t len)
{
	char sources[32];
	int rc;

	buf[0] = '\0';
	if (!strcmp(f->kind, "file")) {
		if (f->flags & MAP_OWNER_F_SHARED)
			snprintf(buf, len, "[shared extent]");
		return 0;
	}
	rc = finding_sources(st, f->id, sources, sizeof(sources));
	if (rc)
		return rc;
	snprintf(buf, len, "[%s%s%s%s%s]",
		 sources[0] ? sources : map_finding_source_name(f->source),
		 f->scrub[0] ? " " : "", f->scrub, f->detail[0] ? ": " : "", f->detail);
	return 0;
}
