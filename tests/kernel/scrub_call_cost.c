// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What one scrub call costs besides its checks, on a filesystem with parent
 * pointers (modern profile), on dm-dust without bad blocks.
 *
 * Patch 23: the parent pointer and directory scrubbers set aside a link
 * whose other end is locked, in an xfarray and an xfblob (two shmem-backed
 * xfiles), now created only when a link is set aside:
 * - quiet: DIRECTORY on every folder and PARENT on every file and folder of
 *   8 folders of 40 files (one file hard-linked into a second folder) are
 *   clean and create no xfile at all (the 6.12 tree creates two per call:
 *   672 here);
 * - a folder's i_rwsem held: a process creates a name in it while the device
 *   is suspended, so its lookup waits for the folder's first block with the
 *   lock held.  PARENT of a file of that folder sets its parent pointer
 *   aside (xchk_parent_defer), creates the xfiles, cannot get the lock in the
 *   slow pass either and ends INCOMPLETE, never CORRUPT; once the device is
 *   resumed the same call is clean and creates nothing;
 * - a file's i_rwsem held: a one-byte write into its uncached first block
 *   waits for the suspended device.  DIRECTORY of its folder sets the entry
 *   aside (xchk_dir_defer), the same way.
 *
 * Patch 24: the directory tree check turns the directory update hooks on and
 * off; the static key behind them now turns off only after a second unused.
 * - DIRTREE on the 8 folders 8 times over, back to back: every call clean,
 *   and fewer function-call IPIs (/proc/interrupts CAL, all CPUs) than calls.
 *   Each change of a static key patches kernel text and synchronises the
 *   other CPUs with several such IPIs: the 6.12 tree sends hundreds here.
 *
 * Then xfs_repair -n finds nothing; no kernel warning.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "badblock.h"
#include "check.h"
#include "ktest.h"
#include "map_scrub.h"
#include "vmtest.h"
#include "xfs_abi.h"

#define DIRS 8
#define FILES 40

struct obj {
	char path[64];
	uint64_t ino;
	uint32_t gen;
};

static struct obj dirs[DIRS], files[DIRS][FILES];

/* @path, its inode number and generation. */
static void record(struct obj *o, const char *path)
{
	snprintf(o->path, sizeof(o->path), "%s", path);
	tl_ino_gen(o->path, &o->ino, &o->gen);
}

static int scrub(const struct obj *o, uint32_t type, uint32_t *oflags)
{
	return kt_scrub_ino(BB_MNT, type, o->ino, o->gen, 0, oflags);
}

static const char *type_name(uint32_t type)
{
	switch (type) {
	case XFS_SCRUB_TYPE_PARENT: return "PARENT";
	case XFS_SCRUB_TYPE_DIR: return "DIRECTORY";
	case XFS_SCRUB_TYPE_DIRTREE: return "DIRTREE";
	default: return "scrub";
	}
}

static void expect_clean(const struct obj *o, uint32_t type, const char *what)
{
	uint32_t oflags;
	int rc = scrub(o, type, &oflags);
	char flags[128];

	map_scrub_oflags_str(oflags, flags, sizeof(flags));
	CHECK(rc == 0 && oflags == 0, "%s %s of %s: rc %d flags [%s], expected clean", what,
	      type_name(type), o->path, rc, flags);
}

/* Wait until @pid sleeps uninterruptibly (state D): it holds the lock. */
static void wait_blocked(pid_t pid)
{
	for (int i = 0; i < 3000; i++) {	/* 30 s: a loaded CI machine */
		if (tl_task_state(pid) == 'D')
			return;
		usleep(10000);
	}
	REQUIRE(0, "process %d never blocked on the suspended device", (int)pid);
}

/* One call while the other end is locked: deferred, INCOMPLETE, not CORRUPT. */
static void expect_deferred(const struct obj *o, uint32_t type, const char *event)
{
	static const char *const events[] = {
		"xfs_scrub:xfile_create", "xfs_scrub:xchk_parent_defer",
		"xfs_scrub:xchk_dir_defer",
	};
	uint32_t oflags;
	char flags[128];

	CHECK_INT(bb_trace_start(events, 3), 0);
	int rc = scrub(o, type, &oflags);
	char *trace = kt_trace_stop();
	int deferred = kt_trace_count(trace, event, NULL);
	int xfiles = kt_trace_count(trace, "xfile_create", NULL);

	map_scrub_oflags_str(oflags, flags, sizeof(flags));
	printf("%s of %s with the other end locked: rc %d flags [%s], %d %s, %d xfiles\n",
	       type_name(type), o->path, rc, flags, deferred, event, xfiles);
	CHECK(rc == 0 && (oflags & XFS_SCRUB_OFLAG_INCOMPLETE) &&
		      !(oflags & (XFS_SCRUB_OFLAG_CORRUPT | XFS_SCRUB_OFLAG_XCORRUPT)),
	      "rc %d flags [%s], expected 0 and INCOMPLETE without CORRUPT", rc, flags);
	CHECK(deferred >= 1, "no %s trace line: the link was not set aside", event);
	CHECK(xfiles >= 2 && xfiles == 2 * deferred,
	      "%d xfiles for %d deferrals, expected two per deferral", xfiles, deferred);
	free(trace);
}

/* Quiet filesystem: every call is clean and no xfile is created. */
static void quiet_pass(void)
{
	static const char *const events[] = {"xfs_scrub:xfile_create"};
	unsigned int calls = 0;

	CHECK_INT(bb_trace_start(events, 1), 0);
	for (int d = 0; d < DIRS; d++) {
		expect_clean(&dirs[d], XFS_SCRUB_TYPE_DIR, "quiet");
		expect_clean(&dirs[d], XFS_SCRUB_TYPE_PARENT, "quiet");
		calls += 2;
		for (int f = 0; f < FILES; f++, calls++)
			expect_clean(&files[d][f], XFS_SCRUB_TYPE_PARENT, "quiet");
	}
	char *trace = kt_trace_stop();
	int xfiles = kt_trace_count(trace, "xfile_create", NULL);

	printf("quiet: %u DIRECTORY and PARENT calls, %d xfiles created\n", calls, xfiles);
	CHECK(xfiles == 0, "%d xfiles created by %u scrub calls that deferred nothing", xfiles,
	      calls);
	free(trace);
}

/*
 * With the device suspended, a child runs @hold(@path), which takes an
 * i_rwsem and then waits for a block that is not cached; @type on @o is
 * checked while it waits (expect_deferred), then the device is resumed, the
 * child must succeed, and a quiet pass must defer nothing again.
 */
static void held_lock_pass(int (*hold)(const char *path), const char *path,
			   const struct obj *o, uint32_t type, const char *event)
{
	int status;

	/* --nolockfs: a freeze would stop the child before it took the lock. */
	tl_must("dmsetup suspend --nolockfs %s", BB_DUST);
	pid_t pid = fork();
	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0)
		_exit(hold(path) == 0 ? 0 : 1);
	wait_blocked(pid);
	expect_deferred(o, type, event);
	tl_must("dmsetup resume %s", BB_DUST);
	REQUIRE(waitpid(pid, &status, 0) == pid, "waitpid: %s", strerror(errno));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the blocked process failed once the device was resumed (status 0x%x)", status);
	quiet_pass();
}

/* Create @path: the lookup holds its folder's i_rwsem. */
static int create_name(const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY, 0644);

	return fd >= 0 && close(fd) == 0 ? 0 : -1;
}

/* Write one byte into the first block of @path: the write holds its i_rwsem. */
static int write_byte(const char *path)
{
	int fd = open(path, O_WRONLY);

	return fd >= 0 && pwrite(fd, "x", 1, 100) == 1 && close(fd) == 0 ? 0 : -1;
}

/* Function-call IPIs received so far, summed over every CPU. */
static unsigned long long call_ipis(void)
{
	FILE *f = fopen("/proc/interrupts", "r");
	char line[4096];
	unsigned long long sum = 0;
	bool found = false;

	REQUIRE(f, "/proc/interrupts: %s", strerror(errno));
	while (!found && fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " ");

		if (strncmp(p, "CAL:", 4) != 0)
			continue;
		found = true;
		p += 4;
		for (;;) {
			char *end;
			unsigned long long n = strtoull(p, &end, 10);

			if (end == p)
				break;
			sum += n;
			p = end;
		}
	}
	fclose(f);
	REQUIRE(found, "no CAL line in /proc/interrupts");
	return sum;
}

/* Back-to-back directory tree checks patch no kernel text. */
static void dirtree_pass(void)
{
	const unsigned int rounds = 8;
	unsigned long long before = call_ipis();

	for (unsigned int r = 0; r < rounds; r++)
		for (int d = 0; d < DIRS; d++)
			expect_clean(&dirs[d], XFS_SCRUB_TYPE_DIRTREE, "back to back");
	unsigned long long ipis = call_ipis() - before;

	printf("DIRTREE: %u calls, %llu function-call IPIs\n", rounds * DIRS, ipis);
	CHECK(ipis < rounds * DIRS,
	      "%llu function-call IPIs for %u DIRTREE calls: the hook switch is patched per call",
	      ipis, rounds * DIRS);
}

int main(int argc, char **argv)
{
	const char *backing = argc > 1 ? argv[1] : "/dev/vda";
	char path[sizeof(dirs[0].path)];

	vt_require_vm();
	REQUIRE(vt_modern(), "the deferred checks exist with parent pointers: modern profile");
	bb_setup(backing, "-d agcount=4");

	for (int d = 0; d < DIRS; d++) {
		snprintf(path, sizeof(path), BB_MNT "/d%d", d);
		REQUIRE(mkdir(path, 0755) == 0, "mkdir %s: %s", path, strerror(errno));
		record(&dirs[d], path);
		for (int f = 0; f < FILES; f++) {
			snprintf(path, sizeof(path), BB_MNT "/d%d/f%02d", d, f);
			tl_write_file(path, 4096, (unsigned int)(d * FILES + f), false);
			record(&files[d][f], path);
		}
	}
	/* A file with two parents. */
	REQUIRE(link(BB_MNT "/d0/f00", BB_MNT "/d1/link") == 0, "link: %s", strerror(errno));
	sync();

	/* Cold caches for every part: nothing else runs, nothing is deferred. */
	tl_umount(BB_MNT);
	tl_mount(BB_DEV, BB_MNT, NULL);
	quiet_pass();

	/*
	 * A folder held: its first block must not be cached, so the creating
	 * process waits for it with i_rwsem held.  The folder's inode is loaded
	 * by stat (which reads only the root folder) and the file's by an INODE
	 * scrub by handle (which reads no folder).
	 */
	tl_umount(BB_MNT);
	tl_mount(BB_DEV, BB_MNT, NULL);
	const struct obj *dir = &dirs[3], *file = &files[3][5];
	struct stat st;
	uint32_t oflags;

	REQUIRE(stat(dir->path, &st) == 0, "stat %s: %s", dir->path, strerror(errno));
	REQUIRE(scrub(file, XFS_SCRUB_TYPE_INODE, &oflags) == 0 && oflags == 0,
		"INODE scrub of %s", file->path);
	held_lock_pass(create_name, BB_MNT "/d3/new", file, XFS_SCRUB_TYPE_PARENT,
		       "xchk_parent_defer");

	/*
	 * A file held: the folder's blocks are cached by a DIRECTORY scrub,
	 * then a one-byte write waits for the file's uncached block with the
	 * file's i_rwsem held.
	 */
	tl_umount(BB_MNT);
	tl_mount(BB_DEV, BB_MNT, NULL);
	file = &files[3][7];
	expect_clean(dir, XFS_SCRUB_TYPE_DIR, "before the write");
	held_lock_pass(write_byte, file->path, dir, XFS_SCRUB_TYPE_DIR, "xchk_dir_defer");

	dirtree_pass();

	CHECK_INT(bb_finish(), 0);
	return check_done();
}
