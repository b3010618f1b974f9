// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Which orphans the put-back of a folder's entries removes (mapctl refetch
 * of a directory finding, cli/refetch_dir.c).  After a folder gets back the
 * mirror's entries it lacked, each orphan of lost+found that is a copy of a
 * file put back is removed: the copy in the folder replaces it.  Bytes alone
 * are weak evidence.  An empty orphan has the bytes of every empty file, and
 * a user's orphan may hold the bytes of a file the mirror gives to root (a
 * copy the user made of a public file).  Such an orphan is someone's file:
 * it must stay for the administrator.
 *
 * An orphan none of whose blocks can be read matches any file of its size
 * just as vacuously.
 *
 * lost+found holds user.empty (the user's, empty), user.copy (the user's,
 * the bytes of root's pub.dat), root.copy (root's, the bytes of root's
 * pub2.dat) and root.bad (root's, the bytes of root's one-block pub3.dat,
 * its block bad on the device); the mirror's home/ has empty.dat, pub.dat,
 * pub2.dat and pub3.dat, all root's, which the damaged folder lacks.
 * Passes when user.empty, user.copy and root.bad are kept, each with its
 * reason, and root.copy, a real copy, is removed (so the test cannot pass by
 * removing nothing).
 *
 * Usage (in the guest): vm_attack_orphan_owner MAPCTL DEVICE MIRROR-DEVICE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"
#include "vmtest.h"

#define DB "/tmp/orphan.db"
#define MIRROR "/mnt/mirror"
#define LF FX_MNT "/lost+found"
#define USER_UID 1000
#define N_NAMES 64	/* enough long names for a block-form folder */

static const char *mapctl;

/* The put-back's verdict on lost+found/@name: "removed" or "kept: DETAIL". */
static const char *fate(const char *name)
{
	return tl_out("jq -r '.orphans[] | select(.path == \"lost+found/%s\") | "
		      "if .removed then \"removed\" else \"kept: \" + .detail end' /tmp/orphan.json",
		      name);
}

int main(int argc, char **argv)
{
	mapctl = argc > 1 ? argv[1] : "mapctl";
	const char *dev = argc > 2 ? argv[2] : "/dev/vda";
	const char *mirror_dev = argc > 3 ? argv[3] : "/dev/vdb";

	vt_require_vm();
	fx_setup(dev, vt_features());
	tl_must("mkdir -p " FX_MNT "/home " LF);
	for (int i = 0; i < N_NAMES; i++)
		tl_must("echo %d > " FX_MNT "/home/a-rather-long-file-name-so-the-folder-needs-a-"
			"block-%03d", i, i);

	/* The mirror: the same tree, and three files of root's the folder lost. */
	tl_mkfs_mount(mirror_dev, "", MIRROR);
	tl_must("rsync -aAXH " FX_MNT "/ " MIRROR "/");
	tl_must(": > " MIRROR "/home/empty.dat && head -c 20000 /dev/urandom > " MIRROR
		"/home/pub.dat && head -c 30000 /dev/urandom > " MIRROR "/home/pub2.dat && "
		"head -c 4096 /dev/urandom > " MIRROR "/home/pub3.dat && "
		"chown 0:0 " MIRROR "/home/*.dat");

	/* The orphanage: the user's empty file, the user's copy of pub.dat,
	 * root's copy of pub2.dat. */
	tl_must(": > " LF "/user.empty && cp " MIRROR "/home/pub.dat " LF "/user.copy && "
		"chown %d:%d " LF "/user.empty " LF "/user.copy && cp " MIRROR "/home/pub2.dat "
		LF "/root.copy && cp " MIRROR "/home/pub3.dat " LF "/root.bad && chown 0:0 "
		LF "/root.copy " LF "/root.bad", USER_UID, USER_UID);

	/* A bad block in home/'s first folder block: the scan records it. */
	tl_must("sync");
	uint64_t block = fx_dir_first_block("home") / 4096;
	uint64_t orphan_block = fx_file_physical("lost+found/root.bad", 0) / 4096;
	fx_umount();
	fx_add_bad_blocks(&block, 1);
	fx_mount();
	CHECK_INT(tl_sh("%s --db " DB " scan " FX_MNT " >/dev/null", mapctl), 1);
	CHECK(strstr(tl_out("%s --db " DB " files " FX_MNT, mapctl), FX_MNT "/home"),
	      "the scan names home/");
	/* The folder's block reads again, root.bad's does not: refetch restores
	 * the folder and puts back the mirror's missing entries, then looks at
	 * lost+found. */
	fx_umount();
	tl_must("dmsetup message dust 0 disable && dmsetup message dust 0 removebadblock %llu",
		(unsigned long long)block);
	fx_add_bad_blocks(&orphan_block, 1);
	fx_mount();
	tl_sh("%s --db " DB " refetch --json " FX_MNT " --from " MIRROR " >/tmp/orphan.json",
	      mapctl);
	tl_sh("jq -c '.paths[] | [.path, .outcome, .put_back]' /tmp/orphan.json; "
	      "jq -c '.orphans' /tmp/orphan.json");

	/* The put-back happened: the three files are the mirror's. */
	for (int i = 0; i < 4; i++) {
		const char *f[] = { "empty.dat", "pub.dat", "pub2.dat", "pub3.dat" };

		CHECK_INT(tl_sh("cmp " MIRROR "/home/%s " FX_MNT "/home/%s", f[i], f[i]), 0);
	}
	/* root's real copy went; the user's files stayed, untouched. */
	CHECK_STR(fate("root.copy"), "removed");
	CHECK_INT(tl_sh("test -e " LF "/root.copy"), 1);
	CHECK_STR(fate("user.empty"), "kept: kept in lost+found: it is empty, so nothing shows "
		  "which file it was");
	CHECK_STR(fate("user.copy"), "kept: kept in lost+found: it has the bytes of home/pub.dat, "
		  "but its owner 1000:1000 is not that file's 0:0");
	CHECK_STR(tl_out("stat -c '%%u:%%g %%s' " LF "/user.empty"), "1000:1000 0");
	CHECK_INT(tl_sh("cmp " MIRROR "/home/pub.dat " LF "/user.copy"), 0);
	CHECK_STR(tl_out("stat -c '%%u:%%g' " LF "/user.copy"), "1000:1000");
	CHECK_STR(fate("root.bad"), "kept: kept in lost+found: home/pub3.dat: none of its blocks "
		  "can be read, so nothing shows it is a copy");
	CHECK_INT(tl_sh("test -e " LF "/root.bad"), 0);

	tl_sh("umount " MIRROR);
	fx_teardown();
	return check_done();
}
