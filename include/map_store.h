/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The SQLite store: filesystems, scans, findings and their evidence,
 * actions, events, and the figures monitoring reads.  Like the rest of
 * libmap, negative errno or MAP_E* on failure; map_store_error() keeps the
 * last failure's words per thread.
 */
#ifndef MAP_STORE_H
#define MAP_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct map_fs_info;
struct map_owner;
struct map_paths;
struct map_scrub_result;

#ifdef __cplusplus
extern "C" {
#endif

/* ---- store: SQLite ---------------------------------------------------------- */

struct map_store;

#define MAP_STORE_READONLY	(1u << 0)	/* never create or write */

/* $MAPPER_DB, or /var/lib/mapper/mapper.db. */
const char *map_store_default_path(void);
/*
 * Open (creating it mode 0640, with its folder, unless READONLY) and bring
 * the schema up to date in one transaction.  A file that is not a mapper
 * database gives -MAP_EDBCORRUPT and one from a newer version
 * -MAP_EDBSCHEMA; neither is ever written to.  A READONLY store of an older
 * schema is read as that schema recorded it (no evidence before schema 2)
 * until something that may write opens it.
 */
int map_store_open(const char *path, unsigned int flags, struct map_store **out);
/*
 * Why the last store call of this thread that failed with @rc failed, in
 * words: which file (the database, its -wal or -shm, or the folder that
 * should hold them), the system's reason and SQLite's own message, e.g.
 * "/var/lib/mapper/mapper.db-shm: Permission denied (SQLite: unable to open
 * database file)".  NULL when the last failure returned another code (the
 * caller's error then came from elsewhere, a filesystem).
 */
const char *map_store_error(int rc);
const char *map_store_path(const struct map_store *st);
void map_store_close(struct map_store *st);
int map_store_version(struct map_store *st);
int map_store_begin(struct map_store *st);	/* BEGIN IMMEDIATE */
/* BEGIN IMMEDIATE without the busy wait: -EBUSY at once if another
 * connection holds the write lock. */
int map_store_begin_nowait(struct map_store *st);
int map_store_commit(struct map_store *st);
void map_store_rollback(struct map_store *st);
/* PRAGMA integrity_check: 0 when "ok", else -MAP_EDBCORRUPT. */
int map_store_check(struct map_store *st);

struct map_store_fs {
	int64_t id;
	char uuid[40];
	char label[256];
	char mountpoint[4096];
	char device[4096];
	char model[128], serial[128], wwn[128];
	uint32_t blocksize, agcount;
	uint64_t datablocks;
	bool rmapbt, reflink, parent;
	int64_t first_seen, last_seen;
};

/* Insert or refresh the filesystem with info's UUID; its id in *fs_id. */
int map_store_fs_upsert(struct map_store *st, const struct map_fs_info *info, int64_t *fs_id);
int map_store_fs_get(struct map_store *st, int64_t fs_id, struct map_store_fs *out);
int map_store_fs_by_uuid(struct map_store *st, const char *uuid, struct map_store_fs *out);
int map_store_fs_each(struct map_store *st, int (*fn)(const struct map_store_fs *, void *),
		      void *arg);

/* A scan's state and the phase it is in (or resumes at); their names are
 * the store's words (and mapctl's, mapperd's). */
enum map_scan_state {
	MAP_SCAN_RUNNING, MAP_SCAN_INTERRUPTED, MAP_SCAN_COMPLETE, MAP_SCAN_FAILED,
	MAP_SCAN_STATE_NR
};
enum map_scan_phase {
	MAP_SCAN_PHASE_METADATA, MAP_SCAN_PHASE_MEDIA, MAP_SCAN_PHASE_DONE, MAP_SCAN_PHASE_NR
};
const char *map_scan_state_name(enum map_scan_state state);
const char *map_scan_phase_name(enum map_scan_phase phase);
/* The state or phase of that name, or -ENOENT. */
int map_scan_state_from_name(const char *name);
int map_scan_phase_from_name(const char *name);

struct map_scan_row {
	int64_t id, fs_id;
	enum map_scan_state state;
	enum map_scan_phase phase;
	bool do_metadata, do_media;
	int64_t started, finished;	/* unix seconds; finished 0 while not */
	double seconds;
	uint64_t media_position, media_total, media_done, objects;
	int runs, pid;
	char user[64];
	char error[256];
};

/* The newest scan of a filesystem, -ENOENT if none. */
int map_store_scan_latest(struct map_store *st, int64_t fs_id, struct map_scan_row *out);
/* The newest complete scan with media verification, -ENOENT if none. */
int map_store_scan_last_complete(struct map_store *st, int64_t fs_id, struct map_scan_row *out);
/* The newest complete scan that covered @covered (one MAP_COVER_*), -ENOENT if none. */
int map_store_scan_last_covering(struct map_store *st, int64_t fs_id, unsigned int covered,
				 struct map_scan_row *out);
int map_store_scan_insert(struct map_store *st, struct map_scan_row *row);	/* sets id */
int map_store_scan_update(struct map_store *st, const struct map_scan_row *row);

/*
 * ZEROED: repair --offline overwrote the finding's unreadable sectors with
 * zeros (and xfs_repair may have dropped what they held).  A scan reads
 * zeros as good data, so no scan resolves it: only a verified refetch or
 * mapctl resolve closes it.  Like OPEN it is damage still to be dealt with.
 */
enum map_finding_state {
	MAP_STATE_OPEN, MAP_STATE_REFETCHED, MAP_STATE_REPAIRED, MAP_STATE_IGNORED,
	MAP_STATE_RESOLVED, MAP_STATE_ZEROED, MAP_STATE_NR
};
const char *map_state_name(enum map_finding_state state);
int map_state_from_name(const char *name);
/* Findings that still want something done (open and zeroed), of counts by
 * state from map_store_count(). */
int map_counts_open(const int counts[MAP_STATE_NR]);
/* Whether findings in @state still want something done. */
bool map_state_is_open(enum map_finding_state state);

/*
 * Where a sighting of damage came from, the most direct first in
 * map_store_finding_record()'s eyes: an unreadable device range (media),
 * the kernel reporting an error in use (event), a check that found an
 * inconsistency (scrub).  The names are the store's words (the findings
 * and finding_evidence CHECKs); NONE ("") is a finding not recorded.
 */
enum map_finding_source {
	MAP_SOURCE_NONE, MAP_SOURCE_MEDIA, MAP_SOURCE_SCRUB, MAP_SOURCE_EVENT, MAP_SOURCE_NR
};
const char *map_finding_source_name(enum map_finding_source source);
/* The source of that name, or -ENOENT. */
int map_finding_source_from_name(const char *name);

/* Finding kinds beyond map_owner_kind_name()'s. */
#define MAP_FINDING_KIND_PARENT		"parent"	/* parent pointers / dotdot of an inode */
#define MAP_FINDING_KIND_SUMMARY	"summary"	/* filesystem-wide counters, quotas */

/*
 * One damaged object (see map_finding_object_key in finding.c for what makes
 * two sightings the same object) and a summary of its evidence; every
 * sighting is listed by map_store_finding_evidence().
 */
struct map_finding {
	int64_t id, fs_id;
	enum map_finding_source source;	/* the most direct evidence there is
					 * (media over event over scrub); a new
					 * sighting's own source */
	char kind[24];			/* map_owner_kind_name(), "parent" or "summary" */
	bool has_range;
	uint64_t physical, length;	/* device bytes: the first range seen */
	uint64_t ino;			/* 0: not an inode */
	uint32_t gen, mode;
	char fork[8];			/* "", data, attr */
	bool has_offset;
	uint64_t offset;		/* byte offset in the fork */
	int64_t agno;			/* -1: none */
	uint32_t flags;			/* MAP_OWNER_F_* */
	char scrub[96];			/* scrub type names, comma separated: of
					 * every piece of evidence, each once */
	char detail[128];		/* the latest sighting's, if it had one */
	enum map_finding_state state;
	int64_t first_seen, last_seen, first_scan, last_scan;
	size_t npaths;
	char **paths;			/* relative to the mount root */
};

void map_finding_init(struct map_finding *f);
void map_finding_clear(struct map_finding *f);	/* frees the paths */
/* Fill a media/event finding from an owner (and its paths, may be NULL). */
void map_finding_from_owner(struct map_finding *f, enum map_finding_source source,
			    const struct map_owner *o, const struct map_paths *p);
/* Fill a scrub finding from a scrub result. */
void map_finding_from_scrub(struct map_finding *f, const struct map_scrub_result *r);
/* Add a path (copied). */
int map_finding_add_path(struct map_finding *f, const char *path);

/*
 * Record a sighting of a damaged object by scan @scan_id (0: not during a
 * scan).  The same object of the same filesystem (whatever the source) is
 * the same finding: its evidence row for this source, scrub type and device
 * range is added or refreshed, its scrub types grow to include @f's, its
 * last_seen and paths are updated, and a finding that was closed is opened
 * again (an ignored one stays ignored).  Sets f->id; *is_new (may be NULL)
 * says whether the finding is new.
 */
int map_store_finding_record(struct map_store *st, int64_t scan_id, struct map_finding *f,
			     bool *is_new);

#define MAP_FIND_ALL		(1u << 0)	/* not only open (and zeroed) findings */
#define MAP_FIND_FILES		(1u << 1)	/* only findings with an inode */
#define MAP_FIND_METADATA	(1u << 2)	/* only metadata findings */

/* Findings of one filesystem (fs_id 0: all), oldest first. */
int map_store_findings(struct map_store *st, int64_t fs_id, unsigned int filter,
		       int (*fn)(const struct map_finding *, void *), void *arg);
int map_store_finding_get(struct map_store *st, int64_t id, struct map_finding *out);
/* Replace a finding's paths (n == 0 keeps the old ones). */
int map_store_finding_set_paths(struct map_store *st, int64_t id, char *const *paths, size_t n);
int map_store_finding_set_state(struct map_store *st, int64_t id, enum map_finding_state state);
/* One piece of evidence of a finding. */
struct map_evidence {
	int64_t id, finding_id;
	enum map_finding_source source;
	char scrub[96];			/* the type that reported it (scrub, event), or
					 * the types that check the range (media) */
	bool has_range;
	uint64_t physical, length;	/* unreadable device bytes */
	char detail[128];
	int64_t first_seen, last_seen, last_scan;	/* last_scan 0: not in a scan */
};
/* The evidence of finding @finding_id, oldest first. */
int map_store_finding_evidence(struct map_store *st, int64_t finding_id,
			       int (*fn)(const struct map_evidence *, void *), void *arg);

/*
 * The kernel marked inode @ino (generation @gen: 0 closes nothing) healthy in the
 * aspects named by @scrub (scrub type names, comma separated).  Each open or
 * repaired metadata finding of that inode (no unreadable device range) whose
 * scrub types are all among them becomes resolved, with an actions row
 * (action resolve, user @who, outcome resolved, @detail).  *n: how many.
 * Within the caller's transaction.
 */
int map_store_close_healthy(struct map_store *st, int64_t fs_id, uint64_t ino, uint32_t gen,
			    const char *scrub, const char *who, const char *detail, int *n);
/* What a complete pass of a scan read again (map_store_resolve_unseen). */
#define MAP_COVER_METADATA	(1u << 0)	/* every object scrubbed */
#define MAP_COVER_MEDIA		(1u << 1)	/* every written byte read */
/*
 * After scan @scan_id covered @covered, open (refetched, repaired) findings
 * that it no longer sees become resolved: those with no evidence seen since
 * the scan started, and all of whose evidence a covered pass checks again
 * (device ranges: media; scrub types: metadata).  Count in *n.
 */
int map_store_resolve_unseen(struct map_store *st, int64_t fs_id, int64_t scan_id,
			     unsigned int covered, int *n);
/* Count findings of a filesystem by state. */
int map_store_count(struct map_store *st, int64_t fs_id, int counts[MAP_STATE_NR]);

struct map_action {
	int64_t id, fs_id, finding_id, at;
	char action[16], user[64], outcome[32], detail[256];
};
int map_store_action_add(struct map_store *st, const struct map_action *a);
/* Actions and events of one filesystem (all: fs_id 0), oldest first. */
int map_store_actions(struct map_store *st, int64_t fs_id,
		      int (*fn)(const struct map_action *, void *), void *arg);

/* The kernel's channels for error reports (mapperd's sources); the names
 * are the events table's words. */
enum map_event_source {
	MAP_EVENT_FANOTIFY, MAP_EVENT_KMSG, MAP_EVENT_HEALTHMON, MAP_EVENT_SOURCE_NR
};
const char *map_event_source_name(enum map_event_source source);
/* The source of that name, or -ENOENT. */
int map_event_source_from_name(const char *name);

struct map_event {
	int64_t id, fs_id, at;
	enum map_event_source source;
	uint64_t ino;
	uint32_t gen;
	int error;
	char detail[256];
};
int map_store_event_add(struct map_store *st, const struct map_event *e);
int map_store_events(struct map_store *st, int64_t fs_id,
		     int (*fn)(const struct map_event *, void *), void *arg);

/* ---- store: figures for monitoring (store_stats.c) ---- */

/* A read transaction: everything read until map_store_read_end() is one
 * state of the store, whatever writers do meanwhile. */
int map_store_read_begin(struct map_store *st);
void map_store_read_end(struct map_store *st);

enum map_tally_what {
	MAP_TALLY_OPEN_BY_KIND,		/* open findings; key: kind */
	MAP_TALLY_DAMAGED_INODES,	/* distinct inodes with open findings; every filesystem */
	MAP_TALLY_REPAIRS,		/* repairs of a finding or of summary counters; key: outcome */
	MAP_TALLY_REFETCHES,		/* refetches; key: outcome */
	MAP_TALLY_EVENTS,		/* error reports received; key: source */
};

/* One count of a filesystem's rows (fs_id 0: events of no known filesystem). */
struct map_tally {
	int64_t fs_id;
	char key[64];
	int64_t n;
};

/* The counts of @what, ordered by filesystem then key. */
int map_store_tally(struct map_store *st, enum map_tally_what what,
		    int (*fn)(const struct map_tally *, void *), void *arg);

/* ---- files we keep --------------------------------------------------------------- */

/*
 * Make folder @dir (one level, with @mode) unless it exists, then check that
 * it is safe to keep files in: owned by root or the caller, and writable by
 * no one else unless sticky (like /tmp).  0, -EPERM for an unsafe folder,
 * -ENOTDIR, or another negative errno.
 */
int map_dir_ensure(const char *dir, unsigned int mode);

#ifdef __cplusplus
}
#endif
#endif /* MAP_STORE_H */
