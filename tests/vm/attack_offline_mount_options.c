// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapctl repair --offline mounts the repaired filesystem back at its
 * recorded mount point (cli/offline_mount.c) with fsmount(2) and no option
 * at all.  The server's /etc/fstab mounts it nosuid,nodev with user quotas
 * (a shared data volume: users own folders on it).  After the offline path
 * the filesystem is back without them: quotas are no longer enforced, so a
 * local user with a 1 MiB limit fills the filesystem for everyone, and
 * set-user-ID files and device nodes on it (what NFS clients' root or a
 * restored backup may have put there) count again.
 *
 * Passes when the mount the offline path makes has the options of the
 * fstab entry of its mount point (nosuid, nodev, usrquota) and the user's
 * quota still stops them.
 *
 * Usage (in the guest): vm_attack_offline_mount_options MAPCTL DEVICE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"
#include "vmtest.h"

#define DB "/tmp/attack.db"
#define FSTAB "/tmp/attack.fstab"
#define USER "setpriv --reuid=1000 --regid=1000 --clear-groups"

static const char *mapctl;

/* Can the user write 4 MiB into home/u (their quota is 1 MiB)? */
static int user_writes_4m(void)
{
	int rc = tl_sh(USER " dd if=/dev/zero of=" FX_MNT "/home/u/big bs=1M count=4 "
		       "conv=fsync status=none");

	tl_must("rm -f " FX_MNT "/home/u/big");
	return rc;
}

static bool mounted_with(const char *opt)
{
	return tl_sh("findmnt -no OPTIONS " FX_MNT " | tr , '\\n' | grep -qx %s", opt) == 0;
}

int main(int argc, char **argv)
{
	mapctl = argc > 1 ? argv[1] : "mapctl";
	const char *dev = argc > 2 ? argv[2] : "/dev/vda";

	vt_require_vm();
	fx_setup(dev, vt_features());
	fx_umount();
	/* The server's fstab (the guest's /etc is the host's, read-only). */
	tl_must("echo '" FX_DUST " " FX_MNT " xfs nosuid,nodev,usrquota 0 0' > " FSTAB
		" && mount --bind " FSTAB " /etc/fstab && mount " FX_MNT);
	tl_sh("findmnt " FX_MNT);
	CHECK(mounted_with("nosuid") && mounted_with("nodev") && mounted_with("usrquota"),
	      "mounted as fstab says");
	tl_must("mkdir -p " FX_MNT "/home/u " FX_MNT "/plain && chown 1000:1000 " FX_MNT
		"/home/u && xfs_quota -x -c 'limit -u bsoft=1m bhard=1m 1000' " FX_MNT);
	CHECK(user_writes_4m() != 0, "the quota stops the user");

	/* A damaged file; the offline path repairs and mounts back. */
	tl_must("head -c 262144 /dev/urandom > " FX_MNT "/plain/data.bin && sync");
	uint64_t victim = fx_file_physical("plain/data.bin", 128 * 1024) / 4096;
	fx_umount();
	fx_add_bad_blocks(&victim, 1);
	tl_must("mount " FX_MNT);
	CHECK_INT(tl_sh("%s --db " DB " scan " FX_MNT " >/dev/null", mapctl), 1);
	fx_umount();
	CHECK_INT(tl_sh("%s --db " DB " repair " FX_DUST " --offline --yes", mapctl), 1);
	tl_sh("findmnt " FX_MNT "; sqlite3 " DB " \"select detail from actions where action = "
	      "'mount'\"");

	CHECK_INT(tl_sh("mountpoint -q " FX_MNT), 0);
	CHECK(mounted_with("nosuid"), "mounted back without nosuid");
	CHECK(mounted_with("nodev"), "mounted back without nodev");
	CHECK(mounted_with("usrquota"), "mounted back without usrquota");
	CHECK(user_writes_4m() != 0, "after repair --offline the user's 1 MiB quota no longer "
	      "holds: they wrote 4 MiB");

	fx_umount();
	tl_sh("umount /etc/fstab");
	tl_must("dmsetup remove dust");
	return check_done();
}
