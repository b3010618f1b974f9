// SPDX-License-Identifier: GPL-2.0-or-later
/* Kernel log records that tell of damage, as /dev/kmsg returns them. */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "kmsg_parse.h"

static struct md_kmsg_line parse(const char *rec)
{
	struct md_kmsg_line l;

	CHECK_INT(md_kmsg_parse_record(rec, strlen(rec), &l), 0);
	return l;
}

int main(void)
{
	struct md_kmsg_line l;

	/* block layer, as 6.12 prints it (facility 0, level 3) */
	l = parse("3,1234,5678901,-;I/O error, dev mdnull0, sector 704 op 0x0:(READ) flags 0x84700 "
		  "phys_seg 32 prio class 2\n SUBSYSTEM=block\n DEVICE=+block:mdnull0\n");
	CHECK_INT(l.kind, MD_KMSG_BLOCK_ERROR);
	CHECK_INT(l.facility, 0);
	CHECK_INT(l.level, 3);
	CHECK_INT(l.seq, 1234);
	CHECK_STR(l.dev, "mdnull0");
	CHECK_INT(l.sector, 704);
	CHECK_STR(l.what, "I/O");
	CHECK_STR(l.op, "READ");
	l = parse("3,9,9,-;critical medium error, dev sda, sector 9152 op 0x0:(READ) flags 0x80700 "
		  "phys_seg 128 prio class 2\n");
	CHECK_INT(l.kind, MD_KMSG_BLOCK_ERROR);
	CHECK_STR(l.what, "critical medium");
	CHECK_STR(l.dev, "sda");
	CHECK_INT(l.sector, 9152);
	/* older kernels */
	l = parse("3,1,1,-;blk_update_request: I/O error, dev sdb, sector 123456789 op 0x1:(WRITE) "
		  "flags 0x0 phys_seg 1 prio class 0\n");
	CHECK_INT(l.kind, MD_KMSG_BLOCK_ERROR);
	CHECK_STR(l.dev, "sdb");
	CHECK_INT(l.sector, 123456789);
	CHECK_STR(l.op, "WRITE");
	l = parse("3,1,1,-;end_request: I/O error, dev sdc, sector 42\n");
	CHECK_INT(l.kind, MD_KMSG_BLOCK_ERROR);
	CHECK_STR(l.dev, "sdc");
	CHECK_INT(l.sector, 42);
	CHECK_STR(l.op, "");

	/* XFS */
	l = parse("3,77,1,-;XFS (dm-0): metadata I/O error in \"xfs_da_read_buf+0xa0/0x116\" at "
		  "daddr 0x180878 len 8 error 5\n");
	CHECK_INT(l.kind, MD_KMSG_XFS_METADATA_IO);
	CHECK_STR(l.dev, "dm-0");
	CHECK_INT(l.sector, 0x180878);
	CHECK_INT(l.length, 8);
	CHECK_INT(l.error, 5);
	l = parse("1,78,1,-;XFS (sda1): Metadata corruption detected at xfs_dir3_data_read_verify+0x9a/"
		  "0x100, xfs_dir3_data block 0x4c60 \n");
	CHECK_INT(l.kind, MD_KMSG_XFS_CORRUPT_BLOCK);
	CHECK_STR(l.dev, "sda1");
	CHECK_INT(l.sector, 0x4c60);
	CHECK_STR(l.what, "xfs_dir3_data");
	CHECK_INT(l.error, EUCLEAN);
	l = parse("1,79,1,-;XFS (vdb): Metadata CRC error detected at xfs_agf_read_verify+0x1a/0x60, "
		  "xfs_agf block 0x1 \n");
	CHECK_INT(l.kind, MD_KMSG_XFS_CORRUPT_BLOCK);
	CHECK_INT(l.sector, 1);
	CHECK_INT(l.error, EBADMSG);
	l = parse("1,80,1,-;XFS (vdb): Metadata corruption detected at xfs_dinode_verify+0x1/0x2, "
		  "inode 0x83 dinode\n");
	CHECK_INT(l.kind, MD_KMSG_XFS_CORRUPT_INODE);
	CHECK_INT(l.ino, 0x83);
	l = parse("1,81,1,-;XFS (vdb): Corruption detected. Unmount and run xfs_repair\n");
	CHECK_INT(l.kind, MD_KMSG_XFS_CORRUPTION);
	CHECK_STR(l.dev, "vdb");
	l = parse("2,82,1,-;XFS (vdb): Corruption of in-memory data (0x8) detected at "
		  "xfs_trans_cancel+0x1/0x2 (fs/xfs/xfs_trans.c:1098).  Shutting down filesystem.\n");
	CHECK_INT(l.kind, MD_KMSG_XFS_SHUTDOWN);
	CHECK_INT(l.error, ESHUTDOWN);

	/* nothing for us */
	l = parse("6,83,1,-;XFS (vdb): Mounting V5 Filesystem 1234\n");
	CHECK_INT(l.kind, MD_KMSG_OTHER);
	l = parse("6,84,1,-;null_blk: disk mdnull0 created\n");
	CHECK_INT(l.kind, MD_KMSG_OTHER);
	l = parse("3,85,1,-;Buffer I/O error on dev sda1, logical block 0, async page read\n");
	CHECK_INT(l.kind, MD_KMSG_OTHER);
	/* written by a user through /dev/kmsg: facility 1, the source ignores it */
	l = parse("11,86,1,-;I/O error, dev sda, sector 1 op 0x0:(READ)\n");
	CHECK_INT(l.kind, MD_KMSG_BLOCK_ERROR);
	CHECK_INT(l.facility, 1);
	/* malformed */
	CHECK_INT(md_kmsg_parse_record("no header here", 14, &l), -EINVAL);
	CHECK_INT(md_kmsg_parse_record("3,x,1,-;text", 12, &l), -EINVAL);
	return check_done();
}
