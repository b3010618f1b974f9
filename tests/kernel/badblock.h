/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of online repair over unreadable metadata blocks: a filesystem on
 * dm-dust, one 4 KiB block under a metadata object made unreadable while the
 * filesystem is unmounted (so the mount starts with cold caches), then scrub
 * and REPAIR of that object through the scrub ioctl.
 */
#ifndef MAPPER_BADBLOCK_H
#define MAPPER_BADBLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define BB_DUST "kbad"
#define BB_DEV "/dev/mapper/" BB_DUST
#define BB_MNT "/tmp/mnt"

/* dm-dust over @backing, mkfs.xfs with the profile's features and @opts,
 * mounted at BB_MNT. */
void bb_setup(const char *backing, const char *mkfs_opts);

/* Disk address (512-byte sectors) of block @fileoff of a fork of inode @ino,
 * looked up with xfs_db; the filesystem must be unmounted. */
uint64_t bb_fork_daddr(uint64_t ino, bool attr_fork, uint64_t fileoff);

/* Unmount, make the dm-dust block that holds block @fileoff of a fork of
 * inode @ino unreadable, mount again (cold caches).  Returns the dm-dust
 * block number. */
uint64_t bb_damage(uint64_t ino, bool attr_fork, uint64_t fileoff);

/* Make the dm-dust block that holds disk address @daddr (512-byte sectors)
 * unreadable and mount BB_DEV at BB_MNT (it must be unmounted).  Returns the
 * dm-dust block number. */
uint64_t bb_damage_daddr(uint64_t daddr);
/* kt_trace_start() with those of @events that this kernel has; returns the
 * number it does not have (each printed), so that a test can run on and fail
 * on a kernel without the patches. */
int bb_trace_start(const char *const *events, size_t n);

/*
 * A transient error: a child that follows trace_pipe until a line containing
 * @needle, then removes dm-dust block @blk (through the device-mapper ioctl,
 * at once).  Returns its pid once it has the pipe open.  bb_healer_done()
 * reaps it (killing it if it still waits) and says whether it saw the line
 * and removed the block.
 */
pid_t bb_healer_start(const char *needle, uint64_t blk);
bool bb_healer_done(pid_t pid);

/* Scrub (or with XFS_SCRUB_IFLAG_REPAIR, repair) @type on the inode behind
 * @path (not followed); 0 or -errno, output flags in @oflags. */
int bb_scrub(const char *path, uint32_t type, uint32_t iflags, uint32_t *oflags);

/* The filesystem is still mounted and takes a synced write (not shut down). */
bool bb_fs_alive(void);

/* Unmount; xfs_repair -n must find nothing (with dm-dust disabled: it reads
 * free space too, in large chunks); remove dm-dust; no BUG, WARNING, lockdep
 * or KASAN report in the kernel log.  Returns the number of those checks that
 * failed (each one printed). */
int bb_finish(void);

#endif
