// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Hostile user who can write in the mirror against refetch's write in place
 * (cli/restore_copy.c).  The user's own file home/u/notes is damaged.  In
 * the mirror, where they own home/u/ too, they replace notes with a hard
 * link to the mirror's etc/secret, root's, mode 600 (fs.protected_hardlinks
 * 0, the kernel's default).  They keep their local notes open for reading.
 * refetch writes the mirror's bytes into the user's own inode, then makes it
 * root's and 600: too late, the user's descriptor, opened when the file was
 * theirs, reads root's secret (as would any open during the copy).
 *
 * What must hold: root's bytes never go into an inode that another user
 * owns (and may hold open): a file of a user that the mirror says belongs
 * to someone else is not rewritten in place; it is refused, nothing
 * written.  A file the mirror gives the same owner is restored (not a pass
 * by refusing everything).
 *
 * Usage (in the guest): vm_attack_mirror_link_secret MAPCTL DEVICE MIRROR-DEVICE
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
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
#define SIZE 65536
#define SEEN "/tmp/attack.seen"		/* what the user read, written by root */

static const char *mapctl;

static const char *outcome(const char *rel)
{
	return tl_out("jq -r '.paths[] | select(.path == \"" FX_MNT "/%s\") | .outcome' "
		      "/tmp/attack.json", rel);
}

/* As USER_UID: open home/u/notes now, tell @ready, wait for @go, then
 * read it through that descriptor into @out. */
static pid_t start_reader(int ready, int go, int out)
{
	pid_t pid = fork();

	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid > 0)
		return pid;
	if (setgroups(0, NULL) != 0 || setgid(USER_UID) != 0 || setuid(USER_UID) != 0)
		_exit(3);
	int fd = open(FX_MNT "/home/u/notes", O_RDONLY);
	char c = fd >= 0 ? 'y' : 'n', buf[SIZE];

	if (write(ready, &c, 1) != 1 || fd < 0 || read(go, &c, 1) != 1)
		_exit(4);
	ssize_t n = pread(fd, buf, sizeof(buf), 0);
	if (n > 0 && write(out, buf, (size_t)n) != n)
		_exit(5);
	_exit(n > 0 ? 0 : 6);
}

int main(int argc, char **argv)
{
	mapctl = argc > 1 ? argv[1] : "mapctl";
	const char *dev = argc > 2 ? argv[2] : "/dev/vda";
	const char *mirror_dev = argc > 3 ? argv[3] : "/dev/vdb";

	vt_require_vm();
	fx_setup(dev, vt_features());
	tl_must("sysctl -w fs.protected_hardlinks=0");
	tl_must("mkdir -p " FX_MNT "/etc " FX_MNT "/home/u " FX_MNT "/lost+found && "
		"yes root-only-secret | head -c %d > " FX_MNT "/etc/secret && chmod 600 " FX_MNT
		"/etc/secret", SIZE);
	/* The user's own files. */
	tl_must("cd " FX_MNT "/home/u && yes notes | head -c %d > notes && yes diary | head -c %d"
		" > diary && chmod 644 notes diary && chown -R %d:%d .", SIZE, SIZE, USER_UID,
		USER_UID);

	tl_mkfs_mount(mirror_dev, "", MIRROR);
	tl_must("rsync -aAXH " FX_MNT "/ " MIRROR "/");
	/* The user, in their folder of the mirror. */
	CHECK_INT(tl_sh("setpriv --reuid=%d --regid=%d --clear-groups sh -c 'cd " MIRROR
			"/home/u && rm notes && ln " MIRROR "/etc/secret notes'", USER_UID,
			USER_UID), 0);
	tl_sh("ls -li " MIRROR "/etc " MIRROR "/home/u");

	tl_must("sync");
	uint64_t blocks[2] = { fx_file_physical("home/u/notes", 0) / 4096,
			       fx_file_physical("home/u/diary", 0) / 4096 };
	fx_umount();
	fx_add_bad_blocks(blocks, 2);
	fx_mount();
	CHECK_INT(tl_sh("%s --db " DB " scan " FX_MNT " >/dev/null", mapctl), 1);

	int ready[2], go[2], out[2];
	REQUIRE(pipe(ready) == 0 && pipe(go) == 0 && pipe(out) == 0, "pipe");
	pid_t reader = start_reader(ready[1], go[0], out[1]);
	char c = 0;
	REQUIRE(read(ready[0], &c, 1) == 1 && c == 'y', "the user opened their notes");

	tl_sh("%s --db " DB " refetch --json " FX_MNT " --from " MIRROR " >/tmp/attack.json",
	      mapctl);
	tl_sh("jq -c '.paths[] | [.path, .outcome, .detail]' /tmp/attack.json");
	tl_sh("ls -li " FX_MNT "/home/u");

	/* What the user reads through the descriptor they opened before. */
	REQUIRE(write(go[1], "g", 1) == 1, "go");
	close(out[1]);
	static char seen[SIZE];
	size_t got = 0;
	ssize_t n;
	while (got < sizeof(seen) && (n = read(out[0], seen + got, sizeof(seen) - got)) > 0)
		got += (size_t)n;
	waitpid(reader, NULL, 0);
	FILE *f = fopen(SEEN, "w");
	REQUIRE(f && fwrite(seen, 1, got, f) == got && fclose(f) == 0, "write " SEEN);
	tl_sh("head -c 60 " SEEN "; echo");
	CHECK(tl_sh("cmp -s " SEEN " " FX_MNT "/etc/secret") != 0,
	      "the user read root's etc/secret through their own descriptor of home/u/notes");
	CHECK(strcmp(outcome("home/u/notes"), "restored") != 0,
	      "home/u/notes, the user's, was rewritten with root's file");
	CHECK_STR(outcome("home/u/diary"), "restored");

	tl_sh("umount " MIRROR);
	fx_teardown();
	return check_done();
}
