// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The directory index (classic profile: no parent pointers), on a real XFS
 * filesystem with its fanotify directory events.
 *
 *  1. Built in slices (a millisecond each): it knows every directory the
 *     tree has, and with the dentry cache dropped a file five folders deep
 *     is named by reading a directory or two, where the search without it
 *     reads its ancestors too; a file with links in two folders gets both
 *     names with no directory read (the index keeps the names of files with
 *     several links).
 *  2. Renames of folders (within and across parents), a removed folder, a
 *     new folder, names with a newline, spaces and a non-UTF-8 byte: after
 *     the events are drained every answer is the exact new path, from the
 *     index, with no retry; the read that found a file in the new folder
 *     gave the folder a span, so its other file costs at most 3 reads.
 *     A file given a second link after the build is found by searching,
 *     then from the index; a linked file's name renamed: the kept name fails
 *     its check, the answer is still right (redone), and then kept again.
 *  3. A rename the index has not heard of yet: the answer is still the
 *     right path (the index's path fails its check, the resolve is redone
 *     without it), and the redo corrects the index: the next answer comes
 *     from it without a retry.
 *  4. More events than the kernel queues (20 000 file creates): the drain
 *     sees the overflow, the index resets and is rebuilt, answers are right.
 *
 * Usage (in the guest): vm_dirindex DEVICE
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "map.h"
#include "vmtest.h"

#define MNT "/mnt/ix"
#define TOPS 12
#define OVERFLOW_FILES 20000

static void mkdir_rel(const char *rel)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", MNT, rel);
	REQUIRE(mkdir(path, 0755) == 0, "mkdir %s: %s", path, strerror(errno));
}

static void touch_rel(const char *rel)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", MNT, rel);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	REQUIRE(fd >= 0, "create %s: %s", path, strerror(errno));
	REQUIRE(write(fd, "ix\n", 3) == 3, "write %s", path);
	REQUIRE(close(fd) == 0, "close %s", path);
}

static void rename_rel(const char *from, const char *to)
{
	char a[4096], b[4096];

	snprintf(a, sizeof(a), "%s/%s", MNT, from);
	snprintf(b, sizeof(b), "%s/%s", MNT, to);
	REQUIRE(rename(a, b) == 0, "rename %s %s: %s", a, b, strerror(errno));
}

static uint64_t ino_of(const char *rel)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", MNT, rel);
	return tl_ino(path);
}

/* Directories under MNT, the root included (names may hold newlines). */
static int count_dirs(void)
{
	return atoi(tl_out("find %s -type d -printf x | wc -c", MNT));
}

/* Every name of @ino joined with '|' (sorted), in a static buffer. */
static const char *names(struct map_fs *fs, uint64_t ino, struct map_resolve_stats *st)
{
	static char out[8192];
	struct map_paths *p;
	int rc = map_resolve_paths(fs, &ino, 1, &p, st);

	REQUIRE(rc == 0, "map_resolve_paths: %s", map_strerror(rc));
	out[0] = '\0';
	for (size_t k = 0; k < p->npaths; k++) {
		if (k)
			strcat(out, "|");
		strncat(out, p->paths[k], sizeof(out) - strlen(out) - 2);
	}
	map_paths_free(p, 1);
	return out;
}

/* Check @rel is named exactly @want (cold dentry cache) from the index,
 * without a retry, reading at most @max_reads directories. */
static void expect(struct map_fs *fs, uint64_t ino, const char *want, uint64_t max_reads)
{
	struct map_resolve_stats st;
	const char *got;

	tl_drop_caches(2);
	got = names(fs, ino, &st);
	CHECK_STR(got, want);
	CHECK(st.used_dirindex, "%s: the index was not used", want);
	CHECK(!st.dirindex_retried, "%s: the index's answer fell short", want);
	CHECK(st.dcache_hits == 0, "%s: named from the dentry cache", want);
	CHECK(st.dirs_read <= max_reads, "%s: %llu directories read (at most %llu expected)",
	      want, (unsigned long long)st.dirs_read, (unsigned long long)max_reads);
}

static void build_index(struct map_fs *fs, struct map_dirindex *ix, int *slices)
{
	int rc;

	*slices = 0;
	do {
		rc = map_dirindex_build(ix, fs, 0.001);
		(*slices)++;
	} while (rc == 0 && *slices < 1000000);
	REQUIRE(rc == 1, "building the index: %s", rc < 0 ? map_strerror(rc) : "never ends");
}

static int drain(struct map_dirindex *ix, struct map_fs *fs, int fan)
{
	int total = 0, n;

	while ((n = map_dirindex_drain(ix, fs, fan)) > 0)
		total += n;
	REQUIRE(n == 0, "draining: %s", map_strerror(n));
	return total;
}

int main(int argc, char **argv)
{
	struct map_dirindex_stats ixs;
	struct map_resolve_stats st;
	char rel[4096];
	int slices;

	if (argc != 2) {
		fprintf(stderr, "usage: vm_dirindex DEVICE\n");
		return 2;
	}
	vt_require_vm();
	tl_mkfs_mount(argv[1], vt_features(), MNT);

	/* top/dNN/s1/s2/s3 with a file in each, and a file linked twice */
	mkdir_rel("top");
	for (int i = 0; i < TOPS; i++) {
		snprintf(rel, sizeof(rel), "top/d%02d", i);
		mkdir_rel(rel);
		snprintf(rel, sizeof(rel), "top/d%02d/s1", i);
		mkdir_rel(rel);
		snprintf(rel, sizeof(rel), "top/d%02d/s1/s2", i);
		mkdir_rel(rel);
		snprintf(rel, sizeof(rel), "top/d%02d/s1/s2/s3", i);
		mkdir_rel(rel);
		snprintf(rel, sizeof(rel), "top/d%02d/s1/s2/s3/f", i);
		touch_rel(rel);
		snprintf(rel, sizeof(rel), "top/d%02d/g", i);
		touch_rel(rel);
	}
	tl_must("ln %s/top/d01/g %s/top/d07/s1/link-to-g", MNT, MNT);
	uint64_t deep = ino_of("top/d04/s1/s2/s3/f");
	uint64_t linked = ino_of("top/d01/g");
	uint64_t moved = ino_of("top/d05/s1/s2/s3/f");
	int ndirs = count_dirs();

	struct map_fs *fs;
	int rc = map_fs_open(MNT, &fs);
	REQUIRE(rc == 0, "map_fs_open: %s", map_strerror(rc));
	REQUIRE(!map_fs_info(fs)->geo.parent, "this test is for a filesystem without parent "
		"pointers (the classic profile), not %s", vt_profile());

	/* The search without an index, as a baseline. */
	tl_drop_caches(2);
	CHECK_STR(names(fs, deep, &st), "top/d04/s1/s2/s3/f");
	CHECK(!st.used_dirindex, "an index used before there is one");
	uint64_t reads_without = st.dirs_read;
	printf("without the index: %llu directories read\n", (unsigned long long)reads_without);

	/* 1. build in slices */
	int fan = map_dirindex_watch(MNT);
	REQUIRE(fan >= 0, "map_dirindex_watch: %s", map_strerror(fan));
	struct map_dirindex *ix = map_dirindex_new();
	REQUIRE(ix, "no memory");
	build_index(fs, ix, &slices);
	map_dirindex_get_stats(ix, &ixs);
	printf("index: %llu directories in %d slices, %.3f s\n", (unsigned long long)ixs.dirs,
	       slices, ixs.build_seconds);
	CHECK_INT(ixs.dirs, ndirs);
	CHECK(slices > 1, "the build took one slice of 1 ms (%d)", slices);
	map_fs_use_dirindex(fs, ix);
	expect(fs, deep, "top/d04/s1/s2/s3/f", 3);
	CHECK(reads_without > 1, "the search without the index read %llu directories",
	      (unsigned long long)reads_without);
	expect(fs, linked, "top/d01/g|top/d07/s1/link-to-g", 0);

	/* 2. changes, then their events */
	drain(ix, fs, fan);	/* nothing but the build's own view so far */
	rename_rel("top/d04", "top/d04 renamed");
	rename_rel("top/d05/s1/s2", "top/d08/s2-moved");
	tl_must("rm -r %s/top/d09", MNT);
	mkdir_rel("top/new");
	mkdir_rel("top/new/line\nbreak");
	snprintf(rel, sizeof(rel), "top/new/line\nbreak/f");
	touch_rel(rel);
	uint64_t fresh = ino_of(rel);
	snprintf(rel, sizeof(rel), "top/new/line\nbreak/f2");
	touch_rel(rel);
	uint64_t fresh2 = ino_of(rel);
	rename_rel("top/d06", "top/new/\xff odd");
	uint64_t odd = ino_of("top/new/\xff odd/s1/s2/s3/f");
	rename_rel("top/d07/s1", "top/d02/s1 from 7");
	int applied = drain(ix, fs, fan);
	map_dirindex_get_stats(ix, &ixs);
	printf("%d directory events applied; the index has %llu directories\n", applied,
	       (unsigned long long)ixs.dirs);
	/* 6 renames-in-two-events, 4 removed folders, 2 new ones at least */
	CHECK(applied >= 14, "only %d directory events applied", applied);
	CHECK_INT(ixs.dirs, count_dirs());
	expect(fs, deep, "top/d04 renamed/s1/s2/s3/f", 3);
	expect(fs, moved, "top/d08/s2-moved/s3/f", 3);
	/* a folder made after the build has no span of file inode numbers, so
	 * how many folders its first file costs depends on where XFS put the
	 * folder: the answer and the index are what is checked */
	tl_drop_caches(2);
	CHECK_STR(names(fs, fresh, &st), "top/new/line\nbreak/f");
	CHECK(st.used_dirindex && !st.dirindex_retried, "the new folder's file: index %d, redo %d",
	      st.used_dirindex, st.dirindex_retried);
	/* ... but that read gave the folder a span: its other file is named
	 * reading that folder first */
	expect(fs, fresh2, "top/new/line\nbreak/f2", 3);
	expect(fs, odd, "top/new/\xff odd/s1/s2/s3/f", 3);
	expect(fs, linked, "top/d01/g|top/d02/s1 from 7/link-to-g", 0);

	/* files with several links: a new link, then a renamed name */
	uint64_t g3 = ino_of("top/d03/g");
	tl_must("ln %s/top/d03/g %s/top/d10/s1/s2/new-link", MNT, MNT);
	drain(ix, fs, fan);
	tl_drop_caches(2);
	CHECK_STR(names(fs, g3, &st), "top/d03/g|top/d10/s1/s2/new-link");
	CHECK(st.dirs_read > 0, "a new link's names found without a directory read");
	expect(fs, g3, "top/d03/g|top/d10/s1/s2/new-link", 0);
	rename_rel("top/d03/g", "top/d03/g renamed");
	drain(ix, fs, fan);
	tl_drop_caches(2);
	CHECK_STR(names(fs, g3, &st), "top/d03/g renamed|top/d10/s1/s2/new-link");
	CHECK(st.dirindex_retried, "a stale kept name was not retried");
	expect(fs, g3, "top/d03/g renamed|top/d10/s1/s2/new-link", 0);

	/* 3. a rename not drained yet: still the right answer */
	map_dirindex_get_stats(ix, &ixs);
	uint64_t retries_before = ixs.retries;
	rename_rel("top/d04 renamed", "top/d04 again");
	tl_drop_caches(2);
	CHECK_STR(names(fs, deep, &st), "top/d04 again/s1/s2/s3/f");
	CHECK(st.dirindex_retried, "a stale index path was not retried");
	map_dirindex_get_stats(ix, &ixs);
	CHECK_INT(ixs.retries, retries_before + 1);
	expect(fs, deep, "top/d04 again/s1/s2/s3/f", 3);	/* the redo corrected it */
	drain(ix, fs, fan);
	expect(fs, deep, "top/d04 again/s1/s2/s3/f", 3);

	/* 4. overflow */
	mkdir_rel("many");
	for (int i = 0; i < OVERFLOW_FILES; i++) {
		snprintf(rel, sizeof(rel), "%s/many/%05d", MNT, i);
		int fd = open(rel, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

		REQUIRE(fd >= 0, "create %s: %s", rel, strerror(errno));
		close(fd);
	}
	rename_rel("top/d08", "top/d08 after overflow");
	drain(ix, fs, fan);
	map_dirindex_get_stats(ix, &ixs);
	CHECK_INT(ixs.resets, 1);
	CHECK(!map_dirindex_ready(ix), "the index survived a queue overflow");
	tl_drop_caches(2);
	CHECK_STR(names(fs, moved, &st), "top/d08 after overflow/s2-moved/s3/f");
	CHECK(!st.used_dirindex, "an index used while it is rebuilt");
	build_index(fs, ix, &slices);
	expect(fs, moved, "top/d08 after overflow/s2-moved/s3/f", 3);
	expect(fs, deep, "top/d04 again/s1/s2/s3/f", 3);
	map_dirindex_get_stats(ix, &ixs);
	CHECK_INT(ixs.builds, 2);
	CHECK_INT(ixs.dirs, count_dirs());

	map_fs_close(fs);
	map_dirindex_free(ix);
	close(fan);
	CHECK_INT(vt_kernel_log_problems(), 0);
	tl_must("umount %s", MNT);
	return check_done();
}
