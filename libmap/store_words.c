// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Store: the words its columns hold for what the library keeps as enums (a
 * finding's state and source, an event's source, a scan's state and phase),
 * one table each.  The schema's CHECKs list the same words, and mapctl,
 * mapperd and the JSON print them as they are stored; a word read back that
 * is not in its table (col_word) is the enum's _NR, named "?".
 */
#include "map_internal.h"

static const char *const finding_state_words[MAP_STATE_NR] = {
	[MAP_STATE_OPEN] = "open",
	[MAP_STATE_REFETCHED] = "refetched",
	[MAP_STATE_REPAIRED] = "repaired",
	[MAP_STATE_IGNORED] = "ignored",
	[MAP_STATE_RESOLVED] = "resolved",
	[MAP_STATE_ZEROED] = "zeroed",
};

/* findings.source and finding_evidence.source */
static const char *const finding_source_words[MAP_SOURCE_NR] = {
	[MAP_SOURCE_NONE] = "",
	[MAP_SOURCE_MEDIA] = "media",
	[MAP_SOURCE_SCRUB] = "scrub",
	[MAP_SOURCE_EVENT] = "event",
};

/* events.source (no CHECK: mapperd alone writes it) */
static const char *const event_source_words[MAP_EVENT_SOURCE_NR] = {
	[MAP_EVENT_FANOTIFY] = "fanotify",
	[MAP_EVENT_KMSG] = "kmsg",
	[MAP_EVENT_HEALTHMON] = "healthmon",
};

static const char *const scan_state_words[MAP_SCAN_STATE_NR] = {
	[MAP_SCAN_RUNNING] = "running",
	[MAP_SCAN_INTERRUPTED] = "interrupted",
	[MAP_SCAN_COMPLETE] = "complete",
	[MAP_SCAN_FAILED] = "failed",
};

static const char *const scan_phase_words[MAP_SCAN_PHASE_NR] = {
	[MAP_SCAN_PHASE_METADATA] = "metadata",
	[MAP_SCAN_PHASE_MEDIA] = "media",
	[MAP_SCAN_PHASE_DONE] = "done",
};

static const char *word(const char *const *words, int n, int i)
{
	return i >= 0 && i < n ? words[i] : "?";
}

const char *map_state_name(enum map_finding_state state)
{
	return word(finding_state_words, MAP_STATE_NR, (int)state);
}

int map_state_from_name(const char *name)
{
	return map_word_index(finding_state_words, MAP_STATE_NR, name);
}

const char *map_finding_source_name(enum map_finding_source source)
{
	return word(finding_source_words, MAP_SOURCE_NR, (int)source);
}

int map_finding_source_from_name(const char *name)
{
	return map_word_index(finding_source_words, MAP_SOURCE_NR, name);
}

const char *map_event_source_name(enum map_event_source source)
{
	return word(event_source_words, MAP_EVENT_SOURCE_NR, (int)source);
}

int map_event_source_from_name(const char *name)
{
	return map_word_index(event_source_words, MAP_EVENT_SOURCE_NR, name);
}

const char *map_scan_state_name(enum map_scan_state state)
{
	return word(scan_state_words, MAP_SCAN_STATE_NR, (int)state);
}

int map_scan_state_from_name(const char *name)
{
	return map_word_index(scan_state_words, MAP_SCAN_STATE_NR, name);
}

const char *map_scan_phase_name(enum map_scan_phase phase)
{
	return word(scan_phase_words, MAP_SCAN_PHASE_NR, (int)phase);
}

int map_scan_phase_from_name(const char *name)
{
	return map_word_index(scan_phase_words, MAP_SCAN_PHASE_NR, name);
}
