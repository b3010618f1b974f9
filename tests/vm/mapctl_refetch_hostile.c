// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapctl refetch against hostile names, a hostile local user and a hostile
 * mirror (issue 16).  Files with bad blocks (dm-dust) under names with '\r',
 * '\n', a leading '#', ';' and '-', a symbolic link whose target block is
 * bad, and files that a "repair" then deleted or moved to lost+found/INODE;
 * the mirror is an XFS filesystem (it keeps ACLs and extended attributes).
 * Between scan and refetch:
 *   - a user swaps the parent folder of one damaged file for a symbolic link
 *     to /tmp/outside: refetch refuses that path, writes nothing outside the
 *     mount, leaves the link alone, and the finding stays open;
 *   - the mirror holds a symbolic link where the filesystem has a damaged
 *     regular file: refetch refuses it, the file stays the same regular file;
 *   - one damaged file's mode, owner, times and an extended attribute change
 *     (as a rebuilt inode's would): refetch puts the mirror's back.
 * Every other path is restored byte for byte with the mirror's mode, owner,
 * times and extended attributes (links: the same target), its findings
 * become refetched; an orphan that is a damaged copy is removed, one that
 * differs is kept; a file whose attribute fork is unreadable is refused
 * for a repair first, untouched, with no name of mapctl's own beside it.  A
 * rescan names exactly what is left: the two refused files, the kept orphan
 * and the file waiting for its repair.
 *
 * Then (issue 35, item 4) a local user who owns race/ exchanges race/real,
 * a folder on a damaged file's path, with a link to root's canary tree
 * outside the mount, in a loop, through 50 refetch runs: the canary never
 * changes, and each run refuses the path or restores the real file.
 *
 * Usage (in the guest): vm_mapctl_refetch_hostile MAPCTL DEVICE MIRROR-DEVICE
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "vmtest.h"

#define DB "/tmp/refetch.db"
#define MIRROR "/mnt/mirror"
#define OUTSIDE "/tmp/outside"		/* where the swapped folder points */
#define SECRET "/tmp/outside2/secret"	/* where the hostile mirror's link points */
#define CANARY "/tmp/canary"		/* root's, outside the mount: must not change */
#define RACE_ROUNDS 50
#define RACE_UID 1000			/* owns race/, swaps race/real and race/decoy */
#define KiB 1024ULL
#define FILE_SIZE (64 * KiB)
#define BAD_OFFSET (16 * KiB)		/* the bad block of each damaged file */

static const char *mapctl;

/* Damaged regular files that refetch must restore in place. */
static const char *const restored_in_place[] = {
	"names/cr\rname.dat",
	"names/#hash.dat",
	"names/;semi.dat",
	"names/-dash.dat",
	"names/new\nline.dat",
	"attrs/changed.dat",
};
/* Its attribute fork is unreadable: restored as a new inode. */
#define XATTR_VICTIM "attrs/many.dat"
#define N_XATTRS 300		/* 200-byte values: an attribute fork of several blocks */
#define N_IN_PLACE (sizeof(restored_in_place) / sizeof(restored_in_place[0]))

static int ctl(const char *args)
{
	return tl_sh("%s --db " DB " %s", mapctl, args);
}

static void path_of(char *buf, size_t len, const char *root, const char *rel)
{
	snprintf(buf, len, "%s/%s", root, rel);
}

static void write_pattern(const char *rel, uint64_t size, unsigned int seed)
{
	char path[4096], buf[4096];
	int fd;

	path_of(path, sizeof(path), FX_MNT, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	REQUIRE(fd >= 0, "create %s: %s", path, strerror(errno));
	for (uint64_t off = 0; off < size; off += sizeof(buf)) {
		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = (char)((off / sizeof(buf)) * 31 + i * 7 + seed);
		REQUIRE(pwrite(fd, buf, sizeof(buf), (off_t)off) == (ssize_t)sizeof(buf), "write");
	}
	REQUIRE(fsetxattr(fd, "user.origin", "mirror", 6, 0) == 0, "setxattr: %s", strerror(errno));
	REQUIRE(fsetxattr(fd, "user.seed", &seed, sizeof(seed), 0) == 0, "setxattr");
	REQUIRE(fchown(fd, 1000 + seed, 2000 + seed) == 0, "chown");
	REQUIRE(fchmod(fd, 0640) == 0, "chmod");
	close(fd);
}

static uint64_t bad_block_of(const char *rel)
{
	return fx_file_physical(rel, BAD_OFFSET) / 4096;
}

/* The 4 KiB block holding the remote target of symbolic link inode @ino
 * (xfs_db, on the unmounted filesystem: the inode may not be written home
 * before that). */
static uint64_t symlink_block(uint64_t ino)
{
	const char *out = tl_out("xfs_db -r -c 'inode %llu' -c bmap %s", (unsigned long long)ino,
				 FX_DUST);
	const char *p = strstr(out, "startblock ");

	REQUIRE(p, "no remote block for inode %llu: %s", (unsigned long long)ino, out);
	unsigned long long fsb = strtoull(p + 11, NULL, 10);
	out = tl_out("xfs_db -r -c 'convert fsblock %llu byte' %s", fsb, FX_DUST);
	return strtoull(out, NULL, 0) / 4096;
}

/* ---- comparisons with the mirror ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "name=value;" for every extended attribute, sorted. */
static char *xattr_dump(const char *path)
{
	static char list[65536];
	const char *names[4096];
	size_t n = 0;
	ssize_t len = llistxattr(path, list, sizeof(list));
	char *out = calloc(1, 1 << 20);

	REQUIRE(out, "calloc");
	if (len < 0) {
		snprintf(out, 1 << 20, "(listxattr: %s)", strerror(errno));
		return out;
	}
	for (ssize_t i = 0; i < len && n < 4096; i += (ssize_t)strlen(list + i) + 1)
		names[n++] = list + i;
	qsort(names, n, sizeof(names[0]), cmp_str);
	for (size_t i = 0; i < n; i++) {
		char v[4096];
		ssize_t vl = lgetxattr(path, names[i], v, sizeof(v));
		size_t o = strlen(out);

		snprintf(out + o, (1 << 20) - o, "%s=", names[i]);
		for (ssize_t k = 0; k < vl; k++) {
			o = strlen(out);
			snprintf(out + o, (1 << 20) - o, "%02x", (unsigned char)v[k]);
		}
		o = strlen(out);
		snprintf(out + o, (1 << 20) - o, "%s;", vl < 0 ? "(unreadable)" : "");
	}
	return out;
}

static bool same_bytes(const char *a, const char *b)
{
	char x[4096], y[4096];
	int fa = open(a, O_RDONLY | O_CLOEXEC), fb = open(b, O_RDONLY | O_CLOEXEC);
	bool same = fa >= 0 && fb >= 0;

	while (same) {
		ssize_t ra = read(fa, x, sizeof(x)), rb = read(fb, y, sizeof(y));

		same = ra == rb && ra >= 0 && memcmp(x, y, (size_t)ra) == 0;
		if (ra <= 0)
			break;
	}
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	return same;
}

/* @rel on the filesystem equals the mirror's: type, bytes or target, mode,
 * owner, modification time and extended attributes. */
static void check_same_as_mirror(const char *rel)
{
	char a[4096], b[4096];
	struct stat sa, sb;

	path_of(a, sizeof(a), FX_MNT, rel);
	path_of(b, sizeof(b), MIRROR, rel);
	if (lstat(a, &sa) != 0 || lstat(b, &sb) != 0) {
		CHECK(0, "%s: %s", a, strerror(errno));
		return;
	}
	CHECK(sa.st_mode == sb.st_mode, "%s: mode %o, mirror %o", a, sa.st_mode, sb.st_mode);
	CHECK(sa.st_uid == sb.st_uid && sa.st_gid == sb.st_gid, "%s: owner %u:%u, mirror %u:%u",
	      a, sa.st_uid, sa.st_gid, sb.st_uid, sb.st_gid);
	CHECK(sa.st_mtim.tv_sec == sb.st_mtim.tv_sec && sa.st_mtim.tv_nsec == sb.st_mtim.tv_nsec,
	      "%s: mtime %lld.%09ld, mirror %lld.%09ld", a, (long long)sa.st_mtim.tv_sec,
	      sa.st_mtim.tv_nsec, (long long)sb.st_mtim.tv_sec, sb.st_mtim.tv_nsec);
	CHECK(sa.st_size == sb.st_size, "%s: size %lld, mirror %lld", a, (long long)sa.st_size,
	      (long long)sb.st_size);
	if (S_ISLNK(sa.st_mode)) {
		char ta[4096], tb[4096];
		ssize_t na = readlink(a, ta, sizeof(ta)), nb = readlink(b, tb, sizeof(tb));

		CHECK(na >= 0 && na == nb && memcmp(ta, tb, (size_t)na) == 0,
		      "%s: link target differs from the mirror's", a);
	} else {
		CHECK(same_bytes(a, b), "%s: bytes differ from the mirror's", a);
		char *xa = xattr_dump(a), *xb = xattr_dump(b);

		CHECK(strcmp(xa, xb) == 0, "%s: xattrs %.200s, mirror %.200s", a, xa, xb);
		free(xa);
		free(xb);
	}
}

/* The outcome refetch --json gave @rel ("" if not listed). */
static char *outcome_of(const char *json_file, const char *rel)
{
	char path[4096];

	path_of(path, sizeof(path), FX_MNT, rel);
	/* Compare through the JSON escape so \r and \n survive the shell. */
	const char *out = tl_out("jq -r '.paths[] | (.path | @json) + \" \" + .outcome' %s",
				 json_file);
	char *want = NULL;
	/* The path as jq's @json writes it: only \r and \n need escapes here. */
	char quoted[8192];
	size_t o = 0;
	quoted[o++] = '"';
	for (const char *p = path; *p && o < sizeof(quoted) - 4; p++) {
		if (*p == '\r' || *p == '\n') {
			quoted[o++] = '\\';
			quoted[o++] = *p == '\r' ? 'r' : 'n';
		} else {
			quoted[o++] = *p;
		}
	}
	quoted[o++] = '"';
	quoted[o++] = ' ';
	quoted[o] = '\0';
	for (const char *line = out; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);

		if (len > o && strncmp(line, quoted, o) == 0) {
			want = strndup(line + o, len - o);
			break;
		}
		line = end ? end + 1 : NULL;
	}
	return want ? want : strdup("");
}

static void check_outcome(const char *json_file, const char *rel, const char *want)
{
	char *got = outcome_of(json_file, rel);

	CHECK(strcmp(got, want) == 0, "refetch outcome of '%s': '%s', expected '%s'", rel, got,
	      want);
	free(got);
}

static bool block_readable(const char *rel, uint64_t off)
{
	static char aligned[4096] __attribute__((aligned(4096)));
	char path[4096];
	int fd;

	/* O_DIRECT: from the device, not a cached page. */
	path_of(path, sizeof(path), FX_MNT, rel);
	fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t r = pread(fd, aligned, sizeof(aligned), (off_t)off);
	close(fd);
	return r == 4096;
}


/* ---- a user swapping a folder on the path during the whole refetch ---- */

/* Everything about the canary tree: names, modes, owners, sizes, times and
 * bytes. */
static char *canary_state(void)
{
	return strdup(tl_out("cd " CANARY " && find . -printf '%%p %%m %%u %%g %%s %%T@ %%C@\\n' | "
			     "sort && find . -type f -exec sha256sum {} + | sort"));
}

/* As user RACE_UID: exchange race/real (a folder) and race/decoy (a link to
 * the canary) until killed. */
static pid_t start_swapper(void)
{
	pid_t pid = fork();

	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid > 0)
		return pid;
	if (setgroups(0, NULL) != 0 || setgid(RACE_UID) != 0 || setuid(RACE_UID) != 0)
		_exit(3);
	/* Bounded: far more turns than a refetch lasts; the test kills it. */
	for (long i = 0; i < 2000000000L; i++)
		renameat2(AT_FDCWD, FX_MNT "/race/real", AT_FDCWD, FX_MNT "/race/decoy",
			  RENAME_EXCHANGE);
	_exit(0);
}

/*
 * Issue 35, item 4: the path's folder race/real is swapped with a link to
 * CANARY again and again while root runs refetch, RACE_ROUNDS times with
 * the finding open again each time.  Nothing outside the mount changes;
 * each round the path is refused (its walk met the link) or restored (the
 * walk met the folder, and the write went through that folder's
 * descriptor), never anything else; the file restored is the real one.
 */
static void swap_race(void)
{
	struct stat st;

	tl_must("sync");
	uint64_t block = fx_file_physical("race/real/victim.dat", BAD_OFFSET) / 4096;
	fx_umount();
	tl_must("dmsetup message dust 0 addbadblock %llu", (unsigned long long)block);
	fx_mount();
	CHECK_INT(tl_sh("%s --db /tmp/race0.db scan " FX_MNT " >/dev/null", mapctl), 1);
	CHECK(strstr(tl_out("%s --db /tmp/race0.db files " FX_MNT, mapctl),
		     FX_MNT "/race/real/victim.dat"), "the scan names the race victim");
	char *before = canary_state();
	int refused = 0, restored = 0;
	pid_t swapper = start_swapper();

	for (int round = 0; round < RACE_ROUNDS; round++) {
		tl_must("sqlite3 /tmp/race0.db '.backup /tmp/race.db'");
		tl_sh("%s --db /tmp/race.db refetch --json " FX_MNT " --from " MIRROR
		      " >/tmp/race.json", mapctl);
		char *got = outcome_of("/tmp/race.json", "race/real/victim.dat");

		refused += strcmp(got, "refused") == 0;
		restored += strcmp(got, "restored") == 0;
		CHECK(strcmp(got, "refused") == 0 || strcmp(got, "restored") == 0,
		      "round %d: outcome '%s': %s", round, got,
		      tl_out("jq -r '.paths[] | select(.path | endswith(\"victim.dat\")) | "
			     ".detail' /tmp/race.json"));
		free(got);
	}
	kill(swapper, SIGKILL);
	waitpid(swapper, NULL, 0);
	printf("swap race: %d rounds refused, %d restored\n", refused, restored);
	char *after = canary_state();
	CHECK(strcmp(before, after) == 0, "the canary outside the mount changed:\n%s\n--- now\n%s",
	      before, after);
	free(before);
	free(after);
	/* The folder back at its name, the link at its own. */
	if (lstat(FX_MNT "/race/real", &st) == 0 && S_ISLNK(st.st_mode))
		tl_must("cd " FX_MNT "/race && mv -T real tmp && mv -T decoy real && mv -T tmp decoy");
	CHECK(lstat(FX_MNT "/race/decoy", &st) == 0 && S_ISLNK(st.st_mode), "the link is kept");
	if (restored)
		check_same_as_mirror("race/real/victim.dat");
}

int main(int argc, char **argv)
{
	mapctl = argc > 1 ? argv[1] : "mapctl";
	const char *dev = argc > 2 ? argv[2] : "/dev/vda";
	const char *mirror_dev = argc > 3 ? argv[3] : "/dev/vdb";
	char path[4096], target[1001];
	struct stat st;

	vt_require_vm();
	fx_setup(dev, vt_features());
	tl_must("mkdir -p %s/names %s/swap %s/hostile %s/orphan %s/gone %s/link %s/attrs", FX_MNT,
		FX_MNT, FX_MNT, FX_MNT, FX_MNT, FX_MNT, FX_MNT);
	for (size_t i = 0; i < N_IN_PLACE; i++)
		write_pattern(restored_in_place[i], FILE_SIZE, (unsigned int)i);
	write_pattern("swap/victim.dat", FILE_SIZE, 20);
	write_pattern("hostile/file.dat", FILE_SIZE, 21);
	write_pattern("orphan/same.dat", FILE_SIZE, 22);
	write_pattern("orphan/changed.dat", FILE_SIZE, 23);
	write_pattern("gone/deleted.dat", FILE_SIZE, 24);
	write_pattern(XATTR_VICTIM, FILE_SIZE, 25);
	path_of(path, sizeof(path), FX_MNT, XATTR_VICTIM);
	for (int i = 0; i < N_XATTRS; i++) {
		char name[64], value[200];

		snprintf(name, sizeof(name), "user.many-%03d", i);
		memset(value, 'a' + i % 26, sizeof(value));
		REQUIRE(setxattr(path, name, value, sizeof(value), 0) == 0, "setxattr: %s",
			strerror(errno));
	}
	/* A 1000-byte target lives in a block of its own, not in the inode. */
	memset(target, 't', sizeof(target) - 1);
	target[sizeof(target) - 1] = '\0';
	memcpy(target, "/far/", 5);
	path_of(path, sizeof(path), FX_MNT, "link/long");
	REQUIRE(symlink(target, path) == 0, "symlink: %s", strerror(errno));
	tl_must("mkdir -p " FX_MNT "/lost+found && sync");
	/* race/ is a user's: race/real (root's) holds a file, race/decoy points
	 * out of the mount at root's canary, with a file of the same name. */
	tl_must("mkdir -p " FX_MNT "/race/real " CANARY "/sub && ln -s " CANARY " " FX_MNT
		"/race/decoy && chown -h %d:%d " FX_MNT "/race " FX_MNT "/race/decoy && "
		"echo canary > " CANARY "/victim.dat && echo x > " CANARY "/sub/x && "
		"chmod 600 " CANARY "/victim.dat", RACE_UID, RACE_UID);
	write_pattern("race/real/victim.dat", FILE_SIZE, 26);
	tl_must("chown 0:0 " FX_MNT "/race/real/victim.dat && sync");

	/* The mirror: the same tree on an XFS of its own. */
	tl_mkfs_mount(mirror_dev, "", MIRROR);
	tl_must("rsync -aAXH " FX_MNT "/ " MIRROR "/");

	const char *damaged[] = {
		"names/cr\rname.dat", "names/#hash.dat", "names/;semi.dat", "names/-dash.dat",
		"names/new\nline.dat", "attrs/changed.dat", "swap/victim.dat", "hostile/file.dat",
		"orphan/same.dat", "orphan/changed.dat", "gone/deleted.dat",
	};
	uint64_t blocks[16];
	int nb = 0;
	for (size_t i = 0; i < sizeof(damaged) / sizeof(damaged[0]); i++)
		blocks[nb++] = bad_block_of(damaged[i]);
	blocks[nb++] = fx_attr_first_block(XATTR_VICTIM) / 4096;
	uint64_t ino_link = fx_ino("link/long"), ino_xattr = fx_ino(XATTR_VICTIM);
	uint64_t ino_hostile = fx_ino("hostile/file.dat");
	uint64_t ino_same = fx_ino("orphan/same.dat"), ino_changed = fx_ino("orphan/changed.dat");
	fx_umount();
	blocks[nb++] = symlink_block(ino_link);
	fx_add_bad_blocks(blocks, nb);
	fx_mount();

	CHECK_INT(ctl("scan " FX_MNT), 1);
	CHECK_INT(tl_sh("%s --db " DB " files -0 " FX_MNT " | tr '\\0\\r\\n' '|RN' >/tmp/files.txt; "
			"cat /tmp/files.txt; echo", mapctl), 0);
	const char *listed = tl_out("cat /tmp/files.txt");
	CHECK(strstr(listed, FX_MNT "/names/crRname.dat|"), "scan names the \\r file");
	CHECK(strstr(listed, FX_MNT "/names/newNline.dat|"), "scan names the \\n file");
	CHECK(strstr(listed, FX_MNT "/names/#hash.dat|") && strstr(listed, FX_MNT "/names/;semi.dat|")
	      && strstr(listed, FX_MNT "/names/-dash.dat|"), "scan names # ; - files");
	CHECK(strstr(listed, FX_MNT "/link/long|"), "scan names the damaged symbolic link");
	CHECK(strstr(listed, FX_MNT "/" XATTR_VICTIM "|"), "scan names the damaged xattrs");
	path_of(path, sizeof(path), FX_MNT, XATTR_VICTIM);
	CHECK(listxattr(path, NULL, 0) < 0 && errno == EIO, "its xattrs cannot be listed");
	CHECK(strstr(listed, FX_MNT "/swap/victim.dat|") && strstr(listed, FX_MNT
	      "/hostile/file.dat|") && strstr(listed, FX_MNT "/gone/deleted.dat|"),
	      "scan names the other damaged files");

	/* ---- between scan and refetch ---- */
	/* A local user swaps a folder for a link out of the mount. */
	tl_must("mkdir -p " OUTSIDE " && mv " FX_MNT "/swap " FX_MNT "/swap.real && "
		"ln -s " OUTSIDE " " FX_MNT "/swap");
	/* The mirror has a link where the filesystem has a regular file. */
	tl_must("mkdir -p /tmp/outside2 && echo secret > " SECRET " && rm " MIRROR
		"/hostile/file.dat && ln -s " SECRET " " MIRROR "/hostile/file.dat");
	/* A repair left approximate attributes and lost an extended attribute. */
	path_of(path, sizeof(path), FX_MNT, "attrs/changed.dat");
	REQUIRE(chmod(path, 0777) == 0 && chown(path, 0, 0) == 0 &&
		removexattr(path, "user.origin") == 0, "change attributes: %s", strerror(errno));
	tl_must("touch -d '2001-02-03 04:05:06' '%s'", path);
	/* A repair deleted one file and moved two to the orphanage. */
	tl_must("rm " FX_MNT "/gone/deleted.dat");
	tl_must("mv " FX_MNT "/orphan/same.dat " FX_MNT "/lost+found/%llu",
		(unsigned long long)ino_same);
	tl_must("mv " FX_MNT "/orphan/changed.dat " FX_MNT "/lost+found/%llu && "
		"printf X | dd of=" FX_MNT "/lost+found/%llu bs=1 seek=100 conv=notrunc 2>/dev/null",
		(unsigned long long)ino_changed, (unsigned long long)ino_changed);

	/* ---- refetch ---- */
	CHECK_INT(tl_sh("%s --db " DB " refetch " FX_MNT " --from " MIRROR " --dry-run", mapctl), 0);
	CHECK_INT(ctl("files " FX_MNT), 1);	/* a dry run records nothing */
	CHECK_INT(tl_sh("%s --db " DB " refetch --json " FX_MNT " --from " MIRROR
			" >/tmp/refetch.json; rc=$?; jq -M . /tmp/refetch.json; exit $rc", mapctl), 1);
	const char *json = "/tmp/refetch.json";

	/* Refused: the swapped folder, and nothing written outside the mount. */
	check_outcome(json, "swap/victim.dat", "refused");
	CHECK_STR(tl_out("ls -A " OUTSIDE " | wc -l"), "0");
	path_of(path, sizeof(path), FX_MNT, "swap");
	CHECK(lstat(path, &st) == 0 && S_ISLNK(st.st_mode), "the swapped-in link is left alone");
	CHECK(!block_readable("swap.real/victim.dat", BAD_OFFSET),
	      "nothing was written to the refused file");
	CHECK(strstr(tl_out("sqlite3 " DB " \"select detail from actions where action = 'refetch' "
			    "and outcome = 'refused'\""), "symbolic link"),
	      "the refusal is recorded with its reason");

	/* Refused: the mirror's link never replaces the regular file. */
	check_outcome(json, "hostile/file.dat", "refused");
	path_of(path, sizeof(path), FX_MNT, "hostile/file.dat");
	CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_ino == ino_hostile,
	      "the file is still the same regular file");
	CHECK_STR(tl_out("cat " SECRET), "secret");
	CHECK_STR(tl_out("grep -rlsF secret " FX_MNT " | wc -l"), "0");

	/* Restored: every hostile name, in place, with the mirror's attributes. */
	for (size_t i = 0; i < N_IN_PLACE; i++) {
		check_outcome(json, restored_in_place[i], "restored");
		check_same_as_mirror(restored_in_place[i]);
		CHECK(block_readable(restored_in_place[i], BAD_OFFSET), "%s: block rewritten",
		      restored_in_place[i]);
	}
	/* Recreated: the deleted file, the orphans' files, the unreadable link. */
	const char *recreated[] = { "gone/deleted.dat", "orphan/same.dat", "orphan/changed.dat",
				    "link/long" };
	for (size_t i = 0; i < sizeof(recreated) / sizeof(recreated[0]); i++) {
		check_outcome(json, recreated[i], "restored");
		check_same_as_mirror(recreated[i]);
	}
	/* Its attribute fork cannot be read: XFS can neither make its xattrs
	 * the mirror's nor free it, so it waits for a repair, untouched, and
	 * no name of mapctl's own is left beside it (issue 35, item 11). */
	check_outcome(json, XATTR_VICTIM, "failed");
	CHECK(strstr(tl_out("jq -r '.paths[] | .detail' %s", json), "extended attributes cannot be "
		     "read: rebuild them first"), "the reason is given");
	CHECK(fx_ino(XATTR_VICTIM) == ino_xattr, "the file is left where it was");
	CHECK_STR(tl_out("find " FX_MNT " -name '.mapctl-refetch*' | wc -l"), "0");
	/* The damaged copy in the orphanage is gone, the different one kept. */
	CHECK_INT(tl_sh("test -e " FX_MNT "/lost+found/%llu", (unsigned long long)ino_same), 1);
	CHECK_INT(tl_sh("test -e " FX_MNT "/lost+found/%llu", (unsigned long long)ino_changed), 0);
	char kept[128];
	snprintf(kept, sizeof(kept), "lost+found/%llu kept: its bytes at 0 differ from the restored "
		 "file", (unsigned long long)ino_changed);
	CHECK_STR(tl_out("jq -r '.paths[] | select(.orphan_removed == false) | .orphan_detail' %s",
			 json), kept);

	/* Findings: the refused two stay open, and the unreadable attribute
	 * fork; the rest are refetched. */
	CHECK_STR(tl_out("%s --db " DB " files -0 " FX_MNT " | sort -u -z | tr '\\0' '|'",
			 mapctl), FX_MNT "/" XATTR_VICTIM "|" FX_MNT "/hostile/file.dat|"
		  FX_MNT "/swap/victim.dat|");
	/* (tl_out's buffer is reused: keep the first answer.) */
	char *nrefetched = strdup(tl_out("sqlite3 " DB " \"select count(*) from findings where "
					 "state = 'refetched'\""));
	CHECK_STR(tl_out("sqlite3 " DB " \"select count(distinct finding_id) from actions where "
			 "action = 'refetch' and outcome = 'restored'\""), nrefetched);
	free(nrefetched);
	/* A rescan finds the refused two (the victim by its real folder now),
	 * the kept orphan's bad block and the file waiting for its repair;
	 * nothing else. */
	CHECK_INT(ctl("scan " FX_MNT), 1);
	char want_left[1024];
	snprintf(want_left, sizeof(want_left), FX_MNT "/" XATTR_VICTIM "|" FX_MNT
		 "/hostile/file.dat|" FX_MNT "/lost+found/%llu|" FX_MNT "/swap.real/victim.dat|",
		 (unsigned long long)ino_changed);
	CHECK_STR(tl_out("%s --db " DB " files -0 " FX_MNT " | sort -u -z | tr '\\0' '|'",
			 mapctl),
		  want_left);

	swap_race();

	CHECK_STR(tl_out("sqlite3 " DB " 'pragma integrity_check'"), "ok");
	tl_sh("umount " MIRROR);
	fx_teardown();
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
