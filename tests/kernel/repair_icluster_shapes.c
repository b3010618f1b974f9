// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a lost inode cluster may hold, beyond plain files (issue 34, item 8;
 * both profiles).  The fixture of icluster.h: 32 files fill a 16 KiB
 * cluster, and its last 4 KiB block (files 53..60) becomes unreadable; each
 * round makes a fresh filesystem.  REPAIR is of file 60 unless said.
 *
 * - holemask: the inode btree record of the chunk is changed with xfs_db to
 *   say that the bad block is a hole of a sparse chunk (holemask 0xc000,
 *   count 56, those 8 inodes free; the record still passes its verifier).
 *   A hole is not inode space: its blocks may belong to anything, and
 *   holes are whole clusters (mount checks that), so a record that cuts a
 *   cluster contradicts itself.  REPAIR of file 40 (readable part) must
 *   leave the inode corrupt (the salvage fails with EFSCORRUPTED, which
 *   the scrub ioctl reports as OFLAG_CORRUPT) and write nothing: no inode
 *   rebuilt, no cluster write, dm-dust still has its bad block.  Before
 *   the fix REPAIR succeeded and wrote 8 free inode cores into the "hole".
 * - reflink: files 53..60 are reflinked copies of files 3..10 (outside the
 *   cluster); file 54's first block was overwritten since (unshared).  The
 *   rebuilt files carry the reflink flag: FIEMAP says SHARED for every
 *   shared block and not for file 54's first block; all data reads back;
 *   INODE (which compares the flag with the refcount btree), BMBTD and the
 *   link counts scrub clean; a write into a rebuilt copy is copied on write
 *   and leaves its source unchanged; xfs_repair -n is clean.
 * - directory and symlink: file 55 is a directory of 40 entries (one
 *   directory block; the entries are made after the 72 files, so their
 *   inodes are outside the cluster) and file 57 a symlink with a 900-byte
 *   target (one remote block).  They come back as a directory listing its
 *   40 entries with 2 links, and as a symlink whose target reads back
 *   exactly (readlink, SYMLINK scrub clean), never as another type.  On
 *   modern the directory keeps the generation that its children's parent
 *   pointers record (else DIRECTORY scrub says XCORRUPT, and directory
 *   repair, which takes only pointers with its generation, would empty it).
 *   Before the fixes: the symlink got size 1024 and readlink EUCLEAN, and
 *   (modern) the directory a new generation.
 * - root: the root directory's own cluster (root, the realtime bitmap and
 *   summary inodes, files 0..4 in its first 4 KiB block), made unreadable
 *   while mounted (noatime, caches dropped: the root stays in memory).
 *   REPAIR of file 4 succeeds, the root is taken from memory: after a
 *   remount it is the same directory (mode, owner, links) listing all 72
 *   names, files 0..4 are rebuilt, files 5..28 unchanged, everything
 *   scrubs clean and xfs_repair -n is clean (the metadata inodes too).
 *   The realtime bitmap and summary inodes (no blocks, no name, not in
 *   memory without CONFIG_XFS_RT) are regular files with one link, the
 *   bitmap with NEWRTBM, as the superblock names them; before, on the
 *   merged series, they were written as "type unknown" and every
 *   whole-filesystem scan stopped at them (link counts XFAIL|INCOMPLETE,
 *   on modern PARENT repair of files 0..4 CORRUPT).
 * The kernel log has no BUG, WARNING or lockdep report in any round.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "badblock.h"
#include "check.h"
#include "icluster.h"
#include "ktest.h"
#include "vmtest.h"
#include "xfs_abi.h"

#define TARGET_FILE 60
#define DIR_FILE 55
#define DIR_ENTRIES 40
#define LINK_FILE 57
#define LINK_LEN 900
#define REFLINK_FIRST 53
#define REFLINK_LAST 60
#define REFLINK_SRC(i) ((i) - 50)
#define UNSHARED_FILE 54

static struct ic_fs fs;

static const char *const events[] = {
	"xfs_scrub:xrep_icluster_rebuild",
	"xfs_scrub:xrep_icluster_write",
	"xfs_scrub:xrep_icluster_cached",
};
#define NR_EVENTS (sizeof(events) / sizeof(events[0]))

static void damage(void)
{
	tl_umount(BB_MNT);
	kt_dust_add(BB_DUST, fs.dust_blk, 0);
	kt_dust_enable(BB_DUST, true);
	tl_mount(BB_DEV, BB_MNT, NULL);
}

/* REPAIR of @f with the salvage's trace events; the trace (malloc'd). */
static char *repair(const struct ic_file *f, int *rc, uint32_t *oflags)
{
	char *trace;

	CHECK_INT(bb_trace_start(events, NR_EVENTS), 0);
	*rc = ic_scrub(XFS_SCRUB_TYPE_INODE, f->st.st_ino, f->gen, XFS_SCRUB_IFLAG_REPAIR,
		       oflags);
	trace = kt_trace_stop();
	printf("repair of %s: rc %d flags 0x%x\n%s", f->path, *rc, *oflags, trace);
	return trace;
}

static void check_repaired(int rc, uint32_t oflags)
{
	CHECK(rc == 0 && !(oflags & XFS_SCRUB_OFLAG_CORRUPT), "REPAIR: rc %d flags 0x%x", rc,
	      oflags);
}

/* xfs_db on the unmounted filesystem; the output in a static buffer. */
#define DB(...) tl_out("xfs_db -r " __VA_ARGS__)

/* ---- a hole of a sparse chunk across the cluster ---- */

static void round_holemask(const char *backing)
{
	struct ic_file *t;
	unsigned long long chunk = 0, v;
	unsigned int rec = 0, nrecs = 0;
	uint32_t oflags;
	char *trace;
	int rc;

	printf("=== holemask: the inode btree puts the bad block in a hole\n");
	ic_setup(&fs, backing, -1, NULL);
	t = &fs.f[IC_CLUSTER_FILE];
	REQUIRE(t->in_cluster && !t->in_bad_block, "unexpected layout");
	tl_umount(BB_MNT);

	/* The cluster is the second half of the root's chunk, in AG 0. */
	chunk = fs.first - IC_CLUSTER_INODES;
	REQUIRE(sscanf(DB("-c 'agi 0' -c 'addr root' -c 'print level numrecs' %s", BB_DEV),
		       "level = %llu numrecs = %u", &v, &nrecs) == 2 && v == 0,
		"the inode btree of AG 0 is not one leaf");
	for (unsigned int i = 1; i <= nrecs && !rec; i++) {
		const char *out = DB("-c 'agi 0' -c 'addr root' -c 'print recs[%u].startino' %s",
				     i, BB_DEV);

		if (sscanf(out, "recs[%*u].startino = %llu", &v) == 1 && v == chunk)
			rec = i;
	}
	REQUIRE(rec, "no inode btree record starts at inode %llu", chunk);
	/*
	 * Holemask bits 14 and 15: inodes 56..63 of the chunk, the bad block,
	 * free as holes are (xfs_db reads numbers as signed: the free mask
	 * 0xff00000000000000 is written as a negative one).
	 */
	tl_must("xfs_db -x -c 'agi 0' -c 'addr root' -c 'write recs[%u].holemask 0xc000' "
		"-c 'write recs[%u].count 56' -c 'write -- recs[%u].free -72057594037927936' "
		"-c 'print recs[%u]' %s", rec, rec, rec, rec, BB_DEV);
	REQUIRE(strstr(DB("-c 'agi 0' -c 'addr root' -c 'print recs[%u]' %s", rec, BB_DEV),
		       ",0xc000,56,0,0xff00000000000000]"),
		"the record was not changed as wanted");

	kt_dust_add(BB_DUST, fs.dust_blk, 0);
	kt_dust_enable(BB_DUST, true);
	tl_mount(BB_DEV, BB_MNT, NULL);
	trace = repair(t, &rc, &oflags);
	/* The scrub ioctl turns the repair's EFSCORRUPTED into "still corrupt". */
	CHECK(rc == 0 && (oflags & XFS_SCRUB_OFLAG_CORRUPT),
	      "REPAIR of a cluster cut by a hole: rc %d (%s) flags 0x%x, expected it still "
	      "corrupt", rc, strerror(-rc), oflags);
	CHECK_INT(kt_trace_count(trace, "xrep_icluster_rebuild", NULL), 0);
	CHECK_INT(kt_trace_count(trace, "xrep_icluster_write", NULL), 0);
	free(trace);
	CHECK_INT(ic_dust_bad_blocks(), 1);

	/* The inode btree is damaged on purpose: no xfs_repair -n. */
	tl_umount(BB_MNT);
	kt_dust_remove(BB_DUST);
	CHECK_INT(vt_kernel_log_problems(), 0);
	free(fs.sums);
}

/* ---- reflinked copies ---- */

/* Overwrite the first block of @path in place (no truncation), fsync. */
static void overwrite_block(const char *path, int byte)
{
	char buf[IC_FS_BLOCK];
	int fd = tl_open(path, O_WRONLY);

	memset(buf, byte, sizeof(buf));
	REQUIRE(pwrite(fd, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf) && fsync(fd) == 0,
		"overwrite %s: %s", path, strerror(errno));
	close(fd);
}

static bool make_reflinks(struct ic_file *f, int i, void *arg)
{
	(void)arg;
	if (i < REFLINK_FIRST || i > REFLINK_LAST)
		return false;
	snprintf(f->path, sizeof(f->path), BB_MNT "/f%02d", i);
	f->size = (size_t)(1 + REFLINK_SRC(i) % 6) * IC_FS_BLOCK;
	tl_reflink(fs.f[REFLINK_SRC(i)].path, f->path);
	if (i == UNSHARED_FILE)
		overwrite_block(f->path, 0x5a);
	return true;
}

/* The sha256sum line of one file, as tl_checksums() writes it. */
static bool same_sum(const char *name)
{
	char want[128];
	const char *line = tl_out("cd %s && sha256sum ./%s", BB_MNT, name);

	snprintf(want, sizeof(want), "%s\n", line);
	return strstr(fs.sums, want) != NULL;
}

static void round_reflink(const char *backing)
{
	struct ic_shape shape = { .make = make_reflinks };
	struct ic_file *t;
	uint32_t oflags;
	char *trace;
	int rc;

	printf("=== reflink: the lost block holds reflinked copies\n");
	ic_setup_shape(&fs, backing, &shape, NULL);
	for (int i = REFLINK_FIRST; i <= REFLINK_LAST; i++)
		REQUIRE(fs.f[i].in_bad_block && !fs.f[REFLINK_SRC(i)].in_cluster,
			"unexpected layout");
	t = &fs.f[TARGET_FILE];
	damage();
	trace = repair(t, &rc, &oflags);
	check_repaired(rc, oflags);
	CHECK_INT(kt_trace_count(trace, "xrep_icluster_rebuild", NULL), fs.bad_inodes);
	free(trace);

	tl_umount(BB_MNT);
	if (!ic_mount_checked(NULL))
		return;
	ic_check_unchanged(&fs, false);
	for (int i = REFLINK_FIRST; i <= REFLINK_LAST; i++) {
		struct ic_file *f = &fs.f[i];

		ic_check_rebuilt(f);
		for (size_t off = 0; off < f->size; off += IC_FS_BLOCK) {
			bool want = !(i == UNSHARED_FILE && off == 0);
			uint64_t phys;
			uint32_t flags = 0;

			rc = tl_file_extent(f->path, off, &phys, &flags);
			CHECK(rc == 0 && !!(flags & FIEMAP_EXTENT_SHARED) == want,
			      "%s at %zu: rc %d flags 0x%x, expected %sshared", f->path, off, rc,
			      flags, want ? "" : "not ");
		}
	}
	ic_check_sums(&fs);
	ic_check_scrubs(&fs, true);

	/* A write into a rebuilt copy must not reach its source. */
	overwrite_block(fs.f[REFLINK_FIRST].path, 0xa5);
	CHECK(same_sum("f03"), "f03 changed by a write into its rebuilt reflinked copy f%02d",
	      REFLINK_FIRST);
	CHECK_INT(bb_finish(), 0);
	free(fs.sums);
}

/* ---- a directory and a remote symlink ---- */

static void link_target(char *buf, size_t len)
{
	/* Dangling on purpose: the fixture's checks do not follow it. */
	memcpy(buf, "/nonexistent/", 13);
	for (size_t i = 13; i < len; i++)
		buf[i] = (i % 64 == 63) ? '/' : (char)('a' + i % 26);
	buf[len] = '\0';
}

static bool make_dir_link(struct ic_file *f, int i, void *arg)
{
	(void)arg;
	snprintf(f->path, sizeof(f->path), BB_MNT "/f%02d", i);
	if (i == DIR_FILE) {
		/* The first directory made after a mount goes to AG 0. */
		tl_umount(BB_MNT);
		tl_mount(BB_DEV, BB_MNT, NULL);
		f->is_dir = true;
		REQUIRE(mkdir(f->path, 0700) == 0, "mkdir %s: %s", f->path, strerror(errno));
		return true;
	}
	if (i == LINK_FILE) {
		char target[LINK_LEN + 1];

		link_target(target, LINK_LEN);
		REQUIRE(symlink(target, f->path) == 0, "symlink %s: %s", f->path, strerror(errno));
		return true;
	}
	if (i != IC_FILES - 1)
		return false;
	f->size = IC_FS_BLOCK;
	tl_write_file(f->path, f->size, 100 + i, true);
	/* After the 72: the entries' inodes are outside the cluster. */
	for (int k = 0; k < DIR_ENTRIES; k++) {
		char path[96];

		snprintf(path, sizeof(path), BB_MNT "/f%02d/entry%02d", DIR_FILE, k);
		tl_write_file(path, 0, 0, false);
	}
	return true;
}

static void round_dir_link(const char *backing)
{
	struct ic_shape shape = { .make = make_dir_link };
	struct ic_file *d, *l;
	char want[LINK_LEN + 1], got[LINK_LEN + 2];
	uint32_t oflags;
	struct stat st;
	ssize_t n;
	char *trace;
	int rc;

	printf("=== a directory and a remote symlink in the lost block\n");
	ic_setup_shape(&fs, backing, &shape, NULL);
	d = &fs.f[DIR_FILE];
	l = &fs.f[LINK_FILE];
	REQUIRE(d->in_bad_block && l->in_bad_block && S_ISLNK(l->st.st_mode),
		"unexpected layout");
	tl_sh("xfs_io -r -c 'stat' %s | grep -E 'format|nextents|size'", d->path);
	damage();
	trace = repair(&fs.f[TARGET_FILE], &rc, &oflags);
	check_repaired(rc, oflags);
	CHECK_INT(kt_trace_count(trace, "xrep_icluster_rebuild", NULL), fs.bad_inodes);
	free(trace);

	tl_umount(BB_MNT);
	if (!ic_mount_checked(NULL))
		return;
	rc = lstat(d->path, &st) == 0 ? 0 : -errno;
	CHECK(rc == 0 && S_ISDIR(st.st_mode) && st.st_nlink == 2 && st.st_uid == 0,
	      "%s: rc %d mode 0%o nlink %lu uid %u, expected a directory with 2 links", d->path,
	      rc, st.st_mode, (unsigned long)st.st_nlink, st.st_uid);
	rc = ic_count_names(d->path, "entry");
	CHECK(rc == DIR_ENTRIES, "%s lists %d entries (%s), expected %d", d->path, rc,
	      rc < 0 ? strerror(-rc) : "", DIR_ENTRIES);
	if (vt_modern() && rc == DIR_ENTRIES) {
		uint64_t ino;
		uint32_t gen;

		/* Its children's parent pointers record its generation. */
		tl_ino_gen(d->path, &ino, &gen);
		CHECK(gen == d->gen, "%s: generation %u, its children's parent pointers say %u",
		      d->path, gen, d->gen);
	}

	link_target(want, LINK_LEN);
	rc = lstat(l->path, &st) == 0 ? 0 : -errno;
	CHECK(rc == 0 && S_ISLNK(st.st_mode) && st.st_size == LINK_LEN,
	      "%s: rc %d mode 0%o size %lld, expected a symlink of %d bytes", l->path, rc,
	      st.st_mode, (long long)st.st_size, LINK_LEN);
	n = readlink(l->path, got, sizeof(got));
	CHECK(n == LINK_LEN && memcmp(got, want, LINK_LEN) == 0,
	      "readlink %s: %zd (%s), expected the %d-byte target", l->path, n,
	      n < 0 ? strerror(errno) : "different bytes", LINK_LEN);
	if (vt_modern()) {
		/* Its parent pointer was inline in the lost inode. */
		rc = bb_scrub(l->path, XFS_SCRUB_TYPE_PARENT, XFS_SCRUB_IFLAG_REPAIR, &oflags);
		CHECK(rc == 0 && !(oflags & XFS_SCRUB_OFLAG_CORRUPT),
		      "PARENT repair of %s: rc %d flags 0x%x", l->path, rc, oflags);
	}
	rc = bb_scrub(l->path, XFS_SCRUB_TYPE_SYMLINK, 0, &oflags);
	CHECK(rc == 0 && oflags == 0, "SYMLINK scrub of %s: rc %d flags 0x%x", l->path, rc,
	      oflags);
	rc = bb_scrub(l->path, XFS_SCRUB_TYPE_INODE, 0, &oflags);
	CHECK(rc == 0 && oflags == 0, "INODE scrub of %s: rc %d flags 0x%x", l->path, rc,
	      oflags);
	for (int i = 0; i < IC_FILES; i++)
		if (fs.f[i].in_bad_block && i != DIR_FILE && i != LINK_FILE)
			ic_check_rebuilt(&fs.f[i]);
	ic_check_unchanged(&fs, false);
	ic_check_sums(&fs);
	ic_check_scrubs(&fs, true);
	CHECK_INT(bb_finish(), 0);
	free(fs.sums);
}

/* ---- the root directory's cluster ---- */

static void round_root(const char *backing)
{
	unsigned long long daddr;
	struct ic_file *t = NULL;
	struct stat root, st;
	char needle[48];
	const char *out;
	uint32_t oflags;
	char *trace;
	int rc;

	printf("=== the root directory's cluster\n");
	ic_setup(&fs, backing, -1, "noatime");
	REQUIRE(stat(BB_MNT, &root) == 0, "stat %s", BB_MNT);
	tl_umount(BB_MNT);
	REQUIRE(sscanf(DB("-c 'convert ino %llu daddr' %s", (unsigned long long)root.st_ino,
			  BB_DEV), "%*s (%llu)", &daddr) == 1, "xfs_db convert");
	tl_sh("xfs_db -r -c 'sb 0' -c 'print rootino rbmino rsumino uquotino gquotino pquotino' %s",
	      BB_DEV);
	tl_mount(BB_DEV, BB_MNT, "noatime");

	/* The first 4 KiB of the root's cluster: the root and 7 more. */
	fs.bad_first = root.st_ino;
	fs.first = root.st_ino;
	for (int i = 0; i < IC_FILES; i++) {
		struct ic_file *f = &fs.f[i];

		f->in_cluster = f->st.st_ino >= fs.first &&
				f->st.st_ino < fs.first + IC_CLUSTER_INODES;
		f->in_bad_block = f->st.st_ino < fs.first + fs.bad_inodes;
		if (f->in_bad_block)
			t = f;
	}
	REQUIRE(t, "no file of ours in the root's first block");

	/* The root stays in memory; its cluster and the files leave. */
	for (int i = 0; i < 4; i++)
		tl_must("sync && echo 3 > /proc/sys/vm/drop_caches");
	kt_dust_add(BB_DUST, daddr * 512 / IC_FS_BLOCK, 0);
	kt_dust_enable(BB_DUST, true);
	rc = ic_stat(t->path, &st);
	REQUIRE(rc == -EIO, "stat %s with the block unreadable: %d (the cluster is still in "
		"memory, the test cannot run)", t->path, rc);

	trace = repair(t, &rc, &oflags);
	check_repaired(rc, oflags);
	/*
	 * The root from memory (looked up twice: while the evidence is
	 * gathered and again under the cluster buffer), the 7 others of the
	 * block, the realtime bitmap and summary inodes among them, from
	 * evidence.
	 */
	snprintf(needle, sizeof(needle), "ino 0x%llx ", (unsigned long long)root.st_ino);
	CHECK_INT(kt_trace_count(trace, "xrep_icluster_cached", NULL), 2);
	CHECK_INT(kt_trace_count(trace, "xrep_icluster_cached", needle, "error 0", NULL), 2);
	CHECK_INT(kt_trace_count(trace, "xrep_icluster_rebuild", NULL), fs.bad_inodes - 1);
	free(trace);
	CHECK_INT(ic_dust_bad_blocks(), 0);

	tl_umount(BB_MNT);
	if (!ic_mount_checked(NULL))
		return;
	rc = stat(BB_MNT, &st) == 0 ? 0 : -errno;
	CHECK(rc == 0 && st.st_ino == root.st_ino && st.st_mode == root.st_mode &&
		      st.st_uid == root.st_uid && st.st_gid == root.st_gid &&
		      st.st_nlink == root.st_nlink,
	      "the root: rc %d mode 0%o uid %u nlink %lu, was mode 0%o uid %u nlink %lu", rc,
	      st.st_mode, st.st_uid, (unsigned long)st.st_nlink, root.st_mode, root.st_uid,
	      (unsigned long)root.st_nlink);
	CHECK_INT(ic_count_names(BB_MNT, "f"), IC_FILES);
	for (int i = 0; i < IC_FILES; i++)
		if (fs.f[i].in_bad_block)
			ic_check_rebuilt(&fs.f[i]);
	ic_check_unchanged(&fs, false);
	ic_check_sums(&fs);
	ic_check_scrubs(&fs, true);
	rc = kt_scrub_ino(BB_MNT, XFS_SCRUB_TYPE_DIR, 0, 0, 0, &oflags);
	CHECK(rc == 0 && oflags == 0, "DIR scrub of the root: rc %d flags 0x%x", rc, oflags);
	/* The superblock's realtime bitmap and summary: regular, one link. */
	tl_umount(BB_MNT);
	out = DB("-c 'sb 0' -c 'print rbmino rsumino' -c 'inode %llu' "
		 "-c 'print core.mode core.nlinkv2 core.newrtbm' -c 'inode %llu' "
		 "-c 'print core.mode core.nlinkv2 core.newrtbm' %s",
		 (unsigned long long)root.st_ino + 1, (unsigned long long)root.st_ino + 2,
		 BB_DEV);
	printf("%s\n", out);
	CHECK(strstr(out, "core.mode = 0100000\ncore.nlinkv2 = 1\ncore.newrtbm = 1\n"
			  "core.mode = 0100000\ncore.nlinkv2 = 1\ncore.newrtbm = 0") &&
		      !strstr(out, "CRC error"),
	      "the realtime bitmap and summary inodes are not regular files with one link");
	tl_mount(BB_DEV, BB_MNT, "noatime");
	CHECK_INT(bb_finish(), 0);
	free(fs.sums);
}

int main(int argc, char **argv)
{
	const char *backing = argc > 1 ? argv[1] : "/dev/vda";

	vt_require_vm();
	round_holemask(backing);
	round_reflink(backing);
	round_dir_link(backing);
	round_root(backing);
	return check_done();
}
