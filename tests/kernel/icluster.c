// SPDX-License-Identifier: GPL-2.0-or-later
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "badblock.h"
#include "check.h"
#include "icluster.h"
#include "ktest.h"
#include "map_scrub.h"
#include "vmtest.h"
#include "xfs_abi.h"

int ic_stat(const char *path, struct stat *st)
{
	return stat(path, st) == 0 ? 0 : -errno;
}

int ic_count_names(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t len = strlen(prefix);
	int n = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d)) != NULL)
		n += strncmp(e->d_name, prefix, len) == 0;
	closedir(d);
	return n;
}

int ic_scrub(uint32_t type, uint64_t ino, uint32_t gen, uint32_t iflags, uint32_t *oflags)
{
	return kt_scrub_ino(BB_MNT, type, ino, gen, iflags, oflags);
}

/* Disk address of inode @ino on the unmounted BB_DEV. */
static unsigned long long ino_daddr(uint64_t ino)
{
	unsigned long long daddr;
	const char *out = tl_out("xfs_db -r -c 'convert ino %llu daddr' %s",
				 (unsigned long long)ino, BB_DEV);

	REQUIRE(sscanf(out, "%*s (%llu)", &daddr) == 1, "xfs_db convert: %s", out);
	return daddr;
}

static void make_entry(struct ic_file *f, int i, bool dir)
{
	snprintf(f->path, sizeof(f->path), BB_MNT "/f%02d", i);
	f->is_dir = dir;
	if (dir) {
		REQUIRE(mkdir(f->path, 0700) == 0, "mkdir %s: %s", f->path, strerror(errno));
		return;
	}
	f->size = (size_t)(1 + i % 6) * IC_FS_BLOCK;
	tl_write_file(f->path, f->size, (unsigned int)(100 + i), true);
}

/* ic_setup()'s entries: file @dir_index a directory made right after a
 * remount, its IC_DIR_ENTRIES files after the 72. */
static bool make_dir_entries(struct ic_file *f, int i, void *arg)
{
	int dir_index = *(int *)arg;

	if (i == dir_index) {
		/* The first directory made after a mount goes to AG 0. */
		tl_umount(BB_MNT);
		tl_mount(BB_DEV, BB_MNT, NULL);
		make_entry(f, i, true);
		return true;
	}
	if (i != IC_FILES - 1 || dir_index < 0)
		return false;
	make_entry(f, i, false);
	/* After the 72: their inodes are outside the cluster. */
	for (int k = 0; k < IC_DIR_ENTRIES; k++) {
		char path[96];

		snprintf(path, sizeof(path), BB_MNT "/f%02d/entry%d", dir_index, k);
		tl_write_file(path, IC_FS_BLOCK, (unsigned int)(900 + k), true);
	}
	return true;
}

static void set_attrs(const struct ic_file *f, int i)
{
	struct timespec times[2] = {
		{ .tv_sec = 1500000000 + i * 3601, .tv_nsec = 1000 * i },
		{ .tv_sec = 1600000000 + i * 7919, .tv_nsec = 123456 + i },
	};
	mode_t mode = (f->is_dir ? 0700 : 0600) | (i % 8) << 3;
	struct stat st;

	REQUIRE(lstat(f->path, &st) == 0, "lstat %s: %s", f->path, strerror(errno));
	if (S_ISLNK(st.st_mode)) {
		/* A symlink has no mode of its own. */
		REQUIRE(lchown(f->path, 1000 + i, 2000 + i) == 0 &&
				utimensat(AT_FDCWD, f->path, times, AT_SYMLINK_NOFOLLOW) == 0,
			"set attributes of %s: %s", f->path, strerror(errno));
		return;
	}
	REQUIRE(chown(f->path, 1000 + i, 2000 + i) == 0 && chmod(f->path, mode) == 0 &&
			utimensat(AT_FDCWD, f->path, times, 0) == 0,
		"set attributes of %s: %s", f->path, strerror(errno));
}

void ic_setup(struct ic_fs *fs, const char *backing, int dir_index, const char *mount_opts)
{
	struct ic_shape shape = { .make = make_dir_entries, .arg = &dir_index };

	ic_setup_shape(fs, backing, &shape, mount_opts);
	if (dir_index >= 0)
		REQUIRE(fs->f[dir_index].in_bad_block, "directory %s is not in the bad block",
			fs->f[dir_index].path);
}

/* bb_setup() for a V4 filesystem: no profile features. */
static void setup_v4(const char *backing, const char *mkfs_opts)
{
	tl_allow_small_fs(BB_DEV);
	kt_dust_create(BB_DUST, backing);
	tl_must("mkfs.xfs -q -f %s %s", mkfs_opts, BB_DEV);
	tl_mount(BB_DEV, BB_MNT, NULL);
}

int ic_dust_bad_blocks(void)
{
	int n = -1;
	/* "countbadblocks: 1 badblock(s) found" */
	const char *out = tl_out("dmsetup message %s 0 countbadblocks", BB_DUST);

	REQUIRE(sscanf(out, "countbadblocks: %d", &n) == 1, "dm-dust countbadblocks: %s", out);
	return n;
}

void ic_setup_shape(struct ic_fs *fs, const char *backing, const struct ic_shape *shape,
		    const char *mount_opts)
{
	unsigned int isize = shape->inode_size ? shape->inode_size : IC_INODE_SIZE;
	unsigned int bsize = shape->block_size ? shape->block_size : IC_FS_BLOCK;
	char opts[256];
	struct xfs_fsop_geom geo;
	struct stat st;
	int fd, nbad = 0, nneighbours = 0;

	memset(fs, 0, sizeof(*fs));
	snprintf(opts, sizeof(opts), "-d agcount=4 %s", shape->mkfs_opts ? shape->mkfs_opts : "");
	if (shape->v4)
		setup_v4(backing, opts);
	else
		bb_setup(backing, opts);
	fd = tl_open(BB_MNT, O_RDONLY | O_DIRECTORY);
	kt_geometry(fd, &geo);
	close(fd);
	REQUIRE(geo.inodesize == isize && geo.blocksize == bsize,
		"geometry: inode size %u, block size %u, want %u, %u", geo.inodesize,
		geo.blocksize, isize, bsize);
	fs->inode_size = isize;
	fs->bad_inodes = IC_FS_BLOCK / isize;
	fs->piece = geo.sectsize > isize ? geo.sectsize : isize;

	for (int i = 0; i < IC_FILES; i++)
		if (!shape->make || !shape->make(&fs->f[i], i, shape->arg))
			make_entry(&fs->f[i], i, false);
	for (int i = 0; i < IC_FILES; i++)
		set_attrs(&fs->f[i], i);
	tl_must("sync");

	/* Settle: a remount drops speculative preallocations and caches. */
	tl_umount(BB_MNT);
	tl_mount(BB_DEV, BB_MNT, NULL);
	for (int i = 0; i < IC_FILES; i++) {
		uint64_t ino;

		REQUIRE(lstat(fs->f[i].path, &fs->f[i].st) == 0, "lstat %s", fs->f[i].path);
		if (!S_ISLNK(fs->f[i].st.st_mode))
			tl_ino_gen(fs->f[i].path, &ino, &fs->f[i].gen);
	}
	fs->first = fs->f[IC_CLUSTER_FILE].st.st_ino & ~(uint64_t)(IC_CLUSTER_INODES - 1);
	fs->bad_first = fs->first + IC_CLUSTER_INODES - fs->bad_inodes;
	for (int i = 0; i < IC_FILES; i++) {
		struct ic_file *f = &fs->f[i];
		uint64_t ino = f->st.st_ino;

		f->in_cluster = ino >= fs->first && ino < fs->first + IC_CLUSTER_INODES;
		f->in_bad_block = ino >= fs->bad_first && ino < fs->bad_first + fs->bad_inodes;
		nbad += f->in_bad_block;
		nneighbours += f->in_cluster && !f->in_bad_block;
		printf("%s: ino %llu%s%s\n", f->path, (unsigned long long)ino,
		       f->is_dir ? " (directory)" : S_ISLNK(f->st.st_mode) ? " (symlink)" : "",
		       f->in_bad_block ? " (bad block)" : f->in_cluster ? " (cluster)" : "");
	}
	REQUIRE(nbad == (int)fs->bad_inodes &&
			nneighbours == IC_CLUSTER_INODES - (int)fs->bad_inodes,
		"the cluster holds %d + %d of our files, want all %d inodes", nbad, nneighbours,
		IC_CLUSTER_INODES);
	REQUIRE(stat(BB_MNT, &st) == 0 &&
			(st.st_ino < fs->first || st.st_ino >= fs->first + IC_CLUSTER_INODES),
		"the root directory is in the cluster");
	fs->sums = tl_checksums(BB_MNT);

	tl_umount(BB_MNT);
	fs->daddr = ino_daddr(fs->bad_first);
	fs->cluster_daddr = ino_daddr(fs->first);
	fs->dust_blk = fs->daddr * 512 / IC_FS_BLOCK;
	printf("cluster: inodes %llu-%llu at daddr %llu; bad block: inodes %llu-%llu, daddr %llu, "
	       "dust block %llu\n", (unsigned long long)fs->first,
	       (unsigned long long)fs->first + IC_CLUSTER_INODES - 1, fs->cluster_daddr,
	       (unsigned long long)fs->bad_first,
	       (unsigned long long)fs->bad_first + fs->bad_inodes - 1, fs->daddr,
	       (unsigned long long)fs->dust_blk);
	tl_mount(BB_DEV, BB_MNT, mount_opts);
}

struct ic_file *ic_file_of(struct ic_fs *fs, uint64_t ino)
{
	for (int i = 0; i < IC_FILES; i++)
		if (fs->f[i].st.st_ino == ino)
			return &fs->f[i];
	return NULL;
}

void ic_check_unchanged(const struct ic_fs *fs, bool all)
{
	for (int i = 0; i < IC_FILES; i++) {
		const struct ic_file *f = &fs->f[i];
		struct stat st;
		uint64_t ino;
		uint32_t gen;
		int rc;

		if (!f->in_cluster || (f->in_bad_block && !all))
			continue;
		rc = lstat(f->path, &st) == 0 ? 0 : -errno;
		CHECK(rc == 0, "stat %s: %s", f->path, strerror(-rc));
		if (rc)
			continue;
		gen = f->gen;
		if (!S_ISLNK(st.st_mode))
			tl_ino_gen(f->path, &ino, &gen);
		CHECK(st.st_ino == f->st.st_ino && st.st_mode == f->st.st_mode &&
			      st.st_uid == f->st.st_uid && st.st_gid == f->st.st_gid &&
			      st.st_nlink == f->st.st_nlink && st.st_size == f->st.st_size &&
			      st.st_mtim.tv_sec == f->st.st_mtim.tv_sec &&
			      st.st_mtim.tv_nsec == f->st.st_mtim.tv_nsec && gen == f->gen,
		      "%s changed: ino %llu mode 0%o uid %u gid %u nlink %lu size %lld mtime "
		      "%lld.%09ld gen %u (was mode 0%o uid %u size %lld gen %u)", f->path,
		      (unsigned long long)st.st_ino, st.st_mode, st.st_uid, st.st_gid,
		      (unsigned long)st.st_nlink, (long long)st.st_size,
		      (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, gen, f->st.st_mode,
		      f->st.st_uid, (long long)f->st.st_size, f->gen);
	}
}

void ic_check_rebuilt(const struct ic_file *f)
{
	struct stat st;
	int rc = ic_stat(f->path, &st);

	CHECK(rc == 0, "stat %s after the repair: %s", f->path, strerror(-rc));
	if (rc)
		return;
	CHECK(st.st_ino == f->st.st_ino && S_ISREG(st.st_mode) && (size_t)st.st_size == f->size &&
		      st.st_uid == 0 && st.st_gid == 0 && (st.st_mode & 07777) == 0 &&
		      st.st_nlink == 1,
	      "rebuilt %s: ino %llu mode 0%o size %lld uid %u gid %u nlink %lu, expected a "
	      "root-owned regular file of %zu bytes, mode 0, one link", f->path,
	      (unsigned long long)st.st_ino, st.st_mode, (long long)st.st_size, st.st_uid,
	      st.st_gid, (unsigned long)st.st_nlink, f->size);
}

void ic_check_repaired(const struct ic_fs *fs)
{
	ic_check_unchanged(fs, false);
	for (int i = 0; i < IC_FILES; i++)
		if (fs->f[i].in_bad_block)
			ic_check_rebuilt(&fs->f[i]);
}

void ic_check_sums(const struct ic_fs *fs)
{
	char *now = tl_checksums(BB_MNT);

	CHECK_STR(now, fs->sums);
	free(now);
}

static bool scrub_clean(uint32_t type, uint64_t ino, uint32_t gen, const char *what)
{
	uint32_t oflags;
	int rc = ic_scrub(type, ino, gen, 0, &oflags);

	CHECK(rc == 0 && oflags == 0, "scrub %s of inode %llu: rc %d flags 0x%x", what,
	      (unsigned long long)ino, rc, oflags);
	return rc == 0 && oflags == 0;
}

void ic_check_scrubs(const struct ic_fs *fs, bool rebuilt)
{
	uint32_t oflags;
	int fd, rc;

	for (int i = 0; i < IC_FILES; i++) {
		const struct ic_file *f = &fs->f[i];
		uint64_t ino;
		uint32_t gen;

		if (!f->in_cluster)
			continue;
		if (ic_stat(f->path, &(struct stat){ 0 }) != 0)
			continue;	/* counted by the caller's checks */
		tl_ino_gen(f->path, &ino, &gen);
		if (vt_modern() && rebuilt && f->in_bad_block) {
			/* The parent pointer was inline in the lost inode. */
			rc = ic_scrub(XFS_SCRUB_TYPE_PARENT, ino, gen, XFS_SCRUB_IFLAG_REPAIR,
				      &oflags);
			CHECK(rc == 0 && !(oflags & XFS_SCRUB_OFLAG_CORRUPT),
			      "PARENT repair of inode %llu: rc %d flags 0x%x",
			      (unsigned long long)ino, rc, oflags);
		}
		scrub_clean(XFS_SCRUB_TYPE_INODE, ino, gen, "INODE");
		if (f->is_dir)
			scrub_clean(XFS_SCRUB_TYPE_DIR, ino, gen, "DIR");
		else
			scrub_clean(XFS_SCRUB_TYPE_BMBTD, ino, gen, "BMBTD");
		if (vt_modern())
			scrub_clean(XFS_SCRUB_TYPE_PARENT, ino, gen, "PARENT");
	}
	fd = tl_open(BB_MNT, O_RDONLY | O_DIRECTORY);
	rc = map_scrub_call(fd, XFS_SCRUB_TYPE_NLINKS, 0, 0, 0, 0, &oflags);
	close(fd);
	CHECK(rc == 0 && oflags == 0, "scrub of the link counts: rc %d flags 0x%x", rc, oflags);
}

bool ic_mount_checked(const char *opts)
{
	int rc = tl_sh("mkdir -p %s && mount %s%s %s %s", BB_MNT, opts ? "-o " : "",
		       opts ? opts : "", BB_DEV, BB_MNT);

	CHECK(rc == 0, "mount %s: status %d", BB_DEV, rc);
	if (rc != 0) {
		tl_sh("dmesg | tail -n 25");
		tl_sh("dmsetup message %s 0 disable", BB_DUST);
		tl_sh("xfs_repair -n %s; echo xfs_repair -n: $?", BB_DEV);
		tl_sh("dmsetup remove %s", BB_DUST);
	}
	return rc == 0;
}

void ic_power_cut(void)
{
	tl_must("xfs_io -x -c 'shutdown -f' %s", BB_MNT);
	tl_umount(BB_MNT);
}
