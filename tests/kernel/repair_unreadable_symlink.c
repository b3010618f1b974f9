// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Online repair of a symlink whose remote target block cannot be read
 * (modern profile: symlink repair needs exchange-range).  A 900-byte target
 * lives in one remote block; dm-dust makes that block unreadable.  Then:
 *
 * - readlink fails with EIO and scrub says CORRUPT;
 * - REPAIR fails with EIO and changes nothing: the kernel cannot know the
 *   target, and must neither shorten it nor swap in a placeholder while
 *   calling the link healed (stock 6.12 answers success and the link then
 *   reads as a 355-byte explanatory message);
 * - the tracepoint xrep_symlink_target_unreadable names the inode, and no
 *   rebuild is traced;
 * - scrub still says CORRUPT, readlink still fails, the filesystem is alive;
 * - another remote symlink and a file are unchanged;
 * - replacing the link from userspace (symlink + rename, what a restore does)
 *   heals it: the new link reads back and scrubs clean;
 * - xfs_repair -n is clean afterwards (dm-dust disabled: it reads free space
 *   too), and the kernel log has no BUG, WARNING, lockdep or KASAN report.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "badblock.h"
#include "check.h"
#include "ktest.h"
#include "vmtest.h"

#define LINK BB_MNT "/link"
#define OTHER BB_MNT "/other"
#define DATA BB_MNT "/data"
#define TARGET_LEN 900		/* more than fits in the inode: a remote block */

/* A plausible path of exactly @len bytes. */
static void make_target(char *buf, size_t len, char tag)
{
	size_t n = 0;

	for (int i = 0; n < len; i++)
		n += (size_t)snprintf(buf + n, len + 1 - n, "/srv/%c%03d", tag, i);
	buf[len] = '\0';
}

/* readlink: the target length, or -errno. */
static ssize_t read_target(const char *path, char *buf, size_t size)
{
	ssize_t n = readlink(path, buf, size - 1);

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return n;
}

int main(int argc, char **argv)
{
	const char *backing = argc > 1 ? argv[1] : "/dev/vda";
	static const char *const events[] = {
		"xfs_scrub:xrep_symlink_target_unreadable", "xfs_scrub:xrep_symlink_rebuild",
	};
	static char target[TARGET_LEN + 1], other[TARGET_LEN + 1], buf[PATH_MAX];
	uint32_t oflags;
	struct stat st;
	char ino_hex[32];
	int rc;

	vt_require_vm();
	REQUIRE(vt_modern(), "symlink repair needs exchange-range: run with the modern profile");
	bb_setup(backing, "-d agcount=4");

	make_target(target, TARGET_LEN, 'a');
	make_target(other, TARGET_LEN, 'b');
	REQUIRE(symlink(target, LINK) == 0 && symlink(other, OTHER) == 0, "symlink: %s",
		strerror(errno));
	tl_write_file(DATA, 256 * 1024, 7, true);
	char *sums = tl_checksums(BB_MNT);
	REQUIRE(lstat(LINK, &st) == 0 && st.st_size == TARGET_LEN, "lstat %s", LINK);
	snprintf(ino_hex, sizeof(ino_hex), "ino 0x%llx ", (unsigned long long)st.st_ino);

	bb_damage(st.st_ino, false, 0);

	CHECK_INT(read_target(LINK, buf, sizeof(buf)), -EIO);
	rc = bb_scrub(LINK, XFS_SCRUB_TYPE_SYMLINK, 0, &oflags);
	CHECK(rc == 0 && (oflags & XFS_SCRUB_OFLAG_CORRUPT),
	      "scrub of the damaged link: rc %d flags 0x%x, expected 0 and CORRUPT", rc, oflags);

	CHECK_INT(bb_trace_start(events, sizeof(events) / sizeof(events[0])), 0);
	rc = bb_scrub(LINK, XFS_SCRUB_TYPE_SYMLINK, XFS_SCRUB_IFLAG_REPAIR, &oflags);
	char *trace = kt_trace_stop();
	printf("repair: rc %d flags 0x%x\n%s", rc, oflags, trace);
	CHECK_INT(rc, -EIO);
	CHECK_INT(kt_trace_count(trace, "xrep_symlink_target_unreadable", ino_hex, "error -5",
				 NULL), 1);
	CHECK_INT(kt_trace_count(trace, "xrep_symlink_rebuild", NULL), 0);
	free(trace);

	/* Still damaged, not replaced. */
	rc = bb_scrub(LINK, XFS_SCRUB_TYPE_SYMLINK, 0, &oflags);
	CHECK(rc == 0 && (oflags & XFS_SCRUB_OFLAG_CORRUPT),
	      "scrub after the refused repair: rc %d flags 0x%x, expected 0 and CORRUPT", rc,
	      oflags);
	CHECK_INT(read_target(LINK, buf, sizeof(buf)), -EIO);
	CHECK(lstat(LINK, &st) == 0 && st.st_size == TARGET_LEN, "size of the damaged link");
	CHECK(bb_fs_alive(), "the filesystem is shut down or unmounted");

	/* The neighbours are intact. */
	CHECK_INT(read_target(OTHER, buf, sizeof(buf)), TARGET_LEN);
	CHECK_STR(buf, other);
	char *now = tl_checksums(BB_MNT);
	CHECK_STR(now, sums);
	free(now);

	/* A restore replaces the link; that heals it. */
	REQUIRE(symlink(target, LINK ".new") == 0 && rename(LINK ".new", LINK) == 0,
		"replace %s: %s", LINK, strerror(errno));
	CHECK_INT(read_target(LINK, buf, sizeof(buf)), TARGET_LEN);
	CHECK_STR(buf, target);
	rc = bb_scrub(LINK, XFS_SCRUB_TYPE_SYMLINK, 0, &oflags);
	CHECK(rc == 0 && oflags == 0, "scrub of the replaced link: rc %d flags 0x%x", rc, oflags);

	CHECK_INT(bb_finish(), 0);
	free(sums);
	return check_done();
}
