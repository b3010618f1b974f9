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
#define MAPPERD_NOTIFY_DIR "/etc/mapper/notify.d"

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
	bool health_monitor;		/* XFS_IOC_HEALTH_MONITOR before fanotify */
	bool directory_index;		/* names without parent pointers: dirwatch.h */
	int64_t dedup_window;		/* ms */
	uint64_t event_read_limit;	/* bytes read per file report, 0: whole file */
	int64_t event_scan_interval;	/* ms between event-requested scans of a fs */
	int log_level;			/* LOG_* */
	/* Prometheus textfile (metrics_file.c) */
	char metrics_file[PATH_MAX];	/* "": none written */
	int64_t metrics_interval;	/* ms: written at most this often */
	/* notification hooks (notify_run.c) */
	char notify_directory[PATH_MAX];	/* "": none run */
	int64_t notify_timeout;		/* ms a hook may run */
};

/* The longest control socket path: sockaddr_un's sun_path (108 bytes on
 * Linux) with its terminating NUL. */
#define MD_SOCKET_PATH_MAX 107
#define MD_SOCKET_PATH_MAX_TEXT "107"

void config_defaults(struct md_config *c);
void config_free(struct md_config *c);
/*
 * Read @path into @c (which gets the defaults first).  A missing file is
 * only an error when @must_exist.  On failure returns a negative errno and
 * puts "FILE:LINE: what is wrong" into @err; @c then holds the defaults.
 */
int config_load(const char *path, bool must_exist, struct md_config *c, char *err, size_t errlen);
/*
 * What --check-config adds to the parse: the settings that only fail once
 * the daemon starts, looked at on this system (a control socket path too
 * long for a socket address, given with --socket; a metrics_file that names
 * a folder; a notify_directory whose hooks would never run because others
 * may write to it or it is not root's).  0, or -EINVAL with "FILE: key =
 * 'value': why" in @err.
 */
int config_check(const struct md_config *c, char *err, size_t errlen);
/* Every key with its effective value, in the file's syntax. */
void config_print(const struct md_config *c, FILE *out);

/* Value parsers (exposed for the unit test); 0 or -EINVAL.  Sizes and
 * durations are libmap's, the same as mapctl's options: map_parse_size(),
 * map_parse_duration() (90s, 15m, 6h, 7d, 4w, 500ms, off) and
 * map_duration_str() to print one back. */
int config_parse_bool(const char *s, bool *v);		/* yes/no, true/false, on/off, 1/0 */

#endif
