// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Issue 15: a full scan reads the media while the kernel scrubs the
 * metadata, not after it, and an interrupted scan still resumes without
 * losing or repeating anything.
 *
 *  1. 20 000 small files (so that the metadata walk takes seconds), three
 *     32 MiB files with a bad block near the start of the first and the end
 *     of the last, and the inode btree root of AG 1 unreadable.
 *  2. mapctl scan, its reads held to 2 MiB/s: a media checkpoint past the
 *     first bad block is saved while the row still says "metadata", and the
 *     first file's finding is in the database by then: media runs beside
 *     the metadata walk.
 *  3. Ctrl-C at that moment: the scan stops as interrupted (exit 2), both
 *     sides having stopped, and the media position it saved is kept.
 *  4. The same command again resumes that scan from that position (same id,
 *     second run), checks the metadata again and completes: each damaged
 *     file is named once, at its bad block's offset, and the inode btree
 *     finding is open.
 *
 * Usage (in the guest): vm_scan_overlap MAPCTL DEVICE
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
#include "fixture.h"
#include "vmtest.h"

#define DB "/tmp/overlap.db"
#define MiB (1024ULL * 1024)
#define FILE_MB 32ULL
#define NDIRS 200
#define PER_DIR 100

/* Damaged files, each name with the offset of its bad block. */
#define FILE_FINDINGS                                                          \
	"SELECT group_concat(n, ' ') FROM (SELECT CAST(p.path AS TEXT) || '@' || " \
	"f.offset AS n FROM findings f JOIN finding_paths p ON p.finding_id = f.id " \
	"WHERE f.kind = 'file' ORDER BY n)"

static const char *mapctl;

static const char *sql(const char *query)
{
	/* The scan writes while we read: wait for its lock. */
	return tl_out("sqlite3 -cmd '.timeout 5000' " DB " \"%s\" 2>/dev/null", query);
}

/* Empty files are enough: each is an inode for every scrub type to check. */
static void make_small_files(void)
{
	char path[256];
	int failed = 0;

	for (int d = 0; d < NDIRS; d++) {
		snprintf(path, sizeof(path), "%s/many/d%03d", FX_MNT, d);
		if (mkdir(path, 0755) != 0)
			failed++;
		for (int f = 0; f < PER_DIR; f++) {
			snprintf(path, sizeof(path), "%s/many/d%03d/f%03d", FX_MNT, d, f);
			int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

			if (fd < 0)
				failed++;
			else
				close(fd);
		}
	}
	REQUIRE(failed == 0, "%d of the small files and folders could not be made (last: %s)",
		failed, path);
}

struct row {
	char phase[16], state[16];
	uint64_t position, done, total;
	int runs;
	long long id;
};

static bool latest_row(struct row *r)
{
	const char *out = sql("SELECT id, phase, state, media_position, media_done, media_total, "
			      "runs FROM scans ORDER BY id DESC LIMIT 1");

	memset(r, 0, sizeof(*r));
	return sscanf(out, "%lld|%15[^|]|%15[^|]|%" SCNu64 "|%" SCNu64 "|%" SCNu64 "|%d", &r->id,
		      r->phase, r->state, &r->position, &r->done, &r->total, &r->runs) == 7;
}

int main(int argc, char **argv)
{
	mapctl = argc > 1 ? argv[1] : "mapctl";
	const char *dev = argc > 2 ? argv[2] : "/dev/vda";
	struct row row;

	vt_require_vm();
	fx_setup(dev, vt_features());
	/* The big files first: low in AG 0, where the media pass begins. */
	for (int i = 1; i <= 3; i++)
		tl_must("xfs_io -f -c 'pwrite -q -S 0x%02x -b 4m 0 %llum' %s/big%d", 0x40 + i, FILE_MB,
			FX_MNT, i);
	tl_must("mkdir %s/many", FX_MNT);
	double t = tl_mono();
	make_small_files();
	tl_must("sync");
	printf("%d small files in %.1f s\n", NDIRS * PER_DIR, tl_mono() - t);

	uint64_t bad[2] = { fx_file_physical("big1", 1 * MiB),
			    fx_file_physical("big3", (FILE_MB - 1) * MiB) };
	REQUIRE(bad[0] + 32 * MiB < bad[1], "big1 at %" PRIu64 " and big3 at %" PRIu64
		" are not apart", bad[0], bad[1]);
	uint64_t blocks[] = { bad[0] / 4096, bad[1] / 4096, fx_inobt_root_byte(1) / 4096 };
	fx_umount();
	fx_add_bad_blocks(blocks, 3);
	fx_mount();

	/* ---- 2. the media checkpoints while the metadata walk runs ---- */
	pid_t pid = fork();
	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		int fd = open("/tmp/overlap-scan1.log", O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(fd, 1);
		dup2(fd, 2);
		execlp(mapctl, mapctl, "--db", DB, "scan", "--rate", "2M", "--io-size", "1M", FX_MNT,
		       (char *)NULL);
		_exit(127);
	}
	t = tl_mono();
	bool ready = false;
	int polls = 0;
	while (!ready && tl_mono() - t < 120) {
		bool have = latest_row(&row);

		if (polls++ % 20 == 0)
			printf("%.1f s: phase %s, media position %" PRIu64 "\n", tl_mono() - t,
			       have ? row.phase : "-", have ? row.position : 0);
		ready = have && !strcmp(row.phase, "metadata") && row.position > bad[0];
		if (!ready && have && strcmp(row.phase, "metadata") != 0)
			break;
		if (!ready)
			usleep(100000);
	}
	REQUIRE(ready, "no media checkpoint past byte %" PRIu64 " while the metadata was "
		"checked (phase %s, position %" PRIu64 ", after %.1f s)", bad[0], row.phase,
		row.position, tl_mono() - t);
	bool finding = !strcmp(sql(FILE_FINDINGS), "big1@1048576");
	printf("%.1f s: media at byte %" PRIu64 " of %" PRIu64 " while the metadata is checked\n",
	       tl_mono() - t, row.position, row.total);
	CHECK(finding, "big1's finding is recorded with the checkpoint past it");
	CHECK(row.position < bad[1], "the media pass is not past the last bad block yet");

	/* ---- 3. Ctrl-C ---- */
	kill(pid, SIGINT);
	int status = 0;
	REQUIRE(waitpid(pid, &status, 0) == pid, "waitpid");
	tl_sh("cat /tmp/overlap-scan1.log");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 2, "interrupted scan exits 2 (status %d)",
	      status);
	long long scan_id = row.id;
	REQUIRE(latest_row(&row), "no scan row");
	CHECK_STR(row.state, "interrupted");
	CHECK_STR(row.phase, "metadata");
	CHECK(row.position > bad[0], "the position past big1 is kept (%" PRIu64 ")", row.position);
	uint64_t stopped_at = row.position;

	/* ---- 4. resume ---- */
	const char *out = tl_out("%s --db " DB " scan --json " FX_MNT "; echo \"exit $?\"", mapctl);
	printf("%s\n", out);
	CHECK(strstr(out, "exit 1"), "the resumed scan finds damage: %s", out);
	CHECK(strstr(out, "\"resumed\":true") || strstr(out, "\"resumed\": true"),
	      "it says it resumed");
	char want[64];
	snprintf(want, sizeof(want), "%" PRIu64, stopped_at);
	CHECK(strstr(out, want), "from byte %s, where the interrupted run stopped", want);
	REQUIRE(latest_row(&row), "no scan row");
	CHECK_INT(row.id, scan_id);
	CHECK_INT(row.runs, 2);
	CHECK_STR(row.state, "complete");
	CHECK_STR(row.phase, "done");
	CHECK(row.done == row.total && row.total >= 3 * FILE_MB * MiB,
	      "media done %" PRIu64 " of %" PRIu64, row.done, row.total);

	char files[128];
	snprintf(files, sizeof(files), "big1@%llu big3@%llu", 1 * MiB, (FILE_MB - 1) * MiB);
	CHECK_STR(sql(FILE_FINDINGS), files);
	snprintf(want, sizeof(want), "%lld", scan_id);
	CHECK_STR(sql("SELECT DISTINCT first_scan FROM findings WHERE kind = 'file'"), want);
	CHECK(atoi(sql("SELECT count(*) FROM findings WHERE kind = 'inode-btrees' AND "
		       "state = 'open'")) >= 1, "the inode btree finding is open");
	CHECK_STR(sql("SELECT count(*) FROM findings WHERE state != 'open'"), "0");
	CHECK_INT(vt_kernel_log_problems(), 0);
	fx_teardown();
	return check_done();
}
