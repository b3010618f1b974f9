// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Copy-on-write writeback that the disk fails is reported with the file that
 * lost the write (issue 13: CoW writeback).
 *
 * A 64 KiB file and its reflinked copy share every block.  Overwriting a
 * block of the copy makes writeback allocate a new block for it (the CoW
 * fork) and write there; where the allocator puts it is not known in
 * advance, so every block that is free at that moment is made to fail its
 * writes (dm-dust, from the free space records of GETFSMAP).
 *
 * Expected: fsync of the copy fails with EIO; one xfs_file_ioerror trace line,
 * kind "writeback", for exactly the overwritten block of the copy; one EIO
 * event naming the copy; the original still reads back unchanged (its shared
 * block was never written); and after dm-dust stops failing writes, the
 * filesystem takes writes, and xfs_repair -n is clean after unmount.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "badblock.h"
#include "check.h"
#include "fserror_listen.h"
#include "ktest.h"
#include "vmtest.h"

#define ORIG BB_MNT "/orig"
#define COPY BB_MNT "/copy"
#define BLK 4096
#define OVERWRITTEN 3		/* block of the copy that is overwritten */
#define EVENT_MS 10000
#define NO_EVENT_MS 1500

/* Make every 4 KiB block that GETFSMAP reports as free fail its writes;
 * returns how many blocks. */
static uint64_t fail_free_space(void)
{
	const char *list = tl_out("xfs_io -c 'fsmap -d' " BB_MNT " | awk '/free space/ {print $3}'");
	uint64_t total = 0;

	for (const char *p = list; *p;) {
		unsigned long long first, last;

		/* "[first..last]:" in 512-byte sectors, inclusive */
		REQUIRE(sscanf(p, "[%llu..%llu]:", &first, &last) == 2, "fsmap line: %.40s", p);
		uint64_t b0 = (first + 7) / 8, b1 = (last + 1) / 8;

		if (b1 > b0) {
			kt_dust_add_range(BB_DUST, b0, b1 - b0, 255);
			total += b1 - b0;
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : "";
	}
	return total;
}

int main(int argc, char **argv)
{
	const char *backing = argc > 1 ? argv[1] : "/dev/vda";
	static const char *const events[] = { "xfs:xfs_file_ioerror" };
	char buf[BLK], want[160];
	uint64_t ino;
	uint32_t gen;

	vt_require_vm();
	bb_setup(backing, "-d agcount=4");
	tl_write_file(ORIG, 16 * BLK, 9, true);
	tl_reflink(ORIG, COPY);
	sync();
	tl_ino_gen(COPY, &ino, &gen);
	char *orig_before = strdup(tl_out("sha256sum " ORIG));

	uint64_t nfree = fail_free_space();

	printf("%llu free blocks fail their writes\n", (unsigned long long)nfree);
	REQUIRE(nfree > 0, "no free space found");
	kt_dust_enable(BB_DUST, true);
	int fan = kt_fserror_listen(BB_MNT);

	memset(buf, 'z', sizeof(buf));
	int fd = tl_open(COPY, O_WRONLY);

	CHECK_INT(pwrite(fd, buf, BLK, OVERWRITTEN * BLK), BLK);
	kt_trace_start(events, 1);
	errno = 0;
	int rc = fsync(fd);
	int err = errno;
	char *trace = kt_trace_stop();

	close(fd);
	printf("fsync: %s\ntrace:\n%s", rc ? strerror(err) : "no error", trace);
	CHECK(rc < 0 && err == EIO, "fsync of the CoW overwrite: %s", rc ? strerror(err) : "ok");
	snprintf(want, sizeof(want), "ino 0x%llx gen 0x%x writeback pos 0x%x bytecount 0x%x error 5",
		 (unsigned long long)ino, gen, OVERWRITTEN * BLK, BLK);
	CHECK(kt_trace_count(trace, "xfs_file_ioerror:", want, (char *)NULL) == 1,
	      "no single trace line \"%s\"", want);
	CHECK_INT(kt_trace_count(trace, "xfs_file_ioerror:", (char *)NULL), 1);
	free(trace);

	kt_fserror_expect_file(fan, EVENT_MS, "CoW writeback", EIO, ino, gen);
	kt_fserror_expect_none(fan, NO_EVENT_MS, "CoW writeback");
	close(fan);

	/* The original kept its data: the shared block was never written. */
	tl_must("echo 3 > /proc/sys/vm/drop_caches");
	CHECK_STR(tl_out("sha256sum " ORIG), orig_before);
	free(orig_before);

	/* Free space takes writes again (dm-dust off): the filesystem is fine. */
	kt_dust_enable(BB_DUST, false);
	CHECK(bb_fs_alive(), "the filesystem is shut down or unmounted");
	CHECK_INT(bb_finish(), 0);
	return check_done();
}
