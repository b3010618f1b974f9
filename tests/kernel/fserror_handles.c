// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An error event names its file even when the inode is no longer live in the
 * inode cache by the time the report reaches fanotify (kernel/patches 1/2,
 * 1/4 and 1/12).
 *
 * The kernel records an error where it notices it and a work item passes it
 * to fsnotify later.  Each case below lets the inode leave the cache before
 * the work item can run (kt_hold_unbound_workers: the work item's worker is
 * kept off the CPUs until the step is over), and the event must still carry
 * the file's handle (inode number and generation):
 *
 * 1. a buffered read over a dm-dust bad block fails with EIO, the file is
 *    closed and the caches are dropped: the report holds the inode;
 * 2. a read fails (EIO) because the file's mapping btree leaf is corrupt:
 *    the inode is marked sick (EFSCORRUPTED, a report without a reference), then
 *    the file is closed and the caches dropped: the work item loads the
 *    inode back;
 * 3. stat() of a file whose inode core fails verification (EFSCORRUPTED):
 *    the inode never enters the cache; xfs_iget() reports it itself, with the
 *    generation that is on disk.
 *
 * On the series before old patch 0018 (now 1/2, 1/4 and 1/12: cases 2, 3
 * and 1) each of these events came without a handle.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "fserror_listen.h"
#include "ktest.h"
#include "vmtest.h"

#define DUST "khandle"
#define DEV "/dev/mapper/" DUST
#define MNT "/tmp/mnt"
#define BLK 4096
#define EVENT_MS 10000
#define NO_EVENT_MS 1500
#define BTREE_EXTENTS 120

struct file {
	const char *path;
	uint64_t ino;
	uint32_t gen;
};

static struct file media = { .path = MNT "/media-error" };
static struct file mapping = { .path = MNT "/broken-mapping" };
static struct file core = { .path = MNT "/broken-core" };

/* Zero the magic number of the first leaf of the file's mapping btree. */
static void break_mapping(const struct file *f)
{
	unsigned long long daddr = kt_bmbt_leaf_daddr(DEV, f->ino);

	printf("%s: mapping btree leaf at daddr %llu\n", f->path, daddr);
	tl_must("dd if=/dev/zero of=%s bs=4 count=1 seek=%llu conv=notrunc status=none", DEV,
		daddr * 512 / 4);
}

/* Exactly one event: @error on @f, handle present and matching. */
static void expect_named(int fan, const char *step, const struct file *f, int error)
{
	struct kt_fserror ev[8];

	if (!kt_fserror_read_one(fan, EVENT_MS, step, &ev[0]))
		return;
	CHECK_INT(ev[0].error, error);
	CHECK(ev[0].has_inode, "%s: the event names no file (handle type 0x%x)", step,
	      ev[0].handle_type);
	CHECK(ev[0].ino == f->ino && ev[0].gen == f->gen,
	      "%s: the event names inode %llu gen %u, expected %s (inode %llu gen %u)", step,
	      (unsigned long long)ev[0].ino, ev[0].gen, f->path, (unsigned long long)f->ino,
	      f->gen);
	kt_fserror_expect_none(fan, NO_EVENT_MS, step);
}

/* Read the file's first block (it must fail with @error), close the file,
 * drop every cache: all before the reporting work item can run. */
struct read_then_evict {
	const struct file *f;
	int got;
};

static void read_then_evict(void *arg)
{
	struct read_then_evict *r = arg;
	char block[BLK];
	int fd = open(r->f->path, O_RDONLY);

	r->got = fd < 0 ? errno : 0;
	if (fd >= 0) {
		r->got = pread(fd, block, BLK, 0) < 0 ? errno : 0;
		close(fd);
	}
	/* the inode and dentry caches give each entry a second chance */
	for (int i = 0; i < 2; i++)
		tl_write_str("/proc/sys/vm/drop_caches", "3");
}

/* @read_error: what the read gives; @error: what the event says. */
static void step_read(int fan, const char *step, const struct file *f, int read_error, int error)
{
	struct read_then_evict r = { .f = f };

	cpu_set_t cpu0;

	/*
	 * Dropping the page cache drains every CPU's batch of new pages, which
	 * the CPU that holds the workers could not do: drain it first, and do
	 * the step on CPU 0 only, so that nothing new lands in CPU 1's batch.
	 */
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	REQUIRE(sched_setaffinity(0, sizeof(cpu0), &cpu0) == 0, "affinity: %s", strerror(errno));
	tl_write_str("/proc/sys/vm/drop_caches", "3");
	kt_hold_unbound_workers(3);
	read_then_evict(&r);
	kt_release_unbound_workers();
	CHECK(r.got == read_error, "%s: reading %s gave %s, expected %s", step, f->path,
	      strerror(r.got), strerror(read_error));
	expect_named(fan, step, f, error);
}

int main(int argc, char **argv)
{
	const char *backing = argc > 1 ? argv[1] : "/dev/vda";
	struct stat st;

	vt_require_vm();
	tl_allow_small_fs(DEV);
	kt_dust_create(DUST, backing);
	tl_mkfs(DEV, "%s", vt_features());
	tl_mount(DEV, MNT, NULL);
	tl_write_file(media.path, 4 * BLK, 1, true);
	kt_write_btree_file(mapping.path, BTREE_EXTENTS);
	tl_write_file(core.path, BLK, 3, true);
	tl_ino_gen(media.path, &media.ino, &media.gen);
	tl_ino_gen(mapping.path, &mapping.ino, &mapping.gen);
	tl_ino_gen(core.path, &core.ino, &core.gen);
	kt_dust_add(DUST, tl_file_physical(media.path, 0) / BLK, 0);
	tl_umount(MNT);
	break_mapping(&mapping);
	kt_break_inode_mode(DEV, core.ino);
	kt_dust_enable(DUST, true);
	tl_mount(DEV, MNT, NULL);

	int fan = kt_fserror_listen(MNT);

	step_read(fan, "EIO, then the inode evicted", &media, EIO, EIO);
	step_read(fan, "sick mapping, then the inode evicted", &mapping, EIO, EFSCORRUPTED);

	int err = stat(core.path, &st) == 0 ? 0 : errno;

	CHECK(err == EFSCORRUPTED, "stat of %s: %s, expected EUCLEAN", core.path, strerror(err));
	expect_named(fan, "inode core that fails verification", &core, EFSCORRUPTED);

	close(fan);
	tl_umount(MNT);
	kt_dust_remove(DUST);
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
