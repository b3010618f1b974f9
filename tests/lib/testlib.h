/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every kind of test needs (tests/lib, linked by the unit, vm, kernel
 * and mapperd tests): shell commands, mkfs and mount, clocks, temporary
 * folders, children, processes, files (known content, reflinks, read whole,
 * checksums), inode numbers, reads that reach the disk, where a file's
 * blocks are.  Checks are in check.h.  A failure that leaves the test
 * nothing to go on REQUIREs; the others return an error.
 */
#ifndef MAPPER_TESTLIB_H
#define MAPPER_TESTLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- shell commands (shell.c) ---- */

/* Run a shell command (echoed with "+ "); returns its exit status, or -1. */
int tl_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Like tl_sh(), but a nonzero status stops the test. */
void tl_must(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Output of a shell command (trailing newline removed) in a static buffer. */
const char *tl_out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* All the output of a shell command that must succeed, malloc'd. */
char *tl_out_alloc(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* What a command gave: its exit status (128 when it did not exit), all it
 * wrote on stdout (outlen bytes) and stderr, malloc'd and NUL-terminated. */
struct tl_run {
	int rc;
	char *out, *err;
	size_t outlen;
};
/* Run the shell command line @cmd quietly, stdin /dev/null, stdout and stderr
 * kept in the files out and err of @dir; tl_run_free frees @r's output. */
void tl_run(struct tl_run *r, const char *dir, const char *cmd);
void tl_run_free(struct tl_run *r);

/* ---- filesystems (fs.c); each stops the test on failure ---- */

/* Let mkfs.xfs 6.1 make filesystems below 300 MB on @dev (its fstests switch). */
void tl_allow_small_fs(const char *dev);
/* mkfs.xfs -q -f with the options @fmt formats on @dev. */
void tl_mkfs(const char *dev, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* mkfs.xfs -f with the given options on dev and mount it at mnt (created). */
void tl_mkfs_mount(const char *dev, const char *mkfs_opts, const char *mnt);
/* mount [-o @opts] @dev @mnt (created). */
void tl_mount(const char *dev, const char *mnt, const char *opts);
void tl_umount(const char *mnt);

/* ---- clocks (clock.c) ---- */

/* CLOCK_MONOTONIC in seconds. */
double tl_mono(void);
/* Sleep @seconds, through signals. */
void tl_sleep(double seconds);

/* ---- temporary folders (tmpdir.c) ---- */

/* Make /tmp/NAME.XXXXXX into @dir (@len bytes). */
void tl_tmpdir(char *dir, size_t len, const char *name);
/* Remove @path and everything under it, without a shell, following no
 * symbolic link and staying on its filesystem: 0 or -errno. */
int tl_rmtree(const char *path);
/* check_done(), then @dir removed when every check passed (kept to look at
 * when one failed). */
int tl_done(const char *dir);
/* Remove @dir; a failure is said on stderr, not counted. */
void tl_cleanup(const char *dir);

/* ---- children (child.c) ---- */

/* Fork a child that runs @child(@arg, @ready): it writes one byte to the
 * descriptor @ready once it is ready, and ends with _exit, never a return.
 * Its pid once that byte came, or -1 when it ended without it. */
pid_t tl_fork_ready(void (*child)(void *arg, int ready), void *arg);

/* Wait up to @secs for child @pid: its exit status (128 + the signal that
 * killed it), or -1 when it is still running. */
int tl_wait_child(pid_t pid, double secs);
/* The same; a child still running then is killed (SIGKILL) and reaped. */
int tl_wait_or_kill(pid_t pid, double secs);

/* ---- processes (proc.c) ---- */

/* The state letter of task @pid (R, S, D, ...) from /proc/@pid/stat, '?' if
 * it cannot be read. */
char tl_task_state(pid_t pid);
/* Run the calling thread on CPU 0 only; stops the test on failure. */
void tl_pin_to_cpu0(void);

/* ---- files (file.c); each stops the test on failure but tl_slurp ---- */

/* open() that stops the test on failure. */
int tl_open(const char *path, int flags);
/* Write @size bytes of content derived from @seed; fsync when asked. */
void tl_write_file(const char *path, size_t size, unsigned int seed, bool sync);
/* Write 4 KiB of @fill at block @blk (4 KiB units) of @fd; stops the test on
 * failure. */
void tl_write_block(int fd, off_t blk, char fill);
/* FICLONE the whole of @src into a new file @dst. */
void tl_reflink(const char *src, const char *dst);
/* "sha256  path" lines for every regular file below @dir, sorted, malloc'd. */
char *tl_checksums(const char *dir);
/* Echo @value into a sysfs/procfs/tracefs file; stops the test on failure. */
void tl_write_str(const char *path, const char *value);
/* @path's contents (at most @len - 1 bytes) in @buf, NUL-terminated: the
 * bytes read, or -1 (and "") when it cannot be opened. */
ssize_t tl_slurp(const char *path, char *buf, size_t len);
/* The whole of @path, malloc'd and NUL-terminated, its length in @len (may
 * be NULL); a file that cannot be read stops the test. */
char *tl_slurp_alloc(const char *path, size_t *len);

/* ---- inode numbers (inode.c); each stops the test on failure ---- */

/* The inode number of the name @path itself (lstat: a symbolic link's own). */
uint64_t tl_ino(const char *path);
/* Inode number and generation (FS_IOC_GETVERSION) of the file @path opens. */
void tl_ino_gen(const char *path, uint64_t *ino, uint32_t *gen);

/* ---- reads that reach the disk (io.c) ---- */

/* Write back @path's dirty pages and drop its cached ones. */
void tl_evict(const char *path);
/* Evict @path, then read its 4 KiB at @off: 0 or the errno the read got. */
int tl_read_block(const char *path, uint64_t off);
/* Read the whole of @path (from the cache or the disk): 0 or the errno the
 * read failed with. */
int tl_read_file(const char *path);
/* sync, then drop clean caches: 1 the page cache, 2 dentries and inodes, 3
 * both (/proc/sys/vm/drop_caches); stops the test on failure. */
void tl_drop_caches(int what);

/* ---- where a file's bytes are on the device (blocks.c) ---- */

/* From FIEMAP (file data synced first): the device byte that holds byte
 * @offset of @path, and the extent's FIEMAP_EXTENT_* flags (may be NULL).
 * 0, -ENOENT when no extent holds @offset (a hole), or -errno. */
int tl_file_extent(const char *path, uint64_t offset, uint64_t *physical, uint32_t *flags);
/* The same device byte; anything but an answer stops the test. */
uint64_t tl_file_physical(const char *path, uint64_t offset);
/* The device byte of byte @offset of @path's data fork, or of its attribute
 * fork (XFS_IOC_GETBMAPX: any inode, directories too); a hole stops the test. */
uint64_t tl_fork_physical(const char *path, uint64_t offset, bool attr_fork);

#endif
