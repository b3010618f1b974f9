// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The block device under a filesystem, for mapctl repair --offline.  A range
 * is first read in chunks, so a clean one costs few reads; only a chunk that
 * fails is read again sector by sector.  Unreadable sectors are overwritten
 * whole (the physical sector of a 512e drive: a partial write of a bad one
 * would need the drive to read it first) with synchronous direct writes, and
 * read back.
 */
#include <blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "offline_device.h"

/* Bytes per read of the first pass: a drive may spend seconds on each bad
 * sector, but only chunks that fail are split, into at most 128 reads of
 * 512 bytes. */
#define SCAN_CHUNK (64 * 1024)

/* Undo mountinfo's octal escapes (\040 for a space) in place. */
static void unescape_mountinfo(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

int offline_find_mount(dev_t dev, const char *path, char *target, size_t tlen, char *source,
		       size_t slen)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	int found = 0;

	if (!f)
		return -errno;
	/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [TAGS...] - TYPE SOURCE SUPEROPTS" */
	while (!found && getline(&line, &cap, f) > 0) {
		unsigned int maj, min;
		char *save = NULL, *fields[5];
		int n = 0;

		line[strcspn(line, "\n")] = '\0';
		char *sep = strstr(line, " - ");
		if (!sep)
			continue;
		*sep = '\0';
		for (char *t = strtok_r(line, " ", &save); t && n < 5; t = strtok_r(NULL, " ", &save))
			fields[n++] = t;
		if (n < 5 || sscanf(fields[2], "%u:%u", &maj, &min) != 2)
			continue;
		unescape_mountinfo(fields[4]);
		if (dev && makedev(maj, min) != dev)
			continue;
		if (path && strcmp(fields[4], path) != 0)
			continue;
		found = 1;
		snprintf(target, tlen, "%s", fields[4]);
		char *src = strchr(sep + 3, ' ');	/* after the type */
		if (src) {
			src++;
			src[strcspn(src, " ")] = '\0';
			unescape_mountinfo(src);
		}
		snprintf(source, slen, "%s", src ? src : "");
	}
	free(line);
	fclose(f);
	return found;
}

int offline_device_uuid(const char *dev, char *uuid, size_t len)
{
	static char xfs[] = "xfs";
	char *only[] = { xfs, NULL };
	blkid_probe pr = blkid_new_probe_from_filename(dev);
	const char *val;
	int rc = -ENOENT;

	if (!pr)
		return -ENOENT;
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_filter_superblocks_type(pr, BLKID_FLTR_ONLYIN, only);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_UUID | BLKID_SUBLKS_TYPE);
	if (blkid_do_safeprobe(pr) == 0 && blkid_probe_lookup_value(pr, "UUID", &val, NULL) == 0) {
		snprintf(uuid, len, "%s", val);
		rc = 0;
	}
	blkid_free_probe(pr);
	return rc;
}

int offline_device_open(struct offline_device *d, const char *path, bool write)
{
	int flags = O_DIRECT | O_CLOEXEC | O_NOCTTY | (write ? O_RDWR | O_EXCL | O_SYNC : O_RDONLY);
	unsigned int pbs = 0;
	int lbs = 0, rc;

	memset(d, 0, sizeof(*d));
	d->fd = open(path, flags);
	if (d->fd < 0)
		return -errno;
	if (ioctl(d->fd, BLKSSZGET, &lbs) != 0 || ioctl(d->fd, BLKGETSIZE64, &d->size) != 0) {
		rc = -errno;
		goto fail;
	}
	if (ioctl(d->fd, BLKPBSZGET, &pbs) != 0)
		pbs = 0;
	rc = -EINVAL;
	if (lbs <= 0 || lbs > OFFLINE_MAX_UNIT || (lbs & (lbs - 1)))
		goto fail;
	d->unit = (uint32_t)lbs;
	if (pbs > d->unit && pbs <= OFFLINE_MAX_UNIT && pbs % d->unit == 0 && !(pbs & (pbs - 1)))
		d->unit = pbs;
	rc = -ENOMEM;
	if (posix_memalign(&d->buf, OFFLINE_MAX_UNIT, SCAN_CHUNK) ||
	    posix_memalign(&d->zeros, OFFLINE_MAX_UNIT, d->unit))
		goto fail;
	memset(d->zeros, 0, d->unit);
	return 0;
fail:
	offline_device_close(d);
	return rc;
}

void offline_device_close(struct offline_device *d)
{
	if (d->fd >= 0)
		close(d->fd);
	free(d->buf);
	free(d->zeros);
	memset(d, 0, sizeof(*d));
	d->fd = -1;
}

/* Read @len bytes at @pos: 1 read, 0 unreadable, or a negative errno when the
 * read could not be made (not a media error). */
static int read_ok(const struct offline_device *d, size_t len, uint64_t pos)
{
	ssize_t n;

	do {
		n = pread(d->fd, d->buf, len, (off_t)pos);
	} while (n < 0 && errno == EINTR);
	if (n == (ssize_t)len)
		return 1;
	if (n < 0 && (errno == EINVAL || errno == EBADF || errno == EFAULT || errno == ENOMEM))
		return -errno;
	return 0;
}

int offline_device_scan(struct offline_device *d, uint64_t start, uint64_t length,
			int (*bad)(uint64_t pos, void *arg), void *arg)
{
	uint64_t end = start + length;

	if (start % d->unit || length % d->unit || end < start || end > d->size)
		return -EINVAL;
	for (uint64_t pos = start; pos < end; pos += SCAN_CHUNK) {
		size_t len = end - pos < SCAN_CHUNK ? (size_t)(end - pos) : SCAN_CHUNK;
		int ok = read_ok(d, len, pos);

		if (ok < 0)
			return ok;
		for (uint64_t u = pos; !ok && u < pos + len; u += d->unit) {
			int one = read_ok(d, d->unit, u);

			if (one < 0)
				return one;
			if (one == 0 && (one = bad(u, arg)) != 0)
				return one;
		}
	}
	return 0;
}

int offline_device_zero(struct offline_device *d, uint64_t pos)
{
	ssize_t n;

	do {
		n = pwrite(d->fd, d->zeros, d->unit, (off_t)pos);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n != (ssize_t)d->unit)
		return -EIO;
	return read_ok(d, d->unit, pos) == 1;
}
