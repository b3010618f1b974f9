/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A damaged-filesystem fixture for vm tests: a dm-dust device, a generated
 * tree with every kind of file the mapper must handle, and ground truth
 * taken from FIEMAP, GETBMAPX and xfs_db (not from the code under test).
 */
#ifndef MAPPER_FIXTURE_H
#define MAPPER_FIXTURE_H

#include <stdint.h>

#define FX_MNT "/mnt/fx"
#define FX_DUST "/dev/mapper/dust"

/* Make a dm-dust device over @dev (4 KiB bad-block units) and an XFS
 * filesystem with @mkfs_opts on it, mounted at FX_MNT. */
void fx_setup(const char *dev, const char *mkfs_opts);
void fx_mount(void);
void fx_umount(void);
/* Mark these 4 KiB blocks of the device bad and turn dm-dust on (the
 * filesystem must be unmounted so no cached copy hides the damage). */
void fx_add_bad_blocks(const uint64_t *blocks, int n);
void fx_teardown(void);
/* xfs_repair -n on the unmounted FX_DUST, the end of its log shown; its
 * exit status (0: clean). */
int fx_repair_check(void);

/*
 * The standard tree under FX_MNT, relative names:
 *   tree/dNN/sN/fNN.dat   20 x 5 folders of 21 files (2100 files, 1-24 KiB)
 *   docs/thesis.pdf       256 KiB, hard-linked as tree/d03/thesis-link.pdf
 *                         and public/thesis.pdf (3 names)
 *   media/film.mkv        8 MiB; backup/film-copy.mkv is a reflink copy
 *   sparse.img            64 KiB at 0 and at 100 MiB, a hole between
 *   xattrs.dat            4 KiB of data and 300 extended attributes
 *   big/archive.tar       50 MiB
 *   odd/name with spaces.txt, odd/new\nline.txt, odd/\xff\xfe-bytes.bin
 *   bigdir/entry-NNNN-...  500 empty files: a directory of several blocks
 *   inodes/iNN            48 small files created last, for inode chunk damage
 */
void fx_build_tree(void);

/* Device byte holding byte @offset of file @rel (FIEMAP). */
uint64_t fx_file_physical(const char *rel, uint64_t offset);
/* Device byte of the first data block of directory @rel (GETBMAPX). */
uint64_t fx_dir_first_block(const char *rel);
/* Device byte of byte @offset of directory @rel's data fork (GETBMAPX). */
uint64_t fx_dir_block(const char *rel, uint64_t offset);
/* Device byte of the first block of @rel's attribute fork, which must be in
 * extents or btree format (GETBMAPX). */
uint64_t fx_attr_first_block(const char *rel);
/* Device byte of byte @offset of @rel's attribute fork (GETBMAPX). */
uint64_t fx_attr_block(const char *rel, uint64_t offset);
/* Inode number of @rel (lstat). */
uint64_t fx_ino(const char *rel);
/* Generation of regular file @rel (FS_IOC_GETVERSION). */
uint32_t fx_gen(const char *rel);
/* Device byte of inode @ino's core (xfs_db convert, read-only). */
uint64_t fx_inode_byte(uint64_t ino);
/* Device byte of the inode btree root block of AG @agno (xfs_db). */
uint64_t fx_inobt_root_byte(uint32_t agno);
/* AG of inode @ino (xfs_db). */
uint32_t fx_ino_agno(uint64_t ino);

/* Walk the tree: @fn(rel path, lstat inode number) for every name. */
void fx_walk(void (*fn)(const char *rel, uint64_t ino, void *arg), void *arg);

#endif
