// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Online repair of a large directory when one of its blocks cannot be read
 * (modern profile: parent pointers and exchange-range).  For each kind of
 * directory block in turn (the first data block, a later data block, the root
 * of the hash index, the free space index), a new directory holds 3000 files
 * and a few subdirectories, and dm-dust makes that one block unreadable; last,
 * the only block of a 44-entry directory.  Then:
 *
 * - for a data block, looking up the names stored in it fails with EIO (the
 *   ground truth of what is unreadable) and the others still resolve; scrub
 *   says CORRUPT;
 * - REPAIR succeeds;
 * - the directory, its parent pointer and its subdirectories' parent pointers
 *   scrub clean;
 * - readdir lists every one of the names again, each with its old inode
 *   number (the names of a bad data block come back from the children's
 *   parent pointers), the subdirectories' ".." and the link count are right,
 *   file data is unchanged, and the filesystem is alive;
 * and at the end xfs_repair -n is clean after unmount (dm-dust disabled: it
 * reads free space too), and the kernel log has no BUG, WARNING, lockdep or
 * KASAN report.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "badblock.h"
#include "check.h"
#include "ktest.h"
#include "vmtest.h"

#define NFILES 3000
#define NSUBDIRS 4
#define NENTRIES (NFILES + NSUBDIRS)
/* Directory address space with 4 KiB directory blocks (xfs_da_format.h):
 * data blocks from 0, the hash index from 32 GiB, free-space index from
 * 64 GiB. */
#define LEAF_BLOCK (32ull << 30 >> 12)
#define FREE_BLOCK (64ull << 30 >> 12)

struct dir_case {
	const char *what;
	int nfiles;
	uint64_t block;		/* data fork block of the directory to damage */
	bool names_in_block;	/* lookups of the names in it fail */
};

static const struct dir_case cases[] = {
	{ "first data block", NFILES, 0, true },
	{ "data block 5", NFILES, 5, true },
	{ "hash index root", NFILES, LEAF_BLOCK, false },
	{ "free space index", NFILES, FREE_BLOCK, false },
	/* 40 entries: one directory block, hash and free space inside it. */
	{ "the only block of a small directory", 40, 0, true },
};

struct entry {
	char name[40];
	uint64_t ino;
	bool seen;
};

static struct entry entries[NENTRIES];
static char dir_path[64];
static int nentries;
static int nfiles;

static void entry_path(char *buf, size_t size, const struct entry *e)
{
	int n = snprintf(buf, size, "%s/%s", dir_path, e->name);

	REQUIRE(n > 0 && (size_t)n < size, "path of %s too long", e->name);
}

/* readdir: every name must be one of ours with its old inode, each once.
 * Returns the number of our names found, or -errno. */
static int list_dir(void)
{
	DIR *d = opendir(dir_path);
	int found = 0;

	if (!d)
		return -errno;
	for (int i = 0; i < nentries; i++)
		entries[i].seen = false;
	for (;;) {
		errno = 0;
		struct dirent *de = readdir(d);

		if (!de)
			break;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		int i = 0;

		while (i < nentries && strcmp(entries[i].name, de->d_name) != 0)
			i++;
		CHECK(i < nentries, "unknown name '%s' in %s", de->d_name, dir_path);
		if (i == nentries)
			continue;
		CHECK(!entries[i].seen, "'%s' listed twice", de->d_name);
		CHECK(de->d_ino == entries[i].ino, "'%s' has inode %llu, expected %llu",
		      de->d_name, (unsigned long long)de->d_ino,
		      (unsigned long long)entries[i].ino);
		found += !entries[i].seen;
		entries[i].seen = true;
	}
	int err = errno;

	closedir(d);
	return err ? -err : found;
}

static void make_dir(void)
{
	char path[128];
	struct stat st;

	REQUIRE(mkdir(dir_path, 0755) == 0, "mkdir %s: %s", dir_path, strerror(errno));
	for (int i = 0; i < nentries; i++) {
		struct entry *e = &entries[i];

		if (i < nfiles) {
			snprintf(e->name, sizeof(e->name), "file-%05d-with-a-longer-name", i);
			entry_path(path, sizeof(path), e);
			/* A few files with data, to check that it survives. */
			if (i % 500 == 0)
				tl_write_file(path, 8192, (unsigned int)i, false);
			else
				close(tl_open(path, O_WRONLY | O_CREAT | O_EXCL));
		} else {
			snprintf(e->name, sizeof(e->name), "subdir-%d", i - nfiles);
			entry_path(path, sizeof(path), e);
			REQUIRE(mkdir(path, 0755) == 0, "mkdir %s: %s", path, strerror(errno));
		}
		REQUIRE(lstat(path, &st) == 0, "lstat %s", path);
		e->ino = st.st_ino;
	}
	CHECK_INT(list_dir(), nentries);
}

static void damage_and_repair(const struct dir_case *c)
{
	char path[128];
	uint32_t oflags;
	struct stat st, dst;
	int unreadable = 0, rc;

	REQUIRE(stat(dir_path, &dst) == 0, "stat %s", dir_path);
	bb_damage(dst.st_ino, false, c->block);

	/* Ground truth: the names stored in a bad data block fail to resolve. */
	for (int i = 0; i < nentries; i++) {
		entry_path(path, sizeof(path), &entries[i]);
		rc = lstat(path, &st) == 0 ? 0 : -errno;
		if (rc == -EIO)
			unreadable++;
		else
			CHECK(rc == 0 && st.st_ino == entries[i].ino, "lookup of %s: %s", path,
			      strerror(-rc));
	}
	printf("%s: %d of %d lookups fail\n", c->what, unreadable, nentries);
	if (c->names_in_block)
		REQUIRE(unreadable > 0 && (unreadable < nentries || nentries < NENTRIES),
			"%s holds %d of the names", c->what, unreadable);

	rc = bb_scrub(dir_path, XFS_SCRUB_TYPE_DIR, 0, &oflags);
	CHECK(rc == 0 && (oflags & XFS_SCRUB_OFLAG_CORRUPT),
	      "%s: scrub of the damaged directory: rc %d flags 0x%x, expected 0 and CORRUPT",
	      c->what, rc, oflags);

	rc = bb_scrub(dir_path, XFS_SCRUB_TYPE_DIR, XFS_SCRUB_IFLAG_REPAIR, &oflags);
	CHECK(rc == 0 && oflags == 0, "%s: repair: rc %d flags 0x%x, expected 0 and no flags",
	      c->what, rc, oflags);

	rc = bb_scrub(dir_path, XFS_SCRUB_TYPE_DIR, 0, &oflags);
	CHECK(rc == 0 && oflags == 0, "%s: scrub after the repair: rc %d flags 0x%x", c->what,
	      rc, oflags);
	rc = bb_scrub(dir_path, XFS_SCRUB_TYPE_PARENT, 0, &oflags);
	CHECK(rc == 0 && oflags == 0, "%s: scrub of its parent pointer: rc %d flags 0x%x",
	      c->what, rc, oflags);
	for (int i = nfiles; i < nentries; i++) {
		entry_path(path, sizeof(path), &entries[i]);
		rc = bb_scrub(path, XFS_SCRUB_TYPE_PARENT, 0, &oflags);
		CHECK(rc == 0 && oflags == 0, "scrub of the parent of %s: rc %d flags 0x%x", path,
		      rc, oflags);
		snprintf(path + strlen(path), sizeof(path) - strlen(path), "/..");
		CHECK(stat(path, &st) == 0 && st.st_ino == dst.st_ino, "%s is not the directory",
		      path);
	}
	CHECK(bb_fs_alive(), "%s: the filesystem is shut down or unmounted", c->what);

	rc = list_dir();
	CHECK(rc == nentries, "%s: %d of %d names listed after the repair", c->what, rc,
	      nentries);
	CHECK(stat(dir_path, &st) == 0 && st.st_ino == dst.st_ino &&
		      st.st_nlink == 2 + NSUBDIRS,
	      "%s: directory link count %llu, expected %d", c->what,
	      (unsigned long long)st.st_nlink, 2 + NSUBDIRS);
}

int main(int argc, char **argv)
{
	const char *backing = argc > 1 ? argv[1] : "/dev/vda";
	const size_t ncases = sizeof(cases) / sizeof(cases[0]);

	vt_require_vm();
	REQUIRE(vt_modern(), "directory repair needs exchange-range and parent pointers: "
			     "run with the modern profile");
	bb_setup(backing, "-d agcount=4");

	/* One directory per case; the entries are rebuilt identically (same
	 * names, new inodes) for each. */
	for (size_t i = 0; i < ncases; i++) {
		char *sums;

		snprintf(dir_path, sizeof(dir_path), "%s/dir%zu", BB_MNT, i);
		nfiles = cases[i].nfiles;
		nentries = nfiles + NSUBDIRS;
		make_dir();
		sync();
		sums = tl_checksums(dir_path);
		damage_and_repair(&cases[i]);
		char *now = tl_checksums(dir_path);

		CHECK(strcmp(now, sums) == 0, "%s: file data changed", cases[i].what);
		free(now);
		free(sums);
	}
	CHECK_INT(bb_finish(), 0);
	return check_done();
}
