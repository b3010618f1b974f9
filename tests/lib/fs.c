// SPDX-License-Identifier: GPL-2.0-or-later
#include "testlib.h"

void tl_mkfs_mount(const char *dev, const char *mkfs_opts, const char *mnt)
{
	tl_must("mkfs.xfs -q -f %s %s", mkfs_opts, dev);
	tl_must("mkdir -p %s && mount %s %s", mnt, dev, mnt);
}

void tl_mount(const char *dev, const char *mnt, const char *opts)
{
	tl_must("mkdir -p %s && mount %s%s %s %s", mnt, opts ? "-o " : "", opts ? opts : "",
		dev, mnt);
}

void tl_umount(const char *mnt)
{
	tl_must("umount %s", mnt);
}
