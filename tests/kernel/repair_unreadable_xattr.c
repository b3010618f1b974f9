// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Online repair of extended attributes when one block of the attr fork cannot
 * be read (modern profile: xattr repair needs exchange-range).  Three files with
 * eight user attributes each, one block of each made unreadable by dm-dust:
 *
 *   leaf:   3000-byte values, which stay in the leaf blocks (one attribute per
 *           leaf); a leaf block is lost with the names in it (the case:
 *           listxattr fails before the repair);
 *   remote: 4000-byte values in the security namespace, each in a remote
 *           value block of its own; one value block is lost, the names all
 *           survive in the leaf;
 *   small:  300-byte values, all of them and the parent pointer in one leaf
 *           block, which is lost: REPAIR removes the attr fork (and answers
 *           ENOENT, from the scrub that follows the repair), PARENT repair
 *           then puts the parent pointer back;
 *   node:   3000-byte values again, block 0 lost: the dabtree node, which
 *           holds no attribute.  Every getxattr fails with EIO (lookups
 *           start at the node); REPAIR salvages all eight from the leaves.
 *
 *   leaf, remote again, transient: the block fails once, then reads (a
 *           child that follows trace_pipe removes it from dm-dust at the
 *           first xrep_xattr_read_again line): REPAIR tries the read again
 *           and loses nothing (before the retry: the attributes of the block
 *           were dropped at the first failure).
 *
 * For each:
 * - getxattr fails with EIO for the attributes stored in the bad block (the
 *   ground truth of what is lost), the others read back, scrub says CORRUPT;
 * - REPAIR succeeds (stock 6.12 fails the whole repair with EIO);
 * - the tracepoint xrep_xattr_unreadable_block names the one bad block; for a
 *   lost value xrep_xattr_lost_rec also names the attribute (a lost leaf takes
 *   its names with it: userspace compares with its own earlier listing);
 * - the xattrs, the attr fork mapping, the inode and its parent pointer scrub
 *   clean;
 * - listxattr gives exactly the names that were not in the bad block, their
 *   values are unchanged, and a lost attribute can be set again;
 * - file data is unchanged and the filesystem is alive;
 * - the kernel log says what was dropped (issue 37): one line with the number
 *   of values and of leaf blocks lost (the names in a lost leaf are unknown;
 *   the dabtree node holds none and counts for nothing), and a line of its own
 *   that names the access control namespaces lost (a security.* value), or
 *   says that the names lost with a leaf may have included them;
 *
 * acl: a POSIX access ACL of 324 entries (3892 bytes on disk, a remote
 * value in attr fork block 1) next to a small user attribute; the value
 * block is lost: getxattr of the ACL fails with EIO; REPAIR succeeds, the
 * log counts one lost value and names the posix_acl namespace; afterwards
 * the file has no ACL (ENODATA), the user attribute is unchanged, and
 * everything scrubs clean;
 *
 * and at the end xfs_repair -n is clean after unmount (dm-dust disabled: it
 * reads free space too), and the kernel log has no BUG, WARNING, lockdep or
 * KASAN report.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "badblock.h"
#include "check.h"
#include "ktest.h"
#include "vmtest.h"

#define NATTRS 8
#define MAX_VALUE 4000		/* one remote block holds 4040 bytes on v5 */

struct attr_case {
	const char *path;
	const char *ns;		/* name prefix: "security." or "user." (NULL) */
	size_t value_len;
	uint64_t bad_block;	/* attr fork block to make unreadable */
	bool names_traced;	/* the lost names are in readable blocks */
	bool only_block;	/* the bad block is the whole attr fork */
	bool index_block;	/* the bad block is the dabtree node: no names */
	bool transient;		/* the block reads again once the repair retries */
	char values[NATTRS][MAX_VALUE];
	bool lost[NATTRS];
};

static struct attr_case cases[] = {
	/* Block 0 becomes the dabtree node once the leaves split. */
	{ .path = BB_MNT "/leaf", .value_len = 3000, .bad_block = 4, .names_traced = false },
	/* Block 0 is the leaf, the values follow. */
	{ .path = BB_MNT "/remote", .ns = "security.", .value_len = 4000, .bad_block = 4,
	  .names_traced = true },
	/* Everything, parent pointer included, in one leaf block. */
	{ .path = BB_MNT "/small", .value_len = 300, .bad_block = 0, .only_block = true },
	/* The dabtree node: every lookup fails, every name is in a leaf. */
	{ .path = BB_MNT "/node", .value_len = 3000, .bad_block = 0, .index_block = true },
	/* A leaf and a remote value block that fail once, then read. */
	{ .path = BB_MNT "/leaf-transient", .value_len = 3000, .bad_block = 4, .transient = true },
	{ .path = BB_MNT "/remote-transient", .value_len = 4000, .bad_block = 4,
	  .names_traced = true, .transient = true },
};

static const char *attr_ns(const struct attr_case *c)
{
	return c->ns ? c->ns : "user.";
}

static void attr_name(const struct attr_case *c, char *buf, size_t size, int i)
{
	snprintf(buf, size, "%sattr%d", attr_ns(c), i);
}

/* Lines of the kernel log that contain "inode 0x@ino: @text". */
static int log_count(uint64_t ino, const char *text)
{
	return atoi(tl_out("dmesg | grep -cF 'inode 0x%llx: %s'", (unsigned long long)ino, text));
}

/* getxattr of attribute @i: 0 if it has its original value, else -errno
 * (-EBADMSG for a wrong value). */
static int check_value(const struct attr_case *c, int i)
{
	static char got[MAX_VALUE + 1];
	char name[32];

	attr_name(c, name, sizeof(name), i);
	ssize_t n = getxattr(c->path, name, got, sizeof(got));

	if (n < 0)
		return -errno;
	return (size_t)n == c->value_len && memcmp(got, c->values[i], c->value_len) == 0 ?
		       0 : -EBADMSG;
}

/* listxattr: bit i set for each "<ns>attr<i>"; -errno on failure, -EBADMSG
 * for any other name in that namespace. */
static int list_names(const struct attr_case *c)
{
	char list[4096];
	ssize_t n = listxattr(c->path, list, sizeof(list));
	int mask = 0, i;

	if (n < 0)
		return -errno;
	for (ssize_t off = 0; off < n; off += (ssize_t)strlen(list + off) + 1) {
		const char *ns = attr_ns(c);

		if (strncmp(list + off, ns, strlen(ns)) != 0)
			continue;
		if (sscanf(list + off + strlen(ns), "attr%d", &i) != 1 || i < 0 || i >= NATTRS)
			return -EBADMSG;
		mask |= 1 << i;
	}
	return mask;
}

static void scrub_clean(const struct attr_case *c, uint32_t type, const char *what)
{
	uint32_t oflags;
	int rc = bb_scrub(c->path, type, 0, &oflags);

	CHECK(rc == 0 && oflags == 0, "%s: scrub of %s after the repair: rc %d flags 0x%x",
	      c->path, what, rc, oflags);
}

static void populate(struct attr_case *c, unsigned int seed)
{
	char name[32];

	tl_write_file(c->path, 64 * 1024, seed, true);
	for (int i = 0; i < NATTRS; i++) {
		for (size_t j = 0; j < c->value_len; j++)
			c->values[i][j] = (char)('a' + (seed + i * 7 + j) % 26);
		attr_name(c, name, sizeof(name), i);
		REQUIRE(setxattr(c->path, name, c->values[i], c->value_len, XATTR_CREATE) == 0,
			"setxattr %s %s: %s", c->path, name, strerror(errno));
	}
}

/* The kernel log lines of the repair of @c, which lost @nlost attributes. */
static void check_log(const struct attr_case *c, uint64_t ino, int nlost)
{
	bool security = c->ns && strcmp(c->ns, "security.") == 0;
	int values = c->names_traced ? nlost : 0;
	int leaves = !c->transient && !c->index_block && !c->names_traced;
	char want[160];

	snprintf(want, sizeof(want),
		 "repair dropped %d xattrs with unreadable values and the xattrs of %d "
		 "unreadable attr leaf blocks", values, leaves);
	CHECK(log_count(ino, want) == (values || leaves), "%s: %s the log line \"%s\"", c->path,
	      values || leaves ? "no single" : "unexpected", want);
	CHECK_INT(log_count(ino, "repair dropped access control xattrs: security;"),
		  security && values);
	CHECK_INT(log_count(ino, "the xattrs of unreadable attr leaf blocks are unknown; "
			    "security and posix_acl xattrs may be among them"), leaves);
	CHECK_INT(log_count(ino, "repair dropped"), (values || leaves) + (security && values));
}

static void damage_and_repair(struct attr_case *c)
{
	static const char *const events[] = {
		"xfs_scrub:xrep_xattr_lost_rec", "xfs_scrub:xrep_xattr_unreadable_block",
		"xfs_scrub:xrep_xattr_salvage_rec", "xfs_scrub:xrep_xattr_read_again",
	};
	uint64_t dust_blk;
	pid_t healer = -1;
	char name[32], ino_hex[32], needle[64];
	int nlost = 0, all = (1 << NATTRS) - 1, kept = all, rc;
	uint32_t oflags;
	struct stat st;

	REQUIRE(stat(c->path, &st) == 0, "stat %s", c->path);
	snprintf(ino_hex, sizeof(ino_hex), "ino 0x%llx ", (unsigned long long)st.st_ino);
	dust_blk = bb_damage(st.st_ino, true, c->bad_block);

	/* Ground truth: the attributes whose lookup needs the bad block. */
	for (int i = 0; i < NATTRS; i++) {
		rc = check_value(c, i);
		if (c->index_block) {
			CHECK(rc == -EIO, "%s: attr%d before the repair: %s, expected EIO",
			      c->path, i, strerror(-rc));
			continue;
		}
		c->lost[i] = rc == -EIO;
		if (c->lost[i]) {
			nlost++;
			kept &= ~(1 << i);
			printf("%s: attr%d is in the bad block\n", c->path, i);
		} else {
			CHECK(rc == 0, "%s: attr%d before the repair: %s", c->path, i,
			      strerror(-rc));
		}
	}
	REQUIRE(c->index_block || (nlost > 0 && (nlost < NATTRS || c->only_block)),
		"%s: attr fork block %llu holds %d attributes",
		c->path, (unsigned long long)c->bad_block, nlost);
	if (c->names_traced)
		CHECK_INT(list_names(c), all);

	rc = bb_scrub(c->path, XFS_SCRUB_TYPE_XATTR, 0, &oflags);
	CHECK(rc == 0 && (oflags & XFS_SCRUB_OFLAG_CORRUPT),
	      "%s: scrub of the damaged xattrs: rc %d flags 0x%x, expected 0 and CORRUPT",
	      c->path, rc, oflags);

	CHECK_INT(bb_trace_start(events, sizeof(events) / sizeof(events[0])), 0);
	if (c->transient)
		healer = bb_healer_start("xrep_xattr_read_again", dust_blk);
	rc = bb_scrub(c->path, XFS_SCRUB_TYPE_XATTR, XFS_SCRUB_IFLAG_REPAIR, &oflags);
	char *trace = kt_trace_stop();

	if (c->transient) {
		/* The block read on a retry: nothing is lost after all. */
		CHECK(bb_healer_done(healer), "%s: the healer saw no xrep_xattr_read_again line "
		      "or could not remove the bad block", c->path);
		nlost = 0;
		kept = all;
		memset(c->lost, 0, sizeof(c->lost));
	}

	printf("%s: repair: rc %d flags 0x%x\n%s", c->path, rc, oflags, trace);
	/* With nothing left to salvage, repair removes the attr fork, and the
	 * scrub that follows every repair finds no xattrs at all: ENOENT. */
	CHECK(rc == (c->only_block ? -ENOENT : 0) && oflags == 0,
	      "%s: repair: rc %d flags 0x%x, expected %d and no flags", c->path, rc, oflags,
	      c->only_block ? -ENOENT : 0);
	snprintf(needle, sizeof(needle), "dablk 0x%llx ", (unsigned long long)c->bad_block);
	CHECK_INT(kt_trace_count(trace, "xrep_xattr_unreadable_block", ino_hex, needle, NULL),
		  !c->transient);
	CHECK_INT(kt_trace_count(trace, "xrep_xattr_unreadable_block", NULL), !c->transient);
	CHECK_INT(kt_trace_count(trace, "xrep_xattr_lost_rec", NULL), c->names_traced ? nlost : 0);
	for (int i = 0; i < NATTRS; i++) {
		snprintf(needle, sizeof(needle), "name 'attr%d'", i);
		if (c->names_traced)
			CHECK_INT(kt_trace_count(trace, "xrep_xattr_lost_rec", ino_hex, needle,
						 NULL), c->lost[i]);
		/* (The healer consumed the lines it read from trace_pipe.) */
		if (!c->transient)
			CHECK_INT(kt_trace_count(trace, "xrep_xattr_salvage_rec", ino_hex,
						 needle, NULL), !c->lost[i]);
	}
	free(trace);
	check_log(c, st.st_ino, nlost);

	if (c->only_block) {
		/* The parent pointer went with the block: rebuild it from the
		 * directory. */
		rc = bb_scrub(c->path, XFS_SCRUB_TYPE_PARENT, XFS_SCRUB_IFLAG_REPAIR, &oflags);
		CHECK(rc == 0 && oflags == 0, "%s: parent pointer repair: rc %d flags 0x%x",
		      c->path, rc, oflags);
	}
	scrub_clean(c, XFS_SCRUB_TYPE_XATTR, "the xattrs");
	scrub_clean(c, XFS_SCRUB_TYPE_BMBTA, "the attr fork mapping");
	scrub_clean(c, XFS_SCRUB_TYPE_INODE, "the inode");
	scrub_clean(c, XFS_SCRUB_TYPE_PARENT, "the parent pointer");
	CHECK(bb_fs_alive(), "the filesystem is shut down or unmounted");

	CHECK_INT(list_names(c), kept);
	for (int i = 0; i < NATTRS; i++)
		CHECK_INT(check_value(c, i), c->lost[i] ? -ENODATA : 0);

	/* Userspace restores what was lost. */
	for (int i = 0; i < NATTRS; i++) {
		if (!c->lost[i])
			continue;
		attr_name(c, name, sizeof(name), i);
		CHECK(setxattr(c->path, name, c->values[i], c->value_len, XATTR_CREATE) == 0,
		      "%s: restore %s: %s", c->path, name, strerror(errno));
		CHECK_INT(check_value(c, i), 0);
	}
	CHECK_INT(list_names(c), all);
	scrub_clean(c, XFS_SCRUB_TYPE_XATTR, "the restored xattrs");
}

#define ACL_PATH BB_MNT "/acl"
#define ACL_NAME "system.posix_acl_access"
#define ACL_USERS 320		/* 4 + 324 * 12 bytes on disk: one remote block */
#define ACL_KEEP "user.keep"

/* The posix_acl xattr format of the VFS: a version, then entries. */
struct acl_entry {
	uint16_t tag;
	uint16_t perm;
	uint32_t id;
};

static size_t acl_build(struct acl_entry *e, uint32_t *version)
{
	size_t n = 0;

	*version = 2;
	e[n++] = (struct acl_entry){ .tag = 0x01, .perm = 6 };	/* ACL_USER_OBJ */
	for (uint32_t i = 0; i < ACL_USERS; i++)
		e[n++] = (struct acl_entry){ .tag = 0x02, .perm = 4, .id = 1000 + i };
	e[n++] = (struct acl_entry){ .tag = 0x04, .perm = 4 };	/* ACL_GROUP_OBJ */
	e[n++] = (struct acl_entry){ .tag = 0x10, .perm = 4 };	/* ACL_MASK */
	e[n++] = (struct acl_entry){ .tag = 0x20, .perm = 0 };	/* ACL_OTHER */
	return n;
}

static void acl_populate(void)
{
	struct {
		uint32_t version;
		struct acl_entry e[ACL_USERS + 4];
	} acl;
	size_t n = acl_build(acl.e, &acl.version);

	tl_write_file(ACL_PATH, 4096, 99, true);
	REQUIRE(setxattr(ACL_PATH, ACL_KEEP, "kept", 4, XATTR_CREATE) == 0, "setxattr %s: %s",
		ACL_KEEP, strerror(errno));
	REQUIRE(setxattr(ACL_PATH, ACL_NAME, &acl, sizeof(acl.version) + n * sizeof(acl.e[0]), 0) ==
		0, "setxattr %s: %s", ACL_NAME, strerror(errno));
}

/* Item 6 of issue 37: a lost POSIX ACL is named in the kernel log. */
static void acl_lost(void)
{
	char buf[8192];
	struct stat st;
	uint32_t oflags;
	int rc;

	REQUIRE(stat(ACL_PATH, &st) == 0, "stat %s", ACL_PATH);
	bb_damage(st.st_ino, true, 1);
	errno = 0;
	REQUIRE(getxattr(ACL_PATH, ACL_NAME, buf, sizeof(buf)) < 0 && errno == EIO,
		"%s: the ACL is not in attr fork block 1 (getxattr: %s)", ACL_PATH,
		strerror(errno));
	rc = bb_scrub(ACL_PATH, XFS_SCRUB_TYPE_XATTR, XFS_SCRUB_IFLAG_REPAIR, &oflags);
	CHECK(rc == 0 && oflags == 0, "%s: repair: rc %d flags 0x%x", ACL_PATH, rc, oflags);
	CHECK_INT(log_count(st.st_ino, "repair dropped 1 xattrs with unreadable values and the "
			    "xattrs of 0 unreadable attr leaf blocks"), 1);
	CHECK_INT(log_count(st.st_ino, "repair dropped access control xattrs: posix_acl;"), 1);
	CHECK_INT(log_count(st.st_ino, "repair dropped"), 2);
	errno = 0;
	CHECK(getxattr(ACL_PATH, ACL_NAME, buf, sizeof(buf)) < 0 && errno == ENODATA,
	      "%s: getxattr of the lost ACL after the repair: %s, expected ENODATA", ACL_PATH,
	      strerror(errno));
	CHECK(getxattr(ACL_PATH, ACL_KEEP, buf, sizeof(buf)) == 4 && memcmp(buf, "kept", 4) == 0,
	      "%s: %s lost or changed", ACL_PATH, ACL_KEEP);
	static const struct {
		uint32_t type;
		const char *what;
	} scrubs[] = {
		{ XFS_SCRUB_TYPE_XATTR, "the xattrs" },
		{ XFS_SCRUB_TYPE_BMBTA, "the attr fork mapping" },
		{ XFS_SCRUB_TYPE_INODE, "the inode" },
		{ XFS_SCRUB_TYPE_PARENT, "the parent pointer" },
	};
	for (size_t i = 0; i < sizeof(scrubs) / sizeof(scrubs[0]); i++) {
		rc = bb_scrub(ACL_PATH, scrubs[i].type, 0, &oflags);
		CHECK(rc == 0 && oflags == 0, "%s: scrub of %s after the repair: rc %d flags 0x%x",
		      ACL_PATH, scrubs[i].what, rc, oflags);
	}
	CHECK(bb_fs_alive(), "the filesystem is shut down or unmounted");
}

int main(int argc, char **argv)
{
	const char *backing = argc > 1 ? argv[1] : "/dev/vda";
	const size_t ncases = sizeof(cases) / sizeof(cases[0]);

	vt_require_vm();
	REQUIRE(vt_modern(), "xattr repair needs exchange-range: run with the modern profile");
	bb_setup(backing, "-d agcount=4");

	for (size_t i = 0; i < ncases; i++)
		populate(&cases[i], (unsigned int)(11 + i));
	acl_populate();
	char *sums = tl_checksums(BB_MNT);

	for (size_t i = 0; i < ncases; i++)
		damage_and_repair(&cases[i]);
	acl_lost();

	char *now = tl_checksums(BB_MNT);

	CHECK_STR(now, sums);
	free(now);
	CHECK_INT(bb_finish(), 0);
	free(sums);
	return check_done();
}
