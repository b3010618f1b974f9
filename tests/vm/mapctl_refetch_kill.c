// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kill -9 of mapctl refetch at each step of a file's restore (issue 35):
 * the copy into the unnamed file, its verify, the re-check of the mirror,
 * the open for writing after it, the write over the old inode, its owner
 * and extended attributes, the final compare, the database update.  Each
 * kill lands in its step for sure: mapctl runs under ptrace
 * (syscall_stop.c) and is killed at the entry of the system call that is
 * inside that step (refetch_steps.c), found from the call and the file its
 * descriptor names; mapctl has no code for the test.
 *
 * The damaged file, data/f.dat with a second name data/link.dat, has a
 * dm-dust bad block and other bytes, size, owner, mode and extended
 * attributes than the mirror's (on a disk of its own).  Each round makes it
 * anew, damages it, scans, kills a refetch at one step, and checks what
 * mapctl(8) says the kill leaves:
 *   - no name but the tree's own anywhere in the filesystem;
 *   - both names still one inode, the one they had;
 *   - the size is the old one or the mirror's or in between;
 *   - killed before the write: every block as it was (the bad one still
 *     unreadable); killed during it: each block the old one or the mirror's,
 *     some of each; after it: the mirror's bytes;
 *   - the finding still open and no 'restored' recorded: only a run that
 *     verified closes it;
 * then a rerun restores and verifies: exit 0, both names the mirror's file
 * in bytes, size, owner, mode, times and extended attributes, same inode.
 *
 * Usage (in the guest): vm_mapctl_refetch_kill MAPCTL DEVICE MIRROR-DEVICE
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "refetch_steps.h"
#include "syscall_stop.h"
#include "vmtest.h"

#define DB "/tmp/kill.db"
#define MIRROR "/mnt/mirror"
#define KiB 1024ULL
#define MiB (1024 * KiB)
#define BLOCK 4096
#define OLD_SIZE (3 * MiB)		/* several of mapctl's 1 MiB copy chunks */
#define MIRROR_SIZE (4 * MiB + 4 * KiB)	/* larger: the write grows the file */
#define BAD_OFFSET (16 * KiB)		/* the file's bad block */
#define OLD_SEED 1
#define MIRROR_SEED 2
#define N_MIRROR_XATTRS 3		/* the kill at the second lands between them */

static const char *mapctl;

static void pattern(char *buf, size_t len, uint64_t off, unsigned int seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (char)((off / len) * 31 + i * 7 + seed * 101);
}

/* @path: @size bytes of pattern @seed, one extended attribute per @nx. */
static void write_file(const char *path, uint64_t size, unsigned int seed, int nx, uid_t uid,
		       mode_t mode)
{
	char buf[BLOCK];
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	REQUIRE(fd >= 0, "create %s: %s", path, strerror(errno));
	for (uint64_t off = 0; off < size; off += sizeof(buf)) {
		pattern(buf, sizeof(buf), off, seed);
		REQUIRE(pwrite(fd, buf, sizeof(buf), (off_t)off) == (ssize_t)sizeof(buf), "write");
	}
	for (int i = 0; i < nx; i++) {
		char name[32], value[64];

		snprintf(name, sizeof(name), "user.seed%u-%d", seed, i);
		memset(value, 'a' + i, sizeof(value));
		REQUIRE(fsetxattr(fd, name, value, sizeof(value), 0) == 0, "setxattr: %s",
			strerror(errno));
	}
	REQUIRE(fchown(fd, uid, uid + 1000) == 0 && fchmod(fd, mode) == 0, "chown/chmod");
	REQUIRE(fsync(fd) == 0, "fsync");
	close(fd);
}

/* What the block at @off of the file is, read from the device. */
enum block_is { B_OLD, B_MIRROR, B_UNREADABLE, B_OTHER };

static enum block_is block_at(int fd, uint64_t off)
{
	static char got[BLOCK] __attribute__((aligned(BLOCK)));
	char want[BLOCK];
	ssize_t r = pread(fd, got, sizeof(got), (off_t)off);

	if (r < 0)
		return errno == EIO ? B_UNREADABLE : B_OTHER;
	if (r != BLOCK)
		return B_OTHER;
	pattern(want, sizeof(want), off, MIRROR_SEED);
	if (off < MIRROR_SIZE && memcmp(got, want, BLOCK) == 0)
		return B_MIRROR;
	pattern(want, sizeof(want), off, OLD_SEED);
	if (off < OLD_SIZE && memcmp(got, want, BLOCK) == 0)
		return B_OLD;
	return B_OTHER;
}

/* Count the blocks of data/f.dat by what they are: @n[enum block_is]. */
static off_t count_blocks(int n[4])
{
	struct stat st;
	int fd = open(FX_MNT "/data/f.dat", O_RDONLY | O_DIRECT | O_CLOEXEC);

	REQUIRE(fd >= 0 && fstat(fd, &st) == 0, "open: %s", strerror(errno));
	memset(n, 0, 4 * sizeof(*n));
	for (uint64_t off = 0; off < (uint64_t)st.st_size; off += BLOCK) {
		enum block_is b = block_at(fd, off);

		n[b]++;
		if (b == B_OTHER || b == B_UNREADABLE)
			printf("  block at %llu: %s\n", (unsigned long long)off,
			       b == B_OTHER ? "neither old nor the mirror's" : "unreadable");
	}
	close(fd);
	return st.st_size;
}

/* Every name under the mount, one per line, sorted. */
static char *names(void)
{
	return strdup(tl_out("cd " FX_MNT " && find . -print | LC_ALL=C sort"));
}

static const char *open_paths(void)
{
	return tl_out("%s --db " DB " files -0 " FX_MNT " | sort -u -z | tr '\\0' '|'", mapctl);
}

static int restored_actions(void)
{
	return atoi(tl_out("sqlite3 " DB " \"select count(*) from actions where action = "
			   "'refetch' and outcome = 'restored'\""));
}

/* Both names hold the mirror's file: bytes, size, owner, mode, times and
 * extended attributes. */
static void check_same_as_mirror(const char *rel)
{
	char a[256], b[256], *xa;
	struct stat sa, sb;

	snprintf(a, sizeof(a), FX_MNT "/%s", rel);
	snprintf(b, sizeof(b), MIRROR "/%s", rel);
	REQUIRE(lstat(a, &sa) == 0 && lstat(b, &sb) == 0, "%s: %s", a, strerror(errno));
	CHECK(sa.st_mode == sb.st_mode && sa.st_uid == sb.st_uid && sa.st_gid == sb.st_gid,
	      "%s: mode %o owner %u:%u, the mirror's %o %u:%u", a, sa.st_mode, sa.st_uid,
	      sa.st_gid, sb.st_mode, sb.st_uid, sb.st_gid);
	CHECK(sa.st_size == sb.st_size, "%s: size %lld, mirror %lld", a, (long long)sa.st_size,
	      (long long)sb.st_size);
	CHECK(sa.st_mtim.tv_sec == sb.st_mtim.tv_sec && sa.st_mtim.tv_nsec == sb.st_mtim.tv_nsec,
	      "%s: mtime differs", a);
	CHECK(tl_sh("cmp '%s' '%s'", a, b) == 0, "%s: bytes differ from the mirror's", a);
	xa = strdup(tl_out("getfattr -d -m- '%s' 2>/dev/null | tail -n +2", a));
	CHECK_STR(tl_out("getfattr -d -m- '%s' 2>/dev/null | tail -n +2", b), xa);
	free(xa);
}

struct kill_at {
	struct rs_watch w;
	enum rs_step want;
	bool reached[RS_NR];
};

static enum ss_action kill_hook(const struct ss_call *c, void *arg)
{
	struct kill_at *k = arg;
	int step = rs_step_of(&k->w, c);

	if (step < 0)
		return SS_GO;
	k->reached[step] = true;
	printf("  mapctl reached: %s (syscall %ld on %s)\n", rs_step_name[step], c->nr,
	       c->fd_path[0] ? c->fd_path : "-");
	return step == (int)k->want ? SS_KILL : SS_GO;
}

/* data/f.dat and data/link.dat anew, old bytes and a bad block; scanned. */
static uint64_t damage(void)
{
	tl_must("rm -f " FX_MNT "/data/f.dat " FX_MNT "/data/link.dat");
	write_file(FX_MNT "/data/f.dat", OLD_SIZE, OLD_SEED, 1, 0, 0644);
	tl_must("ln " FX_MNT "/data/f.dat " FX_MNT "/data/link.dat && sync");
	uint64_t ino = fx_ino("data/f.dat");
	uint64_t block = fx_file_physical("data/f.dat", BAD_OFFSET) / BLOCK;

	fx_umount();
	fx_add_bad_blocks(&block, 1);
	fx_mount();
	CHECK_INT(tl_sh("%s --db " DB " scan " FX_MNT, mapctl), 1);
	CHECK_STR(open_paths(), FX_MNT "/data/f.dat|" FX_MNT "/data/link.dat|");
	return ino;
}

static void round_at(enum rs_step step, const char *tree)
{
	char *argv[] = { (char *)mapctl, "--db", DB, "refetch", FX_MNT, "--from", MIRROR, NULL };
	struct kill_at k = {
		.w = { .dir = FX_MNT "/data", .target = FX_MNT "/data/f.dat",
		       .mirror = MIRROR "/data/f.dat", .db = DB },
		.want = step,
	};
	int n[4];

	printf("==== kill -9 at: %s\n", rs_step_name[step]);
	uint64_t ino = damage();
	int restored = restored_actions();

	int rc = ss_run(argv, "/tmp/killed.out", kill_hook, &k);
	tl_sh("cat /tmp/killed.out");
	CHECK(k.reached[step] && rc == 128 + SIGKILL, "%s: the kill did not land in the step "
	      "(exit %d)", rs_step_name[step], rc);

	/* What the kill left. */
	char *now = names();
	CHECK_STR(now, tree);
	free(now);
	CHECK(fx_ino("data/f.dat") == ino && fx_ino("data/link.dat") == ino,
	      "%s: the names no longer share inode %llu", rs_step_name[step],
	      (unsigned long long)ino);
	off_t size = count_blocks(n);
	CHECK(size >= (off_t)OLD_SIZE && size <= (off_t)MIRROR_SIZE,
	      "%s: size %lld, old %llu, mirror %llu", rs_step_name[step], (long long)size,
	      OLD_SIZE, MIRROR_SIZE);
	printf("  after the kill: %lld bytes, %d old blocks, %d the mirror's, %d unreadable, "
	       "%d other\n", (long long)size, n[B_OLD], n[B_MIRROR], n[B_UNREADABLE], n[B_OTHER]);
	CHECK(n[B_OTHER] == 0, "%s: %d blocks are neither old nor the mirror's",
	      rs_step_name[step], n[B_OTHER]);
	if (step < RS_WRITE) {
		CHECK(size == (off_t)OLD_SIZE && n[B_MIRROR] == 0 && n[B_UNREADABLE] == 1,
		      "%s: the old file changed before the write", rs_step_name[step]);
	} else if (step == RS_WRITE) {
		CHECK(n[B_OLD] > 0 && n[B_MIRROR] > 0 && n[B_UNREADABLE] == 0,
		      "%s: not part old, part the mirror's", rs_step_name[step]);
	} else {
		CHECK(size == (off_t)MIRROR_SIZE && n[B_OLD] == 0 && n[B_UNREADABLE] == 0,
		      "%s: not the mirror's bytes", rs_step_name[step]);
	}
	/* Only a run that verified closes it, and none did. */
	CHECK_STR(open_paths(), FX_MNT "/data/f.dat|" FX_MNT "/data/link.dat|");
	CHECK_INT(restored_actions(), restored);

	/* The rerun restores and verifies. */
	CHECK_INT(tl_sh("%s --db " DB " refetch --json " FX_MNT " --from " MIRROR
			" >/tmp/rerun.json; rc=$?; jq -r '.paths[] | .path + \" \" + .outcome' "
			"/tmp/rerun.json; exit $rc", mapctl), 0);
	CHECK_STR(tl_out("jq -r '[.paths[] | .outcome] | join(\",\")' /tmp/rerun.json"),
		  "restored,restored");
	check_same_as_mirror("data/f.dat");
	check_same_as_mirror("data/link.dat");
	CHECK(fx_ino("data/f.dat") == ino && fx_ino("data/link.dat") == ino,
	      "rerun after %s: the names no longer share inode %llu", rs_step_name[step],
	      (unsigned long long)ino);
	now = names();
	CHECK_STR(now, tree);
	free(now);
	CHECK_STR(open_paths(), "");
	CHECK(restored_actions() > restored, "the rerun recorded no restore");
}

int main(int argc, char **argv)
{
	mapctl = argc > 1 ? argv[1] : "mapctl";
	const char *dev = argc > 2 ? argv[2] : "/dev/vda";
	const char *mirror_dev = argc > 3 ? argv[3] : "/dev/vdb";

	vt_require_vm();
	fx_setup(dev, vt_features());
	tl_must("mkdir -p " FX_MNT "/data " FX_MNT "/other && echo keep > " FX_MNT
		"/other/keep.txt");
	tl_mkfs_mount(mirror_dev, vt_features(), MIRROR);
	tl_must("mkdir -p " MIRROR "/data");
	write_file(MIRROR "/data/f.dat", MIRROR_SIZE, MIRROR_SEED, N_MIRROR_XATTRS, 1001, 0640);
	tl_must("ln " MIRROR "/data/f.dat " MIRROR "/data/link.dat && sync");

	tl_must("touch " FX_MNT "/data/f.dat " FX_MNT "/data/link.dat");
	char *tree = names();
	tl_must("rm " FX_MNT "/data/f.dat " FX_MNT "/data/link.dat");

	for (enum rs_step step = RS_COPY; step < RS_NR; step++)
		round_at(step, tree);
	free(tree);

	CHECK_STR(tl_out("sqlite3 " DB " 'pragma integrity_check'"), "ok");
	tl_sh("umount " MIRROR);
	fx_teardown();
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
