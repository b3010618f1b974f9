// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapctl refetch says "restored" only for what it made equal to the mirror,
 * and a failed copy leaves the file as it was (issue 35, items 1-3 and 11).
 * Files with a dm-dust bad block each; the mirror is XFS on a dm-dust
 * device of its own:
 *   - data/hard.dat, two names: restored in its inode (both names), and
 *     then equal to the mirror: bytes, size, mode, owner, mtime, xattrs;
 *   - data/mirror-bad.dat: the mirror's copy has a bad block of its own:
 *     failed, with the mirror's read error; every byte that could be read
 *     before is still there, the finding stays open;
 *   - full/grown.dat: the mirror's copy is larger than the free space:
 *     failed, "the filesystem is full"; the old file is unchanged and the
 *     space is free again;
 *   - data/xattr.dat: its attribute fork is unreadable: failed, nothing
 *     written, and no name of mapctl's own (.mapctl-refetch.N) anywhere;
 *     after an offline repair (the lost block overwritten, xfs_repair) the
 *     next refetch restores it, xattrs and all;
 *   - data/.mapctl-refetch.INODE, as an earlier mapctl set a file like
 *     data/xattr.dat aside: kept while its xattrs cannot be read (XFS could
 *     not free it), removed by the refetch after the repair.
 * Before any of that, the filesystem given as its own mirror (its mount
 * point, a bind mount of it, a folder of it) is refused before anything is
 * written.
 *
 * Usage (in the guest): vm_mapctl_refetch_honest MAPCTL DEVICE MIRROR-DEVICE [noself]
 * ("noself" leaves out the own-mirror refusals: an older mapctl writes
 * there, which would hide what the rest shows.)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "vmtest.h"

#define DB "/tmp/honest.db"
#define MIRROR "/mnt/mirror"
#define MDUST "/dev/mapper/mdust"
#define BIND "/mnt/bind"
#define KiB 1024ULL
#define MiB (1024 * KiB)
#define FILE_SIZE (64 * KiB)
#define BAD_OFFSET (16 * KiB)		/* the bad block of each damaged file */
#define MIRROR_BAD_OFFSET (40 * KiB)	/* the mirror's own bad block */
#define FREE_LEFT (16 * MiB)		/* free space left before the refetch */
#define GROWN_SIZE (48 * MiB)		/* the mirror's copy of full/grown.dat */
#define N_XATTRS 300			/* 200-byte values: a fork of several blocks */

static const char *mapctl;

static int ctl(const char *args)
{
	return tl_sh("%s --db " DB " %s", mapctl, args);
}

static void path_of(char *buf, size_t len, const char *root, const char *rel)
{
	snprintf(buf, len, "%s/%s", root, rel);
}

static void pattern(char *buf, size_t len, uint64_t off, unsigned int seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (char)((off / len) * 31 + i * 7 + seed);
}

static void add_xattrs(const char *rel)
{
	char path[4096];

	path_of(path, sizeof(path), FX_MNT, rel);
	for (int i = 0; i < N_XATTRS; i++) {
		char name[64], value[200];

		snprintf(name, sizeof(name), "user.many-%03d", i);
		memset(value, 'a' + i % 26, sizeof(value));
		REQUIRE(setxattr(path, name, value, sizeof(value), 0) == 0, "setxattr: %s",
			strerror(errno));
	}
}

static void write_pattern(const char *root, const char *rel, uint64_t size, unsigned int seed)
{
	char path[4096], buf[4096];
	int fd;

	path_of(path, sizeof(path), root, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	REQUIRE(fd >= 0, "create %s: %s", path, strerror(errno));
	for (uint64_t off = 0; off < size; off += sizeof(buf)) {
		pattern(buf, sizeof(buf), off, seed);
		REQUIRE(pwrite(fd, buf, sizeof(buf), (off_t)off) == (ssize_t)sizeof(buf), "write");
	}
	REQUIRE(fsetxattr(fd, "user.origin", "mirror", 6, 0) == 0, "setxattr: %s", strerror(errno));
	REQUIRE(fchown(fd, 1000 + seed, 2000 + seed) == 0, "chown");
	REQUIRE(fchmod(fd, 0640) == 0, "chmod");
	close(fd);
}

/* Every 4 KiB block of @rel but the one at @skip holds pattern @seed, and
 * the one at @skip cannot be read (O_DIRECT: from the device): the file is
 * as the damage left it. */
static void check_unchanged(const char *rel, unsigned int seed, uint64_t skip)
{
	static char got[4096] __attribute__((aligned(4096)));
	char path[4096], want[4096];
	struct stat st;
	int fd;

	path_of(path, sizeof(path), FX_MNT, rel);
	fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	REQUIRE(fd >= 0 && fstat(fd, &st) == 0, "open %s: %s", path, strerror(errno));
	CHECK(st.st_size == (off_t)FILE_SIZE, "%s: size %lld, was %llu", rel,
	      (long long)st.st_size, FILE_SIZE);
	for (uint64_t off = 0; off < FILE_SIZE; off += 4096) {
		ssize_t r = pread(fd, got, sizeof(got), (off_t)off);

		if (off == skip) {
			CHECK(r < 0 && errno == EIO, "%s: the bad block at %llu was written", rel,
			      (unsigned long long)off);
			continue;
		}
		pattern(want, sizeof(want), off, seed);
		CHECK(r == 4096 && memcmp(got, want, sizeof(want)) == 0,
		      "%s: block at %llu is not what it was before the refetch", rel,
		      (unsigned long long)off);
	}
	close(fd);
}

static bool same_bytes(const char *a, const char *b)
{
	return tl_sh("cmp -s '%s' '%s'", a, b) == 0;
}

/* The promise of "restored": @rel equals the mirror's in bytes, size, mode,
 * owner, modification time and extended attributes. */
static void check_same_as_mirror(const char *rel)
{
	char a[4096], b[4096], xa[65536];
	struct stat sa, sb;

	path_of(a, sizeof(a), FX_MNT, rel);
	path_of(b, sizeof(b), MIRROR, rel);
	REQUIRE(lstat(a, &sa) == 0 && lstat(b, &sb) == 0, "%s: %s", a, strerror(errno));
	CHECK(sa.st_mode == sb.st_mode, "%s: mode %o, mirror %o", a, sa.st_mode, sb.st_mode);
	CHECK(sa.st_uid == sb.st_uid && sa.st_gid == sb.st_gid, "%s: owner differs", a);
	CHECK(sa.st_size == sb.st_size, "%s: size %lld, mirror %lld", a, (long long)sa.st_size,
	      (long long)sb.st_size);
	CHECK(sa.st_mtim.tv_sec == sb.st_mtim.tv_sec && sa.st_mtim.tv_nsec == sb.st_mtim.tv_nsec,
	      "%s: mtime differs", a);
	CHECK(same_bytes(a, b), "%s: bytes differ from the mirror's", a);
	snprintf(xa, sizeof(xa), "%s", tl_out("getfattr -d -m- --absolute-names '%s' | tail -n +2 "
					      "| sort", a));
	CHECK_STR(tl_out("getfattr -d -m- --absolute-names '%s' | tail -n +2 | sort", b), xa);
}

/* The outcome and detail refetch --json gave @rel. */
static char *field_of(const char *json, const char *rel, const char *field)
{
	return strdup(tl_out("jq -r --arg p '" FX_MNT "/%s' '.paths[] | select(.path == $p) | "
			     ".%s // \"\"' %s", rel, field, json));
}

static void check_outcome(const char *json, const char *rel, const char *want,
			  const char *detail_has)
{
	char *got = field_of(json, rel, "outcome"), *detail = field_of(json, rel, "detail");

	CHECK(strcmp(got, want) == 0, "%s: outcome '%s', expected '%s' (%s)", rel, got, want,
	      detail);
	if (detail_has)
		CHECK(strstr(detail, detail_has), "%s: detail '%s' lacks '%s'", rel, detail,
		      detail_has);
	free(got);
	free(detail);
}

static uint64_t free_bytes(void)
{
	struct statvfs sv;

	tl_must("sync");
	REQUIRE(statvfs(FX_MNT, &sv) == 0, "statvfs: %s", strerror(errno));
	return (uint64_t)sv.f_bavail * sv.f_frsize;
}

static int our_names(void)
{
	return atoi(tl_out("find " FX_MNT " -name '.mapctl-refetch*' | tee /dev/stderr | wc -l"));
}

int main(int argc, char **argv)
{
	mapctl = argc > 1 ? argv[1] : "mapctl";
	const char *dev = argc > 2 ? argv[2] : "/dev/vda";
	const char *mirror_dev = argc > 3 ? argv[3] : "/dev/vdb";

	vt_require_vm();
	fx_setup(dev, vt_features());
	tl_must("mkdir -p " FX_MNT "/data " FX_MNT "/full");
	write_pattern(FX_MNT, "data/hard.dat", FILE_SIZE, 1);
	tl_must("ln " FX_MNT "/data/hard.dat " FX_MNT "/data/hard-link.dat");
	write_pattern(FX_MNT, "data/mirror-bad.dat", FILE_SIZE, 2);
	write_pattern(FX_MNT, "full/grown.dat", FILE_SIZE, 3);
	write_pattern(FX_MNT, "data/xattr.dat", FILE_SIZE, 4);
	add_xattrs("data/xattr.dat");
	write_pattern(FX_MNT, "data/legacy.dat", FILE_SIZE, 5);
	add_xattrs("data/legacy.dat");
	tl_must("sync");

	/* The mirror, on a dm-dust device of its own, with a newer, larger
	 * full/grown.dat and a bad block under data/mirror-bad.dat. */
	tl_must("dmsetup create mdust --table \"0 $(blockdev --getsz %s) dust %s 0 4096\"",
		mirror_dev, mirror_dev);
	tl_mkfs_mount(MDUST, "", MIRROR);
	tl_must("rsync -aAXH " FX_MNT "/ " MIRROR "/");
	tl_must("head -c %llu /dev/urandom > " MIRROR "/full/grown.dat && sync", GROWN_SIZE);
	uint64_t mirror_bad = tl_file_physical(MIRROR "/data/mirror-bad.dat", MIRROR_BAD_OFFSET);
	tl_must("umount " MIRROR " && dmsetup message mdust 0 addbadblock %llu && "
		"dmsetup message mdust 0 enable && mount " MDUST " " MIRROR,
		(unsigned long long)(mirror_bad / 4096));
	CHECK_INT(tl_sh("cat " MIRROR "/data/mirror-bad.dat > /dev/null"), 1);
	/* What an earlier mapctl left: data/legacy.dat set aside by inode. */
	uint64_t ino_legacy = fx_ino("data/legacy.dat");
	char legacy[64];
	snprintf(legacy, sizeof(legacy), "data/.mapctl-refetch.%llu", (unsigned long long)ino_legacy);
	tl_must("mv " FX_MNT "/data/legacy.dat " FX_MNT "/%s", legacy);

	uint64_t blocks[] = {
		fx_file_physical("data/hard.dat", BAD_OFFSET) / 4096,
		fx_file_physical("data/mirror-bad.dat", BAD_OFFSET) / 4096,
		fx_file_physical("full/grown.dat", BAD_OFFSET) / 4096,
		fx_attr_first_block("data/xattr.dat") / 4096,
		fx_attr_first_block(legacy) / 4096,
	};
	uint64_t ino_hard = fx_ino("data/hard.dat");
	fx_umount();
	fx_add_bad_blocks(blocks, sizeof(blocks) / sizeof(blocks[0]));
	fx_mount();
	CHECK_INT(ctl("scan " FX_MNT), 1);
	char want[1024];
	snprintf(want, sizeof(want), FX_MNT "/%s|" FX_MNT "/data/hard-link.dat|" FX_MNT
		 "/data/hard.dat|" FX_MNT "/data/mirror-bad.dat|" FX_MNT "/data/xattr.dat|" FX_MNT
		 "/full/grown.dat|", legacy);
	CHECK_STR(tl_out("%s --db " DB " files -0 " FX_MNT " | sort -u -z | tr '\\0' '|'", mapctl),
		  want);

	/* ---- the filesystem as its own mirror: refused, nothing written ---- */
	tl_must("mkdir -p " BIND " && mount --bind " FX_MNT " " BIND);
	const char *self[] = { FX_MNT, BIND, FX_MNT "/data" };
	bool noself = argc > 4 && strcmp(argv[4], "noself") == 0;
	for (size_t i = 0; i < sizeof(self) / sizeof(self[0]) && !noself; i++) {
		const char *out = tl_out("%s --db " DB " refetch " FX_MNT " --from %s 2>&1; "
					 "echo \"exit $?\"", mapctl, self[i]);

		CHECK(strstr(out, "is on the filesystem it would restore") && strstr(out, "exit 2"),
		      "--from %s: %s", self[i], out);
	}
	tl_must("umount " BIND);
	CHECK_STR(tl_out("sqlite3 " DB " \"select count(*) from actions where action = "
			 "'refetch'\""), "0");
	check_unchanged("data/mirror-bad.dat", 2, BAD_OFFSET);
	check_unchanged("full/grown.dat", 3, BAD_OFFSET);

	/* ---- less free space than the mirror's full/grown.dat needs ---- */
	uint64_t room = free_bytes();
	REQUIRE(room > FREE_LEFT + 64 * MiB, "only %llu bytes free", (unsigned long long)room);
	tl_must("xfs_io -f -c 'falloc 0 %llu' " FX_MNT "/filler",
		(unsigned long long)(room - FREE_LEFT));
	uint64_t free_before = free_bytes();
	REQUIRE(free_before < GROWN_SIZE, "%llu bytes free", (unsigned long long)free_before);

	/* ---- refetch ---- */
	CHECK_INT(tl_sh("%s --db " DB " refetch --json " FX_MNT " --from " MIRROR
			" >/tmp/refetch.json; rc=$?; jq -M . /tmp/refetch.json; exit $rc", mapctl), 1);
	const char *json = "/tmp/refetch.json";

	/* Restored: both names of the one inode, equal to the mirror. */
	check_outcome(json, "data/hard.dat", "restored", NULL);
	check_outcome(json, "data/hard-link.dat", "restored", NULL);
	check_same_as_mirror("data/hard.dat");
	check_same_as_mirror("data/hard-link.dat");
	CHECK(fx_ino("data/hard.dat") == ino_hard && fx_ino("data/hard-link.dat") == ino_hard,
	      "both names keep the inode");

	/* The mirror's bad block: failed with its error, the file unchanged. */
	check_outcome(json, "data/mirror-bad.dat", "failed",
		      "the mirror cannot be read at byte 40960: Input/output error");
	check_unchanged("data/mirror-bad.dat", 2, BAD_OFFSET);

	/* No room: failed as a full filesystem, unchanged, the space back. */
	check_outcome(json, "full/grown.dat", "failed", "the filesystem is full");
	check_unchanged("full/grown.dat", 3, BAD_OFFSET);
	uint64_t free_after = free_bytes();
	CHECK(free_after + MiB >= free_before, "free space %llu after the refetch, %llu before",
	      (unsigned long long)free_after, (unsigned long long)free_before);

	/* Unreadable xattrs: failed, untouched, no name of ours but the one
	 * left by an earlier mapctl, kept while XFS cannot free it. */
	check_outcome(json, "data/xattr.dat", "failed", "extended attributes cannot be read");
	check_outcome(json, legacy, "failed", "removed once its extended attributes are repaired");
	CHECK_INT(our_names(), 1);

	/* Findings: only hard.dat's is refetched; the actions say why. */
	snprintf(want, sizeof(want), FX_MNT "/%s|" FX_MNT "/data/mirror-bad.dat|" FX_MNT
		 "/data/xattr.dat|" FX_MNT "/full/grown.dat|", legacy);
	CHECK_STR(tl_out("%s --db " DB " files -0 " FX_MNT " | sort -u -z | tr '\\0' '|'", mapctl),
		  want);
	CHECK(strstr(tl_out("sqlite3 " DB " \"select detail from actions where action = 'refetch' "
			    "and outcome = 'failed'\""), "Input/output error"),
	      "the mirror's error is recorded");

	/* ---- the offline repair, then the next refetch ---- */
	tl_must("rm " FX_MNT "/filler");
	fx_umount();
	/* As the offline path does: the lost blocks overwritten (xfs_repair
	 * reads the first 512 KiB whole, and these are there). */
	for (size_t i = 0; i < sizeof(blocks) / sizeof(blocks[0]); i++)
		tl_must("dd if=/dev/zero of=" FX_DUST " bs=4096 seek=%llu count=1 oflag=direct "
			"status=none", (unsigned long long)blocks[i]);
	CHECK_INT(tl_sh("xfs_repair " FX_DUST " >/tmp/xfs_repair.log 2>&1; rc=$?; "
			"tail -n 5 /tmp/xfs_repair.log; exit $rc"), 0);
	fx_mount();
	CHECK_INT(tl_sh("%s --db " DB " refetch --json " FX_MNT " --from " MIRROR
			" >/tmp/refetch2.json; rc=$?; jq -M . /tmp/refetch2.json; exit $rc", mapctl),
		  1);
	check_outcome("/tmp/refetch2.json", "data/xattr.dat", "restored", NULL);
	check_same_as_mirror("data/xattr.dat");
	check_outcome("/tmp/refetch2.json", "full/grown.dat", "restored", NULL);
	check_same_as_mirror("full/grown.dat");
	check_outcome("/tmp/refetch2.json", "data/mirror-bad.dat", "failed",
		      "the mirror cannot be read");
	check_outcome("/tmp/refetch2.json", legacy, "removed", NULL);
	CHECK_INT(our_names(), 0);
	CHECK_STR(tl_out("%s --db " DB " files -0 " FX_MNT " | sort -u -z | tr '\\0' '|'", mapctl),
		  FX_MNT "/data/mirror-bad.dat|");

	CHECK_STR(tl_out("sqlite3 " DB " 'pragma integrity_check'"), "ok");
	tl_sh("umount " MIRROR "; dmsetup remove mdust");
	fx_teardown();
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
