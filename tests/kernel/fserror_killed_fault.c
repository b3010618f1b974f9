// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A task killed while a page fault waits for its read is not a disk error
 * (issue 13, defect 7).  The fault then ends in SIGBUS with nothing wrong on
 * disk: filemap_read_folio() turns the interrupted wait into -EINTR, and
 * filemap_fault() answers VM_FAULT_SIGBUS for any error.
 *
 * The fault must wait in filemap_read_folio() with the fault lock held, which
 * is where a kill gives SIGBUS rather than a retried fault: a fault that may
 * not drop the lock (a read of /proc/PID/mem), on a folio that is in the page
 * cache but not uptodate (left so by an earlier read that failed), on a
 * device that holds every new I/O (dm suspended without flushing).
 *
 * 1. A block of a file is made unreadable (dm-dust); read() of it fails with
 *    EIO: one event, naming the file.
 * 2. A helper maps the file; dm is suspended; a second helper reads the
 *    mapped block through /proc/PID/mem and waits in the fault (state D),
 *    and is killed; dm resumes.  Expected: no event, no mmap_read trace line.
 * 3. Control, so that step 2 cannot pass without reaching the fault path:
 *    the helper touches the block itself and dies of SIGBUS: one event
 *    naming the file, one mmap_read trace line.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "fserror_listen.h"
#include "ktest.h"
#include "vmtest.h"

#define DUST "kfault"
#define DEV "/dev/mapper/" DUST
#define MNT "/tmp/mnt"
#define FILE_PATH MNT "/mapped"
#define BLK 4096
#define NBLOCKS 16
#define BAD 5			/* the unreadable block of the file */
#define EVENT_MS 10000
#define NO_EVENT_MS 1500

/* The mapping's owner: maps the file, says where, then touches block BAD
 * when told to (byte 't' on @cmd) or just waits to be killed. */
static pid_t start_mapper(int *addr_rd, int *cmd_wr)
{
	int to_parent[2], to_child[2];

	REQUIRE(pipe(to_parent) == 0 && pipe(to_child) == 0, "pipe");
	pid_t pid = fork();

	REQUIRE(pid >= 0, "fork");
	if (pid == 0) {
		int fd = open(FILE_PATH, O_RDONLY);
		char *map = fd < 0 ? MAP_FAILED :
			    mmap(NULL, NBLOCKS * BLK, PROT_READ, MAP_SHARED, fd, 0);
		uintptr_t where = map == MAP_FAILED ? 0 : (uintptr_t)(map + BAD * BLK);
		char c;

		if (write(to_parent[1], &where, sizeof(where)) != sizeof(where) || !where)
			_exit(2);
		while (read(to_child[0], &c, 1) == 1) {
			if (c == 't')
				c = *(volatile char *)where;	/* SIGBUS */
		}
		_exit(0);
	}
	close(to_parent[1]);
	close(to_child[0]);
	*addr_rd = to_parent[0];
	*cmd_wr = to_child[1];
	return pid;
}

/* Reads the mapped byte through /proc/@target/mem: the remote access may not
 * drop the fault lock, so the fault waits in filemap_read_folio(). */
static pid_t start_remote_reader(pid_t target, uintptr_t where)
{
	pid_t pid = fork();

	REQUIRE(pid >= 0, "fork");
	if (pid == 0) {
		char path[64], c;

		snprintf(path, sizeof(path), "/proc/%d/mem", (int)target);
		int fd = open(path, O_RDONLY);

		if (fd < 0)
			_exit(2);
		(void)!pread(fd, &c, 1, (off_t)where);
		_exit(0);
	}
	return pid;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	const char *backing = argc > 1 ? argv[1] : "/dev/vda";
	static const char *const events[] = { "xfs:xfs_file_ioerror" };
	uint64_t ino;
	uint32_t gen;
	char buf[BLK];
	int status;

	vt_require_vm();
	tl_allow_small_fs(DEV);
	kt_dust_create(DUST, backing);
	tl_mkfs(DEV, "%s", vt_features());
	tl_mount(DEV, MNT, NULL);
	tl_write_file(FILE_PATH, NBLOCKS * BLK, 3, true);
	tl_ino_gen(FILE_PATH, &ino, &gen);
	uint64_t phys = tl_fork_physical(FILE_PATH, BAD * BLK, false);

	tl_umount(MNT);
	kt_dust_add(DUST, phys / BLK, 0);
	kt_dust_enable(DUST, true);
	tl_mount(DEV, MNT, NULL);
	int fan = kt_fserror_listen(MNT);

	/* 1. The failed read leaves the folio in the page cache, not uptodate. */
	int fd = tl_open(FILE_PATH, O_RDONLY);

	errno = 0;
	CHECK(pread(fd, buf, BLK, BAD * BLK) < 0 && errno == EIO, "read of the bad block: %s",
	      strerror(errno));
	close(fd);
	kt_fserror_expect_file(fan, EVENT_MS, "read", EIO, ino, gen);

	/* 2. A fault killed while it waits for the read. */
	int addr_rd, cmd_wr;
	uintptr_t where = 0;
	pid_t mapper = start_mapper(&addr_rd, &cmd_wr);

	REQUIRE(read(addr_rd, &where, sizeof(where)) == sizeof(where) && where, "mapper");
	kt_trace_start(events, 1);
	tl_must("dmsetup suspend --nolockfs --noflush " DUST);
	pid_t reader = start_remote_reader(mapper, where);
	char state = '?';

	for (int i = 0; i < 50 && state != 'D'; i++) {
		sleep_ms(100);
		state = tl_task_state(reader);
	}
	CHECK(state == 'D', "the /proc/PID/mem reader is not waiting for the read (state %c)",
	      state);
	kill(reader, SIGKILL);
	REQUIRE(waitpid(reader, &status, 0) == reader, "waitpid");
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	      "the reader was not killed while it waited (status 0x%x)", status);
	tl_must("dmsetup resume " DUST);
	char *trace = kt_trace_stop();

	printf("killed fault trace:\n%s", trace);
	CHECK_INT(kt_trace_count(trace, "xfs_file_ioerror:", " mmap_read ", (char *)NULL), 0);
	free(trace);
	kt_fserror_expect_none(fan, NO_EVENT_MS, "after the killed fault");

	/* 3. Control: the same fault, not killed, is a disk error. */
	kt_trace_start(events, 1);
	REQUIRE(write(cmd_wr, "t", 1) == 1, "mapper command");
	REQUIRE(waitpid(mapper, &status, 0) == mapper, "waitpid");
	trace = kt_trace_stop();
	printf("control fault trace:\n%s", trace);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS,
	      "touching the bad block did not end in SIGBUS (status 0x%x)", status);
	CHECK_INT(kt_trace_count(trace, "xfs_file_ioerror:", " mmap_read ", (char *)NULL), 1);
	free(trace);
	kt_fserror_expect_file(fan, EVENT_MS, "mmap read", EIO, ino, gen);
	kt_fserror_expect_none(fan, NO_EVENT_MS, "mmap read");

	close(addr_rd);
	close(cmd_wr);
	close(fan);
	tl_umount(MNT);
	kt_dust_remove(DUST);
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
