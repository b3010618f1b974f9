// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A scan's record: one scan of a filesystem at a time (the lock), its row
 * started anew or resumed from the last interrupted one with the same
 * phases, and how it ended (the row's state, an action).  The phases that
 * fill it are in scan.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "map_internal.h"
#include "scan_internal.h"

int map_scan_lock(struct map_store *st, const char *uuid, int *holder_pid)
{
	char path[4200];
	char buf[32];
	struct stat sb;
	int fd;

	if (snprintf(path, sizeof(path), "%s.%s.lock", map_store_path(st), uuid) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	/* Never through a symbolic link, and only our own file: whoever
	 * planted something else there wants us to truncate it. */
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0640);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    (sb.st_uid != 0 && sb.st_uid != geteuid())) {
		close(fd);
		return -EPERM;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		int err = errno == EWOULDBLOCK ? -EBUSY : -errno;
		ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

		if (holder_pid)
			*holder_pid = n > 0 ? (buf[n] = '\0', atoi(buf)) : 0;
		close(fd);
		return err;
	}
	int len = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) == 0 && pwrite(fd, buf, (size_t)len, 0) < 0) {
		/* the pid is only informative */
	}
	return fd;
}

int scan_start_or_resume(struct scan *s, bool do_metadata, bool do_media)
{
	struct map_scan_row last;
	int rc = map_store_scan_latest(s->st, s->res->fs_id, &last);

	if (rc == 0 && !s->opts->restart &&
	    (last.state == MAP_SCAN_RUNNING || last.state == MAP_SCAN_INTERRUPTED) &&
	    last.do_metadata == do_metadata && last.do_media == do_media) {
		/* We hold the scan lock, so a "running" one died with its process. */
		s->row = last;
		s->row.runs++;
		s->seconds_before = last.seconds;
		s->res->resumed = true;
	} else {
		if (rc == 0 && (last.state == MAP_SCAN_RUNNING ||
				last.state == MAP_SCAN_INTERRUPTED)) {
			/* Superseded by this new scan. */
			last.state = MAP_SCAN_INTERRUPTED;
			snprintf(last.error, sizeof(last.error), "superseded by scan that followed");
			map_store_scan_update(s->st, &last);
		}
		memset(&s->row, 0, sizeof(s->row));
		s->row.fs_id = s->res->fs_id;
		s->row.do_metadata = do_metadata;
		s->row.do_media = do_media;
		s->row.started = (int64_t)time(NULL);
		s->row.runs = 1;
		s->row.phase = do_metadata ? MAP_SCAN_PHASE_METADATA : MAP_SCAN_PHASE_MEDIA;
	}
	s->row.state = MAP_SCAN_RUNNING;
	s->row.pid = (int)getpid();
	s->row.error[0] = '\0';
	snprintf(s->row.user, sizeof(s->row.user), "%s", s->opts->user ? s->opts->user : "");
	if (s->res->resumed)
		rc = map_store_scan_update(s->st, &s->row);
	else
		rc = map_store_scan_insert(s->st, &s->row);
	s->res->scan_id = s->row.id;
	return rc;
}

void scan_finish(struct scan *s, int rc)
{
	if (rc == 0) {
		s->row.state = MAP_SCAN_COMPLETE;
		s->row.finished = (int64_t)time(NULL);
	} else if (rc == -MAP_ECANCELED || rc == -MAP_EUNMOUNTED) {
		s->row.state = MAP_SCAN_INTERRUPTED;
		snprintf(s->row.error, sizeof(s->row.error), "%s", map_strerror(rc));
	} else {
		s->row.state = MAP_SCAN_FAILED;
		snprintf(s->row.error, sizeof(s->row.error), "%s", map_strerror(rc));
	}
	s->error = 0;
	save_row(s);

	struct map_action a = { .fs_id = s->res->fs_id };
	snprintf(a.action, sizeof(a.action), "scan");
	snprintf(a.user, sizeof(a.user), "%s", s->row.user);
	snprintf(a.outcome, sizeof(a.outcome), "%s", map_scan_state_name(s->row.state));
	map_textf(a.detail, sizeof(a.detail), "scan %lld%s: %d new, %d seen again, %d resolved%s%s%s",
		  (long long)s->row.id, s->res->resumed ? " (resumed)" : "", s->res->new_findings,
		  s->res->seen_findings, s->res->resolved,
		  s->res->metadata_skipped ? "; metadata not checked: no online scrub" : "",
		  s->row.error[0] ? "; " : "", s->row.error);
	map_store_action_add(s->st, &a);
}
