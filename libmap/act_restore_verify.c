// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Checks run on each refetched path, through the descriptors of the O_NOFOLLOW
 * walk (act_path_check.c): the data read back from the device, the extended
 * attributes and symbolic link targets compared with a local mirror, and an
 * orphan compared with the file restored in its place.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "act_restore_verify.h"

/* Linux limits: a listxattr answer (XATTR_LIST_MAX) and one value
 * (XATTR_SIZE_MAX) are at most 64 KiB each. */
#define XLIST_MAX 65536
#define XVALUE_MAX 65536
/* Orphans are compared in pages: the unit a bad block makes unreadable in
 * the page cache, so one bad block skips no more than itself. */
#define CMP_BLOCK 4096

int reopen_read(int opath_fd, int flags)
{
	char p[40];

	snprintf(p, sizeof(p), "/proc/self/fd/%d", opath_fd);
	int fd = open(p, O_RDONLY | O_CLOEXEC | flags);
	return fd < 0 ? -errno : fd;
}

struct bad_bytes {
	uint64_t n;
};

static void count_bad(uint64_t start, uint64_t length, int error, void *arg)
{
	(void)start;
	(void)error;
	((struct bad_bytes *)arg)->n += length;
}

int verify_file_media(struct map_fs *fs, int fd)
{
	struct map_range_list ranges = { 0 };
	struct bad_bytes bad = { 0 };
	struct map_verify_opts vo = { .bad = count_bad, .arg = &bad };
	int rc = map_file_ranges(fd, &ranges);

	if (rc == 0)
		rc = map_verify_media(fs, &ranges, &vo, NULL);
	map_range_free(&ranges);
	if (rc)
		return rc;
	return bad.n ? 1 : 0;
}

/* ---- extended attributes ---- */

struct xattrs {
	char list[XLIST_MAX];
	ssize_t len;
	const char *names[XLIST_MAX / 2];	/* each name is at least 1 byte + NUL */
	size_t n;
};

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int list_xattrs(int fd, struct xattrs *x)
{
	x->len = flistxattr(fd, x->list, sizeof(x->list));
	if (x->len < 0 && errno == EOPNOTSUPP)
		x->len = 0;	/* a mirror without them: rsync sends none either */
	if (x->len < 0)
		return -errno;
	x->n = 0;
	for (ssize_t i = 0; i < x->len; i += (ssize_t)strlen(x->list + i) + 1)
		x->names[x->n++] = x->list + i;
	qsort(x->names, x->n, sizeof(x->names[0]), cmp_name);
	return 0;
}

int verify_xattrs(int fd, int mirror_fd, char *why, size_t len)
{
	struct xattrs *mine = malloc(sizeof(*mine)), *theirs = NULL;
	char *v1 = malloc(XVALUE_MAX), *v2 = malloc(XVALUE_MAX);
	int rc = -ENOMEM;

	if (!mine || !v1 || !v2)
		goto out;
	rc = list_xattrs(fd, mine);
	if (rc) {
		snprintf(why, len, "extended attributes cannot be listed: %s", map_strerror(rc));
		rc = 1;
		goto out;
	}
	if (mirror_fd >= 0) {
		theirs = malloc(sizeof(*theirs));
		rc = theirs ? list_xattrs(mirror_fd, theirs) : -ENOMEM;
		if (rc)
			goto out;
		if (theirs->n != mine->n) {
			snprintf(why, len, "%zu extended attributes, the mirror has %zu", mine->n,
				 theirs->n);
			rc = 1;
			goto out;
		}
	}
	for (size_t i = 0; i < mine->n; i++) {
		ssize_t a = fgetxattr(fd, mine->names[i], v1, XVALUE_MAX);

		if (a < 0) {
			snprintf(why, len, "extended attribute %s cannot be read: %s", mine->names[i],
				 map_strerror(errno));
			rc = 1;
			goto out;
		}
		if (!theirs)
			continue;
		ssize_t b = -1;
		if (strcmp(mine->names[i], theirs->names[i]) == 0)
			b = fgetxattr(mirror_fd, theirs->names[i], v2, XVALUE_MAX);
		if (b != a || memcmp(v1, v2, (size_t)a) != 0) {
			snprintf(why, len, "extended attribute %s differs from the mirror",
				 mine->names[i]);
			rc = 1;
			goto out;
		}
	}
	rc = 0;
out:
	free(mine);
	free(theirs);
	free(v1);
	free(v2);
	return rc;
}

/* ---- folders ---- */

int verify_dir_entries(int fd, char *why, size_t len)
{
	char buf[32768];	/* a few hundred entries per call */
	long n;

	/* Each call moves on through the folder: ends at its end (0) or at the
	 * first block that cannot be read. */
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
		;
	if (n < 0) {
		snprintf(why, len, "its entries cannot be read: %s", map_strerror(errno));
		return 1;
	}
	return 0;
}

/* ---- symbolic links ---- */

int verify_symlink(int fd, int mirror_fd, char *why, size_t len)
{
	char a[PATH_MAX], b[PATH_MAX];
	ssize_t na = readlinkat(fd, "", a, sizeof(a)), nb;

	if (na < 0) {
		snprintf(why, len, "its target cannot be read: %s", map_strerror(errno));
		return 1;
	}
	if (mirror_fd < 0)
		return 0;
	nb = readlinkat(mirror_fd, "", b, sizeof(b));
	if (nb < 0)
		return -errno;
	if (na != nb || memcmp(a, b, (size_t)na) != 0) {
		snprintf(why, len, "its target differs from the mirror's");
		return 1;
	}
	return 0;
}

/* ---- orphans ---- */

ssize_t pread_full(int fd, char *buf, size_t n, off_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, buf + got, n - got, off + (off_t)got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

int orphan_matches(int orphan_fd, int restored_fd, char *why, size_t len)
{
	struct stat a, b;
	char x[CMP_BLOCK], y[CMP_BLOCK];
	uint64_t unreadable = 0;

	if (fstat(orphan_fd, &a) != 0 || fstat(restored_fd, &b) != 0)
		return -errno;
	if (!S_ISREG(a.st_mode) || !S_ISREG(b.st_mode) || a.st_size != b.st_size) {
		snprintf(why, len, "its size (%lld bytes) is not the restored file's (%lld)",
			 (long long)a.st_size, (long long)b.st_size);
		return 0;
	}
	for (off_t off = 0; off < a.st_size; off += CMP_BLOCK) {
		size_t n = (size_t)(a.st_size - off < CMP_BLOCK ? a.st_size - off : CMP_BLOCK);
		ssize_t rb = pread_full(restored_fd, y, n, off);

		if (rb < 0)
			return (int)rb;
		if ((size_t)rb != n)
			return -EIO;
		ssize_t ra = pread_full(orphan_fd, x, n, off);
		if (ra == -EIO) {
			unreadable++;	/* a damaged block: its contents are lost anyway */
			continue;
		}
		if (ra < 0)
			return (int)ra;
		if ((size_t)ra != n || memcmp(x, y, n) != 0) {
			snprintf(why, len, "its bytes at %lld differ from the restored file",
				 (long long)off);
			return 0;
		}
	}
	/* Nothing was compared: the size alone is no evidence. */
	if (a.st_size > 0 && unreadable == ((uint64_t)a.st_size + CMP_BLOCK - 1) / CMP_BLOCK) {
		snprintf(why, len, "none of its blocks can be read, so nothing shows it is a copy");
		return 0;
	}
	if (unreadable)
		snprintf(why, len, "a damaged copy (%llu unreadable block%s, the rest equal)",
			 (unsigned long long)unreadable, unreadable == 1 ? "" : "s");
	else
		snprintf(why, len, "the same bytes");
	return 1;
}
