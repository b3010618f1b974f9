// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "testlib.h"

void tl_tmpdir(char *dir, size_t len, const char *name)
{
	snprintf(dir, len, "/tmp/%s.XXXXXX", name);
	REQUIRE(mkdtemp(dir), "mkdtemp %s: %s", dir, strerror(errno));
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) == 0 ? 0 : -errno;
}

int tl_rmtree(const char *path)
{
	/* Children first (FTW_DEPTH), links as links (FTW_PHYS), one filesystem
	 * (FTW_MOUNT): a test's mount left under it is not emptied. */
	int rc = nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);

	return rc == -1 ? -errno : rc;
}

void tl_cleanup(const char *dir)
{
	int rc = tl_rmtree(dir);

	if (rc != 0)
		fprintf(stderr, "could not remove %s: %s\n", dir, strerror(-rc));
}

int tl_done(const char *dir)
{
	int rc = check_done();

	if (rc == 0)
		tl_cleanup(dir);
	return rc;
}
