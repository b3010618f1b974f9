// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel log records that tell of damage, as /dev/kmsg returns them; and
 * lines that only look like them (text a user got the kernel to print):
 * those must never be taken for the block layer's or XFS's own.
 */
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

/* A record whose text must not be recognised. */
#define CHECK_OTHER(rec)                                                        \
	do {                                                                    \
		struct md_kmsg_line o_ = parse(rec);                            \
		CHECK(o_.kind == MD_KMSG_OTHER, "recognised as kind %d: %s", o_.kind, rec); \
		CHECK_STR(o_.dev, "");                                          \
	} while (0)

static void genuine(void)
{
	struct md_kmsg_line l;

	/* block layer, as 6.12 prints it (facility 0, level 3, no fields) */
	l = parse("3,1234,5678901,-;I/O error, dev mdnull0, sector 704 op 0x0:(READ) flags 0x84700 "
		  "phys_seg 32 prio class 2\n");
	CHECK_INT(l.kind, MD_KMSG_BLOCK_ERROR);
	CHECK_INT(l.facility, 0);
	CHECK_INT(l.level, 3);
	CHECK_INT(l.seq, 1234);
	CHECK_STR(l.dev, "mdnull0");
	CHECK_INT(l.sector, 704);
	CHECK_STR(l.what, "I/O");
	CHECK_STR(md_blk_op_name(l.op), "READ");
	CHECK_STR(l.subsystem, "");
	CHECK_STR(l.device, "");
	l = parse("3,9,9,-;critical medium error, dev sda, sector 9152 op 0x0:(READ) flags 0x80700 "
		  "phys_seg 128 prio class 2\n");
	CHECK_INT(l.kind, MD_KMSG_BLOCK_ERROR);
	CHECK_STR(l.what, "critical medium");
	CHECK_STR(l.dev, "sda");
	CHECK_INT(l.sector, 9152);
	l = parse("3,10,9,-;I/O error, dev nvme0n1, sector 18446744073709551615 op 0x3:(DISCARD) "
		  "flags 0x0 phys_seg 1 prio class 0\n");
	CHECK_INT(l.kind, MD_KMSG_BLOCK_ERROR);
	CHECK_INT(l.sector, UINT64_MAX);
	CHECK_STR(md_blk_op_name(l.op), "DISCARD");
	/* 5.x: the same shape after the caller's name */
	l = parse("3,1,1,-;blk_update_request: I/O error, dev sdb, sector 123456789 op 0x1:(WRITE) "
		  "flags 0x0 phys_seg 1 prio class 0\n");
	CHECK_INT(l.kind, MD_KMSG_BLOCK_ERROR);
	CHECK_STR(l.dev, "sdb");
	CHECK_INT(l.sector, 123456789);
	CHECK_STR(md_blk_op_name(l.op), "WRITE");
	/* structured fields, when a record has them, are returned */
	l = parse("3,2,1,-;I/O error, dev sdb, sector 8 op 0x0:(READ) flags 0x0 phys_seg 1 prio "
		  "class 0\n SUBSYSTEM=block\n DEVICE=b8:16\n");
	CHECK_INT(l.kind, MD_KMSG_BLOCK_ERROR);
	CHECK_STR(l.subsystem, "block");
	CHECK_STR(l.device, "b8:16");

	/* XFS */
	l = parse("3,77,1,-;XFS (dm-0): metadata I/O error in \"xfs_da_read_buf+0xa0/0x116 [xfs]\" "
		  "at daddr 0x180878 len 8 error 5\n");
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
	l = parse("1,79,1,-;XFS (vdb): Metadata corruption detected at xfs_buf_ioend+0x1/0x2, "
		  "xfs_bnobt block 0x10\n");
	CHECK_INT(l.kind, MD_KMSG_XFS_CORRUPT_BLOCK);
	CHECK_STR(l.what, "xfs_bnobt");
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
	l = parse("2,83,1,-;XFS (vdb): Metadata I/O Error (0x1) detected at xfs_fs_goingdown+0x5/0x9 "
		  "(fs/xfs/xfs_fsops.c:458).  Shutting down filesystem.\n");
	CHECK_INT(l.kind, MD_KMSG_XFS_SHUTDOWN);
	l = parse("2,84,1,-;XFS (vdb): Filesystem has been shut down due to log error (0x2).\n");
	CHECK_INT(l.kind, MD_KMSG_XFS_SHUTDOWN);
	CHECK_STR(l.dev, "vdb");
}

/* Lines a local user can get the kernel to print: a path or a name some
 * subsystem echoes in its own message, somewhere in the line. */
static void forged(void)
{
	/* the block shape after someone else's words */
	CHECK_OTHER("3,90,1,-;audit: open(\"/tmp/x/I/O error, dev sda, sector 8 op 0x0:(READ) "
		    "flags 0x0 phys_seg 1 prio class 0\") failed\n");
	CHECK_OTHER("3,91,1,-;foo: I/O error, dev sda, sector 8 op 0x0:(READ) flags 0x0 phys_seg 1 "
		    "prio class 0\n");
	CHECK_OTHER("3,92,1,-;comm[123]: I/O error, dev sda, sector 8 op 0x0:(READ) flags 0x0 "
		    "phys_seg 1 prio class 0\n");
	/* the block shape followed by more text */
	CHECK_OTHER("3,93,1,-;I/O error, dev sda, sector 8 op 0x0:(READ) flags 0x0 phys_seg 1 prio "
		    "class 0: no such file\n");
	CHECK_OTHER("3,94,1,-;I/O error, dev sda, sector 8 op 0x0:(READ) flags 0x0 phys_seg 1 prio "
		    "class 0 \n");
	/* a shortened block line (what the old parser took) */
	CHECK_OTHER("3,95,1,-;I/O error, dev sda, sector 8\n");
	CHECK_OTHER("3,96,1,-;end_request: I/O error, dev sdc, sector 42\n");
	/* status words the block layer does not have */
	CHECK_OTHER("3,97,1,-;evil error, dev sda, sector 8 op 0x0:(READ) flags 0x0 phys_seg 1 "
		    "prio class 0\n");
	CHECK_OTHER("3,98,1,-; I/O error, dev sda, sector 8 op 0x0:(READ) flags 0x0 phys_seg 1 "
		    "prio class 0\n");
	/* an operation name that is not its code's */
	CHECK_OTHER("3,99,1,-;I/O error, dev sda, sector 8 op 0x3:(READ) flags 0x0 phys_seg 1 "
		    "prio class 0\n");
	CHECK_OTHER("3,100,1,-;I/O error, dev sda, sector 8 op 0x0:(FOO) flags 0x0 phys_seg 1 "
		    "prio class 0\n");
	/* device names no disk has */
	CHECK_OTHER("3,101,1,-;I/O error, dev my disk, sector 8 op 0x0:(READ) flags 0x0 "
		    "phys_seg 1 prio class 0\n");
	CHECK_OTHER("3,102,1,-;I/O error, dev ../sda, sector 8 op 0x0:(READ) flags 0x0 "
		    "phys_seg 1 prio class 0\n");
	CHECK_OTHER("3,103,1,-;I/O error, dev , sector 8 op 0x0:(READ) flags 0x0 phys_seg 1 "
		    "prio class 0\n");
	CHECK_OTHER("3,103,1,-;I/O error, dev .., sector 8 op 0x0:(READ) flags 0x0 phys_seg 1 "
		    "prio class 0\n");
	CHECK_OTHER("3,103,1,-;XFS (..): Corruption detected. Unmount and run xfs_repair\n");
	CHECK_OTHER("3,104,1,-;I/O error, dev aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa, sector 8 op "
		    "0x0:(READ) flags 0x0 phys_seg 1 prio class 0\n");
	/* numbers that are not numbers, or too large */
	CHECK_OTHER("3,105,1,-;I/O error, dev sda, sector -8 op 0x0:(READ) flags 0x0 phys_seg 1 "
		    "prio class 0\n");
	CHECK_OTHER("3,106,1,-;I/O error, dev sda, sector 18446744073709551616 op 0x0:(READ) "
		    "flags 0x0 phys_seg 1 prio class 0\n");
	CHECK_OTHER("3,107,1,-;I/O error, dev sda, sector  8 op 0x0:(READ) flags 0x0 phys_seg 1 "
		    "prio class 0\n");

	/* XFS lines with someone else's words in them */
	CHECK_OTHER("2,110,1,-;XFS (vdb): unknown mount option [Shutting down filesystem].\n");
	CHECK_OTHER("2,111,1,-;XFS (vdb): Mounting V5 Filesystem.  Filesystem has been shut down\n");
	CHECK_OTHER("2,112,1,-;x: XFS (vdb): Corruption detected. Unmount and run xfs_repair\n");
	CHECK_OTHER("2,113,1,-;XFS (vdb): Corruption detected. Unmount and run xfs_repair now\n");
	CHECK_OTHER("2,114,1,-;XFS (vdb): Corruption detected in /home/u/x\n");
	CHECK_OTHER("1,115,1,-;XFS (vdb): Metadata corruption detected at x+0x1/0x2, xfs_agf block "
		    "0x1 \"$(evil)\"\n");
	CHECK_OTHER("3,116,1,-;XFS (vdb): metadata I/O error in \"f\" at daddr 0x10 len 8 error 5 "
		    "and more\n");
	CHECK_OTHER("3,117,1,-;XFS (v db): metadata I/O error in \"f\" at daddr 0x10 len 8 "
		    "error 5\n");
	CHECK_OTHER("3,118,1,-;XFS (vdb): metadata I/O error in \"f\" at daddr 0x10 len 8 "
		    "error 99999\n");
	CHECK_OTHER("2,119,1,-;XFS (vdb): Oops (0x8) detected at f+0x1/0x2 (a.c:1).  Shutting down "
		    "filesystem. really\n");
}

int main(void)
{
	struct md_kmsg_line l;
	char big[2048];

	genuine();
	forged();
	/* nothing for us */
	CHECK_OTHER("6,83,1,-;XFS (vdb): Mounting V5 Filesystem 1234\n");
	CHECK_OTHER("6,84,1,-;null_blk: disk mdnull0 created\n");
	CHECK_OTHER("3,85,1,-;Buffer I/O error on dev sda1, logical block 0, async page read\n");
	/* written by a user through /dev/kmsg: facility 1, the source ignores it */
	l = parse("11,86,1,-;I/O error, dev sda, sector 1 op 0x0:(READ) flags 0x0 phys_seg 1 prio "
		  "class 0\n");
	CHECK_INT(l.kind, MD_KMSG_BLOCK_ERROR);
	CHECK_INT(l.facility, 1);
	/* a record longer than our buffer is not cut into something else */
	memset(big, 'x', sizeof(big));
	memcpy(big, "3,87,1,-;", 9);
	memcpy(big + 9, "I/O error, dev sda, sector 8 op 0x0:(READ) flags 0x0 phys_seg 1 prio class 0",
	       77);
	big[sizeof(big) - 1] = '\n';
	CHECK_INT(md_kmsg_parse_record(big, sizeof(big), &l), 0);
	CHECK_INT(l.kind, MD_KMSG_OTHER);
	/* a field line too long to be real still marks the record as not ours */
	l = parse("3,88,1,-;I/O error, dev sda, sector 8 op 0x0:(READ) flags 0x0 phys_seg 1 prio "
		  "class 0\n SUBSYSTEM=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n");
	CHECK(l.subsystem[0] != '\0', "an over-long SUBSYSTEM= field was ignored");
	/* malformed */
	CHECK_INT(md_kmsg_parse_record("no header here", 14, &l), -EINVAL);
	CHECK_INT(md_kmsg_parse_record("3,x,1,-;text", 12, &l), -EINVAL);
	return check_done();
}
