// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * refetch's copy, all but a regular file's bytes (act_restore_copy.c):
 * owner, extended attributes (ACLs among them), mode and times made the
 * mirror's and compared with it, and the objects that are nothing more than
 * those: symbolic links (written anew, never in place) and folders (their
 * entries are act_refetch_dir.c's).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "act_restore_internal.h"

/* Linux limits: a listxattr answer and one value are at most 64 KiB. */
#define XLIST_MAX 65536
#define XVALUE_MAX 65536

bool xattrs_unreadable(int fd)
{
	char proc[40];

	/* Not through open(): with ACLs, opening reads the attribute fork too. */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return listxattr(proc, NULL, 0) < 0 && (errno == EIO || errno == EUCLEAN);
}


/* The names of @fd's extended attributes ('\0'-separated) into @list:
 * the length, or -errno.  None where a filesystem has none. */
static ssize_t xattr_names(int fd, char *list)
{
	ssize_t n = flistxattr(fd, list, XLIST_MAX);

	return n < 0 ? (errno == EOPNOTSUPP ? 0 : -errno) : n;
}

static bool in_list(const char *list, ssize_t len, const char *name)
{
	for (ssize_t i = 0; i < len; i += (ssize_t)strlen(list + i) + 1)
		if (strcmp(list + i, name) == 0)
			return true;
	return false;
}

/* @w's extended attributes become exactly @m's (both open, not O_PATH). */
static enum restore_result copy_xattrs(int w, int m, char *why, size_t len)
{
	char *mine = malloc(XLIST_MAX), *theirs = malloc(XLIST_MAX), *v = malloc(XVALUE_MAX);
	enum restore_result rc = RESTORE_OK;
	ssize_t nm, nt;

	if (!mine || !theirs || !v) {
		rc = say(RESTORE_FAILED, why, len, "%s", map_strerror(ENOMEM));
		goto out;
	}
	nt = xattr_names(m, theirs);
	nm = xattr_names(w, mine);
	if (nt < 0 || nm < 0) {
		rc = say(RESTORE_FAILED, why, len, "extended attributes cannot be listed%s: %s",
			 nt < 0 ? " in the mirror" : "", map_strerror((int)-(nt < 0 ? nt : nm)));
		goto out;
	}
	for (ssize_t i = 0; i < nm && rc == RESTORE_OK; i += (ssize_t)strlen(mine + i) + 1)
		if (!in_list(theirs, nt, mine + i) && fremovexattr(w, mine + i) != 0 &&
		    errno != ENODATA)
			rc = say(RESTORE_FAILED, why, len, "extended attribute %s cannot be removed: "
				 "%s", mine + i, map_strerror(errno));
	for (ssize_t i = 0; i < nt && rc == RESTORE_OK; i += (ssize_t)strlen(theirs + i) + 1) {
		ssize_t n = fgetxattr(m, theirs + i, v, XVALUE_MAX);

		if (n < 0)
			rc = say(RESTORE_FAILED, why, len, "the mirror's extended attribute %s "
				 "cannot be read: %s", theirs + i, map_strerror(errno));
		else if (fsetxattr(w, theirs + i, v, (size_t)n, 0) != 0)
			rc = errno == ENOSPC || errno == EDQUOT ?
				write_failed(errno, "setting extended attributes", why, len) :
				say(RESTORE_FAILED, why, len, "extended attribute %s cannot be set: %s",
				    theirs + i, map_strerror(errno));
	}
out:
	free(mine);
	free(theirs);
	free(v);
	return rc;
}

/* Owner first: a chown drops set-id bits and capabilities. */
enum restore_result restore_copy_attrs(int w, int m, const struct stat *ms, char *why,
				       size_t len)
{
	struct timespec t[2] = { ms->st_atim, ms->st_mtim };
	enum restore_result rc;

	if (fchown(w, ms->st_uid, ms->st_gid) != 0)
		return say(RESTORE_FAILED, why, len, "its owner cannot be set: %s", map_strerror(errno));
	rc = copy_xattrs(w, m, why, len);
	if (rc)
		return rc;
	if (fchmod(w, ms->st_mode & 07777) != 0)
		return say(RESTORE_FAILED, why, len, "its mode cannot be set: %s", map_strerror(errno));
	if (futimens(w, t) != 0)
		return say(RESTORE_FAILED, why, len, "its times cannot be set: %s", map_strerror(errno));
	return RESTORE_OK;
}

enum restore_result restore_compare_attrs(int fd, const struct stat *st, int m,
					  const struct stat *ms, char *why, size_t len)
{
	if (st->st_mode != ms->st_mode)
		return say(RESTORE_FAILED, why, len, "its mode is %o, the mirror's %o",
			   st->st_mode, ms->st_mode);
	if (st->st_uid != ms->st_uid || st->st_gid != ms->st_gid)
		return say(RESTORE_FAILED, why, len, "its owner is %u:%u, the mirror's %u:%u",
			   st->st_uid, st->st_gid, ms->st_uid, ms->st_gid);
	if (S_ISREG(st->st_mode) && st->st_size != ms->st_size)
		return say(RESTORE_FAILED, why, len, "it has %lld bytes, the mirror %lld",
			   (long long)st->st_size, (long long)ms->st_size);
	if (st->st_mtim.tv_sec != ms->st_mtim.tv_sec || st->st_mtim.tv_nsec != ms->st_mtim.tv_nsec)
		return say(RESTORE_FAILED, why, len, "its modification time is not the mirror's");
	if (fd < 0)
		return RESTORE_OK;	/* a symbolic link: no attributes of its own here */
	int v = verify_xattrs(fd, m, why, len);
	if (v < 0)
		return say(RESTORE_FAILED, why, len, "extended attributes cannot be compared: %s",
			   map_strerror(-v));
	return v ? RESTORE_FAILED : RESTORE_OK;
}

/* ---- symbolic links ---- */

enum restore_result restore_symlink(int dirfd, const char *name, int target, int mirror,
				    char *why, size_t len)
{
	char want[PATH_MAX];
	struct stat ms, st;
	ssize_t n = readlinkat(mirror, "", want, sizeof(want) - 1);

	if (n < 0 || fstat(mirror, &ms) != 0)
		return say(RESTORE_FAILED, why, len, "the mirror's link cannot be read: %s",
			   map_strerror(errno));
	if ((size_t)n >= sizeof(want) - 1)
		return say(RESTORE_FAILED, why, len, "the mirror's link target is too long");
	want[n] = '\0';
	if (target >= 0) {
		/* A link is never rewritten in place: the checked one goes. */
		if (!name_holds(dirfd, name, target))
			return say(RESTORE_REFUSED, why, len, "its name was replaced meanwhile");
		if (unlinkat(dirfd, name, 0) != 0)
			return say(RESTORE_FAILED, why, len, "the damaged link cannot be removed: %s",
				   map_strerror(errno));
	}
	if (symlinkat(want, dirfd, name) != 0)
		return errno == EEXIST ?
			say(RESTORE_REFUSED, why, len, "a file of that name appeared meanwhile; it "
			    "was left alone") :
			write_failed(errno, "writing the link", why, len);
	int l = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	enum restore_result rc = RESTORE_OK;
	struct timespec t[2] = { ms.st_atim, ms.st_mtim };

	/* Made by us (root): a user's link in its place is not touched. */
	if (l < 0 || fstat(l, &st) != 0 || !S_ISLNK(st.st_mode) || st.st_uid != geteuid())
		rc = say(RESTORE_REFUSED, why, len, "the new link was replaced at once; what is "
			 "there was left alone");
	else if (fchownat(l, "", ms.st_uid, ms.st_gid, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) != 0 ||
		 utimensat(l, "", t, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) != 0)
		rc = say(RESTORE_FAILED, why, len, "its owner or times cannot be set: %s",
			 map_strerror(errno));
	else if (fstat(l, &st) != 0)
		rc = say(RESTORE_FAILED, why, len, "%s", map_strerror(errno));
	else if ((rc = restore_compare_attrs(-1, &st, -1, &ms, why, len)) == RESTORE_OK) {
		int v = verify_symlink(l, mirror, why, len);

		if (v > 0)
			rc = RESTORE_FAILED;	/* @why says how */
		else if (v < 0)
			rc = say(RESTORE_FAILED, why, len, "%s", map_strerror(-v));
		else if (!name_holds(dirfd, name, l))
			rc = say(RESTORE_FAILED, why, len, "its name was moved or replaced during "
				 "the restore");
	}
	if (l >= 0)
		close(l);
	return rc;
}

/* ---- folders ---- */

enum restore_result restore_dir(int dirfd, const char *name, int dir, int mirror, char *why,
				size_t len)
{
	enum restore_result rc;
	struct stat ms, st;
	int m = open_mirror(mirror, O_DIRECTORY), d, err = 0;

	if (m < 0)
		return say(RESTORE_FAILED, why, len, "the mirror's folder cannot be opened: %s",
			   map_strerror(-m));
	if (fstat(m, &ms) != 0 || !S_ISDIR(ms.st_mode)) {
		close(m);
		return say(RESTORE_REFUSED, why, len, "the mirror's is not a folder");
	}
	if (dir < 0) {
		if (mkdirat(dirfd, name, 0700) != 0) {
			rc = errno == EEXIST ?
				say(RESTORE_REFUSED, why, len, "a file of that name appeared "
				    "meanwhile; it was left alone") :
				write_failed(errno, "making the folder", why, len);
			close(m);
			return rc;
		}
		d = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		err = d < 0 ? errno : 0;
		/* Made by us (root, empty): a user's folder in its place is not
		 * given the mirror's owner. */
		if (d >= 0 && (fstat(d, &st) != 0 || st.st_uid != geteuid())) {
			close(d);
			d = -1;
			err = EPERM;
		}
	} else {
		d = reopen_read(dir, O_DIRECTORY | O_NOATIME);
		err = d < 0 ? -d : 0;
	}
	if (d < 0) {
		close(m);
		return say(RESTORE_REFUSED, why, len, "the folder cannot be opened: %s",
			   map_strerror(err));
	}
	rc = restore_copy_attrs(d, m, &ms, why, len);
	if (rc == RESTORE_OK && fsync(d) != 0)
		rc = write_failed(errno, "syncing it", why, len);
	if (rc == RESTORE_OK && !name_holds(dirfd, name, d))
		rc = say(RESTORE_FAILED, why, len, "its name was moved or replaced during the "
			 "restore");
	if (rc == RESTORE_OK && verify_dir_entries(d, why, len))
		rc = RESTORE_STILL_BAD;	/* 'mapctl repair' (or offline) rebuilds it */
	if (rc == RESTORE_OK && fstat(d, &st) != 0)
		rc = say(RESTORE_FAILED, why, len, "%s", map_strerror(errno));
	if (rc == RESTORE_OK)
		rc = restore_compare_attrs(d, &st, m, &ms, why, len);
	close(d);
	close(m);
	return rc;
}
