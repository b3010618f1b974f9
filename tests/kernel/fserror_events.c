// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Our patch series makes XFS report errors to fanotify as FAN_FS_ERROR.  On a
 * filesystem over dm-dust, with a FAN_REPORT_FID listener on the filesystem:
 *
 * - a clean workload, failed reads that are not media errors (EFAULT, EINVAL)
 *   and SIGBUS past EOF yield no event;
 * - buffered, splice, direct and mmap reads over a bad block, and writeback
 *   to a bad block (overwrite and unwritten extent), each yield one EIO event
 *   whose file handle decodes to the file's inode and generation, and one
 *   xfs_file_ioerror trace line with the exact range (for buffered reads and
 *   splice of 64 KiB: the folio that failed, not the request);
 * - writes that must read first over an unreadable block (a write of part
 *   of a block, zeroing or unsharing part of a block) and a direct write to
 *   a block that cannot be written each yield one EIO event with the file's
 *   handle and one trace line (write_read, direct_write);
 * - a deduplication (FIDEDUPERANGE) whose comparison cannot read the copy
 *   yields one EIO event with the copy's handle and one trace line
 *   (dedupe_read);
 * - an O_DIRECT read through Linux AIO, an append into preallocated space
 *   and the writeback that FIFREEZE forces each yield one event with the
 *   handle and one trace line;
 * - an inode cluster write that fails once (and is retried) yields one EIO
 *   event without a file;
 * - an unreadable directory block and an unreadable inode btree block yield
 *   an EIO event without a file; a directory block that fails its verifier
 *   yields EFSCORRUPTED with the directory's handle;
 * - XFS_IOC_GOINGDOWN yields one ESHUTDOWN event, and so does a log write
 *   that fails (every block of the log fails its next writes);
 * - unmounting with an event queued is safe, and the event stays readable;
 * - a report still on its way when the unmount starts, and the failed
 *   writeback of a block written without fsync (unmount's own sync writes
 *   it), each reach the listener with the file's handle (kernel/patches 1/8: the sync
 *   delivers its reports before the superblock stops being active);
 * - after a shutdown, an mmap read fault fails (SIGBUS) and is not reported;
 * - the kernel log has no BUG, WARNING or lockdep report.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/aio_abi.h>
#include <linux/fs.h>

#include "check.h"
#include "fserror_listen.h"
#include "ktest.h"
#include "vmtest.h"

#define DUST "kdust"
#define DEV "/dev/mapper/" DUST
#define MNT "/tmp/mnt"
#define BLK 4096
#define EFSCORRUPTED EUCLEAN
#define NO_EVENT_MS 1500
#define EVENT_MS 10000
#define REQUEST (64 * 1024)	/* read and splice sizes: larger than one block */

/* A file whose handle an event must carry. */
struct victim {
	const char *name;
	char path[256];
	uint64_t ino;
	uint32_t gen;
	int handle_type;
	uint32_t handle_bytes;
	unsigned char handle[64];
	uint64_t offset;	/* file byte over the bad block */
	uint64_t blk;		/* dm-dust block (4 KiB) under it */
};

static struct victim buffered = { .name = "buffered", .offset = 128 * 1024 };
static struct victim direct = { .name = "direct", .offset = 64 * 1024 };
static struct victim mapped = { .name = "mapped", .offset = 32 * 1024 };
static struct victim overwrite = { .name = "overwrite", .offset = 16 * 1024 };
static struct victim unwritten = { .name = "unwritten", .offset = 0 };
static struct victim atunmount = { .name = "atunmount", .offset = 8 * 1024 };
static struct victim spliced = { .name = "spliced", .offset = 64 * 1024 };
static struct victim partial = { .name = "partial", .offset = 16 * 1024 };
static struct victim zeroed = { .name = "zeroed", .offset = 24 * 1024 };
static struct victim unshared = { .name = "unshared", .offset = 8 * 1024 };
static struct victim deduped = { .name = "deduped", .offset = 16 * 1024 };
static struct victim dwrite = { .name = "dwrite", .offset = 32 * 1024 };
static struct victim aio = { .name = "aio", .offset = 48 * 1024 };
static struct victim appended = { .name = "appended", .offset = 64 * 1024 };
static struct victim frozen = { .name = "frozen", .offset = 4 * 1024 };
static struct victim mdwrite = { .name = "mdwrite" };	/* blk: its inode's block */
static struct victim dirio = { .name = "dirio" };
static struct victim dircorrupt = { .name = "dircorrupt" };

static uint32_t inobt_agno;
static uint64_t inobt_blk;
static int fsid[2];

static void identify(struct victim *v)
{
	struct {
		struct file_handle fh;
		unsigned char bytes[64];
	} h;
	int mount_id;

	tl_ino_gen(v->path, &v->ino, &v->gen);
	h.fh.handle_bytes = sizeof(h.bytes);
	REQUIRE(name_to_handle_at(AT_FDCWD, v->path, &h.fh, &mount_id, 0) == 0,
		"name_to_handle_at %s: %s", v->path, strerror(errno));
	v->handle_type = h.fh.handle_type;
	v->handle_bytes = h.fh.handle_bytes;
	memcpy(v->handle, h.fh.f_handle, h.fh.handle_bytes);
	printf("%s: ino %llu gen %u handle type 0x%x\n", v->name, (unsigned long long)v->ino,
	       v->gen, v->handle_type);
}

static void make_dir(struct victim *v, int entries)
{
	REQUIRE(mkdir(v->path, 0755) == 0, "mkdir %s: %s", v->path, strerror(errno));
	for (int i = 0; i < entries; i++) {
		char name[512];

		snprintf(name, sizeof(name), "%s/entry-with-a-longish-name-%04d", v->path, i);
		close(tl_open(name, O_WRONLY | O_CREAT));
	}
}

/* AG of an inode number, from the geometry. */
static uint32_t ino_agno(const struct xfs_fsop_geom *geo, uint64_t ino)
{
	unsigned int agblklog = 0, inopblog = 0;

	while ((1u << agblklog) < geo->agblocks)
		agblklog++;
	while ((1u << inopblog) < geo->blocksize / geo->inodesize)
		inopblog++;
	return (uint32_t)(ino >> (agblklog + inopblog));
}

static void populate(void)
{
	struct xfs_fsop_geom geo;
	struct victim *files[] = { &buffered, &direct, &mapped, &overwrite, &unwritten,
				   &atunmount, &spliced, &partial, &zeroed, &unshared, &deduped,
				   &dwrite, &aio, &frozen, &appended, &mdwrite };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		snprintf(files[i]->path, sizeof(files[i]->path), MNT "/%s", files[i]->name);
	snprintf(dirio.path, sizeof(dirio.path), MNT "/%s", dirio.name);
	snprintf(dircorrupt.path, sizeof(dircorrupt.path), MNT "/%s", dircorrupt.name);

	tl_write_file(buffered.path, 256 * 1024, 1, true);
	tl_write_file(direct.path, 256 * 1024, 2, true);
	tl_write_file(mapped.path, 64 * 1024, 3, true);
	tl_write_file(overwrite.path, 64 * 1024, 4, true);
	tl_write_file(atunmount.path, 64 * 1024, 5, true);
	tl_write_file(spliced.path, 256 * 1024, 6, true);
	tl_write_file(partial.path, 64 * 1024, 7, true);
	tl_write_file(zeroed.path, 64 * 1024, 8, true);
	tl_write_file(MNT "/unshared-source", 64 * 1024, 10, true);
	tl_reflink(MNT "/unshared-source", unshared.path);
	/* two copies of the same data, for a deduplication to compare */
	tl_write_file(MNT "/deduped-source", 64 * 1024, 16, true);
	tl_write_file(deduped.path, 64 * 1024, 16, true);
	tl_write_file(dwrite.path, 64 * 1024, 11, true);
	tl_write_file(aio.path, 64 * 1024, 12, true);
	tl_write_file(frozen.path, 64 * 1024, 13, true);
	tl_write_file(mdwrite.path, BLK, 15, true);
	/* 64 KiB of data, then 64 KiB preallocated past the end of the file
	 * that an append will write into */
	tl_write_file(appended.path, 64 * 1024, 14, true);
	int afd = tl_open(appended.path, O_WRONLY);
	REQUIRE(fallocate(afd, FALLOC_FL_KEEP_SIZE, 64 * 1024, 64 * 1024) == 0,
		"fallocate KEEP_SIZE: %s", strerror(errno));
	REQUIRE(fsync(afd) == 0, "fsync: %s", strerror(errno));
	close(afd);
	int fd = tl_open(unwritten.path, O_WRONLY | O_CREAT);
	REQUIRE(fallocate(fd, 0, 0, 64 * 1024) == 0, "fallocate: %s", strerror(errno));
	REQUIRE(fsync(fd) == 0, "fsync: %s", strerror(errno));
	close(fd);
	make_dir(&dirio, 200);
	make_dir(&dircorrupt, 200);

	/* Directories spread over the AGs; fill one outside AG 0 with inodes
	 * and take its inode btree away later. */
	int dfd = tl_open(MNT, O_RDONLY | O_DIRECTORY);
	kt_geometry(dfd, &geo);
	close(dfd);
	for (int d = 0; d < 8 && inobt_agno == 0; d++) {
		char dir[64];
		uint64_t ino;
		uint32_t gen;

		snprintf(dir, sizeof(dir), MNT "/inodes%d", d);
		REQUIRE(mkdir(dir, 0755) == 0, "mkdir %s: %s", dir, strerror(errno));
		tl_ino_gen(dir, &ino, &gen);
		if (ino_agno(&geo, ino) == 0)
			continue;
		inobt_agno = ino_agno(&geo, ino);
		for (int i = 0; i < 70; i++) {
			char name[128];

			snprintf(name, sizeof(name), "%s/f%d", dir, i);
			close(tl_open(name, O_WRONLY | O_CREAT));
		}
	}
	REQUIRE(inobt_agno != 0, "no directory landed outside AG 0");
	sync();

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		identify(files[i]);
		files[i]->blk = tl_file_physical(files[i]->path, files[i]->offset) / BLK;
	}
	identify(&dirio);
	identify(&dircorrupt);
	dirio.blk = tl_fork_physical(dirio.path, 0, false) / BLK;
	dircorrupt.blk = tl_fork_physical(dircorrupt.path, 0, false) / BLK;

	struct statfs sfs;
	REQUIRE(statfs(MNT, &sfs) == 0, "statfs: %s", strerror(errno));
	memcpy(fsid, &sfs.f_fsid, sizeof(fsid));
}

/* The event must be one error for @v (or for no file when @v is NULL). */
static void check_event(const char *what, const struct kt_fserror *ev, int n, int error,
			const struct victim *v)
{
	CHECK_INT(n, 1);
	if (n < 1)
		return;
	kt_fserror_print(what, ev);
	CHECK_INT(ev->error, error);
	CHECK_INT(ev->count, 1);
	CHECK(memcmp(ev->fsid, fsid, sizeof(fsid)) == 0, "%s: event fsid is not the statfs fsid",
	      what);
	if (!v) {
		CHECK_INT(ev->handle_type, KT_FILEID_INVALID);
		CHECK_INT(ev->handle_bytes, 0);
		return;
	}
	CHECK_INT(ev->handle_type, v->handle_type);
	CHECK_INT(ev->handle_bytes, v->handle_bytes);
	CHECK(ev->handle_bytes == v->handle_bytes &&
		      memcmp(ev->handle, v->handle, v->handle_bytes) == 0,
	      "%s: handle differs from name_to_handle_at(%s)", what, v->path);
	CHECK(ev->has_inode, "%s: handle type 0x%x does not decode", what, ev->handle_type);
	CHECK_INT(ev->ino, v->ino);
	CHECK_INT(ev->gen, v->gen);
}

static void expect_event(int fan, const char *what, int error, const struct victim *v)
{
	struct kt_fserror ev[4];
	int n = kt_fserror_read(fan, EVENT_MS, ev, 4);

	check_event(what, ev, n, error, v);
}

static void expect_no_event(int fan, const char *what)
{
	struct kt_fserror ev[4];
	int n = kt_fserror_read(fan, NO_EVENT_MS, ev, 4);

	for (int i = 0; i < n; i++)
		kt_fserror_print(what, &ev[i]);
	CHECK(n == 0, "%s: %d unexpected FAN_FS_ERROR event(s)", what, n);
}

static sigjmp_buf sigbus_jump;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(sigbus_jump, 1);
}

/* Read one byte of a mapping; true if that raised SIGBUS. */
static bool touch_sigbus(const volatile char *p)
{
	struct sigaction sa = { .sa_handler = on_sigbus }, old;
	bool bus = false;

	sigaction(SIGBUS, &sa, &old);
	if (sigsetjmp(sigbus_jump, 1) == 0)
		(void)*p;
	else
		bus = true;
	sigaction(SIGBUS, &old, NULL);
	return bus;
}

static ssize_t read_at(const char *path, int flags, uint64_t offset, size_t len)
{
	void *buf;
	int fd = tl_open(path, O_RDONLY | flags);

	REQUIRE(posix_memalign(&buf, BLK, len) == 0, "out of memory");
	ssize_t n = pread(fd, buf, len, (off_t)offset);
	int err = errno;
	free(buf);
	close(fd);
	errno = err;
	return n;
}

/* Everything here succeeds or fails for reasons other than the media. */
static void clean_workload(void)
{
	int fan = kt_fserror_listen(MNT);
	char path[256];

	for (int i = 0; i < 20; i++) {
		snprintf(path, sizeof(path), MNT "/clean%d", i);
		tl_write_file(path, 16384 + i * 4096, 100 + i, i % 2);
	}
	CHECK_INT(read_at(buffered.path, 0, 0, 256 * 1024), 256 * 1024);
	CHECK_INT(read_at(direct.path, O_DIRECT, 0, 256 * 1024), 256 * 1024);
	tl_reflink(buffered.path, MNT "/clean-clone");
	tl_write_file(MNT "/clean-clone", 8192, 7, true);
	REQUIRE(rename(MNT "/clean3", MNT "/clean3-renamed") == 0, "rename: %s", strerror(errno));
	REQUIRE(unlink(MNT "/clean4") == 0, "unlink: %s", strerror(errno));
	tl_must("ls -lR %s >/dev/null && sync", MNT);

	/* Failed reads that are not media errors. */
	int fd = tl_open(mapped.path, O_RDONLY);
	void *guard = mmap(NULL, BLK, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	REQUIRE(guard != MAP_FAILED, "mmap: %s", strerror(errno));
	errno = 0;
	CHECK(read(fd, guard, BLK) < 0 && errno == EFAULT, "read into a bad buffer: %s",
	      strerror(errno));
	munmap(guard, BLK);
	close(fd);
	fd = tl_open(direct.path, O_RDONLY | O_DIRECT);
	char *unaligned = malloc(BLK + 1);
	errno = 0;
	CHECK(pread(fd, unaligned + 1, 511, 1) < 0 && errno == EINVAL,
	      "misaligned direct read: %s", strerror(errno));
	free(unaligned);
	close(fd);

	/* SIGBUS past EOF is not a read error. */
	fd = tl_open(MNT "/clean0", O_RDONLY);
	char *map = mmap(NULL, 64 * 1024, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(map != MAP_FAILED, "mmap: %s", strerror(errno));
	CHECK(!touch_sigbus(map), "reading inside the file raised SIGBUS");
	CHECK(touch_sigbus(map + 32 * 1024), "reading past EOF did not raise SIGBUS");
	munmap(map, 64 * 1024);
	close(fd);

	expect_no_event(fan, "clean workload");
	close(fan);
}

/* Directory block 0 of dircorrupt loses its magic number (the verifier
 * fails; dm-dust passes writes through while disabled). */
static void corrupt_dir_block(void)
{
	tl_must("dd if=/dev/zero of=%s bs=4 count=1 seek=%llu conv=notrunc status=none", DEV,
		(unsigned long long)(dircorrupt.blk * BLK / 4));
}

static void find_inobt_root(void)
{
	struct xfs_fsop_geom geo;
	int fd = tl_open(MNT, O_RDONLY | O_DIRECTORY);

	kt_geometry(fd, &geo);
	close(fd);
	tl_umount(MNT);
	const char *root = tl_out("xfs_db -r -c 'agi %u' -c 'print root' %s | sed -n 's/^root = //p'",
				  inobt_agno, DEV);
	REQUIRE(*root, "cannot read the inode btree root of AG %u", inobt_agno);
	uint64_t agbno = strtoull(root, NULL, 10);
	inobt_blk = ((uint64_t)inobt_agno * geo.agblocks + agbno) * geo.blocksize / BLK;
	printf("inode btree root of AG %u: agbno %llu, dust block %llu\n", inobt_agno,
	       (unsigned long long)agbno, (unsigned long long)inobt_blk);
}

static void data_read_errors(int fan)
{
	/* buffered read, 64 KiB from the bad block on */
	errno = 0;
	CHECK(read_at(buffered.path, 0, buffered.offset, REQUEST) < 0 && errno == EIO,
	      "buffered read over a bad block: %s", strerror(errno));
	expect_event(fan, "buffered read", EIO, &buffered);

	/* splice, 64 KiB from the bad block on */
	int pipefd[2];
	REQUIRE(pipe(pipefd) == 0, "pipe: %s", strerror(errno));
	int sfd = tl_open(spliced.path, O_RDONLY);
	loff_t off = (loff_t)spliced.offset;
	errno = 0;
	CHECK(splice(sfd, &off, pipefd[1], NULL, REQUEST, 0) < 0 && errno == EIO,
	      "splice over a bad block: %s", strerror(errno));
	close(sfd);
	close(pipefd[0]);
	close(pipefd[1]);
	expect_event(fan, "splice", EIO, &spliced);

	/* direct read */
	errno = 0;
	CHECK(read_at(direct.path, O_DIRECT, direct.offset, BLK) < 0 && errno == EIO,
	      "direct read over a bad block: %s", strerror(errno));
	expect_event(fan, "direct read", EIO, &direct);

	/* mmap read */
	int fd = tl_open(mapped.path, O_RDONLY);
	char *map = mmap(NULL, 64 * 1024, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(map != MAP_FAILED, "mmap: %s", strerror(errno));
	CHECK(touch_sigbus(map + mapped.offset), "mapped read over a bad block did not SIGBUS");
	munmap(map, 64 * 1024);
	close(fd);
	expect_event(fan, "mmap read", EIO, &mapped);
}

/* Writeback of one dirty block onto a block whose next write fails. */
static void write_back_to_bad_block(int fan, struct victim *v, const char *what)
{
	char buf[BLK];

	kt_dust_add(DUST, v->blk, 1);
	memset(buf, 0x5a, sizeof(buf));
	int fd = tl_open(v->path, O_WRONLY);
	CHECK_INT(pwrite(fd, buf, sizeof(buf), (off_t)v->offset), BLK);
	errno = 0;
	CHECK(fsync(fd) < 0 && errno == EIO, "%s: fsync after failed writeback: %s", what,
	      strerror(errno));
	close(fd);
	expect_event(fan, what, EIO, v);
}

/*
 * Writes that must read first (part of a block; zeroing or unsharing part
 * of a block) over an unreadable block, and a direct write to a block that
 * cannot be written (kernel/patches 1/9).
 */
static void write_errors(int fan)
{
	char small[100];
	int fd;

	memset(small, 0x3c, sizeof(small));
	fd = tl_open(partial.path, O_WRONLY);
	errno = 0;
	CHECK(pwrite(fd, small, sizeof(small), (off_t)partial.offset + 10) < 0 && errno == EIO,
	      "write of part of an unreadable block: %s", strerror(errno));
	close(fd);
	expect_event(fan, "partial block write", EIO, &partial);

	fd = tl_open(zeroed.path, O_WRONLY);
	errno = 0;
	CHECK(fallocate(fd, FALLOC_FL_ZERO_RANGE, (off_t)zeroed.offset + 100, 200) < 0 &&
		      errno == EIO, "zeroing part of an unreadable block: %s", strerror(errno));
	close(fd);
	expect_event(fan, "zero range", EIO, &zeroed);

	fd = tl_open(unshared.path, O_WRONLY);
	errno = 0;
	CHECK(fallocate(fd, FALLOC_FL_UNSHARE_RANGE, (off_t)unshared.offset, BLK) < 0 &&
		      errno == EIO, "unsharing an unreadable block: %s", strerror(errno));
	close(fd);
	expect_event(fan, "unshare range", EIO, &unshared);

	/* FIDEDUPERANGE compares the data first, and cannot read the copy */
	struct {
		struct file_dedupe_range range;
		struct file_dedupe_range_info info;
	} dedupe = { .range = { .src_length = 64 * 1024, .dest_count = 1 } };
	int src = tl_open(MNT "/deduped-source", O_RDONLY);
	fd = tl_open(deduped.path, O_RDWR);
	dedupe.info.dest_fd = fd;
	CHECK(ioctl(src, FIDEDUPERANGE, &dedupe) == 0, "FIDEDUPERANGE: %s", strerror(errno));
	CHECK(dedupe.info.status == -EIO, "deduplication over an unreadable block: status %d, "
	      "expected -EIO", dedupe.info.status);
	close(fd);
	close(src);
	expect_event(fan, "dedupe compare", EIO, &deduped);

	kt_dust_add(DUST, dwrite.blk, 1);
	void *buf;
	REQUIRE(posix_memalign(&buf, BLK, BLK) == 0, "posix_memalign");
	memset(buf, 0x6b, BLK);
	fd = tl_open(dwrite.path, O_WRONLY | O_DIRECT);
	errno = 0;
	CHECK(pwrite(fd, buf, BLK, (off_t)dwrite.offset) < 0 && errno == EIO,
	      "direct write to a block that cannot be written: %s", strerror(errno));
	close(fd);
	free(buf);
	expect_event(fan, "direct write", EIO, &dwrite);
}

/* An O_DIRECT read through Linux AIO: it completes after io_submit returns. */
static void async_direct_read(int fan)
{
	aio_context_t ctx = 0;
	struct iocb cb, *cbs[1] = { &cb };
	struct io_event done;
	void *buf;

	REQUIRE(syscall(SYS_io_setup, 1, &ctx) == 0, "io_setup: %s", strerror(errno));
	REQUIRE(posix_memalign(&buf, BLK, BLK) == 0, "posix_memalign");
	int fd = tl_open(aio.path, O_RDONLY | O_DIRECT);
	memset(&cb, 0, sizeof(cb));
	cb.aio_fildes = (uint32_t)fd;
	cb.aio_lio_opcode = IOCB_CMD_PREAD;
	cb.aio_buf = (uint64_t)(uintptr_t)buf;
	cb.aio_nbytes = BLK;
	cb.aio_offset = (int64_t)aio.offset;
	REQUIRE(syscall(SYS_io_submit, ctx, 1, cbs) == 1, "io_submit: %s", strerror(errno));
	REQUIRE(syscall(SYS_io_getevents, ctx, 1, 1, &done, NULL) == 1, "io_getevents: %s",
		strerror(errno));
	CHECK(done.res == -EIO, "async direct read over a bad block: result %lld, expected -EIO",
	      (long long)done.res);
	close(fd);
	free(buf);
	syscall(SYS_io_destroy, ctx);
	expect_event(fan, "async direct read", EIO, &aio);
}

/* Appending into preallocated space, and writeback forced by a freeze. */
static void more_writeback(int fan)
{
	char buf[BLK];

	memset(buf, 0x77, sizeof(buf));
	kt_dust_add(DUST, appended.blk, 1);
	int fd = tl_open(appended.path, O_WRONLY | O_APPEND);
	CHECK_INT(write(fd, buf, sizeof(buf)), BLK);
	errno = 0;
	CHECK(fsync(fd) < 0 && errno == EIO, "fsync of an append to a bad block: %s",
	      strerror(errno));
	close(fd);
	expect_event(fan, "append writeback", EIO, &appended);

	kt_dust_add(DUST, frozen.blk, 1);
	fd = tl_open(frozen.path, O_WRONLY);
	CHECK_INT(pwrite(fd, buf, sizeof(buf), (off_t)frozen.offset), BLK);
	close(fd);
	int mfd = tl_open(MNT, O_RDONLY | O_DIRECTORY);
	CHECK(ioctl(mfd, FIFREEZE, 0) == 0, "FIFREEZE: %s", strerror(errno));
	CHECK(ioctl(mfd, FITHAW, 0) == 0, "FITHAW: %s", strerror(errno));
	close(mfd);
	expect_event(fan, "writeback forced by a freeze", EIO, &frozen);
}

/* The 4 KiB block that holds @v's inode (the filesystem is unmounted). */
static void find_inode_block(struct victim *v)
{
	unsigned long long daddr;
	const char *out = tl_out("xfs_db -r -c 'convert ino %llu daddr' %s",
				 (unsigned long long)v->ino, DEV);

	REQUIRE(sscanf(out, "%*s (%llu)", &daddr) == 1, "xfs_db convert ino: %s", out);
	v->blk = daddr * 512 / BLK;
}

/*
 * An inode cluster write that fails once (kernel/patches 1/10): chmod logs the inode,
 * FIFREEZE pushes the log's items to their blocks; the write fails, XFS
 * retries it, and the retry goes through.  One filesystem-wide EIO.
 */
static void metadata_write_error(int fan)
{
	struct stat st;

	REQUIRE(stat(mdwrite.path, &st) == 0, "stat: %s", strerror(errno));	/* cached */
	kt_dust_add(DUST, mdwrite.blk, 1);
	REQUIRE(chmod(mdwrite.path, 0600) == 0, "chmod: %s", strerror(errno));
	int fd = tl_open(MNT, O_RDONLY | O_DIRECTORY);
	CHECK(ioctl(fd, FIFREEZE, 0) == 0, "FIFREEZE: %s", strerror(errno));
	CHECK(ioctl(fd, FITHAW, 0) == 0, "FITHAW: %s", strerror(errno));
	close(fd);
	expect_event(fan, "inode cluster write failed once", EIO, NULL);
}

static void metadata_errors(int fan)
{
	char cmd[512];

	/* directory block that cannot be read */
	snprintf(cmd, sizeof(cmd), "ls %s >/dev/null 2>&1", dirio.path);
	CHECK(tl_sh("%s", cmd) != 0, "listing a directory with a bad block succeeded");
	expect_event(fan, "unreadable directory block", EIO, NULL);

	/* inode btree block that cannot be read */
	struct {
		struct xfs_inumbers_req req;
		struct xfs_inumbers rec[16];
	} inum;
	memset(&inum, 0, sizeof(inum));
	inum.req.hdr.flags = XFS_BULK_IREQ_AGNO;
	inum.req.hdr.agno = inobt_agno;
	inum.req.hdr.icount = 16;
	int fd = tl_open(MNT, O_RDONLY | O_DIRECTORY);
	errno = 0;
	CHECK(ioctl(fd, XFS_IOC_INUMBERS, &inum) < 0 && errno == EIO,
	      "INUMBERS over an unreadable inode btree: %s", strerror(errno));
	close(fd);
	expect_event(fan, "unreadable inode btree block", EIO, NULL);

	/* directory block that fails its verifier: marked sick, with the inode */
	fd = tl_open(dircorrupt.path, O_RDONLY | O_DIRECTORY);
	char buf[4096];
	errno = 0;
	CHECK(syscall(SYS_getdents64, fd, buf, sizeof(buf)) < 0 && errno == EFSCORRUPTED,
	      "reading a corrupt directory: %s", strerror(errno));
	close(fd);
	expect_event(fan, "corrupt directory block", EFSCORRUPTED, &dircorrupt);
}

/*
 * A buffered read or splice of REQUEST bytes from @v's bad block on: the trace
 * gives the folio that could not be read (kernel/patches 1/6), which holds the bad
 * block and is smaller than the request (the folio sizes of readahead vary).
 */
static void check_folio_trace(const char *trace, const struct victim *v)
{
	char want[128];
	unsigned long long pos, count;

	snprintf(want, sizeof(want), "ino 0x%llx gen 0x%x buffered_read pos ",
		 (unsigned long long)v->ino, v->gen);
	CHECK(kt_trace_count(trace, "xfs_file_ioerror:", want, NULL) == 1,
	      "%s: no single trace line \"%s\"", v->name, want);
	const char *line = strstr(trace, want);
	if (!line || sscanf(line + strlen(want), "0x%llx bytecount 0x%llx", &pos, &count) != 2)
		return;
	printf("%s: %llu-byte request, traced range %llu+%llu\n", v->name, (unsigned long long)REQUEST,
	       pos, count);
	CHECK(pos <= v->offset && v->offset < pos + count, "%s: traced range %llu+%llu misses "
	      "the bad block at %llu", v->name, pos, count, (unsigned long long)v->offset);
	CHECK(count >= BLK && count < REQUEST && pos % count == 0, "%s: traced range %llu+%llu "
	      "is not one folio smaller than the request", v->name, pos, count);
}

static void check_trace(const char *trace)
{
	const struct victim *v[] = { &direct, &mapped, &overwrite, &unwritten };
	const char *kind[] = { "direct_read", "mmap_read", "writeback", "writeback" };
	char want[256];

	check_folio_trace(trace, &buffered);
	check_folio_trace(trace, &spliced);
	for (size_t i = 0; i < 4; i++) {
		snprintf(want, sizeof(want),
			 "ino 0x%llx gen 0x%x %s pos 0x%llx bytecount 0x%x error 5",
			 (unsigned long long)v[i]->ino, v[i]->gen, kind[i],
			 (unsigned long long)v[i]->offset, BLK);
		CHECK(kt_trace_count(trace, "xfs_file_ioerror:", want, NULL) == 1,
		      "no single trace line \"%s\"", want);
	}
	/* the writes that had to read, and the direct write */
	struct {
		const struct victim *v;
		const char *kind;
		unsigned long long pos, len;
	} w[] = {
		{ &partial, "write_read", partial.offset, BLK },
		{ &zeroed, "write_read", zeroed.offset, BLK },
		{ &unshared, "write_read", unshared.offset, BLK },
		{ &deduped, "dedupe_read", deduped.offset, BLK },
		{ &dwrite, "direct_write", dwrite.offset, BLK },
		{ &aio, "direct_read", aio.offset, BLK },
		{ &appended, "writeback", appended.offset, BLK },
		{ &frozen, "writeback", frozen.offset, BLK },
	};
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		snprintf(want, sizeof(want), "ino 0x%llx gen 0x%x %s pos 0x%llx bytecount 0x%llx error 5",
			 (unsigned long long)w[i].v->ino, w[i].v->gen, w[i].kind, w[i].pos, w[i].len);
		CHECK(kt_trace_count(trace, "xfs_file_ioerror:", want, NULL) == 1,
		      "no single trace line \"%s\"", want);
	}
	CHECK_INT(kt_trace_count(trace, "xfs_file_ioerror:", NULL), 14);
}

static void unmount_with_events(void)
{
	struct kt_fserror ev[4];

	/* An event queued in fanotify while the filesystem goes away. */
	int fan = kt_fserror_listen(MNT);
	CHECK(read_at(direct.path, O_DIRECT, direct.offset, BLK) < 0, "direct read succeeded");
	struct pollfd pfd = { .fd = fan, .events = POLLIN };
	CHECK_INT(poll(&pfd, 1, EVENT_MS), 1);
	tl_umount(MNT);
	check_event("queued at unmount", ev, kt_fserror_read(fan, EVENT_MS, ev, 4), EIO, &direct);
	close(fan);

	/* A report still on its way when the unmount starts. */
	tl_mount(DEV, MNT, NULL);
	fan = kt_fserror_listen(MNT);
	CHECK(read_at(buffered.path, 0, buffered.offset, BLK) < 0, "buffered read succeeded");
	tl_umount(MNT);
	check_event("in flight at unmount", ev, kt_fserror_read(fan, EVENT_MS, ev, 4), EIO,
		    &buffered);
	close(fan);

	/* A block written without fsync: the unmount's sync writes it back,
	 * and that fails.  Patch 1/8 makes the sync deliver its reports while
	 * the superblock is still active, so the event has the handle.  (On
	 * this machine the series without 1/8 passes too: the worker
	 * happens to run before the unmount clears SB_ACTIVE.) */
	tl_mount(DEV, MNT, NULL);
	fan = kt_fserror_listen(MNT);
	kt_dust_add(DUST, atunmount.blk, 1);
	char buf[BLK];
	memset(buf, 0xa5, sizeof(buf));
	int fd = tl_open(atunmount.path, O_WRONLY);
	CHECK_INT(pwrite(fd, buf, sizeof(buf), (off_t)atunmount.offset), BLK);
	close(fd);
	tl_umount(MNT);
	check_event("writeback failed in unmount's sync", ev, kt_fserror_read(fan, EVENT_MS, ev, 4),
		    EIO, &atunmount);
	close(fan);
}

static void shutdown_event(void)
{
	uint32_t how = XFS_FSOP_GOING_FLAGS_NOLOGFLUSH;

	char buf[BLK];

	tl_mount(DEV, MNT, NULL);
	int fan = kt_fserror_listen(MNT);
	int file = tl_open(buffered.path, O_RDONLY);
	char *map = mmap(NULL, BLK, PROT_READ, MAP_SHARED, file, 0);
	REQUIRE(map != MAP_FAILED, "mmap: %s", strerror(errno));
	int fd = tl_open(MNT, O_RDONLY | O_DIRECTORY);
	CHECK(ioctl(fd, XFS_IOC_GOINGDOWN, &how) == 0, "GOINGDOWN: %s", strerror(errno));
	close(fd);
	expect_event(fan, "shutdown", ESHUTDOWN, NULL);

	/* After the shutdown, failures are not news.  A plain read fails at
	 * the door; a fault on a mapping made before the shutdown gets as far
	 * as the code that would report it. */
	errno = 0;
	CHECK(pread(file, buf, sizeof(buf), 0) < 0 && errno == EIO, "read after shutdown: %s",
	      strerror(errno));
	CHECK(touch_sigbus(map), "an mmap read fault after the shutdown did not fail");
	munmap(map, BLK);
	close(file);
	expect_no_event(fan, "reads after shutdown");
	close(fan);
	tl_umount(MNT);
}

/*
 * A log write fails (every block of the internal log fails its next writes): the next fsync shuts the filesystem down, and the
 * listener gets the shutdown (kernel/patches 1/11: that shutdown went unreported).
 */
static void log_write_shutdown(void)
{
	struct xfs_fsop_geom geo;
	unsigned int agblklog = 0;
	char path[64];

	tl_mount(DEV, MNT, NULL);
	int fan = kt_fserror_listen(MNT);
	int fd = tl_open(MNT, O_RDONLY | O_DIRECTORY);
	kt_geometry(fd, &geo);
	close(fd);
	while ((1ULL << agblklog) < geo.agblocks)
		agblklog++;
	uint64_t agno = geo.logstart >> agblklog;
	uint64_t first = agno * geo.agblocks + (geo.logstart & ((1ULL << agblklog) - 1));
	printf("internal log: %u blocks from block %llu\n", geo.logblocks,
	       (unsigned long long)first);
	/* 3 failures per block: dm-dust also counts the empty cache flush that
	 * goes ahead of a log write (REQ_PREFLUSH) as a write to that block,
	 * and with 1 the log write itself went through. */
	kt_dust_add_range(DUST, first, geo.logblocks, 3);
	snprintf(path, sizeof(path), MNT "/after-the-log-broke");
	fd = tl_open(path, O_WRONLY | O_CREAT);
	errno = 0;
	CHECK(fsync(fd) < 0, "fsync with a log that cannot be written succeeded");
	close(fd);
	expect_event(fan, "log write failed", ESHUTDOWN, NULL);
	close(fan);
	tl_umount(MNT);
}

int main(int argc, char **argv)
{
	const char *backing = argc > 1 ? argv[1] : "/dev/vda";
	static const char *const events[] = { "xfs:xfs_file_ioerror" };

	vt_require_vm();
	tl_allow_small_fs(DEV);
	kt_dust_create(DUST, backing);
	tl_mkfs(DEV, "%s -d agcount=4", vt_features());
	tl_mount(DEV, MNT, NULL);
	populate();
	clean_workload();

	/* Bad blocks and a corrupt directory, then a mount with cold caches. */
	find_inobt_root();
	find_inode_block(&mdwrite);
	corrupt_dir_block();
	struct victim *bad[] = { &buffered, &direct, &mapped, &dirio, &spliced, &partial, &zeroed,
				 &unshared, &deduped, &aio };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		kt_dust_add(DUST, bad[i]->blk, 0);
	kt_dust_add(DUST, inobt_blk, 0);
	kt_dust_enable(DUST, true);
	tl_mount(DEV, MNT, NULL);

	int fan = kt_fserror_listen(MNT);
	kt_trace_start(events, 1);
	data_read_errors(fan);
	write_back_to_bad_block(fan, &overwrite, "writeback of an overwrite");
	write_back_to_bad_block(fan, &unwritten, "writeback into an unwritten extent");
	write_errors(fan);
	async_direct_read(fan);
	more_writeback(fan);
	char *trace = kt_trace_stop();
	check_trace(trace);
	free(trace);
	metadata_errors(fan);
	metadata_write_error(fan);
	expect_no_event(fan, "after the last error");
	close(fan);

	unmount_with_events();
	shutdown_event();
	log_write_shutdown();

	kt_dust_remove(DUST);
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
