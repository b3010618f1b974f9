// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A transient read error is not a lost inode (issue 34, item 4; both
 * profiles).  The fixture of icluster.h: 32 files fill a 16 KiB cluster,
 * its last 4 KiB block (8 of them) fails reads (dm-dust).
 *
 * - A plain scrub (no REPAIR flag) of an inode of the cluster answers EIO,
 *   as stock 6.12 does: it only failed to read, it found nothing corrupt.
 *   Before the fix it said CORRUPT, which sends every tool that repairs
 *   what scrub calls corrupt (xfs_scrub -r) into the rebuild.
 * - REPAIR of a file of the block while a child process follows
 *   trace_pipe and removes the bad block from dm-dust (through the
 *   device-mapper ioctl) as soon as the first xrep_icluster_unreadable line
 *   appears: the block fails once, then reads.  The repair must succeed and
 *   rebuild nothing (no xrep_icluster_rebuild line, no kernel log line about
 *   a rebuild); all 32 files keep generation, mode, owner, size, mtime and
 *   data; the cluster scrubs clean, xfs_repair -n is clean.  Before the fix
 *   the first piece that failed was rebuilt from evidence at once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "badblock.h"
#include "check.h"
#include "icluster.h"
#include "ktest.h"
#include "vmtest.h"
#include "xfs_abi.h"

#define TARGET_FILE 60

static struct ic_fs fs;

static int rebuild_log_lines(void)
{
	return atoi(tl_out("dmesg | grep -c 'inode cluster at daddr 0x%llx: rebuilt' || true",
			   fs.cluster_daddr));
}

int main(int argc, char **argv)
{
	static const char *const events[] = {
		"xfs_scrub:xrep_icluster_unreadable", "xfs_scrub:xrep_icluster_rebuild",
	};
	const char *backing = argc > 1 ? argv[1] : "/dev/vda";
	struct ic_file *t;
	uint32_t oflags;
	struct stat st;
	int rc, nlog;
	pid_t healer;
	char *trace;

	vt_require_vm();
	ic_setup(&fs, backing, -1, NULL);
	t = &fs.f[TARGET_FILE];
	REQUIRE(t->in_bad_block, "%s is not in the bad block", t->path);
	tl_umount(BB_MNT);
	kt_dust_add(BB_DUST, fs.dust_blk, 0);
	kt_dust_enable(BB_DUST, true);
	tl_mount(BB_DEV, BB_MNT, NULL);
	CHECK_INT(ic_stat(t->path, &st), -EIO);

	/* A plain scrub only failed to read: EIO, not CORRUPT. */
	rc = ic_scrub(XFS_SCRUB_TYPE_INODE, t->st.st_ino, t->gen, 0, &oflags);
	printf("scrub of %s: rc %d flags 0x%x\n", t->path, rc, oflags);
	CHECK(rc == -EIO, "scrub without REPAIR of an inode that cannot be read: rc %d flags "
	      "0x%x, expected EIO", rc, oflags);
	rc = ic_scrub(XFS_SCRUB_TYPE_INODE, fs.first, 0, 0, &oflags);
	CHECK(rc == -EIO, "scrub without REPAIR of the first inode of the cluster: rc %d "
	      "flags 0x%x, expected EIO", rc, oflags);

	nlog = rebuild_log_lines();
	CHECK_INT(bb_trace_start(events, sizeof(events) / sizeof(events[0])), 0);
	healer = bb_healer_start("xrep_icluster_unreadable", fs.dust_blk);
	rc = ic_scrub(XFS_SCRUB_TYPE_INODE, t->st.st_ino, t->gen, XFS_SCRUB_IFLAG_REPAIR,
		      &oflags);
	trace = kt_trace_stop();
	printf("repair of %s: rc %d flags 0x%x\nrest of the trace:\n%s", t->path, rc, oflags,
	       trace);
	CHECK(bb_healer_done(healer), "the healer saw no xrep_icluster_unreadable line or could "
	      "not remove the bad block");
	CHECK(rc == 0 && !(oflags & XFS_SCRUB_OFLAG_CORRUPT), "REPAIR: rc %d flags 0x%x", rc,
	      oflags);
	CHECK_INT(kt_trace_count(trace, "xrep_icluster_rebuild", NULL), 0);
	CHECK_INT(rebuild_log_lines(), nlog);
	free(trace);

	ic_check_unchanged(&fs, true);
	ic_check_sums(&fs);
	ic_check_scrubs(&fs, false);
	CHECK(bb_fs_alive(), "the filesystem is shut down or unmounted");
	CHECK_INT(bb_finish(), 0);
	free(fs.sums);
	return check_done();
}
