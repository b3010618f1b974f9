// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "testlib.h"

void tl_allow_small_fs(const char *dev)
{
	setenv("TEST_DIR", "/tmp", 1);
	setenv("TEST_DEV", dev, 1);
	setenv("QA_CHECK_FS", "xfs", 1);
}

void tl_mkfs(const char *dev, const char *fmt, ...)
{
	char *opts;
	va_list ap;

	va_start(ap, fmt);
	int n = vasprintf(&opts, fmt, ap);
	va_end(ap);
	REQUIRE(n >= 0, "out of memory");
	tl_must("mkfs.xfs -q -f %s %s", opts, dev);
	free(opts);
}

void tl_mkfs_mount(const char *dev, const char *mkfs_opts, const char *mnt)
{
	tl_mkfs(dev, "%s", mkfs_opts);
	tl_mount(dev, mnt, NULL);
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
