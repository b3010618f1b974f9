// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapperd does not leak.  On a dm-dust filesystem with twenty files that
 * each have a bad block:
 *  1. 1000 kernel error reports (fanotify, each read of a damaged file),
 *     every one processed (de-duplication off), plus 100 unmount/mount
 *     cycles and 1000 control requests: after a warm-up, the daemon's open
 *     descriptors (/proc/PID/fd) do not change and its resident memory grows
 *     by less than 1 MiB;
 *  2. the same kinds of work, fewer of each, with mapperd under valgrind
 *     (leak check full, every leak kind an error): no error, no leak, exit 0.
 *
 * Usage (in the guest): vm_mapperd_leaks MAPPERD MAPCTL DEVICE counted|valgrind
 * (two CTest tests, each under five minutes on TCG).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "mdtest.h"
#include "vmtest.h"

#define NFILES 20
#define EVENTS 1000
#define WARMUP 200

static char reply[1 << 16];
static char paths[NFILES][64];

static void make_files(void)
{
	tl_must("mkdir -p %s/victims", FX_MNT);
	for (int i = 0; i < NFILES; i++) {
		snprintf(paths[i], sizeof(paths[i]), "victims/v%02d.dat", i);
		tl_must("xfs_io -f -c 'pwrite -q -S 0x%02x 0 64k' -c fsync %s/%s", i + 1, FX_MNT,
			paths[i]);
	}
	for (int i = 0; i < NFILES; i++)
		tl_must("dmsetup message dust 0 addbadblock %llu",
			(unsigned long long)(fx_file_physical(paths[i], 32768) / 4096));
	tl_must("dmsetup message dust 0 enable");
}

/* Read damaged file @i and wait until mapperd has the report. */
static bool one_event(int i, long long *received)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", FX_MNT, paths[i % NFILES]);
	tl_evict(path);
	if (tl_read_file(path) != EIO)
		return false;
	double t0 = tl_mono();
	while (tl_mono() - t0 < 10) {
		long long n = mdt_status_number("\"received\":");

		if (n > *received) {
			*received = n;
			return true;
		}
		tl_sleep(0.002);
	}
	return false;
}

/* Everything received has been dealt with. */
static bool wait_idle(double timeout)
{
	double t0 = tl_mono();

	while (tl_mono() - t0 < timeout) {
		long long rec = mdt_status_number("\"received\":");
		long long done = mdt_status_number("\"processed\":") +
				 mdt_status_number("\"failed\":") +
				 mdt_status_number("\"duplicates\":") +
				 mdt_status_number("\"dropped\":");

		if (rec >= 0 && done == rec)
			return true;
		tl_sleep(0.1);
	}
	return false;
}

static bool wait_idle(double timeout);

/* mapperd keeps a filesystem open while it handles a report of it, so
 * umount would fail with EBUSY until the queue is empty (like with any
 * process working in it): wait for that first. */
static void mount_cycles(int n)
{
	REQUIRE(wait_idle(600), "reports still queued before unmounting");
	for (int i = 0; i < n; i++) {
		fx_umount();
		REQUIRE(mdt_wait_watched(FX_MNT, false, 10) >= 0, "unmount %d not noticed", i);
		fx_mount();
		REQUIRE(mdt_wait_watched(FX_MNT, true, 10) >= 0, "mount %d not noticed", i);
	}
}

static void requests(int n)
{
	static const char *const lines[] = { "status", "status json", "progress json", "help",
					     "bogus request" };

	for (int i = 0; i < n; i++)
		CHECK(mdt_request(lines[i % 5], reply, sizeof(reply)) == (i % 5 == 4 ? 1 : 0),
		      "request %d: %s", i, reply);
}

int main(int argc, char **argv)
{
	long long received = 0;
	int arg;

	vt_require_vm();
	arg = mdt_args(argc, argv);
	REQUIRE(arg < argc, "which device?");
	fx_setup(argv[arg], vt_features());
	make_files();
	/* Every report processed in full; nothing else started by them. */
	mdt_write_config("dedup_window = 0\nevent_scans = no\nlog_level = notice\n");

	REQUIRE(arg + 1 < argc && (!strcmp(argv[arg + 1], "counted") ||
				   !strcmp(argv[arg + 1], "valgrind")), "counted or valgrind?");
	pid_t pid;
	if (!strcmp(argv[arg + 1], "valgrind"))
		goto valgrind;

	/* 1. Counted: descriptors and memory. */
	pid = mdt_start(NULL);
	REQUIRE(mdt_wait_watched(FX_MNT, true, 10) >= 0, "not watched");
	double t0 = tl_mono();
	int ok = 0;
	for (int i = 0; i < WARMUP; i++)
		ok += one_event(i, &received);
	mount_cycles(5);
	requests(50);
	REQUIRE(wait_idle(300), "reports still queued after the warm-up");
	int fd0 = mdt_fd_count(pid);
	mdt_fd_show(pid);
	long rss0 = mdt_rss_kib(pid);
	printf("after %d reports (%.0f s): %d descriptors, %ld KiB resident\n", WARMUP,
	       tl_mono() - t0, fd0, rss0);
	for (int i = WARMUP; i < EVENTS / 2; i++)
		ok += one_event(i, &received);
	mount_cycles(45);
	requests(450);
	REQUIRE(wait_idle(300), "reports still queued half way");
	int fd_half = mdt_fd_count(pid);
	long rss_half = mdt_rss_kib(pid);
	printf("after %d reports (%.0f s): %d descriptors, %ld KiB resident\n", EVENTS / 2,
	       tl_mono() - t0, fd_half, rss_half);
	for (int i = EVENTS / 2; i < EVENTS; i++)
		ok += one_event(i, &received);
	mount_cycles(50);
	requests(500);
	REQUIRE(wait_idle(600), "reports still queued at the end");
	int fd1 = mdt_fd_count(pid);
	long rss1 = mdt_rss_kib(pid);
	printf("after %d reports, 100 mount cycles, 1000 requests (%.0f s): %d descriptors, "
	       "%ld KiB resident\n", EVENTS, tl_mono() - t0, fd1, rss1);
	CHECK_INT(ok, EVENTS);
	CHECK(received >= EVENTS, "mapperd received %lld reports, expected %d", received, EVENTS);
	long long processed = mdt_status_number("\"processed\":");
	CHECK(processed >= EVENTS, "%lld reports processed, expected %d", processed, EVENTS);
	CHECK_INT(mdt_status_number("\"failed\":"), 0);
	CHECK_INT(fd_half, fd0);
	CHECK_INT(fd1, fd0);
	if (fd1 != fd0 || fd_half != fd0)
		mdt_fd_show(pid);
	CHECK(rss1 - rss0 < 1024, "resident memory grew by %ld KiB", rss1 - rss0);
	CHECK(rss1 - rss_half < 256, "resident memory grew by %ld KiB in the second half",
	      rss1 - rss_half);
	/* Twenty bad blocks, twenty findings, whatever the number of reports. */
	CHECK_INT(mdt_status_number("\"new_findings\":"), NFILES);
	CHECK_INT(mdt_stop(pid), 0);
	goto out;

	/* 2. Under valgrind. */
valgrind:
	mdt_write_config("dedup_window = 0\nevent_scans = no\nlog_level = info\n");
	pid = mdt_start("valgrind --quiet --leak-check=full --show-leak-kinds=all "
			"--errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 "
			"--log-file=" MDT_DIR "/valgrind.log");
	REQUIRE(mdt_wait_watched(FX_MNT, true, 60) >= 0, "not watched under valgrind");
	received = 0;
	ok = 0;
	for (int i = 0; i < 40; i++)
		ok += one_event(i, &received);
	CHECK_INT(ok, 40);
	mount_cycles(3);
	requests(20);
	CHECK(mdt_request("scan metadata " FX_MNT, reply, sizeof(reply)) == 0, "scan: %s", reply);
	REQUIRE(wait_idle(300), "reports still queued under valgrind");
	tl_sleep(1);		/* let the scan get going; SIGTERM stops it */
	int status = mdt_stop(pid);
	printf("mapperd under valgrind exited with %d\n", status);
	tl_sh("cat %s/valgrind.log", MDT_DIR);
	CHECK_INT(status, 0);
out:
	mdt_show_log();
	fx_teardown();
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
