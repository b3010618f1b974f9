// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Hostile local user against the put-back of a folder's entries (mapctl
 * refetch of a directory finding, cli/refetch_dir.c).  The folder home/ is
 * the user's (the mirror says so, and refetch gives it the mirror's owner).
 * The put-back runs rsync as root into home/ with --perms --owner: rsync
 * writes each new file to a temporary name ".NAME.XXXXXX" in that folder and
 * then sets its owner, mode and times BY THAT NAME before renaming it.  The
 * user, who may rename and create names in home/, replaces the temporary
 * name, as soon as it appears, with a hard link to a root-owned file
 * elsewhere in the same filesystem (etc/shadow here; fs.protected_hardlinks
 * is 0, the kernel's default; with 1 any root file the user may read and
 * write will do).  rsync's lstat/lchown/chmod by name then act on root's
 * file: it becomes the user's, with the mirror's mode (set-user-ID here).
 * (A symbolic link instead is refused by rsync 3.5's no-follow chmod and
 * utimensat: that variant is defended.)
 *
 * Passes when root's file keeps its owner, mode and bytes; fails when the
 * put-back changed it through the user's hard link.
 *
 * Usage (in the guest): vm_attack_putback_race MAPCTL DEVICE MIRROR-DEVICE
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "vmtest.h"

#define DB "/tmp/attack.db"
#define MIRROR "/mnt/mirror"
#define VICTIM FX_MNT "/etc/shadow"	/* root's, 0600, in the same filesystem */
#define USER_UID 1000
#define N_NAMES 64			/* enough long names for a block-form folder */
#define NEW_SIZE (8 << 20)		/* the mirror's new file: a copy that takes a while */
#define ROUNDS 8

static const char *mapctl;

/* As USER_UID: every temporary name of rsync's in home/ is moved aside and
 * replaced by a hard link to VICTIM (inode @victim), until killed. */
static pid_t start_attacker(ino_t victim)
{
	pid_t pid = fork();

	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid > 0)
		return pid;
	if (setgroups(0, NULL) != 0 || setgid(USER_UID) != 0 || setuid(USER_UID) != 0)
		_exit(3);
	/* Bounded: far more turns than a refetch lasts; the test kills it. */
	for (long turn = 0, n = 0; turn < 200000000L; turn++) {
		DIR *d = opendir(FX_MNT "/home");
		struct dirent *de;

		if (!d)
			continue;
		while ((de = readdir(d)) != NULL) {
			char aside[64];

			if (strncmp(de->d_name, ".new.dat.", 9) != 0 || de->d_ino == victim)
				continue;
			snprintf(aside, sizeof(aside), "aside.%ld", n++);
			if (renameat(dirfd(d), de->d_name, dirfd(d), aside) == 0)
				linkat(AT_FDCWD, VICTIM, dirfd(d), de->d_name, 0);
		}
		closedir(d);
	}
	_exit(0);
}

static char *victim_state(void)
{
	return strdup(tl_out("stat -c '%%a %%u:%%g %%s' " VICTIM " && sha256sum < " VICTIM));
}

int main(int argc, char **argv)
{
	mapctl = argc > 1 ? argv[1] : "mapctl";
	const char *dev = argc > 2 ? argv[2] : "/dev/vda";
	const char *mirror_dev = argc > 3 ? argv[3] : "/dev/vdb";

	vt_require_vm();
	fx_setup(dev, vt_features());
	tl_must("mkdir -p " FX_MNT "/home " FX_MNT "/lost+found && chown %d:%d " FX_MNT "/home",
		USER_UID, USER_UID);
	for (int i = 0; i < N_NAMES; i++)
		tl_must("echo %d > " FX_MNT "/home/a-rather-long-file-name-so-the-folder-needs-a-"
			"block-%03d && chown %d:%d " FX_MNT "/home/*-%03d", i, i, USER_UID, USER_UID,
			i);
	tl_must("mkdir -p " FX_MNT "/etc && echo 'root:secret' > " VICTIM " && chmod 600 " VICTIM
		" && chown 0:0 " VICTIM " && sysctl -w fs.protected_hardlinks=0");

	/* The mirror: the same tree, and one file the folder lost, the user's. */
	tl_mkfs_mount(mirror_dev, "", MIRROR);
	tl_must("rsync -aAXH " FX_MNT "/ " MIRROR "/");
	tl_must("head -c %d /dev/urandom > " MIRROR "/home/new.dat && chown %d:%d " MIRROR
		"/home/new.dat && chmod 4777 " MIRROR "/home/new.dat", NEW_SIZE, USER_UID,
		USER_UID);

	/* A bad block in home/'s first folder block: the scan records it. */
	tl_must("sync");
	uint64_t block = fx_dir_first_block("home") / 4096;
	fx_umount();
	fx_add_bad_blocks(&block, 1);
	fx_mount();
	CHECK_INT(tl_sh("%s --db " DB " scan " FX_MNT " >/dev/null", mapctl), 1);
	CHECK(strstr(tl_out("%s --db " DB " files " FX_MNT, mapctl), FX_MNT "/home\n") ||
	      strstr(tl_out("%s --db " DB " files " FX_MNT, mapctl), FX_MNT "/home "),
	      "the scan names home/");
	/* The block reads again (a transient fault): refetch restores the
	 * folder's attributes and puts back the mirror's missing entries. */
	fx_umount();
	tl_must("dmsetup message dust 0 disable");
	fx_mount();
	tl_must("sqlite3 " DB " '.backup " DB ".0'");

	struct stat vs;
	REQUIRE(stat(VICTIM, &vs) == 0, "stat: %s", strerror(errno));
	char *before = victim_state();
	pid_t attacker = start_attacker(vs.st_ino);
	int changed_round = -1;

	for (int round = 0; round < ROUNDS && changed_round < 0; round++) {
		/* The finding open again, the file missing again. */
		tl_must("rm -f " DB " " DB "-wal " DB "-shm " FX_MNT "/home/new.dat " FX_MNT
			"/home/aside.* && sqlite3 " DB ".0 '.backup " DB "'");
		tl_sh("%s --db " DB " refetch --json " FX_MNT " --from " MIRROR " >/tmp/attack.json",
		      mapctl);
		tl_sh("jq -c '.paths[] | [.path, .outcome, .detail, .put_back]' /tmp/attack.json");
		char *now = victim_state();
		if (strcmp(now, before) != 0)
			changed_round = round;
		free(now);
	}
	kill(attacker, SIGKILL);
	waitpid(attacker, NULL, 0);
	/* Not a pass by doing nothing: the folder was restored and the last
	 * round put the mirror's file back, the mirror's bytes, owner and mode. */
	CHECK_STR(tl_out("jq -r '.paths[] | select(.path == \"" FX_MNT "/home\") | .outcome' "
			 "/tmp/attack.json"), "restored");
	CHECK_INT(tl_sh("cmp " MIRROR "/home/new.dat " FX_MNT "/home/new.dat"), 0);
	CHECK_STR(tl_out("stat -c '%%a %%u:%%g %%h' " FX_MNT "/home/new.dat"), "4777 1000:1000 1");
	tl_sh("ls -lai " FX_MNT "/home | grep -v a-rather; ls -li " VICTIM);
	char *after = victim_state();
	CHECK(strcmp(before, after) == 0, "round %d: root's %s was changed through the user's "
	      "hard link by the put-back:\n%s\n--- now\n%s", changed_round, VICTIM, before, after);
	free(before);
	free(after);

	tl_sh("umount " MIRROR);
	fx_teardown();
	return check_done();
}
