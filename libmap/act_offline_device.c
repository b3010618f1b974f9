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
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "act_offline_device.h"
#include "map_internal.h"

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

/* One mount of /proc/self/mountinfo. */
struct mount_line {
	dev_t dev;
	const char *target, *type, *source;
};

/* Call @fn for each mount until it returns nonzero (returned). */
static int each_mount(int (*fn)(const struct mount_line *m, void *arg), void *arg)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;

	if (!f)
		return -errno;
	/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [TAGS...] - TYPE SOURCE SUPEROPTS" */
	while (!rc && getline(&line, &cap, f) > 0) {
		unsigned int maj, min;
		char *save = NULL, *fields[5], *after[2];
		int n = 0, k = 0;

		line[strcspn(line, "\n")] = '\0';
		char *sep = strstr(line, " - ");
		if (!sep)
			continue;
		*sep = '\0';
		for (char *t = strtok_r(line, " ", &save); t && n < 5; t = strtok_r(NULL, " ", &save))
			fields[n++] = t;
		save = NULL;
		for (char *t = strtok_r(sep + 3, " ", &save); t && k < 2; t = strtok_r(NULL, " ", &save))
			after[k++] = t;
		if (n < 5 || k < 1 || sscanf(fields[2], "%u:%u", &maj, &min) != 2)
			continue;
		unescape_mountinfo(fields[4]);
		if (k == 2)
			unescape_mountinfo(after[1]);
		struct mount_line m = { makedev(maj, min), fields[4], after[0], k == 2 ? after[1] : "" };
		rc = fn(&m, arg);
	}
	free(line);
	fclose(f);
	return rc;
}

struct find_mount {
	dev_t dev;
	const char *path;
	char *target, *source;
	size_t tlen, slen;
};

static int find_mount_one(const struct mount_line *m, void *arg)
{
	struct find_mount *q = arg;

	if ((q->dev && m->dev != q->dev) || (q->path && strcmp(m->target, q->path) != 0))
		return 0;
	snprintf(q->target, q->tlen, "%s", m->target);
	snprintf(q->source, q->slen, "%s", m->source);
	return 1;
}

int offline_find_mount(dev_t dev, const char *path, char *target, size_t tlen, char *source,
		       size_t slen)
{
	struct find_mount q = { dev, path, target, source, tlen, slen };

	return each_mount(find_mount_one, &q);
}

/* "TYPE (USAGE)" of the signature blkid found last. */
static void probe_name(blkid_probe pr, char *out, size_t len)
{
	const char *type = NULL, *usage = NULL;

	if (blkid_probe_lookup_value(pr, "TYPE", &type, NULL) == 0) {
		if (blkid_probe_lookup_value(pr, "USAGE", &usage, NULL) != 0)
			usage = "signature";
		snprintf(out, len, "%s (%s)", type, usage);
	} else if (blkid_probe_lookup_value(pr, "PTTYPE", &type, NULL) == 0) {
		snprintf(out, len, "%s (partition table)", type);
	} else {
		snprintf(out, len, "an unnamed signature");
	}
}

/* Bound on the signatures looked at: each probing function reports at most
 * one, and libblkid has fewer than 100 of them. */
#define PROBE_MAX 128

int offline_device_probe(int fd, struct offline_probe *p)
{
	blkid_probe pr = blkid_new_probe();

	memset(p, 0, sizeof(*p));
	if (!pr)
		return -ENOMEM;
	if (blkid_probe_set_device(pr, fd, 0, 0) != 0) {
		blkid_free_probe(pr);
		return -EIO;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_UUID | BLKID_SUBLKS_TYPE |
					  BLKID_SUBLKS_USAGE);
	blkid_probe_enable_partitions(pr, 1);
	/* Every signature in turn, not the one blkid would pick. */
	for (int i = 0; i < PROBE_MAX; i++) {
		const char *type = NULL, *uuid = NULL;
		int r = blkid_do_probe(pr);

		if (r == 1)
			break;
		/* A prober that met an unreadable sector (the very damage this
		 * repairs): the next call goes on with the next prober. */
		if (r < 0) {
			p->read_errors++;
			continue;
		}
		if (blkid_probe_lookup_value(pr, "TYPE", &type, NULL) == 0 && !strcmp(type, "xfs") &&
		    !p->xfs) {
			p->xfs = true;
			if (blkid_probe_lookup_value(pr, "UUID", &uuid, NULL) == 0)
				snprintf(p->uuid, sizeof(p->uuid), "%s", uuid);
		} else if (!p->other[0]) {
			probe_name(pr, p->other, sizeof(p->other));
		}
	}
	blkid_free_probe(pr);
	return 0;
}

int offline_device_probe_path(const char *dev, struct offline_probe *p)
{
	int fd = open(dev, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	int rc;

	if (fd < 0)
		return -errno;
	rc = offline_device_probe(fd, p);
	close(fd);
	return rc;
}

struct elsewhere {
	const char *uuid;
	dev_t rdev;
	char *target, *source;
	size_t tlen, slen;
};

static int elsewhere_one(const struct mount_line *m, void *arg)
{
	struct elsewhere *q = arg;
	struct offline_probe p;
	int fd, rc;

	if (strcmp(m->type, "xfs") != 0 || m->dev == q->rdev)
		return 0;
	fd = map_open_dev_node(m->dev, m->source, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return 0;	/* no node for it: nothing to compare (root mounts it) */
	rc = offline_device_probe(fd, &p);
	close(fd);
	if (rc || !p.xfs || strcmp(p.uuid, q->uuid) != 0)
		return 0;
	snprintf(q->target, q->tlen, "%s", m->target);
	snprintf(q->source, q->slen, "%s", m->source);
	return 1;
}

int offline_uuid_mounted_elsewhere(const char *uuid, dev_t rdev, char *target, size_t tlen,
				   char *source, size_t slen)
{
	struct elsewhere q = { uuid, rdev, target, source, tlen, slen };

	return each_mount(elsewhere_one, &q);
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
