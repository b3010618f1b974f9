// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "testlib.h"

void tl_evict(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	REQUIRE(fd >= 0, "%s: %s", path, strerror(errno));
	REQUIRE(fdatasync(fd) == 0, "fdatasync %s: %s", path, strerror(errno));
	REQUIRE(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0, "fadvise %s", path);
	close(fd);
}

int tl_read_block(const char *path, uint64_t off)
{
	char buf[4096];

	tl_evict(path);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	REQUIRE(fd >= 0, "%s: %s", path, strerror(errno));
	ssize_t got = pread(fd, buf, sizeof(buf), (off_t)off);
	int err = got < 0 ? errno : 0;
	close(fd);
	return err;
}

int tl_read_file(const char *path)
{
	static char buf[1 << 16];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int err = 0;
	ssize_t n;

	if (fd < 0)
		return errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	if (n < 0)
		err = errno;
	close(fd);
	return err;
}

void tl_drop_caches(int what)
{
	char value[4];
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);

	sync();
	snprintf(value, sizeof(value), "%d\n", what);
	REQUIRE(fd >= 0, "drop_caches: %s", strerror(errno));
	REQUIRE(write(fd, value, strlen(value)) == (ssize_t)strlen(value), "drop_caches: %s",
		strerror(errno));
	close(fd);
}
