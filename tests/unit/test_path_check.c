// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The O_NOFOLLOW walk of libmap/act_path_check.c on a scratch tree of the host
 * (no inode identity: that needs XFS bulkstat and is tested in the guest by
 * vm.mapctl_refetch_hostile): symbolic links on the way, missing names,
 * files where folders should be, and names that are never recorded.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "map_testing.h"
#include "testlib.h"

static char root[] = "/tmp/test_path_check.XXXXXX";

static void sh(const char *cmd)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), "cd %s && %s", root, cmd);
	REQUIRE(system(buf) == 0, "%s", buf);
}

static enum path_state walk(const char *rel, struct path_check *pc)
{
	int fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct stat st;

	REQUIRE(fd >= 0 && fstat(fd, &st) == 0, "open %s", root);
	enum path_state s = path_check(fd, (uint64_t)st.st_dev, rel, 0, 0, pc);
	close(fd);
	return s;
}

static void expect(const char *rel, enum path_state want, const char *why_has)
{
	struct path_check pc;
	enum path_state got = walk(rel, &pc);

	CHECK(got == want, "%s: state %d, expected %d (%s)", rel, got, want, pc.why);
	if (why_has)
		CHECK(strstr(pc.why, why_has), "%s: '%s' lacks '%s'", rel, pc.why, why_has);
	path_check_close(&pc);
}

int main(void)
{
	struct path_check pc;

	REQUIRE(mkdtemp(root), "mkdtemp");
	sh("mkdir -p a/b real && echo x > a/b/f && echo y > real/f && ln -s real swapped && "
	   "ln -s real/f a/link && ln -s /etc etcdir && printf z > 'a/#h' && printf z > 'a/-d'");

	CHECK_INT(walk("a/b/f", &pc), PATH_SAME);
	CHECK(S_ISREG(pc.st.st_mode) && pc.parent_exists, "a/b/f: a regular file in a folder");
	path_check_close(&pc);
	expect("a/#h", PATH_SAME, NULL);
	expect("a/-d", PATH_SAME, NULL);
	/* The last name may be a link: it is the link itself, never its target. */
	CHECK_INT(walk("a/link", &pc), PATH_SAME);
	CHECK(S_ISLNK(pc.st.st_mode), "a/link: the link itself");
	path_check_close(&pc);
	/* A link on the way is refused, wherever it points. */
	expect("swapped/f", PATH_SYMLINK, "'swapped' (a folder) is now a symbolic link");
	expect("etcdir/passwd", PATH_SYMLINK, "'etcdir'");
	expect("a/link/x", PATH_SYMLINK, "'link'");
	/* Missing: the last name only, or a folder on the way. */
	CHECK_INT(walk("a/b/gone", &pc), PATH_MISSING);
	CHECK(pc.parent_exists && pc.dirfd >= 0 && pc.fd < 0, "a/b/gone: its folder exists");
	path_check_close(&pc);
	CHECK_INT(walk("a/nodir/gone", &pc), PATH_MISSING);
	CHECK(!pc.parent_exists, "a/nodir/gone: a folder is missing");
	path_check_close(&pc);
	expect("a/b/f/x", PATH_NOTDIR, "no longer a folder");
	/* Names a scan never records. */
	expect("a/../real/f", PATH_BADNAME, NULL);
	expect("./a/b/f", PATH_BADNAME, NULL);
	expect("a//b/f", PATH_BADNAME, NULL);
	expect("", PATH_BADNAME, NULL);
	CHECK_STR(path_last_name("a/b/f"), "f");
	CHECK_STR(path_last_name("f"), "f");

	CHECK_INT(tl_rmtree(root), 0);
	return check_done();
}
