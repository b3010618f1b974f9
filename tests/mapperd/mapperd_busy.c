// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A report is stored promptly even while mapperd scans the same filesystem:
 * the scan (libmap's map_scan, in mapperd's scan thread) and the event
 * pipeline write the same database, so the scan must not hold its write
 * transaction for long.  8000 files make the metadata phase last many
 * seconds on TCG; a file read with EIO in the middle of it must give its
 * finding while the scan still runs, and well before the scan's longest
 * transaction could have ended: within 5 s (the scan used to hold one
 * transaction per 1000 objects, 17 s on TCG; this is a check that the
 * daemon is not starved, five times the latency target, which bench/
 * measures).  The scan must still complete.
 *
 * Usage (in the guest): vm_mapperd_busy MAPPERD MAPCTL DEVICE
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "mdtest.h"
#include "vmtest.h"

#define KiB 1024ULL

static char reply[1 << 16];

struct want {
	uint64_t ino, offset;
};

static bool match(const struct map_finding *f, void *arg)
{
	const struct want *w = arg;

	return f->source == MAP_SOURCE_EVENT && f->ino == w->ino && f->has_offset &&
	       f->offset == w->offset;
}

/* Read until the read fails (a read returns what it got before a bad block). */
static int read_to_error(const char *path)
{
	static char buf[1 << 16];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	REQUIRE(fd >= 0, "%s: %s", path, strerror(errno));
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	int err = n < 0 ? errno : 0;
	close(fd);
	return err;
}

static long long scan_number(const char *key)
{
	const char *p;

	if (mdt_request("progress json", reply, sizeof(reply)) != 0)
		return -1;
	p = strstr(reply, key);
	return p ? strtoll(p + strlen(key), NULL, 10) : -1;
}

int main(int argc, char **argv)
{
	char path[256];
	int arg;

	vt_require_vm();
	arg = mdt_args(argc, argv);
	REQUIRE(arg < argc, "which device?");
	fx_setup(argv[arg], vt_features());
	for (int d = 0; d < 40; d++) {
		snprintf(path, sizeof(path), "%s/many/d%02d", FX_MNT, d);
		tl_must("mkdir -p %s", path);
		for (int i = 0; i < 200; i++) {
			snprintf(path, sizeof(path), "%s/many/d%02d/f%03d", FX_MNT, d, i);
			int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
			REQUIRE(fd >= 0 && write(fd, path, 100) == 100, "%s", path);
			close(fd);
		}
	}
	tl_must("xfs_io -f -c 'pwrite -q -S 0x5a 0 256k' -c fsync %s/victim.bin", FX_MNT);
	struct want w = { fx_ino("victim.bin"), 32 * KiB };
	tl_must("dmsetup message dust 0 addbadblock %llu",
		(unsigned long long)(fx_file_physical("victim.bin", w.offset) / 4096));
	tl_must("dmsetup message dust 0 enable");

	mdt_write_config(NULL);
	pid_t pid = mdt_start(NULL);
	REQUIRE(mdt_wait_watched(FX_MNT, true, 10) >= 0, "not watched");
	REQUIRE(mdt_request("scan metadata " FX_MNT, reply, sizeof(reply)) == 0, "%s", reply);
	double t0 = tl_mono();
	long long done = -1;
	while (tl_mono() - t0 < 60 && (done = scan_number("\"done\":")) < 500)
		tl_sleep(0.05);
	long long total = scan_number("\"total\":");
	printf("metadata phase at %lld of %lld objects\n", done, total);
	REQUIRE(done >= 500 && done < total / 2, "the scan is not in the middle of its metadata "
		"phase (%lld of %lld)", done, total);

	tl_evict(FX_MNT "/victim.bin");
	t0 = tl_mono();
	CHECK_INT(read_to_error(FX_MNT "/victim.bin"), EIO);
	double latency = mdt_wait_finding(match, &w, t0, 60, NULL);
	long long after = scan_number("\"done\":");
	printf("EIO during a metadata scan -> stored finding in %.3f s (scan at %lld of %lld)\n",
	       latency, after, total);
	CHECK(latency >= 0, "no finding for victim.bin within 60 s");
	CHECK(after >= 0 && after < total, "the scan was over before the report was stored");
	CHECK(latency < 5.0, "the report waited %.1f s for the scan's transaction", latency);

	/* The scan goes on to the end. */
	t0 = tl_mono();
	bool running = true;
	while (running && tl_mono() - t0 < 180) {
		mdt_request("progress", reply, sizeof(reply));
		running = strstr(reply, "no scan is running") == NULL;
		if (running)
			tl_sleep(0.5);
	}
	CHECK(!running, "the scan did not finish");
	const char *out = tl_out("grep -c 'metadata scan 1 complete' %s", MDT_LOG);
	CHECK(atoi(out) == 1, "the scan did not complete");
	CHECK_INT(mdt_stop(pid), 0);
	mdt_show_log();
	fx_teardown();
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
