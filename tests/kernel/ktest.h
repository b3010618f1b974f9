/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers for the kernel tests (tests/kernel): scrub calls, tracefs, XFS
 * sysfs knobs, dm-dust, kernel work held off a CPU.  They stop the test
 * (exit 1) when the environment does not behave, so that a test's own CHECKs
 * are only about the kernel behaviour under test.
 */
#ifndef MAPPER_KTEST_H
#define MAPPER_KTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <xfs/xfs.h>

#include "testlib.h"

/* XFS_IOC_FSGEOMETRY on any file of the filesystem. */
void kt_geometry(int fd, struct xfs_fsop_geom *geo);
/* One scrub call on inode @ino generation @gen of the filesystem mounted at
 * @mnt: 0 or -errno, the output flags in @oflags. */
int kt_scrub_ino(const char *mnt, uint32_t type, uint64_t ino, uint32_t gen, uint32_t iflags,
		 uint32_t *oflags);
/* Name of the filesystem under /sys/fs/xfs and debugfs ("vda", "dm-0"). */
const char *kt_fs_name(const char *dev);

/* A file of @extents one-block (4 KiB) extents with holes between them, so
 * that its data fork is a btree; synced. */
void kt_write_btree_file(const char *path, int extents);
/* On the unmounted @dev, overwrite inode @ino's di_mode (bytes 2-3 of its
 * core) with an invalid file type; its CRC no longer matches either. */
void kt_break_inode_mode(const char *dev, uint64_t ino);
/* Disk address (512-byte sectors) of the first leaf of the data fork
 * mapping btree of inode @ino on the unmounted @dev (xfs_db); the fork must
 * be in btree format. */
uint64_t kt_bmbt_leaf_daddr(const char *dev, uint64_t ino);


/* Set the XFS errortag @tag (e.g. "force_repair") of filesystem @fs_name. */
void kt_errortag(const char *fs_name, const char *tag, unsigned int value);

/* tracefs: clear the buffer and enable these events ("sys:event"); they stay
 * enabled for the rest of the boot (see ktest.c for why). */
void kt_trace_start(const char *const *events, size_t n);
/* Stop tracing and return everything traced since kt_trace_start (malloc'd). */
char *kt_trace_stop(void);
/* Lines of @trace that contain every one of the NULL-terminated needles. */
int kt_trace_count(const char *trace, ...) __attribute__((sentinel));

/* dm-dust on @backing in 4 KiB blocks as /dev/mapper/@name. */
void kt_dust_create(const char *name, const char *backing);
void kt_dust_remove(const char *name);
/* Reads of 4 KiB block @blk fail once enabled; a write fails @write_fails
 * times first (at most 255: dm-dust keeps a byte), then clears the block. */
void kt_dust_add(const char *name, uint64_t blk, unsigned int write_fails);
void kt_dust_add_range(const char *name, uint64_t first, uint64_t count,
		       unsigned int write_fails);
void kt_dust_enable(const char *name, bool on);

/*
 * Keep a kernel work item from running while a test does something: take
 * CPU 1 offline and switch RT throttling off (kt_solo_begin), then run @fn
 * as a SCHED_FIFO task on CPU 0 (kt_run_alone).  A normal-priority kworker
 * gets the CPU only when @fn sleeps or returns.  kt_solo_end undoes the rest.
 */
void kt_solo_begin(void);
void kt_run_alone(void (*fn)(void *), void *arg);
void kt_solo_end(void);

/*
 * Keep the workers of unbound workqueues (system_unbound_wq) from running for
 * @seconds: they are confined to CPU 1, where a SCHED_FIFO task spins, while
 * the test goes on on CPU 0 and may sleep.  kt_release_unbound_workers waits
 * for the spinner to end and lets them run anywhere again.
 */
void kt_hold_unbound_workers(unsigned int seconds);
void kt_release_unbound_workers(void);

#endif
