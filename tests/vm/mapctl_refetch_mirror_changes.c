// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The mirror's file changes while mapctl refetch copies it (issue 35).
 * Three damaged files (dm-dust bad blocks), each in a folder of its own;
 * in one refetch run the mirror's copy of each is written to at one step of
 * its restore, while mapctl is stopped there (ptrace, syscall_stop.c; the
 * step found from its system calls, refetch_steps.c):
 *   - a/f.dat: during the copy into the unnamed file, in bytes already
 *     copied (before the copy's verify);
 *   - b/f.dat: after the copy was verified and the mirror re-checked, before
 *     the first byte is written over the old file;
 *   - c/f.dat: during the write over the old file.
 * Each: outcome failed, with a reason that says the mirror changed; a/ and
 * b/ unchanged (every block as it was, the bad one still unreadable); c/
 * holds the mirror's bytes from before the change; every finding open; exit
 * status 1.  A rerun with the mirror quiet restores all three: equal to the
 * mirror as it is now, exit 0.
 *
 * Usage (in the guest): vm_mapctl_refetch_mirror_changes MAPCTL DEVICE MIRROR-DEVICE
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "refetch_steps.h"
#include "syscall_stop.h"
#include "vmtest.h"

#define DB "/tmp/mirror.db"
#define MIRROR "/mnt/mirror"
#define KiB 1024ULL
#define MiB (1024 * KiB)
#define BLOCK 4096
#define FILE_SIZE (3 * MiB)	/* several of mapctl's 1 MiB copy chunks */
#define BAD_OFFSET (16 * KiB)	/* each file's bad block */
#define CHANGE_OFFSET 0		/* the mirror's change: in the first chunk */
#define OLD_SEED 1
#define MIRROR_SEED 2
#define NFILES 3

static const char *mapctl;
static const char *const dirs[NFILES] = { "a", "b", "c" };
static const enum rs_step change_at[NFILES] = { RS_COPY, RS_BEFORE_WRITE, RS_WRITE };

static void pattern(char *buf, size_t len, uint64_t off, unsigned int seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (char)((off / len) * 31 + i * 7 + seed * 101);
}

static void write_file(const char *path, unsigned int seed)
{
	char buf[BLOCK];
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	REQUIRE(fd >= 0, "create %s: %s", path, strerror(errno));
	for (uint64_t off = 0; off < FILE_SIZE; off += sizeof(buf)) {
		pattern(buf, sizeof(buf), off, seed);
		REQUIRE(pwrite(fd, buf, sizeof(buf), (off_t)off) == (ssize_t)sizeof(buf), "write");
	}
	REQUIRE(fsync(fd) == 0, "fsync");
	close(fd);
}

/* Every block of @rel is the old one, but the bad one, still unreadable. */
static void check_unchanged(const char *rel)
{
	static char got[BLOCK] __attribute__((aligned(BLOCK)));
	char path[256], want[BLOCK];
	struct stat st;
	int fd, changed = 0;

	snprintf(path, sizeof(path), FX_MNT "/%s", rel);
	fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	REQUIRE(fd >= 0 && fstat(fd, &st) == 0, "open %s: %s", path, strerror(errno));
	CHECK(st.st_size == (off_t)FILE_SIZE, "%s: size %lld", rel, (long long)st.st_size);
	for (uint64_t off = 0; off < FILE_SIZE; off += BLOCK) {
		ssize_t r = pread(fd, got, sizeof(got), (off_t)off);

		pattern(want, sizeof(want), off, OLD_SEED);
		if (off == BAD_OFFSET ? !(r < 0 && errno == EIO) :
		    r != BLOCK || memcmp(got, want, BLOCK) != 0)
			changed++;
	}
	close(fd);
	CHECK(changed == 0, "%s: %d blocks are not what they were before the refetch", rel,
	      changed);
}

struct changes {
	struct rs_watch w[NFILES];
	bool done[NFILES];
};

/* The mirror's file gets other bytes in its first block: its size stays,
 * its modification and change times move. */
static void change_mirror(const char *path)
{
	char buf[BLOCK];
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	memset(buf, 'Z', sizeof(buf));
	REQUIRE(fd >= 0 && pwrite(fd, buf, sizeof(buf), CHANGE_OFFSET) == (ssize_t)sizeof(buf),
		"changing %s: %s", path, strerror(errno));
	close(fd);
}

static enum ss_action change_hook(const struct ss_call *c, void *arg)
{
	struct changes *ch = arg;

	for (int i = 0; i < NFILES; i++) {
		int step = rs_step_of(&ch->w[i], c);

		if (step < 0 || step != (int)change_at[i] || ch->done[i])
			continue;
		printf("  mapctl at %s of %s: the mirror's file changes\n", rs_step_name[step],
		       ch->w[i].target);
		change_mirror(ch->w[i].mirror);
		ch->done[i] = true;
	}
	return SS_GO;
}

static const char *open_paths(void)
{
	return tl_out("%s --db " DB " files -0 " FX_MNT " | sort -u -z | tr '\\0' '|'", mapctl);
}

static char *field(const char *rel, const char *what)
{
	return strdup(tl_out("jq -r --arg p '" FX_MNT "/%s' '.paths[] | select(.path == $p) | "
			     ".%s // \"\"' /tmp/changes.json", rel, what));
}

int main(int argc, char **argv)
{
	static char paths[NFILES][3][128];
	char *args[] = { NULL, "--db", DB, "refetch", "--json", FX_MNT, "--from", MIRROR, NULL };
	struct changes ch = { 0 };
	uint64_t blocks[NFILES];
	char rel[NFILES][16], want[512] = "";

	mapctl = argc > 1 ? argv[1] : "mapctl";
	args[0] = (char *)mapctl;
	const char *dev = argc > 2 ? argv[2] : "/dev/vda";
	const char *mirror_dev = argc > 3 ? argv[3] : "/dev/vdb";

	vt_require_vm();
	fx_setup(dev, vt_features());
	tl_mkfs_mount(mirror_dev, vt_features(), MIRROR);
	for (int i = 0; i < NFILES; i++) {
		snprintf(rel[i], sizeof(rel[i]), "%s/f.dat", dirs[i]);
		snprintf(paths[i][0], sizeof(paths[i][0]), FX_MNT "/%s", dirs[i]);
		snprintf(paths[i][1], sizeof(paths[i][1]), FX_MNT "/%s", rel[i]);
		snprintf(paths[i][2], sizeof(paths[i][2]), MIRROR "/%s", rel[i]);
		tl_must("mkdir -p %s " MIRROR "/%s", paths[i][0], dirs[i]);
		write_file(paths[i][1], OLD_SEED);
		write_file(paths[i][2], MIRROR_SEED);
		ch.w[i] = (struct rs_watch){ .dir = paths[i][0], .target = paths[i][1],
					     .mirror = paths[i][2], .db = DB };
		snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s|", paths[i][1]);
	}
	tl_must("sync");
	tl_must("cp " MIRROR "/c/f.dat /tmp/c-before.dat");
	for (int i = 0; i < NFILES; i++)
		blocks[i] = fx_file_physical(rel[i], BAD_OFFSET) / BLOCK;
	fx_umount();
	fx_add_bad_blocks(blocks, NFILES);
	fx_mount();
	CHECK_INT(tl_sh("%s --db " DB " scan " FX_MNT, mapctl), 1);
	CHECK_STR(open_paths(), want);

	/* ---- one run, the mirror changing under each file's restore ---- */
	int rc = ss_run(args, "/tmp/changes.json", change_hook, &ch);
	tl_sh("jq -M . /tmp/changes.json");
	CHECK_INT(rc, 1);
	for (int i = 0; i < NFILES; i++) {
		char *outcome = field(rel[i], "outcome"), *detail = field(rel[i], "detail");

		CHECK(ch.done[i], "%s: mapctl never reached %s", rel[i], rs_step_name[change_at[i]]);
		CHECK(strcmp(outcome, "failed") == 0 && strstr(detail, "the mirror's file changed"),
		      "%s, the mirror changed at %s: %s: %s", rel[i], rs_step_name[change_at[i]],
		      outcome, detail);
		free(outcome);
		free(detail);
	}
	check_unchanged("a/f.dat");
	check_unchanged("b/f.dat");
	CHECK(tl_sh("cmp " FX_MNT "/c/f.dat /tmp/c-before.dat") == 0,
	      "c/f.dat: not the mirror's bytes from before the change");
	CHECK_STR(open_paths(), want);
	CHECK_STR(tl_out("sqlite3 " DB " \"select count(*) from actions where action = 'refetch' "
			 "and outcome = 'restored'\""), "0");
	CHECK_STR(tl_out("cd " FX_MNT " && find . -print | LC_ALL=C sort | paste -sd ' '"),
		  ". ./a ./a/f.dat ./b ./b/f.dat ./c ./c/f.dat");

	/* ---- the mirror quiet: a rerun restores ---- */
	CHECK_INT(tl_sh("%s --db " DB " refetch --json " FX_MNT " --from " MIRROR
			" >/tmp/changes.json; rc=$?; jq -r '.paths[] | .path + \" \" + .outcome' "
			"/tmp/changes.json; exit $rc", mapctl), 0);
	for (int i = 0; i < NFILES; i++) {
		char *outcome = field(rel[i], "outcome");

		CHECK_STR(outcome, "restored");
		free(outcome);
		CHECK(tl_sh("cmp %s %s", paths[i][1], paths[i][2]) == 0, "%s: not the mirror's",
		      rel[i]);
	}
	CHECK_STR(open_paths(), "");

	CHECK_STR(tl_out("sqlite3 " DB " 'pragma integrity_check'"), "ok");
	tl_sh("umount " MIRROR);
	fx_teardown();
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
