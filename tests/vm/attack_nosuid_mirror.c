// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Hostile mirror against refetch: privilege through a restore.  A user
 * hands over a disk with "their backup"; root mounts it nosuid,nodev (as
 * desktop automounters and careful admins mount a disk they do not trust),
 * where set-user-ID bits and file capabilities give nothing, and runs
 * refetch --from it for the user's damaged files.  The disk keeps their
 * owner but says the user's home/u/tool is set-group-ID to group 42
 * (shadow: it reads /etc/shadow) and home/u/capped carries
 * security.capability with CAP_SETUID (a copy of id(1) each).  refetch
 * copied both onto the filesystem being restored, where they count: the
 * user ran a program of their own with group shadow's rights, and one that
 * may become root.
 *
 * What must hold: a set-id bit or file capability is only carried from a
 * mirror whose mount honours them; from a nosuid mirror that file is
 * refused, nothing written.  The same disk mounted without nosuid is the
 * admin's explicit trust: then they are restored (not a pass by refusing
 * everything), and a plain file of the nosuid disk is restored as usual.
 *
 * Usage (in the guest): vm_attack_nosuid_mirror MAPCTL DEVICE MIRROR-DEVICE
 */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "vmtest.h"

#define DB "/tmp/attack.db"
#define MIRROR "/mnt/mirror"
#define USER_UID 1000
#define FILES "tool capped plain"

static const char *mapctl;

/* @cmd run by /bin/sh as USER_UID (no groups): its output's first line. */
static const char *user_out(const char *cmd)
{
	return tl_out("setpriv --reuid=%d --regid=%d --clear-groups sh -c '%s' 2>&1 | head -n 1",
		      USER_UID, USER_UID, cmd);
}

static const char *outcome(const char *rel)
{
	return tl_out("jq -r '.paths[] | select(.path == \"" FX_MNT "/%s\") | .outcome' "
		      "/tmp/attack.json", rel);
}

/* security.capability, revision 2, effective, permitted CAP_SETUID (7). */
static void set_cap_setuid(const char *path)
{
	const unsigned char v[20] = { 0x01, 0x00, 0x00, 0x02, 0x80 };

	REQUIRE(setxattr(path, "security.capability", v, sizeof(v), 0) == 0,
		"setxattr %s: %s", path, strerror(errno));
}

static void damage_and_scan(void)
{
	uint64_t blocks[3];
	int n = 0;

	tl_must("sync");
	blocks[n++] = fx_file_physical("home/u/tool", 0) / 4096;
	blocks[n++] = fx_file_physical("home/u/capped", 0) / 4096;
	blocks[n++] = fx_file_physical("home/u/plain", 0) / 4096;
	fx_umount();
	fx_add_bad_blocks(blocks, n);
	fx_mount();
	CHECK_INT(tl_sh("%s --db " DB " scan " FX_MNT " >/dev/null", mapctl), 1);
}

static void refetch(void)
{
	tl_sh("%s --db " DB " refetch --json " FX_MNT " --from " MIRROR " >/tmp/attack.json",
	      mapctl);
	tl_sh("jq -c '.paths[] | [.path, .outcome, .detail]' /tmp/attack.json");
	tl_sh("cd " FX_MNT "/home/u && ls -l " FILES " && getfattr -d -m - " FILES);
}

int main(int argc, char **argv)
{
	mapctl = argc > 1 ? argv[1] : "mapctl";
	const char *dev = argc > 2 ? argv[2] : "/dev/vda";
	const char *mirror_dev = argc > 3 ? argv[3] : "/dev/vdb";

	vt_require_vm();
	fx_setup(dev, vt_features());
	/* The user's own files, each a copy of id(1) they may run. */
	tl_must("mkdir -p " FX_MNT "/home/u " FX_MNT "/lost+found && cd " FX_MNT "/home/u && "
		"for f in " FILES "; do cp /usr/bin/id $f; done && chmod 755 " FILES " && "
		"chown -R %d:%d .", USER_UID, USER_UID);
	CHECK_STR(user_out(FX_MNT "/home/u/tool -u"), "1000");

	/* The user's disk: the same files, tool set-group-ID to group 42,
	 * capped with CAP_SETUID; plain as it is here. */
	tl_mkfs_mount(mirror_dev, "", MIRROR);
	tl_must("rsync -aAXH " FX_MNT "/ " MIRROR "/");
	tl_must("chgrp 42 " MIRROR "/home/u/tool && chmod 2755 " MIRROR "/home/u/tool");
	set_cap_setuid(MIRROR "/home/u/capped");
	tl_must("umount " MIRROR " && mount -o nosuid,nodev %s " MIRROR, mirror_dev);
	/* What nosuid means: nothing gained by running it from there. */
	CHECK_STR(user_out(MIRROR "/home/u/tool -g"), "1000");

	damage_and_scan();
	tl_must("sqlite3 " DB " '.backup " DB ".0'");
	refetch();
	CHECK(strcmp(outcome("home/u/tool"), "restored") != 0,
	      "a set-group-ID file of a nosuid mirror was restored");
	CHECK(strcmp(outcome("home/u/capped"), "restored") != 0,
	      "a file capability of a nosuid mirror was restored");
	CHECK_STR(outcome("home/u/plain"), "restored");
	/* Nothing gained by the user. */
	CHECK(!(strtol(tl_out("stat -c %%a " FX_MNT "/home/u/tool"), NULL, 8) & 06000),
	      "home/u/tool got the nosuid mirror's set-id bit: %s",
	      tl_out("stat -c '%%a %%u:%%g' " FX_MNT "/home/u/tool"));
	CHECK(tl_sh("getfattr -n security.capability " FX_MNT "/home/u/capped >/dev/null 2>&1") != 0,
	      "home/u/capped got the nosuid mirror's security.capability");
	/* (Refused, it still has its bad block: it does not run at all.) */
	CHECK(strcmp(user_out(FX_MNT "/home/u/tool -g"), "42") != 0,
	      "the user ran home/u/tool with group 42 (shadow)");

	/* The admin's explicit trust: the same disk mounted with suid.  The
	 * findings open again (the files still unreadable where refused). */
	tl_must("umount " MIRROR " && mount %s " MIRROR, mirror_dev);
	tl_must("rm -f " DB " " DB "-wal " DB "-shm && sqlite3 " DB ".0 '.backup " DB "'");
	refetch();
	CHECK_STR(outcome("home/u/tool"), "restored");
	CHECK_STR(outcome("home/u/capped"), "restored");
	CHECK_STR(tl_out("stat -c '%%a %%u:%%g' " FX_MNT "/home/u/tool"), "2755 1000:42");

	tl_sh("umount " MIRROR);
	fx_teardown();
	return check_done();
}
