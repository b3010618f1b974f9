// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapperd and the health monitor's records other than file ranges, on stock
 * Linux 7.x (issue 38 item 2), on a dm-dust filesystem with a 1 MiB file
 * whose block at 512 KiB is bad:
 *  1. the kernel's own media verification (XFS_IOC_VERIFY_MEDIA with the
 *     REPORT flag) over that block sends a MEDIA_ERROR record with the
 *     failed sectors; mapperd maps them to their owner as a media scan's
 *     failed read is mapped, without reading them again: the store soon
 *     holds a finding for exactly that block (kind file, the inode, offset
 *     512 KiB, its device byte, 4096 bytes, the file's path), and an events
 *     row of source "healthmon" that names the device range;
 *  2. a forced shutdown (xfs_io shutdown) sends a SHUTDOWN record: status
 *     says shut_down true, an events row of source "healthmon" records it;
 *  3. SIGTERM stops the daemon cleanly (exit 0).
 * A kernel without the monitor or the ioctl (ENOTTY) fails step 1: the test
 * is only registered for the mainline profile.
 *
 * Usage (in the guest): vm_mapperd_healthmon_media MAPPERD MAPCTL DEVICE
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "mdtest.h"
#include "vmtest.h"

#define KiB 1024ULL
#define BAD_AT (512 * KiB)

/* Linux 7.x's struct xfs_verify_media and its ioctl (doc/kernel-api-7.x.md,
 * section 2): not in Debian 12's headers. */
struct verify_media {
	uint32_t dev;			/* 1: the data device */
	uint32_t flags;			/* bit 0: report what fails */
	uint64_t start_daddr;		/* in: first sector; out: first not verified */
	uint64_t end_daddr;		/* exclusive */
	uint32_t ioerror;		/* out */
	uint32_t max_io_size;		/* bytes per read */
	uint32_t rest_us;
	uint32_t pad;
};
_Static_assert(sizeof(struct verify_media) == 40, "struct xfs_verify_media is 40 bytes");
#define VERIFY_MEDIA_IOC _IOWR('X', 70, struct verify_media)
#define VERIFY_DATADEV 1
#define VERIFY_REPORT 1

struct want {
	uint64_t ino, offset, physical;
};

static bool match(const struct map_finding *f, void *arg)
{
	const struct want *w = arg;

	return !strcmp(f->kind, "file") && f->ino == w->ino && f->has_offset &&
	       f->offset == w->offset && f->has_range && f->physical == w->physical;
}

/* The kernel reads 4 KiB of the data device at @byte and reports what fails. */
static void verify_media(uint64_t byte)
{
	struct verify_media vm = {
		.dev = VERIFY_DATADEV, .flags = VERIFY_REPORT,
		.start_daddr = byte / 512, .end_daddr = byte / 512 + 8, .max_io_size = 4096,
	};
	int fd = open(FX_MNT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	REQUIRE(fd >= 0, "%s: %s", FX_MNT, strerror(errno));
	int rc = ioctl(fd, VERIFY_MEDIA_IOC, &vm);
	int err = errno;
	close(fd);
	REQUIRE(rc == 0, "XFS_IOC_VERIFY_MEDIA: %s", strerror(err));
	printf("XFS_IOC_VERIFY_MEDIA sectors %llu-%llu: stopped at %llu, ioerror %u\n",
	       (unsigned long long)(byte / 512), (unsigned long long)(byte / 512 + 8),
	       (unsigned long long)vm.start_daddr, vm.ioerror);
	CHECK(vm.start_daddr < byte / 512 + 8, "the kernel verified the bad block without error");
}

int main(int argc, char **argv)
{
	struct map_finding f;
	char needle[80];
	int arg;

	vt_require_vm();
	arg = mdt_args(argc, argv);
	REQUIRE(arg < argc, "which device?");
	fx_setup(argv[arg], vt_features());
	tl_must("dd if=/dev/urandom of=%s/data.bin bs=64K count=16 status=none && sync", FX_MNT);
	struct want w = { fx_ino("data.bin"), BAD_AT, fx_file_physical("data.bin", BAD_AT) };
	printf("data.bin: inode %llu, offset %llu at device byte %llu\n",
	       (unsigned long long)w.ino, (unsigned long long)w.offset,
	       (unsigned long long)w.physical);

	/* Without the kernel log: its line of the shutdown may come first and
	 * would hide whether the monitor's record is handled. */
	mdt_write_config("health_monitor = yes\nevent_scans = no\nkmsg = no\n");
	pid_t pid = mdt_start(NULL);
	REQUIRE(mdt_wait_watched(FX_MNT, true, 10) >= 0, "mapperd does not watch %s", FX_MNT);
	REQUIRE(mdt_status_is(FX_MNT, "health_monitor", "\"on\""), "the health monitor is not on");
	tl_must("dmsetup message dust 0 addbadblock %llu", (unsigned long long)(w.physical / 4096));
	tl_must("dmsetup message dust 0 enable");

	/* 1: the kernel's media verification, reported */
	double t0 = tl_mono();
	verify_media(w.physical);
	double waited = mdt_wait_finding(match, &w, t0, 30, &f);
	CHECK(waited >= 0, "no finding for data.bin's block at 512 KiB (device byte %llu)",
	      (unsigned long long)w.physical);
	if (waited >= 0) {
		printf("MEDIA_ERROR -> finding row: %.3f s: %s offset %llu length %llu\n", waited,
		       f.npaths ? f.paths[0] : "-", (unsigned long long)f.offset,
		       (unsigned long long)f.length);
		CHECK_INT(f.length, 4096);
		CHECK(f.npaths == 1 && !strcmp(f.paths[0], "data.bin"), "paths: %zu, first %s",
		      f.npaths, f.npaths ? f.paths[0] : "-");
		map_finding_clear(&f);
	}
	snprintf(needle, sizeof(needle), "media error at device bytes %llu+4096; 1 finding",
		 (unsigned long long)w.physical);
	CHECK(mdt_count_events_with("healthmon", needle) >= 1, "no healthmon event says '%s'",
	      needle);
	CHECK_INT(mdt_count_events("fanotify"), 0);

	/* 2: a forced shutdown */
	tl_must("xfs_io -x -c 'shutdown' %s", FX_MNT);
	double end = tl_mono() + 15;
	while (!mdt_status_is(FX_MNT, "shut_down", "true") && tl_mono() < end)
		tl_sleep(0.05);
	MDT_CHECK_STATUS(FX_MNT, "shut_down", "true");
	end = tl_mono() + 15;
	while (mdt_count_events_with("healthmon", "shutdown, reasons") < 1 && tl_mono() < end)
		tl_sleep(0.1);
	CHECK(mdt_count_events_with("healthmon", "shutdown, reasons") >= 1,
	      "no healthmon event records the shutdown");

	/* 3 */
	CHECK_INT(mdt_stop(pid), 0);
	mdt_show_log();
	fx_teardown();
	/* The shutdown's own lines are expected; anything else is not. */
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
