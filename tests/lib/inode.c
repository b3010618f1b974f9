// SPDX-License-Identifier: GPL-2.0-or-later
/* Which inode a name is: what a finding, a scrub call or an event names. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "testlib.h"

uint64_t tl_ino(const char *path)
{
	struct stat st;

	REQUIRE(lstat(path, &st) == 0, "lstat %s: %s", path, strerror(errno));
	return st.st_ino;
}

void tl_ino_gen(const char *path, uint64_t *ino, uint32_t *gen)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int version = 0;

	REQUIRE(fd >= 0, "open %s: %s", path, strerror(errno));
	REQUIRE(fstat(fd, &st) == 0, "stat %s: %s", path, strerror(errno));
	REQUIRE(ioctl(fd, FS_IOC_GETVERSION, &version) == 0, "GETVERSION %s: %s", path,
		strerror(errno));
	close(fd);
	*ino = st.st_ino;
	*gen = (uint32_t)version;
}
