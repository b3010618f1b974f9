/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mapperd.conf: "key = value" lines, '#' comments.  Every key, its meaning
 * and its default is documented in mapperd.conf and mapperd(8).
 */
#ifndef MAPPERD_CONFIG_H
#define MAPPERD_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#ifndef MAPPERD_CONFIG_PATH
#define MAPPERD_CONFIG_PATH "/etc/mapper/mapperd.conf"
#endif
#define MAPPERD_SOCKET_PATH "/run/mapper/mapperd.sock"
#define MAPPERD_STATE_DIR "/run/mapper"

struct md_config {
	char path[PATH_MAX];		/* file it came from; "" when only defaults */
	/* which filesystems: every mounted XFS, or the mount points/UUIDs listed */
	bool all_filesystems;
	char **filesystems;
	size_t nfilesystems;
	char **exclude;
	size_t nexclude;
	/* schedule, in milliseconds (0: never) */
	int64_t metadata_interval, media_interval;
	int64_t random_delay, resume_delay, retry_delay;
	/* scan I/O */
	int ioprio_class, ioprio_level;	/* 3 idle, 2 best-effort + level */
	uint64_t rate_limit;		/* bytes per second, 0 unlimited */
	uint32_t io_size;		/* bytes per read, 0 library default */
	/* where */
	char database[PATH_MAX];	/* "" : $MAPPER_DB or the library default */
	char control_socket[PATH_MAX];
	char state_directory[PATH_MAX];	/* the spool and other run-time state */
	char control_group[64];		/* "" : only root may start scans */
	gid_t control_gid;
	/* event sources */
	bool fanotify, kmsg, event_scans;
	int64_t dedup_window;		/* ms */
	uint64_t event_read_limit;	/* bytes read per file report, 0: whole file */
	int64_t event_scan_interval;	/* ms between event-requested scans of a fs */
	int log_level;			/* LOG_* */
};

void config_defaults(struct md_config *c);
void config_free(struct md_config *c);
/*
 * Read @path into @c (which gets the defaults first).  A missing file is
 * only an error when @must_exist.  On failure returns a negative errno and
 * puts "FILE:LINE: what is wrong" into @err; @c then holds the defaults.
 */
int config_load(const char *path, bool must_exist, struct md_config *c, char *err, size_t errlen);
/* Every key with its effective value, in the file's syntax. */
void config_print(const struct md_config *c, FILE *out);

/* Value parsers (exposed for the unit test); 0 or -EINVAL.  Sizes are
 * libmap's map_parse_size(), the same as mapctl's options. */
int config_parse_duration(const char *s, int64_t *ms);	/* 90s, 15m, 6h, 7d, 4w, 500ms, off */
int config_parse_bool(const char *s, bool *v);		/* yes/no, true/false, on/off, 1/0 */
/* Text for a duration as config_parse_duration reads it ("7d", "off"). */
const char *config_duration_str(int64_t ms, char *buf, size_t len);

#endif
