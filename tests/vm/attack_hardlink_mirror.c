// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Hostile local user against refetch's write in place (cli/restore_copy.c).
 * refetch restores a regular file in its own inode, by each recorded path,
 * from the mirror's file of that path.  A user who owns home/u/ in the
 * damaged filesystem makes home/u/notes a hard link to root's etc/secret
 * (fs.protected_hardlinks is 0, the kernel's default; with 1, any root file
 * the user may read and write will do).  In the mirror, home/u/notes is the
 * user's own file: their old file in a nightly copy made without -H, or one
 * they wrote in their folder of a mirror they can write.  When etc/secret's
 * block goes bad, the scan names the inode by both paths; refetch writes the
 * mirror's etc/secret into it, then the mirror's home/u/notes into the same
 * inode, with that file's owner and mode: root's file now holds the user's
 * bytes and belongs to the user, and both paths are reported restored.
 *
 * A file with several names is one file in a mirror that keeps hard links
 * (rsync -H): docs/a and docs/b, damaged the same way, show that such a
 * file is still restored by both names.
 *
 * Then the user makes the names agree in the mirror, home/u/notes.link a
 * hard link to the mirror's etc/secret, and exchanges it with their own
 * home/u/notes (renameat2 RENAME_EXCHANGE) in a loop through 20 refetch
 * runs: the mirror is checked once before the copies, so a swap after that
 * check would still give root's file the user's bytes and ownership.
 *
 * Passes when etc/secret keeps its owner and mode and never holds the
 * user's bytes, home/u/notes is not restored from the user's file, and
 * docs/a is restored.
 *
 * Usage (in the guest): vm_attack_hardlink_mirror MAPCTL DEVICE MIRROR-DEVICE
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "vmtest.h"

#define DB "/tmp/attack.db"
#define MIRROR "/mnt/mirror"
#define USER_UID 1000

static const char *mapctl;

/* @cmd run by /bin/sh as USER_UID (no groups): its exit status. */
static int as_user(const char *cmd)
{
	int status;
	pid_t pid = fork();

	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		if (setgroups(0, NULL) != 0 || setgid(USER_UID) != 0 || setuid(USER_UID) != 0)
			_exit(126);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	REQUIRE(waitpid(pid, &status, 0) == pid, "waitpid: %s", strerror(errno));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* As USER_UID: exchange home/u/notes and home/u/notes.link in the mirror
 * until killed. */
static pid_t start_swapper(void)
{
	pid_t pid = fork();

	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid > 0)
		return pid;
	if (setgroups(0, NULL) != 0 || setgid(USER_UID) != 0 || setuid(USER_UID) != 0)
		_exit(3);
	int d = open(MIRROR "/home/u", O_PATH | O_DIRECTORY);
	/* Bounded: far more turns than the rounds last; the test kills it. */
	for (long turn = 0; d >= 0 && turn < 2000000000L; turn++)
		renameat2(d, "notes", d, "notes.link", RENAME_EXCHANGE);
	_exit(0);
}

static const char *outcome(const char *rel)
{
	return tl_out("jq -r '.paths[] | select(.path == \"" FX_MNT "/%s\") | .outcome' "
		      "/tmp/attack.json", rel);
}

int main(int argc, char **argv)
{
	mapctl = argc > 1 ? argv[1] : "mapctl";
	const char *dev = argc > 2 ? argv[2] : "/dev/vda";
	const char *mirror_dev = argc > 3 ? argv[3] : "/dev/vdb";

	vt_require_vm();
	fx_setup(dev, vt_features());
	tl_must("sysctl -w fs.protected_hardlinks=0");
	tl_must("mkdir -p " FX_MNT "/etc " FX_MNT "/docs " FX_MNT "/home/u " FX_MNT "/lost+found"
		" && chown %d:%d " FX_MNT "/home/u", USER_UID, USER_UID);
	/* Root's file, 64 KiB of its own bytes, readable by root alone. */
	tl_must("yes root-only | head -c 65536 > " FX_MNT "/etc/secret && chmod 600 " FX_MNT
		"/etc/secret");
	/* An honest file with two names. */
	tl_must("yes shared | head -c 65536 > " FX_MNT "/docs/a && ln " FX_MNT "/docs/a " FX_MNT
		"/docs/b");

	/* The mirror: the same tree, hard links kept, taken before the user's
	 * link; the user's own file at home/u/notes. */
	tl_mkfs_mount(mirror_dev, "", MIRROR);
	tl_must("rsync -aAXH " FX_MNT "/ " MIRROR "/");
	CHECK_INT(as_user("yes user-bytes | head -c 65536 > " MIRROR "/home/u/notes && chmod 644 "
			  MIRROR "/home/u/notes"), 0);
	char *secret_sum = strdup(tl_out("sha256sum < " FX_MNT "/etc/secret"));
	char *user_sum = strdup(tl_out("sha256sum < " MIRROR "/home/u/notes"));

	/* The user's hard link in their own folder, to root's file. */
	CHECK_INT(as_user("ln " FX_MNT "/etc/secret " FX_MNT "/home/u/notes"), 0);
	tl_sh("ls -li " FX_MNT "/etc/secret " FX_MNT "/home/u/notes");

	/* The first block of both files goes bad; the scan names them. */
	tl_must("sync");
	uint64_t blocks[2] = { fx_file_physical("etc/secret", 0) / 4096,
			       fx_file_physical("docs/a", 0) / 4096 };
	fx_umount();
	fx_add_bad_blocks(blocks, 2);
	fx_mount();
	CHECK_INT(tl_sh("%s --db " DB " scan " FX_MNT " >/dev/null", mapctl), 1);
	tl_must("sqlite3 " DB " '.backup " DB ".0'");
	const char *listed = tl_out("%s --db " DB " files " FX_MNT, mapctl);
	CHECK(strstr(listed, FX_MNT "/etc/secret"), "the scan names etc/secret");
	CHECK(strstr(listed, FX_MNT "/home/u/notes"), "the scan names home/u/notes");

	tl_sh("%s --db " DB " refetch --json " FX_MNT " --from " MIRROR " >/tmp/attack.json",
	      mapctl);
	tl_sh("jq -c '.paths[] | [.path, .outcome, .detail]' /tmp/attack.json");
	tl_sh("ls -li " FX_MNT "/etc/secret " FX_MNT "/home/u/notes");

	/* Root's file: root's owner and mode, and never the user's bytes. */
	CHECK_STR(tl_out("stat -c '%%a %%u:%%g' " FX_MNT "/etc/secret"), "600 0:0");
	const char *now = tl_out("sha256sum < " FX_MNT "/etc/secret 2>/dev/null");
	CHECK(strcmp(now, user_sum) != 0, "root's etc/secret holds the user's bytes from the "
	      "mirror's home/u/notes");
	CHECK(strcmp(outcome("home/u/notes"), "restored") != 0,
	      "home/u/notes (root's inode) reported restored from the user's file");
	CHECK(strcmp(outcome("etc/secret"), "restored") != 0 || strcmp(now, secret_sum) == 0,
	      "etc/secret reported restored but it is not the mirror's etc/secret");
	/* Not a pass by refusing every hard link: one file in the mirror too. */
	CHECK_STR(outcome("docs/a"), "restored");
	CHECK_STR(outcome("docs/b"), "restored");
	CHECK_INT(tl_sh("cmp " MIRROR "/docs/a " FX_MNT "/docs/b"), 0);

	/* The names agree in the mirror, then the user swaps them. */
	CHECK_INT(as_user("ln " MIRROR "/etc/secret " MIRROR "/home/u/notes.link"), 0);
	pid_t swapper = start_swapper();
	int bad_round = -1;
	for (int round = 0; round < 20 && bad_round < 0; round++) {
		tl_must("rm -f " DB " " DB "-wal " DB "-shm && sqlite3 " DB ".0 '.backup " DB "'");
		tl_sh("%s --db " DB " refetch --json " FX_MNT " --from " MIRROR " >/tmp/attack.json",
		      mapctl);
		tl_sh("jq -c '.paths[] | select(.path | test(\"secret|notes\")) | [.path, "
		      ".outcome, .detail]' /tmp/attack.json");
		if (strcmp(tl_out("stat -c '%%a %%u:%%g' " FX_MNT "/etc/secret"), "600 0:0") != 0 ||
		    strcmp(tl_out("sha256sum < " FX_MNT "/etc/secret 2>/dev/null"), user_sum) == 0)
			bad_round = round;
	}
	kill(swapper, SIGKILL);
	waitpid(swapper, NULL, 0);
	tl_sh("ls -li " FX_MNT "/etc/secret " FX_MNT "/home/u/notes");
	CHECK(bad_round < 0, "round %d: a swap in the mirror after its check gave root's "
	      "etc/secret the user's bytes or owner (%s)", bad_round,
	      tl_out("stat -c '%%a %%u:%%g' " FX_MNT "/etc/secret"));

	free(secret_sum);
	free(user_sum);
	tl_sh("umount " MIRROR);
	fx_teardown();
	return check_done();
}
