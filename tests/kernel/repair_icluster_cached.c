// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Inodes of a lost block that are still in memory (issue 34, item 3; both
 * profiles).  The fixture of icluster.h with file 55 a short form directory
 * (3 entries): 32 entries fill a 16 KiB cluster, its last 4 KiB block holds
 * files 53..60.  Mounted noatime; a child process keeps its working
 * directory in the directory and the test holds file 57 open; the caches
 * are dropped, so the cluster buffer and the other inodes leave memory,
 * and only then the block becomes unreadable (dm-dust).
 *
 * REPAIR of file 60 (not in memory) must succeed and take the directory
 * and the open file from memory instead of rebuilding them from evidence:
 * after a `chmod` of the directory (which logs its core only), unmount and
 * mount, the directory lists its 3 entries with its owner and the new
 * mode, the open file keeps its owner, mode, size, mtime and generation,
 * every file reads back its data; the other 6 files of the block are
 * rebuilt (root-owned, mode 0); the cluster scrubs clean (DIR of the
 * directory too), xfs_repair -n is clean.  Before the fix the directory
 * was rebuilt empty on disk under its cached self, and once the chmod
 * had been flushed and the inode read back it answered EUCLEAN.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "badblock.h"
#include "check.h"
#include "icluster.h"
#include "ktest.h"
#include "vmtest.h"
#include "xfs_abi.h"

#define DIR_FILE 55
#define OPEN_FILE 57
#define TARGET_FILE 60
#define NEW_DIR_MODE 0751

static struct ic_fs fs;

static void stay_in(void *dir, int ready)
{
	if (chdir(dir) != 0 || write(ready, "r", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

/* A child whose working directory is @dir; returns its pid. */
static pid_t pin_cwd(const char *dir)
{
	pid_t pid = tl_fork_ready(stay_in, (void *)dir);

	REQUIRE(pid > 0, "the child could not enter %s", dir);
	return pid;
}

int main(int argc, char **argv)
{
	const char *backing = argc > 1 ? argv[1] : "/dev/vda";
	struct ic_file *dir, *held, *t;
	uint32_t oflags;
	struct stat st;
	uint64_t ino;
	uint32_t gen;
	pid_t child;
	int fd, rc;

	vt_require_vm();
	ic_setup(&fs, backing, DIR_FILE, "noatime");
	dir = &fs.f[DIR_FILE];
	held = &fs.f[OPEN_FILE];
	t = &fs.f[TARGET_FILE];
	REQUIRE(held->in_bad_block && t->in_bad_block, "unexpected layout");

	child = pin_cwd(dir->path);
	fd = tl_open(held->path, O_RDONLY);
	/* Several passes: the buffer cache gives inode clusters more than one chance. */
	for (int i = 0; i < 4; i++)
		tl_must("sync && echo 3 > /proc/sys/vm/drop_caches");
	kt_dust_add(BB_DUST, fs.dust_blk, 0);
	kt_dust_enable(BB_DUST, true);
	rc = ic_stat(t->path, &st);
	REQUIRE(rc == -EIO, "stat %s with the block unreadable: %d (the cluster is still "
		"in memory, the test cannot run)", t->path, rc);

	rc = ic_scrub(XFS_SCRUB_TYPE_INODE, t->st.st_ino, t->gen, XFS_SCRUB_IFLAG_REPAIR,
		      &oflags);
	printf("repair of %s: rc %d flags 0x%x\n", t->path, rc, oflags);
	CHECK(rc == 0 && !(oflags & XFS_SCRUB_OFLAG_CORRUPT), "REPAIR: rc %d flags 0x%x", rc,
	      oflags);
	CHECK(chmod(dir->path, NEW_DIR_MODE) == 0, "chmod %s: %s", dir->path, strerror(errno));
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(fd);

	tl_umount(BB_MNT);
	if (!ic_mount_checked(NULL))
		return check_done();
	rc = ic_stat(dir->path, &st);
	CHECK(rc == 0, "stat %s after the remount: %s", dir->path, strerror(-rc));
	if (rc == 0)
		CHECK(st.st_mode == (S_IFDIR | NEW_DIR_MODE) && st.st_uid == dir->st.st_uid &&
			      st.st_gid == dir->st.st_gid && st.st_nlink == 2,
		      "%s: mode 0%o uid %u gid %u nlink %lu, expected 0%o %u %u 2", dir->path,
		      st.st_mode, st.st_uid, st.st_gid, (unsigned long)st.st_nlink,
		      S_IFDIR | NEW_DIR_MODE, dir->st.st_uid, dir->st.st_gid);
	rc = ic_count_names(dir->path, "entry");
	CHECK(rc == IC_DIR_ENTRIES, "%s lists %d entries (%s), expected %d", dir->path, rc,
	      rc < 0 ? strerror(-rc) : "", IC_DIR_ENTRIES);
	rc = ic_stat(held->path, &st);
	CHECK(rc == 0, "stat %s after the remount: %s", held->path, strerror(-rc));
	if (rc == 0) {
		tl_ino_gen(held->path, &ino, &gen);
		CHECK(st.st_mode == held->st.st_mode && st.st_uid == held->st.st_uid &&
			      st.st_gid == held->st.st_gid && st.st_size == held->st.st_size &&
			      st.st_mtim.tv_sec == held->st.st_mtim.tv_sec &&
			      st.st_mtim.tv_nsec == held->st.st_mtim.tv_nsec && gen == held->gen,
		      "the open file %s changed: mode 0%o uid %u gid %u size %lld gen %u",
		      held->path, st.st_mode, st.st_uid, st.st_gid, (long long)st.st_size, gen);
	}
	for (int i = 0; i < IC_FILES; i++)
		if (fs.f[i].in_bad_block && i != DIR_FILE && i != OPEN_FILE)
			ic_check_rebuilt(&fs.f[i]);
	ic_check_unchanged(&fs, false);
	ic_check_sums(&fs);
	ic_check_scrubs(&fs, true);
	CHECK_INT(bb_finish(), 0);
	free(fs.sums);
	return check_done();
}
