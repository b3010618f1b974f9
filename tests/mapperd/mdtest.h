/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers for the mapperd vm tests: start the real daemon with a test
 * configuration, talk to its control socket, poll the database it writes.
 */
#ifndef MAPPER_MDTEST_H
#define MAPPER_MDTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "map.h"
#include "testlib.h"

#define MDT_DIR "/run/mdtest"
#define MDT_DB MDT_DIR "/mapper.db"
#define MDT_SOCK MDT_DIR "/mapperd.sock"
#define MDT_CONF MDT_DIR "/mapperd.conf"
#define MDT_LOG MDT_DIR "/mapperd.log"

/* Paths of the binaries under test (from the test's arguments). */
extern const char *mdt_mapperd, *mdt_mapctl;

/* Parse "MAPPERD MAPCTL [rest...]" from argv; returns the index of the rest. */
int mdt_args(int argc, char **argv);

/* Write the configuration: the test defaults (no schedule, fast resume, the
 * paths above) followed by @extra lines (may be NULL). */
void mdt_write_config(const char *extra);
/* Start mapperd (optionally under @wrapper, e.g. "valgrind ...") and wait
 * until its socket answers.  Returns its pid. */
pid_t mdt_start(const char *wrapper);
/* SIGTERM and wait; returns the exit status (or 128+signal). */
int mdt_stop(pid_t pid);
/* SIGKILL and reap. */
void mdt_kill9(pid_t pid);
/* Print the daemon's log (after a failure, or for the record). */
void mdt_show_log(void);

/* One request; the whole reply (final line included) in @reply.
 * Returns 0 for "ok...", 1 for "error: ...", -1 if the daemon did not answer. */
int mdt_request(const char *line, char *reply, size_t len);
/* @line asked in a forked child, whose pid is returned (a daemon that does
 * not answer cannot hold up the test): it prints the reply and exits 0 on
 * "ok", 1 on an error reply that holds @want (NULL: any), 3 on a reply
 * without @want, 2 on none. */
pid_t mdt_ask_async(const char *line, const char *want);
/* The text that follows "KEY": in the "status json" object of the
 * filesystem mounted at @mnt (a static buffer), or NULL. */
const char *mdt_status_field(const char *mnt, const char *key);
/* Same, from a forked child running as @uid/@gid with only the group
 * @extra_gid (or none when (gid_t)-1) besides its own. */
int mdt_request_as(uid_t uid, gid_t gid, gid_t extra_gid, const char *line, char *reply,
		   size_t len);
/* Wait until "status json" shows @mountpoint watched, with fanotify (unless
 * mdt_no_fanotify) or the health monitor (or, when @present is false, not at all).  Seconds waited,
 * or -1 on timeout. */
extern bool mdt_no_fanotify;
double mdt_wait_watched(const char *mountpoint, bool present, double timeout);
/* A number from "status json" ("\"received\":" etc.), -1 when absent. */
long long mdt_status_number(const char *key);
/* Wait until the watched filesystem (one) has its directory index ready or
 * needs none (status directory_index.ready + unneeded >= 1).  Seconds
 * waited, or -1 on timeout. */
double mdt_wait_dirindex(double timeout);

/* Wait for a stored finding that @match accepts; copies it into @out (paths
 * included, free with map_finding_clear).  Returns seconds waited from
 * @since (tl_mono()) or -1 on timeout. */
double mdt_wait_finding(bool (*match)(const struct map_finding *f, void *arg), void *arg,
			double since, double timeout, struct map_finding *out);
/* The same through @st, a read-only connection the caller opened before
 * @since and keeps across waits: a latency measured this way does not
 * include opening the database and reading its pages for the first time,
 * which are the observer's costs, not the daemon's. */
double mdt_wait_finding_on(struct map_store *st,
			   bool (*match)(const struct map_finding *f, void *arg), void *arg,
			   double since, double timeout, struct map_finding *out);
/* How many stored findings @match accepts. */
int mdt_count_findings(bool (*match)(const struct map_finding *f, void *arg), void *arg);
/* Events stored with this source. */
int mdt_count_events(const char *source);
/* Events stored with @source whose detail holds @needle (each event of
 * @source is printed). */
int mdt_count_events_with(const char *source, const char *needle);
/* Whether @mnt's field @key in status json starts with @want (a JSON
 * value: "\"on\"", "true", "null"). */
bool mdt_status_is(const char *mnt, const char *key, const char *want);
#define MDT_CHECK_STATUS(mnt, key, want)                                                  \
	CHECK(mdt_status_is(mnt, key, want), "status %s of %s: %.70s, expected %s", key, mnt, \
	      mdt_status_field(mnt, key) ? mdt_status_field(mnt, key) : "(none)", want)

/* Open descriptors and resident memory (KiB) of a process.  The count is
 * taken after the daemon had a moment to close connections we just made;
 * with @show, what each descriptor is gets printed. */
int mdt_fd_count(pid_t pid);
void mdt_fd_show(pid_t pid);
long mdt_rss_kib(pid_t pid);

#endif
