// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * map_fs_reopen opens a filesystem again from what map_fs_open learnt, and
 * only while its mount point still shows that filesystem:
 *  - the same mount: the same identity, read-only state read afresh
 *    (remount ro and back);
 *  - a folder of it bind-mounted over the mount point: refused (another root);
 *  - unmounted: refused;
 *  - the device made a new filesystem and mounted at the same place (same
 *    device number, same root inode number): refused (another UUID);
 * and costs far less than an open from scratch (printed, not checked).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "map.h"
#include "vmtest.h"

#define MNT "/tmp/mnt"

static int reopen(const struct map_fs_info *known, struct map_fs_info *now)
{
	struct map_fs *fs;
	int rc = map_fs_reopen(known, &fs);

	if (rc == 0) {
		CHECK(map_fs_fd(fs) >= 0, "no descriptor");
		if (now)
			*now = *map_fs_info(fs);
		map_fs_close(fs);
	} else {
		CHECK(fs == NULL, "a filesystem returned with an error");
	}
	return rc;
}

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : "/dev/vda";
	struct map_fs_info first, now;
	struct map_fs *fs;

	vt_require_vm();
	tl_mkfs_mount(dev, vt_features(), MNT);
	tl_must("mkdir %s/sub", MNT);
	REQUIRE(map_fs_open(MNT "/sub", &fs) == 0, "map_fs_open");
	first = *map_fs_info(fs);
	map_fs_close(fs);
	CHECK_STR(first.mountpoint, MNT);
	CHECK(first.root_ino != 0, "no root inode number");

	CHECK_INT(reopen(&first, &now), 0);
	CHECK_STR(now.mountpoint, first.mountpoint);
	CHECK_STR(now.uuid, first.uuid);
	CHECK_STR(now.device, first.device);
	CHECK_INT(now.dev, first.dev);
	CHECK_INT(now.root_ino, first.root_ino);
	CHECK_INT(now.geo.agcount, first.geo.agcount);
	CHECK_INT(now.read_only, 0);

	tl_must("mount -o remount,ro %s", MNT);
	CHECK_INT(reopen(&first, &now), 0);
	CHECK_INT(now.read_only, 1);
	tl_must("mount -o remount,rw %s", MNT);
	CHECK_INT(reopen(&first, &now), 0);
	CHECK_INT(now.read_only, 0);

	/* what costs what: 50 of each */
	double t = tl_mono();
	for (int i = 0; i < 50; i++) {
		REQUIRE(map_fs_open(MNT, &fs) == 0, "map_fs_open");
		map_fs_close(fs);
	}
	double t_open = (tl_mono() - t) / 50;
	t = tl_mono();
	for (int i = 0; i < 50; i++)
		REQUIRE(reopen(&first, NULL) == 0, "map_fs_reopen");
	double t_reopen = (tl_mono() - t) / 50;
	printf("map_fs_open %.2f ms, map_fs_reopen %.3f ms\n", t_open * 1e3, t_reopen * 1e3);

	/* a folder of the same filesystem over its mount point */
	tl_must("mount --bind %s/sub %s", MNT, MNT);
	CHECK_INT(reopen(&first, NULL), -MAP_EUNMOUNTED);
	tl_must("umount %s", MNT);
	CHECK_INT(reopen(&first, NULL), 0);

	tl_must("umount %s", MNT);
	CHECK_INT(reopen(&first, NULL), -MAP_EUNMOUNTED);

	/* another filesystem on the same device, at the same place */
	tl_mkfs_mount(dev, vt_features(), MNT);
	REQUIRE(map_fs_open(MNT, &fs) == 0, "map_fs_open of the new filesystem");
	now = *map_fs_info(fs);
	map_fs_close(fs);
	CHECK_INT(now.dev, first.dev);
	CHECK_INT(now.root_ino, first.root_ino);
	CHECK(strcmp(now.uuid, first.uuid) != 0, "mkfs kept the UUID");
	CHECK_INT(reopen(&first, NULL), -MAP_EUNMOUNTED);
	CHECK_INT(reopen(&now, NULL), 0);
	tl_must("umount %s", MNT);

	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
