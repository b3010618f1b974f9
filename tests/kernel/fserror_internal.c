// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Errors in internal files are filesystem-wide errors (kernel/patches 1/2
 * and 1/4).
 *
 * The user quota file is given a mapping btree (41 dquot chunks, each
 * allocated between two synchronous writes so that they do not merge into
 * one extent), and the btree's leaf block is overwritten on disk.  Creating
 * a file then needs a dquot that the kernel cannot map: the quota inode is
 * found sick.  A FAN_REPORT_FID listener must get EFSCORRUPTED events
 * without a file handle: the quota inode is no file a listener could open,
 * name or restore.  Without the internal-file check of 1/2 the event
 * carried the quota inode's handle.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "fserror_listen.h"
#include "ktest.h"
#include "vmtest.h"

#define MNT "/tmp/mnt"
#define EFSCORRUPTED EUCLEAN
#define EVENT_MS 10000
#define CHUNKS 100
#define IDS_PER_CHUNK 30	/* 4096-byte dquot block / 136-byte dquot, rounded down */

/* Give the user quota file more extents than its inode can hold. */
static void fragment_quota_file(void)
{
	char path[64];

	for (int k = 0; k < CHUNKS; k++) {
		snprintf(path, sizeof(path), MNT "/owned%d", k);
		close(tl_open(path, O_WRONLY | O_CREAT));
		REQUIRE(chown(path, (uid_t)(1000 + IDS_PER_CHUNK * k), 0) == 0, "chown %s: %s",
			path, strerror(errno));
		snprintf(path, sizeof(path), MNT "/pad%d", k);
		tl_write_file(path, 4096, (unsigned int)k + 1, true);
	}
}

/* Overwrite the magic of the quota file's mapping btree leaf; its inode. */
static uint64_t break_quota_mapping(const char *dev)
{
	unsigned long long ino, fsb, daddr;

	ino = strtoull(tl_out("xfs_db -r -c 'sb 0' -c 'print uquotino' %s | sed 's/.*= //'", dev),
		       NULL, 10);
	REQUIRE(ino != 0, "no user quota inode");
	const char *fmt = tl_out("xfs_db -r -c 'inode %llu' -c 'print core.format core.nextents' %s", ino, dev);
	REQUIRE(strstr(fmt, "btree") != NULL, "the quota file has no mapping btree: %s", fmt);
	fsb = strtoull(tl_out("xfs_db -r -c 'inode %llu' -c 'print u3.bmbt.ptrs[1]' %s | "
			      "sed 's/.*= //'", ino, dev), NULL, 10);
	REQUIRE(fsb != 0, "no mapping btree block");
	REQUIRE(sscanf(tl_out("xfs_db -r -c 'convert fsb %llu daddr' %s", fsb, dev), "%*s (%llu)",
		       &daddr) == 1, "xfs_db convert");
	printf("quota inode %llu, mapping btree leaf at fs block %llu (daddr %llu)\n", ino, fsb,
	       daddr);
	tl_must("dd if=/dev/zero of=%s bs=4 count=1 seek=%llu conv=notrunc status=none", dev,
		daddr * 512 / 4);
	return ino;
}

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : "/dev/vda";
	struct kt_fserror ev[8];

	vt_require_vm();
	tl_allow_small_fs(dev);
	tl_mkfs(dev, "%s", vt_features());
	tl_mount(dev, MNT, "uquota");
	fragment_quota_file();
	tl_umount(MNT);
	uint64_t qino = break_quota_mapping(dev);

	tl_mount(dev, MNT, "uquota");
	int fan = kt_fserror_listen(MNT);
	int fd = open(MNT "/needs-a-new-dquot", O_WRONLY | O_CREAT, 0644);
	int err = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	CHECK(err == EFSCORRUPTED, "creating a file with the quota file's mapping broken: %s, "
	      "expected EUCLEAN", strerror(err));

	int n = kt_fserror_read(fan, EVENT_MS, ev, 8);
	CHECK(n >= 1, "no event for the sick quota inode");
	for (int i = 0; i < n; i++) {
		kt_fserror_print("quota inode sick", &ev[i]);
		CHECK_INT(ev[i].error, EFSCORRUPTED);
		CHECK(ev[i].handle_type == KT_FILEID_INVALID,
		      "event %d names a file (handle type 0x%x%s): the quota inode %llu is no file", i,
		      ev[i].handle_type, ev[i].has_inode && ev[i].ino == qino ? ", the quota inode" : "",
		      (unsigned long long)qino);
	}
	close(fan);
	tl_umount(MNT);
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
