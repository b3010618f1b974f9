// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench_healer_latency: how long from a reader's EIO inside a 10 MiB file to
 * the report that names the file and the failed range, for one tool alone.
 *
 * Usage (in the guest, from bench/guest-mainline-vs-healer):
 *   bench_healer_latency MAPPERD MAPCTL MODE MOUNTPOINT FILE EVENTS DUST_NAME
 *
 * MODE: "healthmon" (mapperd, health_monitor = yes), "fanotify" (mapperd,
 * health_monitor = no) or "healer" (xfs_healer --foreground, its stdout).
 * FILE (relative to MOUNTPOINT) is read EVENTS times, each time at a block
 * not read before: a dm-dust bad block is put under it, the file's pages are
 * dropped, 4 KiB are read there (pread) and, once the read has returned EIO,
 * the clock runs until the tool has reported FILE with a range covering that
 * block: mapperd's stored finding (path, file offset, device byte), or
 * xfs_healer's "PATH pos P len L:" line.  Prints each latency, then
 * "latency-ms P50 P99 MAX N" and "range-bytes MIN MAX" (the sizes of the
 * ranges reported).  Needs a mapperd status that says which source it uses:
 * the run stops when it is not the one MODE asks for.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "latency_stats.h"
#include "mdtest.h"
#include "vmtest.h"

#define BLOCK 4096
#define MAX_EVENTS 1000
#define HEALER_OUT "/run/mdtest/healer-bench.out"

struct target {
	uint64_t ino, offset, physical, range;
	char path[4096];
};

static bool is_target(const struct map_finding *f, void *arg)
{
	struct target *t = arg;

	if (strcmp(f->kind, "file") || f->ino != t->ino || !f->has_offset || !f->has_range ||
	    f->offset > t->offset || f->offset + f->length <= t->offset || f->npaths < 1)
		return false;
	t->range = f->length;
	return true;
}

/* Does HEALER_OUT hold "PATH pos P len L:" with P <= offset < P + L?  Reads
 * from *@pos on (the lines before were looked at already). */
static bool healer_reported(struct target *t, long *pos)
{
	char line[8192], head[4200];
	bool found = false;
	FILE *f = fopen(HEALER_OUT, "r");

	if (!f)
		return false;
	if (fseek(f, *pos, SEEK_SET) != 0) {
		fclose(f);
		return false;
	}
	snprintf(head, sizeof(head), "%s pos ", t->path);
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long p, l;
		size_t n = strlen(line);

		if (n == 0 || line[n - 1] != '\n')
			break;	/* a line still being written: read it again */
		*pos += (long)n;
		if (strncmp(line, head, strlen(head)) ||
		    sscanf(line + strlen(head), "%llu len %llu:", &p, &l) != 2)
			continue;
		if (p <= t->offset && t->offset < p + l) {
			t->range = l;
			found = true;
		}
	}
	fclose(f);
	return found;
}

static pid_t healer_start(const char *mnt)
{
	mkdir(MDT_DIR, 0755);
	pid_t pid = fork();

	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		int fd = open(HEALER_OUT, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (fd < 0)
			_exit(127);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		execlp("xfs_healer", "xfs_healer", "--foreground", mnt, (char *)NULL);
		_exit(127);
	}
	return pid;
}

int main(int argc, char **argv)
{
	int arg = mdt_args(argc, argv);

	REQUIRE(argc - arg == 5, "usage: %s MAPPERD MAPCTL MODE MOUNTPOINT FILE EVENTS DUST_NAME",
		argv[0]);
	const char *mode = argv[arg], *mnt = argv[arg + 1], *rel = argv[arg + 2];
	long events = strtol(argv[arg + 3], NULL, 10);
	const char *dust = argv[arg + 4];
	bool healer = !strcmp(mode, "healer"), hm = !strcmp(mode, "healthmon");
	struct target t;
	struct stat st;

	REQUIRE(healer || hm || !strcmp(mode, "fanotify"), "MODE is healthmon, fanotify or healer");
	REQUIRE(events > 0 && events <= MAX_EVENTS, "EVENTS: 1 to %d", MAX_EVENTS);
	snprintf(t.path, sizeof(t.path), "%s/%s", mnt, rel);
	REQUIRE(stat(t.path, &st) == 0, "%s: %s", t.path, strerror(errno));
	uint64_t blocks = (uint64_t)st.st_size / BLOCK;
	REQUIRE(blocks >= (uint64_t)events, "%s has fewer blocks than events", t.path);
	t.ino = st.st_ino;

	pid_t pid;
	long healer_pos = 0;
	struct map_store *db = NULL;

	if (healer) {
		pid = healer_start(mnt);
		double end = tl_mono() + 30;
		while (tl_sh("grep -q 'monitoring started' " HEALER_OUT) != 0 && tl_mono() < end)
			tl_sleep(0.05);
		REQUIRE(tl_mono() < end, "xfs_healer did not start monitoring");
	} else {
		/* The monitor's reports carry the range: the default dedup_window
		 * drops only the kernel's second record of the same failed read
		 * (a read is retried after readahead fails), as on a server.
		 * fanotify's name only the inode, and this bench reads one file
		 * again and again: without dedup_window = 0 its reports after the
		 * first would be dropped as the same report. */
		mdt_write_config(hm ? "log_level = info\nevent_scans = no\n"
				      "health_monitor = yes\n"
				    : "log_level = info\ndedup_window = 0\nevent_scans = no\n"
				      "health_monitor = no\n");
		pid = mdt_start(NULL);
		REQUIRE(mdt_wait_watched(mnt, true, 30) >= 0, "mapperd does not watch %s", mnt);
		const char *v = mdt_status_field(mnt, "health_monitor");
		REQUIRE(v && (hm ? !strncmp(v, "\"on\"", 4) : strncmp(v, "\"on\"", 4) != 0),
			"mapperd's health monitor: %.40s (mode %s)", v ? v : "?", mode);
		REQUIRE(mdt_wait_dirindex(600) >= 0, "mapperd's directory index is not ready");
		/* The observer's connection, opened and its pages read before any
		 * clock starts: what is timed is the daemon's work only. */
		REQUIRE(map_store_open(MDT_DB, MAP_STORE_READONLY, &db) == 0,
			"cannot read mapperd's database");
		mdt_count_findings(is_target, &t);
	}

	double lat[MAX_EVENTS];
	uint64_t rmin = UINT64_MAX, rmax = 0;
	size_t n = 0;
	uint64_t stride = blocks / (uint64_t)events;

	for (long i = 0; i < events; i++) {
		t.offset = ((uint64_t)i * stride + stride / 2) * BLOCK;
		t.physical = tl_file_physical(t.path, t.offset);
		REQUIRE(t.physical, "%s: no device block at %" PRIu64, t.path, t.offset);
		tl_must("dmsetup message %s 0 addbadblock %" PRIu64 " >/dev/null", dust,
			t.physical / BLOCK);
		int err = tl_read_block(t.path, t.offset);
		double t0 = tl_mono(), s = -1;

		if (err != EIO) {
			fprintf(stderr, "%s at %" PRIu64 ": %s, not EIO; skipped\n", t.path,
				t.offset, err ? strerror(err) : "no error");
			continue;
		}
		if (healer) {
			double end = t0 + 10;
			while (!healer_reported(&t, &healer_pos) && tl_mono() < end)
				tl_sleep(0.002);
			if (tl_mono() < end)
				s = tl_mono() - t0;
		} else {
			s = mdt_wait_finding_on(db, is_target, &t, t0, 10, NULL);
		}
		if (s < 0) {
			fprintf(stderr, "%s at %" PRIu64 ": no report within 10 s\n", t.path, t.offset);
			continue;
		}
		lat[n++] = s * 1000;
		rmin = t.range < rmin ? t.range : rmin;
		rmax = t.range > rmax ? t.range : rmax;
		printf("%zu %s offset %" PRIu64 ": %.1f ms, range %" PRIu64 " bytes\n", n, mode,
		       t.offset, s * 1000, t.range);
	}
	if (healer) {
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
	} else {
		map_store_close(db);
		mdt_stop(pid);
	}
	REQUIRE(n > 0, "no event measured");
	latency_print("latency-ms", lat, n);
	printf("range-bytes %" PRIu64 " %" PRIu64 "\n", rmin, rmax);
	return 0;
}
