// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Several kinds of damage at once on a filesystem with parent pointers,
 * healed online by one mapctl repair --all --yes (issue 34, item 7).  Modern
 * profile only: without parent pointers and exchange-range the directory and
 * xattr rebuilds are unsupported (the offline path, vm.mapctl_offline).
 *
 * The tree: xattr-file in the root (AG 0) with eight 300-byte xattrs, so its
 * attr fork is one leaf block that holds its parent pointers too; bigdir, a
 * directory in another AG, whose first entry is a hard link to it
 * (xattr-link, in its first data block) and 2999 more names; dirb with 300
 * names; other/ with 48 small files.  Four 4 KiB blocks made unreadable with
 * dm-dust at once, chosen from GETBMAPX/xfs_db ground truth:
 *   - data block 2 of bigdir (the names it holds are those whose lookup
 *     fails with EIO after the damage);
 *   - the attr leaf of xattr-file (its xattrs and both parent pointers);
 *   - one block of an inode cluster of other/ (only other/ files in it);
 *   - the inode btree root of an AG that holds none of the others.
 *
 * Part 1, as an administrator: scan exits 1; repair --all --yes exits 0 with
 * no failed step: the inode btree, then the cluster, then bigdir (the
 * directory rebuild steps over xattr-file, whose attr fork it cannot read,
 * and keeps its name xattr-link from the old directory: trace points
 * xrep_step_over and xrep_dir_keep_dirent), then the xattr salvage,
 * then the parent pointers.  Before, the plan ran the xattr salvage first
 * (xattr-file's AG is lower), which dropped the whole attr fork, and the
 * directory rebuild failed; on the kernel before kernel/patches 2/7 it failed with
 * EIO on the unreadable leaf, and every parent repair failed with EIO on the
 * unreadable directory block.  Afterwards bigdir lists exactly the mirror's
 * 3000 names, refetch restores what the rebuilds lost, scan exits 0, and
 * everything equals the mirror.
 *
 * Part 2, single repairs while an unrelated inode cluster and a block of dirb
 * cannot be read: a forced PARENT rebuild of a file whose name is in that
 * block succeeds, steps over the cluster's inodes and dirb's block, and
 * keeps its parent pointer (xrep_parent_keep_parentadd); then a forced
 * DIRECTORY rebuild of dirb succeeds, steps over the cluster's inodes, and
 * brings every one of the 300 names back (the kept parent pointer is the
 * only evidence left of that file's name).  Before 2/7 both failed
 * with EIO.  Both scrub clean; after unmount xfs_repair -n is clean.
 *
 * Usage (in the guest): vm_mapctl_heal_multi MAPCTL DEVICE MIRROR_DEVICE
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <xfs/xfs.h>

#include "check.h"
#include "fixture.h"
#include "map_scrub.h"
#include "vmtest.h"

#ifndef XFS_SCRUB_IFLAG_FORCE_REBUILD
#define XFS_SCRUB_IFLAG_FORCE_REBUILD (1u << 8)
#endif

#define DB "/tmp/multi.db"
#define MIRROR "/mnt/mirror"
#define BIG_NAMES 3000		/* in bigdir, xattr-link included */
#define DIRB_NAMES 300
#define OTHER_FILES 48
#define XATTRS 8		/* 300-byte values: the fork needs a leaf block */
#define TRACEFS "/sys/kernel/tracing"
#define MAX_CLUSTER 64

static const char *mapctl;

static int ctl(const char *args)
{
	return tl_sh("%s --db " DB " %s", mapctl, args);
}

static const char *sql(const char *query)
{
	return tl_out("sqlite3 " DB " \"%s\"", query);
}

static void make_file(const char *rel, size_t size)
{
	char path[512];

	snprintf(path, sizeof(path), FX_MNT "/%s", rel);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	REQUIRE(fd >= 0, "create %s: %s", path, strerror(errno));
	for (size_t done = 0; done < size; done += 512) {
		char buf[512];

		memset(buf, (int)('a' + done / 512 % 26), sizeof(buf));
		REQUIRE(write(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf), "write %s", path);
	}
	close(fd);
}

/* Name @i of bigdir; name 0 is the hard link to xattr-file. */
static void big_name(int i, char *buf, size_t len)
{
	if (i == 0)
		snprintf(buf, len, "bigdir/xattr-link");
	else
		snprintf(buf, len, "bigdir/entry-%04d-with-a-longer-name-than-usual", i);
}

static void dirb_name(int i, char *buf, size_t len)
{
	snprintf(buf, len, "dirb/name-%03d-with-a-longer-name-than-usual", i);
}

/* The tree described above; bigdir is whichever new directory is not in
 * the root's AG, renamed. */
static void build_tree(void)
{
	char rel[128];

	make_file("xattr-file", 4096);
	for (int i = 0; i < XATTRS; i++) {
		char name[32], value[300];

		snprintf(name, sizeof(name), "user.big%d", i);
		memset(value, 'A' + i, sizeof(value));
		REQUIRE(setxattr(FX_MNT "/xattr-file", name, value, sizeof(value), 0) == 0,
			"setxattr %s: %s", name, strerror(errno));
	}
	uint32_t root_ag = fx_ino_agno(fx_ino(""));
	bool found = false;
	for (int d = 0; d < 4; d++) {
		snprintf(rel, sizeof(rel), FX_MNT "/d%d", d);
		REQUIRE(mkdir(rel, 0755) == 0, "mkdir %s", rel);
		if (!found && fx_ino_agno(fx_ino(rel + strlen(FX_MNT) + 1)) != root_ag) {
			REQUIRE(rename(rel, FX_MNT "/bigdir") == 0, "rename %s", rel);
			found = true;
		}
	}
	REQUIRE(found, "no new directory outside AG %u", root_ag);
	REQUIRE(link(FX_MNT "/xattr-file", FX_MNT "/bigdir/xattr-link") == 0, "link: %s",
		strerror(errno));
	for (int i = 1; i < BIG_NAMES; i++) {
		big_name(i, rel, sizeof(rel));
		make_file(rel, 0);
	}
	REQUIRE(mkdir(FX_MNT "/dirb", 0755) == 0, "mkdir dirb");
	for (int i = 0; i < DIRB_NAMES; i++) {
		dirb_name(i, rel, sizeof(rel));
		make_file(rel, 0);
	}
	REQUIRE(mkdir(FX_MNT "/other", 0755) == 0, "mkdir other");
	for (int i = 0; i < OTHER_FILES; i++) {
		snprintf(rel, sizeof(rel), "other/i%02d", i);
		make_file(rel, 4096);
	}
	sync();
}

/* The victim cluster: every name in it, and which are in the lost block. */
struct cluster {
	uint64_t first, last;
	uint64_t bad_byte;
	uint64_t ino[MAX_CLUSTER];
	bool on_bad_block[MAX_CLUSTER];
	int n, n_bad;
	int outside;		/* names in it that are not other/ files */
};

static void in_cluster(const char *rel, uint64_t ino, void *arg)
{
	struct cluster *c = arg;

	if (ino < c->first || ino > c->last || c->n >= MAX_CLUSTER)
		return;
	c->outside += strncmp(rel, "other/", 6) != 0;
	c->ino[c->n] = ino;
	c->on_bad_block[c->n] = (fx_inode_byte(ino) & ~4095ULL) == c->bad_byte;
	c->n_bad += c->on_bad_block[c->n];
	c->n++;
}

/* Relative names (of @n made by @name) whose lookup fails with EIO: the
 * names stored in an unreadable directory block.  Returns how many; the
 * first one goes to @first. */
static int names_in_bad_block(int n, void (*name)(int, char *, size_t), int *first)
{
	int count = 0;

	*first = -1;
	for (int i = 0; i < n; i++) {
		char rel[128], path[256];
		struct stat st;

		name(i, rel, sizeof(rel));
		snprintf(path, sizeof(path), FX_MNT "/%s", rel);
		if (lstat(path, &st) == 0)
			continue;
		REQUIRE(errno == EIO, "lstat %s: %s (expected EIO or success)", path, strerror(errno));
		if (*first < 0)
			*first = i;
		count++;
	}
	return count;
}

static void trace_start(void)
{
	static const char *const events[] = {
		"xrep_step_over", "xrep_dir_keep_dirent", "xrep_parent_keep_parentadd",
	};

	tl_sh("echo 0 > " TRACEFS "/tracing_on && echo > " TRACEFS "/trace");
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		tl_sh("echo 1 > " TRACEFS "/events/xfs_scrub/%s/enable", events[i]);
	tl_sh("echo 1 > " TRACEFS "/tracing_on");
}

static void trace_save(const char *file)
{
	tl_sh("echo 0 > " TRACEFS "/tracing_on; grep -v '^#' " TRACEFS "/trace > %s; "
	      "wc -l < %s", file, file);
}

/* Lines of @file with @event and both needles (no double quotes in them). */
static int trace_count(const char *file, const char *event, const char *needle1,
		       const char *needle2)
{
	return atoi(tl_out("grep -F ' %s: ' %s | grep -F -e \"%s\" | grep -F -c -e \"%s\"", event,
			   file, needle1, needle2 ? needle2 : needle1));
}

/*
 * The distinct inodes that xrep_step_over lines of repair @type say were
 * stepped over for @what: each must lie in [@lo, @hi] (allocated inodes of
 * the cluster without a name, a repair's temporary file, are in there too),
 * and each of the @n inodes of @want (those with @pick set, if @pick) must
 * be there.
 */
static void check_stepped_over(const char *file, const char *type, const char *what,
			       const uint64_t *want, const bool *pick, int n, uint64_t lo,
			       uint64_t hi)
{
	char *got = strdup(tl_out("grep -F ' xrep_step_over: ' %s | grep -F ' type %s ' | "
				  "grep -F ' what %s ' | sed 's/.* other \\(0x[0-9a-f]*\\) .*/\\1/' "
				  "| sort -u", file, type, what));
	int found = 0, expected = 0;

	for (char *save = NULL, *t = strtok_r(got, "\n", &save); t; t = strtok_r(NULL, "\n", &save)) {
		uint64_t ino = strtoull(t, NULL, 16);

		CHECK(ino >= lo && ino <= hi, "%s %s: inode %llu outside [%llu, %llu]", type, what,
		      (unsigned long long)ino, (unsigned long long)lo, (unsigned long long)hi);
		for (int i = 0; i < n; i++)
			found += (!pick || pick[i]) && want[i] == ino;
	}
	for (int i = 0; i < n; i++)
		expected += !pick || pick[i];
	CHECK(found == expected, "%s %s: %d of the %d expected inodes traced", type, what, found,
	      expected);
	free(got);
}

static int scrub(uint32_t type, uint64_t ino, uint32_t gen, uint32_t iflags, uint32_t *oflags)
{
	int fd = open(FX_MNT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	REQUIRE(fd >= 0, "open " FX_MNT);
	*oflags = 0;
	int rc = map_scrub_call(fd, type, 0, ino, gen, iflags, oflags);
	close(fd);
	return rc;
}

/* Line number of the first line of @file with @needle, 0 if none. */
static int first_line(const char *file, const char *needle)
{
	return atoi(tl_out("grep -n -F -m 1 -e '%s' %s | cut -d: -f1", needle, file));
}

int main(int argc, char **argv)
{
	mapctl = argc > 1 ? argv[1] : "mapctl";
	const char *dev = argc > 2 ? argv[2] : "/dev/vda";
	const char *mirror_dev = argc > 3 ? argv[3] : "/dev/vdb";

	vt_require_vm();
	REQUIRE(vt_modern(), "this test needs the modern profile (parent pointers)");
	fx_setup(dev, vt_features());
	build_tree();
	tl_mkfs_mount(mirror_dev, "", MIRROR);
	tl_must("cp -a " FX_MNT "/. " MIRROR "/");
	tl_must("ls -A " MIRROR "/bigdir > /tmp/big.mirror && ls -A " MIRROR
		"/dirb > /tmp/dirb.mirror");
	CHECK_STR(tl_out("wc -l < /tmp/big.mirror"), "3000");

	/* ---- ground truth ---- */
	uint64_t xattr_ino = fx_ino("xattr-file"), big_ino = fx_ino("bigdir");
	uint64_t dirb_ino = fx_ino("dirb");
	uint32_t dirb_gen = fx_gen("dirb");
	static uint64_t dirb_child_ino[DIRB_NAMES];
	static uint32_t dirb_child_gen[DIRB_NAMES];
	for (int i = 0; i < DIRB_NAMES; i++) {
		char rel[128];

		dirb_name(i, rel, sizeof(rel));
		dirb_child_ino[i] = fx_ino(rel);
		dirb_child_gen[i] = fx_gen(rel);
	}
	REQUIRE(fx_ino_agno(xattr_ino) < fx_ino_agno(big_ino),
		"xattr-file (AG %u) must sort before bigdir (AG %u) in the old plan order",
		fx_ino_agno(xattr_ino), fx_ino_agno(big_ino));

	static struct cluster cl;
	uint64_t victim = 0;
	for (int k = OTHER_FILES - 1; k >= 0 && !victim; k--) {
		char rel[32];

		snprintf(rel, sizeof(rel), "other/i%02d", k);
		memset(&cl, 0, sizeof(cl));
		cl.first = fx_ino(rel) & ~31ULL;
		cl.last = cl.first + 31;
		cl.bad_byte = fx_inode_byte(fx_ino(rel)) & ~4095ULL;
		fx_walk(in_cluster, &cl);
		if (cl.outside == 0 && cl.n_bad > 0 && cl.n > cl.n_bad)
			victim = fx_ino(rel);
	}
	REQUIRE(victim, "no cluster holds only other/ files, on and off one block");
	uint32_t cluster_ag = fx_ino_agno(victim);
	/* The inode btree root of an AG that holds none of the other
	 * victims: its rebuild reads every inode cluster of its AG, and the
	 * scan finds the other victims through the inode btrees. */
	uint32_t agcount = (uint32_t)atoi(tl_out("xfs_db -r -c 'sb 0' -c 'print agcount' " FX_DUST
						 " | sed 's/.*= //'"));
	uint32_t inobt_ag = agcount;
	for (uint32_t ag = 0; ag < agcount && inobt_ag == agcount; ag++)
		if (ag != cluster_ag && ag != fx_ino_agno(big_ino) && ag != fx_ino_agno(xattr_ino))
			inobt_ag = ag;
	REQUIRE(inobt_ag < agcount, "no AG without a victim among %u", agcount);
	printf("cluster %llu-%llu (AG %u): %d files, %d on the lost block; inobt of AG %u\n",
	       (unsigned long long)cl.first, (unsigned long long)cl.last, cluster_ag, cl.n, cl.n_bad,
	       inobt_ag);

	uint64_t victims[4] = {
		fx_dir_block("bigdir", 2 * 4096),
		fx_attr_first_block("xattr-file"),
		cl.bad_byte,
		fx_inobt_root_byte(inobt_ag),
	};
	uint64_t dirb_block = fx_dir_block("dirb", 4096);
	fx_umount();
	uint64_t blocks[4];
	for (int i = 0; i < 4; i++) {
		blocks[i] = victims[i] / 4096;
		printf("bad block %d: device byte %llu\n", i, (unsigned long long)victims[i]);
	}
	fx_add_bad_blocks(blocks, 4);
	fx_mount();

	int first_lost;
	int lost = names_in_bad_block(BIG_NAMES, big_name, &first_lost);
	printf("bigdir: %d names in the unreadable block\n", lost);
	CHECK(lost > 0 && first_lost > 0, "names in bigdir's block 2 (%d, first %d)", lost,
	      first_lost);
	CHECK_INT(tl_sh("stat " FX_MNT "/bigdir/xattr-link >/dev/null"), 0);
	CHECK(tl_sh("getfattr -d " FX_MNT "/xattr-file >/dev/null 2>&1") != 0,
	      "the xattrs of xattr-file read before the repair");

	/* ---- part 1: one repair --all --yes ---- */
	CHECK_INT(ctl("scan " FX_MNT), 1);
	CHECK_INT(ctl("repair " FX_MNT " --dry-run"), 1);
	trace_start();
	int rrc = ctl("repair " FX_MNT " --all --yes > /tmp/repair.out 2>&1");
	tl_sh("cat /tmp/repair.out");
	trace_save("/tmp/trace1");
	if (rrc != 0)
		tl_sh("dmesg | tail -n 60");
	CHECK_INT(rrc, 0);
	CHECK_STR(sql("SELECT count(*) FROM actions WHERE action = 'repair' AND outcome = 'failed'"),
		  "0");
	/* The directory is rebuilt before any xattr salvage. */
	int dir_line = first_line("/tmp/repair.out", "directory: "),
	    xattr_line = first_line("/tmp/repair.out", "xattr: ");
	CHECK(dir_line > 0 && xattr_line > dir_line, "directory step at line %d, xattr at %d",
	      dir_line, xattr_line);
	CHECK_STR(tl_out("sqlite3 " DB " \"SELECT a.outcome FROM actions a JOIN findings f ON "
			 "f.id = a.finding_id WHERE a.action = 'repair-result' AND f.kind = "
			 "'directory' AND f.ino = %llu\"", (unsigned long long)big_ino),
		  "healed");
	CHECK_STR(tl_out("sqlite3 " DB " \"SELECT count(*) FROM actions a JOIN findings f ON "
			 "f.id = a.finding_id WHERE a.action = 'repair-result' AND f.kind = "
			 "'inode-btrees' AND f.agno = %u AND a.outcome = 'healed'\"", inobt_ag),
		  "1");
	char want[32];
	snprintf(want, sizeof(want), "%d|%d", cl.n_bad, cl.n - cl.n_bad);
	CHECK_STR(sql("SELECT sum(a.outcome = 'lost-data'), sum(a.outcome IN ('healed', "
		      "'not-needed')) FROM actions a JOIN findings f ON f.id = a.finding_id WHERE "
		      "a.action = 'repair-result' AND f.kind = 'inode'"), want);
	/* The rebuild stepped over xattr-file and kept its one name there. */
	char hex[32];
	snprintf(hex, sizeof(hex), "other 0x%llx ", (unsigned long long)xattr_ino);
	CHECK(trace_count("/tmp/trace1", "xrep_step_over", hex, "what xattr ") >= 1,
	      "no xrep_step_over of xattr-file's attr fork");
	CHECK(trace_count("/tmp/trace1", "xrep_dir_keep_dirent", "name 'xattr-link'", NULL) >= 1,
	      "xattr-link was not kept");
	CHECK_STR(tl_out("grep -F ' xrep_dir_keep_dirent: ' /tmp/trace1 | grep -v -c -F \"name "
			 "'xattr-link'\""), "0");
	/* ... and the cluster's rebuilt inodes, which have no parent pointer
	 * until their own parent repairs, which come later. */
	check_stepped_over("/tmp/trace1", "directory", "no_pptrs", cl.ino, cl.on_bad_block, cl.n,
			   cl.first, cl.last);
	/* Every name, before refetch: the kernel kept or rebuilt them all. */
	CHECK_INT(tl_sh("ls -A " FX_MNT "/bigdir > /tmp/big.now && cmp /tmp/big.now /tmp/big.mirror"),
		  0);
	CHECK_INT(tl_sh("stat -c %%i " FX_MNT "/bigdir/xattr-link | grep -qx %llu",
			(unsigned long long)xattr_ino), 0);

	CHECK_INT(ctl("refetch " FX_MNT " --from " MIRROR), 0);
	/* The attr leaf the restored xattrs need may be allocated in the
	 * freed bad block, and the scan's media verify reads the disk: until
	 * the leaf is written back there (which remaps the sector on a drive,
	 * and clears the block in dm-dust) it reads EIO.  Freezing writes all
	 * metadata back, as time would. */
	tl_must("xfs_io -x -c freeze -c thaw " FX_MNT);
	CHECK_INT(ctl("scan " FX_MNT), 0);
	CHECK_STR(sql("SELECT count(*) FROM findings WHERE state = 'open'"), "0");
	tl_sh("sqlite3 " DB " \"SELECT id, kind, ino, agno, scrub, detail FROM findings WHERE "
	      "state = 'open'\"");
	CHECK_STR(tl_out("rsync -rlpgoDHAXc --numeric-ids --dry-run --itemize-changes --delete "
			 "--exclude=/lost+found " MIRROR "/ " FX_MNT "/ | head -n 40"),
		  "");
	CHECK_STR(tl_out("ls -A " FX_MNT "/lost+found 2>/dev/null | wc -l"), "0");

	/* ---- part 2: single rebuilds step over what they cannot read ---- */
	/* The names in the cluster now (refetch may have replaced files). */
	uint64_t bad_byte = cl.bad_byte;
	memset(&cl, 0, sizeof(cl));
	cl.first = victim & ~31ULL;
	cl.last = cl.first + 31;
	cl.bad_byte = bad_byte;
	fx_walk(in_cluster, &cl);
	REQUIRE(cl.n > 0 && cl.outside == 0, "the cluster holds %d names, %d not in other/", cl.n,
		cl.outside);
	fx_umount();
	uint64_t more[2] = { cl.bad_byte / 4096, dirb_block / 4096 };
	fx_add_bad_blocks(more, 2);
	fx_mount();
	int f;
	lost = names_in_bad_block(DIRB_NAMES, dirb_name, &f);
	printf("dirb: %d names in the unreadable block, first %d\n", lost, f);
	REQUIRE(lost > 0 && f >= 0, "no name of dirb in its block 1");

	uint32_t oflags;
	trace_start();
	int prc = scrub(XFS_SCRUB_TYPE_PARENT, dirb_child_ino[f], dirb_child_gen[f],
			XFS_SCRUB_IFLAG_REPAIR | XFS_SCRUB_IFLAG_FORCE_REBUILD, &oflags);
	int drc = scrub(XFS_SCRUB_TYPE_DIR, dirb_ino, dirb_gen,
			XFS_SCRUB_IFLAG_REPAIR | XFS_SCRUB_IFLAG_FORCE_REBUILD, &oflags);
	trace_save("/tmp/trace2");
	CHECK(prc == 0, "PARENT rebuild of dirb's child %d: %s", f, strerror(-prc));
	CHECK(drc == 0, "DIRECTORY rebuild of dirb: %s", strerror(-drc));
	snprintf(hex, sizeof(hex), "other 0x%llx ", (unsigned long long)dirb_ino);
	CHECK_INT(trace_count("/tmp/trace2", "xrep_step_over", hex, "what dirblocks count 1 "), 1);
	char name[128], needle[256];
	dirb_name(f, name, sizeof(name));
	snprintf(needle, sizeof(needle), "parent_ino 0x%llx parent_gen 0x%x name '%s'",
		 (unsigned long long)dirb_ino, dirb_gen, name + strlen("dirb/"));
	CHECK_INT(trace_count("/tmp/trace2", "xrep_parent_keep_parentadd", needle, NULL), 1);
	check_stepped_over("/tmp/trace2", "parent", "inode", cl.ino, NULL, cl.n, cl.first, cl.last);
	check_stepped_over("/tmp/trace2", "directory", "inode", cl.ino, NULL, cl.n, cl.first,
			   cl.last);
	CHECK_INT(tl_sh("ls -A " FX_MNT "/dirb > /tmp/dirb.now && cmp /tmp/dirb.now /tmp/dirb.mirror"),
		  0);
	char rel_path[256];
	snprintf(rel_path, sizeof(rel_path), FX_MNT "/%s", name);
	struct stat st;
	CHECK(lstat(rel_path, &st) == 0 && st.st_ino == dirb_child_ino[f],
	      "%s after the rebuilds: %s", rel_path, strerror(errno));
	CHECK_STR(tl_out("ls -A " FX_MNT "/lost+found 2>/dev/null | wc -l"), "0");
	CHECK_INT(scrub(XFS_SCRUB_TYPE_DIR, dirb_ino, dirb_gen, 0, &oflags), 0);
	CHECK(!(oflags & XFS_SCRUB_OFLAG_CORRUPT), "dirb scrubs corrupt (0x%x)", oflags);
	CHECK_INT(scrub(XFS_SCRUB_TYPE_PARENT, dirb_child_ino[f], dirb_child_gen[f], 0, &oflags), 0);
	CHECK(!(oflags & XFS_SCRUB_OFLAG_CORRUPT), "the child's parent pointers scrub corrupt (0x%x)",
	      oflags);

	fx_umount();
	/* Blocks freed by the rebuilds still fail in dm-dust, and the cluster
	 * was left as it was: xfs_repair reads both. */
	tl_must("dmsetup message dust 0 disable");
	CHECK_INT(fx_repair_check(), 0);
	fx_teardown();
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
