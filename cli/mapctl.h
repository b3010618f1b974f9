/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mapctl: shared pieces of the sub-commands. */
#ifndef MAPCTL_H
#define MAPCTL_H

#include <stdbool.h>
#include <stdio.h>

#include "map.h"
#include "map_act.h"

/* Exit statuses (DESIGN.md): */
#define EXIT_CLEAN	0	/* no open problems */
#define EXIT_DAMAGE	1	/* problems found or still open */
#define EXIT_ERROR	2	/* could not run */

struct ctl {
	const char *db_path;
	bool json;
	bool zero;		/* -0: NUL-separated paths */
	const char *prog;	/* "mapctl scan" etc., for messages */
};

struct command {
	const char *name;
	int (*run)(struct ctl *ctl, int argc, char **argv);
	const char *summary;
	const char *usage;	/* full --help text */
};

extern const struct command cmd_scan, cmd_status, cmd_files, cmd_locate, cmd_export,
	cmd_refetch, cmd_repair, cmd_resolve, cmd_ignore, cmd_history, cmd_events;
extern const struct command cmd_daemon;
extern const struct command cmd_metrics;

/* One line on stderr: "mapctl CMD: what: why" (why from map_strerror(err)
 * when err != 0).  Returns EXIT_ERROR. */
int fail(const struct ctl *ctl, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void warn_msg(const struct ctl *ctl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parse the common options of a sub-command (-h/--help, --json, -0 where
 * allowed, plus the command's own through getopt_long in each command). */
bool want_help(int argc, char **argv);
int print_usage(const struct command *cmd);

/* Stop with a message unless we run as root. */
int need_root(const struct ctl *ctl, const char *why);

/* Open the store (read-only for listings); clear messages for the usual
 * problems.  Returns 0 or EXIT_ERROR after saying why. */
int open_store(const struct ctl *ctl, bool write, struct map_store **st);
/* Say why map_store_open of ctl->db_path failed with @rc; EXIT_ERROR. */
int store_open_failed(const struct ctl *ctl, bool write, int rc);
/* Open the XFS filesystem holding @path. */
int open_fs(const struct ctl *ctl, const char *path, struct map_fs **fs);
/* The stored filesystem holding @path (it must be mounted), or all when
 * @path is NULL (*fs_id = 0). */
int fs_id_for_path(const struct ctl *ctl, struct map_store *st, const char *path,
		   int64_t *fs_id, struct map_store_fs *out);

/* The recorded filesystem named by @arg for a command that reads only the
 * store: its UUID, the mount point last recorded for it (it need not be
 * mounted), or a path on it while mounted (fs_arg.c); all when @arg is NULL
 * (*fs_id = 0).  Several recorded at that mount point: an error naming
 * them.  Returns 0 or EXIT_ERROR after saying why. */
int fs_from_store(const struct ctl *ctl, struct map_store *st, const char *arg, int64_t *fs_id,
		  struct map_store_fs *out);

/* Sizes for people (times: map_human_time). */
const char *human_bytes(uint64_t bytes, char *buf, size_t len);

/* @s escaped for people (map_escape_text) in a static buffer that stays
 * valid for the next three calls: for printf arguments. */
const char *shown(const char *s);
/* @s as one word of a command line in a hint, quoted for a shell so that
 * it can be pasted (map_escape_shell); the same slots' rule as shown(). */
const char *shell_word(const char *s);
/*
 * getopt_long's error in one line: "mapctl CMD: unknown option '--x' (see
 * 'mapctl CMD --help')", or that an option needs or takes no value.  The
 * command sets opterr = 0 before its loop so getopt says nothing itself,
 * and calls this for '?'.  EXIT_ERROR.
 */
struct option;
int option_error(const struct ctl *ctl, char *const *argv, const char *shortopts,
		 const struct option *longopts);
/* Print a path for people (escaped) or exactly. */
void print_path_text(FILE *out, const char *mountpoint, const char *rel);

/* ---- JSON output (json.c; the schema: mapper-json(7)) ---- */
/* One JSON object on @out, on one line, that begins with the output
 * version of @command ("mapctl files"); json_close() ends it. */
void json_open(struct map_json *j, FILE *out, const char *command);
void json_close(struct map_json *j);		/* "}", newline, flush */

/* A finding as a JSON object (inside an array), with its filesystem. */
void json_finding(struct map_json *j, const struct map_finding *f, const char *uuid,
		  const char *mountpoint);
/* A finding read from @st, with its "evidence" array (source, scrub,
 * device_offset, device_length, detail, first_seen_time, last_seen_time
 * per piece). */
int json_stored_finding(struct map_json *j, struct map_store *st, const struct map_finding *f,
			const char *uuid, const char *mountpoint);
/* ---- findings for people (finding_text.c) ---- */
/* "media+scrub": the sources of a stored finding's evidence, each once,
 * in the order they first saw it ("" if it has none). */
int finding_sources(struct map_store *st, int64_t id, char *buf, size_t len);
/* Where a finding's object is, when it has no path: "AG 1", "filesystem",
 * "AG 0 bytes 4096+4096", "no name found; inode unreadable". */
const char *finding_where(const struct map_finding *f, char *buf, size_t len);
/* What showed it, for the end of a line: "[media+scrub inobt,finobt: corrupt]",
 * "[shared extent]" for shared file data, "" for other file data. */
int finding_evidence_note(struct map_store *st, const struct map_finding *f, char *buf,
			  size_t len);

#endif
