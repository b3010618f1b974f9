// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Media verification reads the filesystem's own device, not whatever the
 * device path it was mounted with names now.  The mount table keeps that
 * path: after a rename of a mounted device-mapper device (lvrename,
 * dmsetup rename) it is missing, or another device has taken it.
 *  1. XFS on a dm-linear device "e47dev", mounted, opened (map_fs_open);
 *  2. renamed to "e47dev_old": verifying the first 4 MiB finds nothing bad
 *     (before: the open of the old path failed, so mapperd lost the report);
 *  3. a dm "error" device created under the old name: verifying the same
 *     range still finds nothing bad (before: every read went to the error
 *     device and all of it was reported bad).
 *
 * Usage (in the guest): vm_verify_renamed_device DEVICE
 */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "map.h"
#include "vmtest.h"

#define MNT "/tmp/mnt"

static void on_bad(uint64_t start, uint64_t length, int error, void *arg)
{
	(void)start;
	(void)error;
	*(uint64_t *)arg += length;
}

/* Bytes of the device's first 4 MiB found bad; -1 when it cannot be read. */
static long long bad_bytes(struct map_fs *fs)
{
	struct map_range_list r = { 0 };
	uint64_t bad = 0;
	struct map_verify_opts o = { .io_size = 1 << 20, .bad = on_bad, .arg = &bad };
	int rc;

	REQUIRE(map_range_add(&r, 0, 4 << 20) == 0, "range");
	rc = map_verify_media(fs, &r, &o, NULL);
	map_range_free(&r);
	if (rc) {
		printf("  verify: %s\n", map_strerror(rc));
		return -1;
	}
	return (long long)bad;
}

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : "/dev/vda";
	struct map_fs *fs;

	vt_require_vm();
	setenv("DM_DISABLE_UDEV", "1", 1);	/* dmsetup makes the nodes itself */
	tl_must("dmsetup create e47dev --table \"0 $(blockdev --getsz %s) linear %s 0\"", dev,
		dev);
	tl_mkfs_mount("/dev/mapper/e47dev", vt_features(), MNT);
	tl_must("xfs_io -f -c 'pwrite -q 0 1m' -c fsync " MNT "/file");

	/* 1. */
	REQUIRE(map_fs_open(MNT, &fs) == 0, "map_fs_open");
	CHECK_STR(map_fs_info(fs)->device, "/dev/mapper/e47dev");
	CHECK_INT(bad_bytes(fs), 0);

	/* 2. */
	tl_must("dmsetup rename e47dev e47dev_old");
	CHECK_INT(bad_bytes(fs), 0);

	/* 3. */
	tl_must("dmsetup create e47dev --table \"0 $(blockdev --getsz %s) error\"", dev);
	CHECK_INT(bad_bytes(fs), 0);

	map_fs_close(fs);
	tl_umount(MNT);
	tl_sh("dmsetup remove e47dev");
	tl_sh("dmsetup remove e47dev_old");
	return check_done();
}
