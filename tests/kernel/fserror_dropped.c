// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Writeback that cannot map a range to disk blocks drops the data: that is
 * reported as dropped data (kernel/patches 1/13), not as a write that the
 * disk failed (1/7).
 *
 * A file has 12 one-block extents with holes between them.  Block 0 is
 * overwritten (writeback maps it at once and starts an ioend with it) and
 * block 1, a hole, is written (delayed allocation).  With the XFS errortag
 * reduce_max_iextents set, converting block 1 to a real extent fails with
 * EFBIG, a mapping failure: writeback drops block 1's folio and ends the
 * ioend that holds block 0 without submitting it.  Nothing failed on disk.
 *
 * Expected: fsync fails; the xfs_file_ioerror tracepoint shows two "discard"
 * lines (block 1's folio, then block 0's unsubmitted ioend) and no
 * "writeback" line; the listener gets one event, EIO, naming the file.
 * Before 1/13 (with 1/7): no trace line and no event, since 1/7 reports
 * only ioends that went to the disk and nothing reports dropped data yet;
 * before 1/7, writeback reports nothing at all.  On the series before
 * issue 37, whose 1/7 still reported every failed ioend: one "writeback"
 * line for block 0 with error 5 and no "discard" line.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fserror_listen.h"
#include "ktest.h"
#include "vmtest.h"

#define MNT "/tmp/mnt"
#define FILE_PATH MNT "/dropped"
#define BLK 4096
#define EXTENTS 12
#define EVENT_MS 10000
#define NO_EVENT_MS 1500

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : "/dev/vda";
	static const char *const events[] = { "xfs:xfs_file_ioerror" };
	uint64_t ino;
	uint32_t gen;

	vt_require_vm();
	tl_allow_small_fs(dev);
	tl_mkfs(dev, "%s", vt_features());
	tl_mount(dev, MNT, NULL);

	int fd = tl_open(FILE_PATH, O_RDWR | O_CREAT | O_TRUNC);

	for (int i = 0; i < EXTENTS; i++)
		tl_write_block(fd, 2 * i, 'a');
	REQUIRE(fsync(fd) == 0, "fsync: %s", strerror(errno));
	tl_ino_gen(FILE_PATH, &ino, &gen);

	tl_write_block(fd, 0, 'b');	/* overwrite: mapped at once */
	tl_write_block(fd, 1, 'c');	/* hole: delayed allocation */

	int fan = kt_fserror_listen(MNT);

	kt_errortag(kt_fs_name(dev), "reduce_max_iextents", 1);
	kt_trace_start(events, 1);
	int rc = fsync(fd);
	int err = rc ? errno : 0;
	char *trace = kt_trace_stop();

	kt_errortag(kt_fs_name(dev), "reduce_max_iextents", 0);
	printf("fsync: %s\ntrace:\n%s", rc ? strerror(err) : "no error", trace);

	CHECK(rc != 0, "fsync succeeded although writeback could not map block 1");
	char want[160];

	for (unsigned int blk = 0; blk < 2; blk++) {
		snprintf(want, sizeof(want), "ino 0x%llx gen 0x%x discard pos 0x%x bytecount 0x%x error 5",
			 (unsigned long long)ino, gen, blk * BLK, BLK);
		CHECK(kt_trace_count(trace, "xfs_file_ioerror:", want, (char *)NULL) == 1,
		      "no single trace line \"%s\"", want);
	}
	CHECK_INT(kt_trace_count(trace, "xfs_file_ioerror:", " discard ", (char *)NULL), 2);
	CHECK_INT(kt_trace_count(trace, "xfs_file_ioerror:", " writeback ", (char *)NULL), 0);

	kt_fserror_expect_file(fan, EVENT_MS, "dropped data", EIO, ino, gen);
	kt_fserror_expect_none(fan, NO_EVENT_MS, "dropped data");

	free(trace);
	close(fan);
	close(fd);
	tl_umount(MNT);
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
