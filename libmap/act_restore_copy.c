// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The copy behind mapctl refetch, done by mapctl itself.  A program given
 * paths as strings (rsync) resolves them again, as root, in folders any
 * local user may rename; here every write goes through the descriptors the
 * checks used (the folder the O_NOFOLLOW walk reached, the inode it
 * found), so what was checked is what is written.
 *
 * A regular file, in this order:
 *  0. a set-id bit or file capability of a mirror mounted nosuid, where it
 *     grants nothing, is not made one that counts here; nor is a user's
 *     file given another owner's bytes in its own inode, which that user
 *     may hold open: both refused;
 *  1. the mirror's bytes go into an unnamed file (O_TMPFILE) of the checked
 *     folder: a mirror that cannot be read, or a full filesystem, stops here
 *     and the old file is as it was;
 *  2. that copy is synced, its cached pages dropped, and read back equal to
 *     the mirror, which is read again and must not have changed meanwhile
 *     (same size, modification and change time);
 *  3. only then, the mirror's file looked at once more and still unchanged,
 *     does the old file get the bytes, in its own inode, so every
 *     hard link and open descriptor sees them: written over its own blocks
 *     (a bad sector is overwritten where it is, so a drive remaps it); a
 *     missing name is the copy itself, linked in, never over a name that
 *     appeared meanwhile;
 *  4. owner, extended attributes (ACLs among them), mode and times become
 *     the mirror's (in that order: a chown drops set-id bits and
 *     capabilities);
 *  5. the file is checked as in 2, its blocks read from the device, its
 *     attributes compared, and its name must still hold it: only then is it
 *     restored.
 * Writing a new file under a temporary name and renaming it over the old
 * one also keeps the old file until the new one is whole, but it splits hard
 * links (the other names keep the damaged inode) and, interrupted, leaves a
 * name of ours in the user's folder; an unnamed file leaves nothing.
 *
 * Step 4, symbolic links and folders are in act_restore_attrs.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "act_restore_internal.h"

/* Bytes per read or write: large enough for disk speed, small enough to
 * hold two of (a comparison) without thought. */
#define CHUNK (1 << 20)

/* The same version of the mirror's file: a change to its bytes changes its
 * change time, which no user can set. */
static bool same_version(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Is the mirror's open file @m still the version @ms was taken of? */
static bool mirror_unchanged(int m, const struct stat *ms)
{
	struct stat now;

	return fstat(m, &now) == 0 && same_version(ms, &now);
}

#define MIRROR_CHANGED "the mirror's file changed during the copy"

static int pwrite_full(int fd, const char *buf, size_t n, off_t off)
{
	size_t done = 0;

	while (done < n) {
		ssize_t w = pwrite(fd, buf + done, n - done, off + (off_t)done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		done += (size_t)w;
	}
	return 0;
}

/* The first 4 KiB block of @fd in [@off, @off + @n) that cannot be read
 * (a read of @n failed): where to say the error is. */
static off_t first_unreadable(int fd, char *buf, off_t off, size_t n)
{
	for (size_t i = 0; i < n; i += 4096)
		if (pread_full(fd, buf, n - i < 4096 ? n - i : 4096, off + (off_t)i) < 0)
			return off + (off_t)i;
	return off;
}

/* Bytes [@from, @to) of @src to the same place of @dst. */
static enum restore_result copy_range(int src, int dst, off_t from, off_t to, char *buf,
				      const char *src_name, char *why, size_t len)
{
	for (off_t off = from; off < to;) {
		size_t n = (size_t)(to - off < CHUNK ? to - off : CHUNK);
		ssize_t r = pread_full(src, buf, n, off);
		char what[96];

		if (r < 0)
			return say(RESTORE_FAILED, why, len, "%s cannot be read at byte %lld: %s",
				   src_name,
				   (long long)first_unreadable(src, buf, off, n), map_strerror((int)-r));
		if ((size_t)r != n)
			return say(RESTORE_FAILED, why, len, "%s ended at byte %lld: it changed during "
				   "the copy", src_name, (long long)(off + r));
		int w = pwrite_full(dst, buf, n, off);
		if (w) {
			snprintf(what, sizeof(what), "writing byte %lld", (long long)off);
			return write_failed(-w, what, why, len);
		}
		off += (off_t)n;
	}
	return RESTORE_OK;
}

/* [@from, @to) of @dst, a hole in @src, becomes one in @dst too (or
 * zeros, where holes cannot be punched). */
static enum restore_result fill_hole(int src, int dst, off_t from, off_t to, char *buf,
				     const char *src_name, char *why, size_t len)
{
	if (from >= to ||
	    fallocate(dst, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, from, to - from) == 0)
		return RESTORE_OK;
	return copy_range(src, dst, from, to, buf, src_name, why, len);
}

/* @size bytes of @src into @dst, @src's holes kept; @over: @dst has bytes
 * of its own there, which @src's holes replace too. */
static enum restore_result copy_bytes(int src, int dst, off_t size, bool over,
				      const char *src_name, char *why, size_t len)
{
	char *buf = malloc(CHUNK);
	enum restore_result rc = RESTORE_OK;
	off_t off = 0;

	if (!buf)
		return say(RESTORE_FAILED, why, len, "%s", map_strerror(ENOMEM));
	/* Each turn moves past one hole and one data extent: ends at @size. */
	while (rc == RESTORE_OK && off < size) {
		off_t data = lseek(src, off, SEEK_DATA), hole;

		if (data < 0 && errno == ENXIO)
			data = size;	/* a hole up to the end */
		else if (data < 0)
			data = off;	/* no SEEK_DATA: every byte is data */
		if (data > size)
			data = size;
		if (over)
			rc = fill_hole(src, dst, off, data, buf, src_name, why, len);
		if (rc != RESTORE_OK || data >= size)
			break;
		hole = lseek(src, data, SEEK_HOLE);
		if (hole < 0 || hole > size)
			hole = size;
		rc = copy_range(src, dst, data, hole, buf, src_name, why, len);
		off = hole;
	}
	free(buf);
	return rc;
}

/* The first byte at or after @off where @a or @b may hold data, or @size:
 * before it both read as zeros (holes), so a sparse mirror file of
 * terabytes is compared in its data only.  Without SEEK_DATA: @off. */
static off_t next_data(int a, int b, off_t off, off_t size)
{
	off_t da = lseek(a, off, SEEK_DATA);

	if (da < 0)
		da = errno == ENXIO ? size : off;
	off_t db = lseek(b, off, SEEK_DATA);
	if (db < 0)
		db = errno == ENXIO ? size : off;
	return da < db ? da : db;
}

/*
 * The bytes of @fd (ours, just synced) equal the mirror's @m (@ms as it was
 * before the copy), read from the device: our cached pages are dropped
 * first.  RESTORE_OK, RESTORE_STILL_BAD (ours cannot be read), or
 * RESTORE_FAILED.  A mirror that changed meanwhile is said as such, not as
 * the difference it made: the copy was right, the mirror moved.
 */
static enum restore_result compare_with_mirror(int fd, int m, const struct stat *ms,
					       const char *what, char *why, size_t len)
{
	char *a = malloc(CHUNK), *b = malloc(CHUNK);
	enum restore_result rc = RESTORE_OK;
	bool differs = false;
	struct stat st;

	if (!a || !b) {
		rc = say(RESTORE_FAILED, why, len, "%s", map_strerror(ENOMEM));
		goto out;
	}
	if (fstat(fd, &st) != 0 || st.st_size != ms->st_size) {
		rc = say(RESTORE_FAILED, why, len, "%s has %lld bytes, the mirror %lld", what,
			 (long long)st.st_size, (long long)ms->st_size);
		goto out;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	for (off_t off = 0; off < ms->st_size && rc == RESTORE_OK;) {
		off = next_data(fd, m, off, ms->st_size);
		if (off >= ms->st_size)
			break;
		size_t n = (size_t)(ms->st_size - off < CHUNK ? ms->st_size - off : CHUNK);
		ssize_t ra = pread_full(fd, a, n, off), rb = pread_full(m, b, n, off);

		if (ra < 0)
			rc = say(ra == -EIO ? RESTORE_STILL_BAD : RESTORE_FAILED, why, len,
				 "%s cannot be read back at byte %lld: %s", what,
				 (long long)first_unreadable(fd, a, off, n), map_strerror((int)-ra));
		else if (rb < 0)
			rc = say(RESTORE_FAILED, why, len, "the mirror cannot be read at byte %lld: %s",
				 (long long)first_unreadable(m, b, off, n), map_strerror((int)-rb));
		else if ((size_t)ra != n || (size_t)rb != n || memcmp(a, b, n) != 0) {
			differs = true;
			rc = say(RESTORE_FAILED, why, len, "%s differs from the mirror in bytes "
				 "%lld-%lld", what, (long long)off, (long long)(off + (off_t)n - 1));
		}
		off += (off_t)n;
	}
	if ((rc == RESTORE_OK || differs) && !mirror_unchanged(m, ms))
		rc = say(RESTORE_FAILED, why, len, MIRROR_CHANGED);
out:
	free(a);
	free(b);
	return rc;
}

/* ---- regular files ---- */

/*
 * Does the mirror's file @m (@ms) carry a privilege that its own mount
 * ignores and ours would honour?  Set-user-ID, set-group-ID (with group
 * execute; without it the bit grants nothing) and file capabilities mean
 * nothing on a nosuid mount, which is how a disk nobody vouches for is
 * mounted (a user's "backup", an automounted USB disk): copied here they
 * would make a program of the disk's choosing run with root's rights.
 */
static bool privilege_ignored_there(int m, const struct stat *ms)
{
	struct statvfs sv;
	bool privileged = (ms->st_mode & S_ISUID) ||
			  (ms->st_mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP) ||
			  fgetxattr(m, "security.capability", NULL, 0) >= 0;

	/* A mount whose flags cannot be read is not trusted with them either. */
	return privileged && (fstatvfs(m, &sv) != 0 || (sv.f_flag & ST_NOSUID));
}

static int reopen_rw(int opath_fd)
{
	char p[40];

	snprintf(p, sizeof(p), "/proc/self/fd/%d", opath_fd);
	int fd = open(p, O_RDWR | O_NOATIME | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * Step 3 for a file that exists: @w (the old inode) gets the bytes of @tmp
 * (checked equal to the mirror), written over its own blocks: a bad sector
 * is overwritten where it is (a drive remaps it; handing the file the
 * copy's blocks instead would leave it in free space, where the next
 * allocation of metadata meets it).  Blocks shared with another file by
 * reflink are written elsewhere: that needs free space, checked first, so
 * that a full filesystem stops before the first byte.
 */
static enum restore_result put_in_place(int w, int tmp, off_t size, char *why, size_t len)
{
	enum restore_result rc;
	struct statvfs sv;

	if (fstatvfs(w, &sv) == 0 && (uint64_t)sv.f_bavail * sv.f_frsize < (uint64_t)size)
		return say(RESTORE_FAILED, why, len, "the filesystem is full (no free space): "
			   "%llu bytes free, rewriting it may need %lld; the old file is unchanged",
			   (unsigned long long)sv.f_bavail * sv.f_frsize, (long long)size);
	rc = copy_bytes(tmp, w, size, true, "the checked copy", why, len);
	if (rc == RESTORE_OK && ftruncate(w, size) != 0)
		rc = write_failed(errno, "setting its size", why, len);
	if (rc)
		append(why, len, "; each block of it is as it was or has the mirror's checked "
		       "bytes");
	return rc;
}

/* Step 5: @w is what @name of @dirfd holds, readable, and equal to @m. */
static enum restore_result check_file(struct map_fs *fs, int dirfd, const char *name, int w,
				      int m, const struct stat *ms, char *why, size_t len)
{
	struct stat st;
	enum restore_result rc;

	if (fsync(w) != 0)
		return write_failed(errno, "syncing it", why, len);
	if (!name_holds(dirfd, name, w))
		return say(RESTORE_FAILED, why, len, "its name was moved or replaced during the "
			   "restore");
	int v = verify_file_media(fs, w);
	if (v)
		return v == 1 ? say(RESTORE_STILL_BAD, why, len, "blocks still unreadable") :
			say(RESTORE_FAILED, why, len, "its blocks cannot be read back: %s",
			    map_strerror(v));
	rc = compare_with_mirror(w, m, ms, "the restored file", why, len);
	if (rc && !mirror_unchanged(m, ms))
		append(why, len, "; the file has the mirror's checked bytes from before the "
		       "change");
	if (rc)
		return rc;
	if (fstat(w, &st) != 0)
		return say(RESTORE_FAILED, why, len, "%s", map_strerror(errno));
	return restore_compare_attrs(w, &st, m, ms, why, len);
}

/* Step 0: the mirror's file @m (@ms, filled here) may be copied over
 * @target (-1: none). */
static enum restore_result may_copy(int m, struct stat *ms, int target, char *why, size_t len)
{
	struct stat st;

	if (fstat(m, ms) != 0 || !S_ISREG(ms->st_mode))
		return say(RESTORE_REFUSED, why, len, "the mirror's is not a regular file");
	if (privilege_ignored_there(m, ms))
		return say(RESTORE_FAILED, why, len, "the mirror's file is set-user-ID, "
			   "set-group-ID or has file capabilities, which its nosuid mount ignores "
			   "and this filesystem would not: nothing was written (mount the mirror "
			   "without nosuid if it is trusted with them)");
	/* The old inode gets the bytes before its new owner and mode: a user's
	 * file the mirror gives to someone else would show them the other's
	 * bytes through every descriptor opened while it was theirs. */
	if (target >= 0 && fstat(target, &st) == 0 && st.st_uid != 0 && st.st_uid != ms->st_uid)
		return say(RESTORE_REFUSED, why, len, "it is user %u's and the mirror's file is "
			   "user %u's: rewritten in its own inode, the mirror's bytes would be "
			   "readable through any descriptor opened while it was user %u's; nothing "
			   "was written", (unsigned)st.st_uid, (unsigned)ms->st_uid,
			   (unsigned)st.st_uid);
	return RESTORE_OK;
}

/* Steps 1, 2: a checked copy of @m (@ms), unnamed, in the checked folder
 * @dirfd, into *@tmp (closed by the caller). */
static enum restore_result make_copy(int dirfd, int m, const struct stat *ms, int target,
				     int *tmp, char *why, size_t len)
{
	enum restore_result rc;

	*tmp = openat(dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (*tmp < 0) {
		rc = write_failed(errno, "making the copy", why, len);
		append(why, len, "; nothing was written");
		return rc;
	}
	rc = copy_bytes(m, *tmp, ms->st_size, false, "the mirror", why, len);
	if (rc == RESTORE_OK && ftruncate(*tmp, ms->st_size) != 0)
		rc = write_failed(errno, "setting the copy's size", why, len);
	if (rc == RESTORE_OK && fsync(*tmp) != 0)
		rc = write_failed(errno, "syncing the copy", why, len);
	if (rc == RESTORE_OK)
		rc = compare_with_mirror(*tmp, m, ms, "the copy", why, len);
	if (rc) {
		if (rc == RESTORE_STILL_BAD)
			rc = RESTORE_FAILED;	/* the copy, not the file */
		append(why, len, target < 0 ? "; nothing was written at its name" :
		       "; the old file is unchanged");
	}
	return rc;
}

/* Steps 3, 4 for a missing name: the copy @tmp, given the mirror's
 * attributes, is linked in as @name of @dirfd. */
static enum restore_result link_copy(int tmp, int m, const struct stat *ms, int dirfd,
				     const char *name, char *why, size_t len)
{
	enum restore_result rc = restore_copy_attrs(tmp, m, ms, why, len);

	if (rc == RESTORE_OK && !mirror_unchanged(m, ms))
		rc = say(RESTORE_FAILED, why, len, MIRROR_CHANGED "; nothing was written "
			 "at its name");
	if (rc)
		return rc;
	if (linkat(tmp, "", dirfd, name, AT_EMPTY_PATH) != 0)
		return errno == EEXIST ?
			say(RESTORE_REFUSED, why, len, "a file of that name appeared during "
			    "the copy; it was left alone") :
			write_failed(errno, "giving the copy its name", why, len);
	return RESTORE_OK;
}

/* Steps 3, 4 for an existing file: @target, opened for writing into *@w
 * (closed by the caller), gets the bytes of the copy @tmp and the mirror's
 * attributes. */
static enum restore_result rewrite_old(int target, int tmp, int m, const struct stat *ms,
				       int *w, char *why, size_t len)
{
	enum restore_result rc;
	struct stat st;

	*w = reopen_rw(target);
	if (*w < 0 || fstat(*w, &st) != 0 || !S_ISREG(st.st_mode))
		return say(RESTORE_FAILED, why, len, "cannot be opened for writing: %s",
			   map_strerror(*w < 0 ? -*w : errno));
	/* The last look before the old file's first byte changes. */
	if (!mirror_unchanged(m, ms))
		rc = say(RESTORE_FAILED, why, len, MIRROR_CHANGED "; the old file is "
			 "unchanged");
	else
		rc = put_in_place(*w, tmp, ms->st_size, why, len);
	if (rc == RESTORE_OK)
		rc = restore_copy_attrs(*w, m, ms, why, len);
	return rc;
}

enum restore_result restore_file(struct map_fs *fs, int dirfd, const char *name, int target,
				 int mirror, char *why, size_t len)
{
	enum restore_result rc;
	struct stat ms;
	int m, tmp = -1, w = -1;

	m = open_mirror(mirror, 0);
	if (m < 0)
		return say(RESTORE_FAILED, why, len, "the mirror's file cannot be opened: %s",
			   map_strerror(-m));
	rc = may_copy(m, &ms, target, why, len);
	if (rc == RESTORE_OK)
		rc = make_copy(dirfd, m, &ms, target, &tmp, why, len);
	if (rc == RESTORE_OK && target < 0) {
		rc = link_copy(tmp, m, &ms, dirfd, name, why, len);
		if (rc == RESTORE_OK) {
			w = tmp;
			tmp = -1;
		}
	} else if (rc == RESTORE_OK) {
		rc = rewrite_old(target, tmp, m, &ms, &w, why, len);
	}
	/* 5 */
	if (rc == RESTORE_OK)
		rc = check_file(fs, dirfd, name, w, m, &ms, why, len);
	if (w >= 0)
		close(w);
	if (tmp >= 0)
		close(tmp);
	close(m);
	return rc;
}
