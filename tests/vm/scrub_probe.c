// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel under test has online scrub and repair: the PROBE scrub type with
 * the REPAIR flag succeeds on a writable V5 rmapbt filesystem, fails EROFS on a
 * read-only mount and EOPNOTSUPP on a V4 filesystem.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "check.h"
#include "map_scrub.h"
#include "vmtest.h"
#include "xfs_abi.h"

static int probe(const char *mnt, uint32_t iflags)
{
	int fd = open(mnt, O_RDONLY | O_DIRECTORY);

	REQUIRE(fd >= 0, "open %s: %s", mnt, strerror(errno));
	int rc = map_scrub_call(fd, XFS_SCRUB_TYPE_PROBE, 0, 0, 0, iflags, NULL);
	close(fd);
	return rc;
}

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : "/dev/vda";
	const char *mnt = "/tmp/mnt";

	vt_require_vm();

	tl_mkfs_mount(dev, vt_features(), mnt);
	CHECK_INT(probe(mnt, 0), 0);
	CHECK_INT(probe(mnt, XFS_SCRUB_IFLAG_REPAIR), 0);

	tl_must("mount -o remount,ro %s", mnt);
	CHECK_INT(probe(mnt, 0), 0);
	CHECK_INT(probe(mnt, XFS_SCRUB_IFLAG_REPAIR), -EROFS);
	tl_must("umount %s", mnt);

	/* V4 filesystems can be scrubbed but never repaired online. */
	tl_mkfs_mount(dev, "-m crc=0", mnt);
	CHECK_INT(probe(mnt, 0), 0);
	CHECK_INT(probe(mnt, XFS_SCRUB_IFLAG_REPAIR), -EOPNOTSUPP);
	tl_must("umount %s", mnt);

	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
