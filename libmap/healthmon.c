// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The XFS health monitor (Linux 7.x): open one, and check its records before
 * anything believes them.  A record is 64 bytes; a read may end inside one
 * (the kernel copies bytes, not records), so decoding reports how much it
 * used and the caller keeps the rest.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "map_healthmon.h"

int map_healthmon_open(int root_fd)
{
	struct map_hm_ioc_arg arg = { .flags = 0, .format = MAP_HM_FORMAT_V0 };
	int fd = ioctl(root_fd, MAP_XFS_IOC_HEALTH_MONITOR, &arg);
	int fl;

	if (fd < 0)
		return -errno;
	/* The kernel hands it out blocking; the daemon polls it. */
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	return fd;
}

/* Type and domain names, as the log and the events rows print them. */
static const char *const type_names[MAP_HM_TYPE_NR] = {
	[MAP_HM_TYPE_RUNNING] = "running",
	[MAP_HM_TYPE_LOST] = "lost",
	[MAP_HM_TYPE_UNMOUNT] = "unmount",
	[MAP_HM_TYPE_SICK] = "sick",
	[MAP_HM_TYPE_CORRUPT] = "corrupt",
	[MAP_HM_TYPE_HEALTHY] = "healthy",
	[MAP_HM_TYPE_SHUTDOWN] = "shutdown",
	[MAP_HM_TYPE_MEDIA_ERROR] = "media_error",
	[MAP_HM_TYPE_BUFREAD] = "bufread",
	[MAP_HM_TYPE_BUFWRITE] = "bufwrite",
	[MAP_HM_TYPE_DIOREAD] = "dioread",
	[MAP_HM_TYPE_DIOWRITE] = "diowrite",
	[MAP_HM_TYPE_DATALOST] = "datalost",
};

static const char *const domain_names[MAP_HM_DOMAIN_NR] = {
	[MAP_HM_DOMAIN_MOUNT] = "mount",
	[MAP_HM_DOMAIN_FS] = "fs",
	[MAP_HM_DOMAIN_AG] = "ag",
	[MAP_HM_DOMAIN_INODE] = "inode",
	[MAP_HM_DOMAIN_RTGROUP] = "rtgroup",
	[MAP_HM_DOMAIN_DATADEV] = "datadev",
	[MAP_HM_DOMAIN_RTDEV] = "rtdev",
	[MAP_HM_DOMAIN_LOGDEV] = "logdev",
	[MAP_HM_DOMAIN_FILERANGE] = "filerange",
};

const char *map_healthmon_type_name(uint32_t type)
{
	return type < MAP_HM_TYPE_NR ? type_names[type] : "?";
}

const char *map_healthmon_domain_name(uint32_t domain)
{
	return domain < MAP_HM_DOMAIN_NR ? domain_names[domain] : "?";
}

/* The inode aspects of XFS_BS_SICK_* (bit i) and the scrub types that
 * check each (libmap/scrub_types.c's names). */
static const char *const inode_aspects[] = {
	"inode", "bmapbtd", "bmapbta", "bmapbtc", "directory", "xattr", "symlink", "parent",
	"dirtree",
};

size_t map_healthmon_inode_scrub(uint32_t mask, char *buf, size_t len)
{
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < sizeof(inode_aspects) / sizeof(inode_aspects[0]); i++) {
		size_t k = strlen(inode_aspects[i]);

		if (!(mask & (1U << i)) || used + (used ? 1 : 0) + k >= len)
			continue;
		if (used)
			buf[used++] = ',';
		memcpy(buf + used, inode_aspects[i], k + 1);
		used += k;
	}
	return used;
}

static int parse_mount(const struct map_hm_raw *raw, struct map_hm_record *out)
{
	switch (raw->type) {
	case MAP_HM_TYPE_RUNNING:
		out->kind = MAP_HM_RUNNING;
		return 0;
	case MAP_HM_TYPE_UNMOUNT:
		out->kind = MAP_HM_UNMOUNT;
		return 0;
	case MAP_HM_TYPE_LOST:
		if (raw->e.lost_count == 0)
			return -EINVAL;
		out->kind = MAP_HM_LOST;
		out->lost = raw->e.lost_count;
		return 0;
	case MAP_HM_TYPE_SHUTDOWN:
		out->kind = MAP_HM_SHUTDOWN;
		out->reasons = raw->e.shutdown_reasons;
		return 0;
	}
	return -EINVAL;
}

static int parse_health(const struct map_hm_raw *raw, struct map_hm_record *out)
{
	if (raw->type != MAP_HM_TYPE_SICK && raw->type != MAP_HM_TYPE_CORRUPT &&
	    raw->type != MAP_HM_TYPE_HEALTHY)
		return -EINVAL;
	out->kind = MAP_HM_HEALTH;
	switch (raw->domain) {
	case MAP_HM_DOMAIN_FS:
		out->mask = raw->e.fs_mask;
		break;
	case MAP_HM_DOMAIN_AG:
	case MAP_HM_DOMAIN_RTGROUP:
		out->mask = raw->e.group.mask;
		out->gno = raw->e.group.gno;
		break;
	case MAP_HM_DOMAIN_INODE:
		out->mask = raw->e.inode.mask;
		out->ino = raw->e.inode.ino;
		out->gen = raw->e.inode.gen;
		if (out->ino == 0)
			return -EINVAL;
		break;
	}
	/* A change of nothing says nothing. */
	return out->mask ? 0 : -EINVAL;
}

static int parse_media(const struct map_hm_raw *raw, struct map_hm_record *out)
{
	uint64_t daddr = raw->e.media.daddr, n = raw->e.media.bbcount;

	/* In bytes the range's end must not wrap: 2^55 sectors are 2^64 bytes. */
	if (raw->type != MAP_HM_TYPE_MEDIA_ERROR || n == 0 || daddr >= (1ULL << 55) - 1 ||
	    n >= (1ULL << 55) - daddr)
		return -EINVAL;
	out->kind = MAP_HM_MEDIA;
	out->start = daddr * 512;
	out->length = n * 512;
	return 0;
}

static int parse_file(const struct map_hm_raw *raw, struct map_hm_record *out)
{
	uint64_t pos = raw->e.file.pos, len = raw->e.file.len;

	if (raw->type < MAP_HM_TYPE_BUFREAD || raw->type > MAP_HM_TYPE_DATALOST)
		return -EINVAL;
	if (raw->e.file.ino == 0 || len == 0 || pos >= MAP_HM_MAX_FILE_BYTES ||
	    len > MAP_HM_MAX_FILE_BYTES - pos)
		return -EINVAL;
	if (raw->e.file.error == 0 || raw->e.file.error > 4095)
		return -EINVAL;
	out->kind = MAP_HM_FILE;
	out->ino = raw->e.file.ino;
	out->gen = raw->e.file.gen;
	out->start = pos;
	out->length = len;
	out->error = (int)raw->e.file.error;
	return 0;
}

int map_healthmon_parse(const struct map_hm_raw *raw, struct map_hm_record *out)
{
	memset(out, 0, sizeof(*out));
	out->domain = raw->domain;
	out->type = raw->type;
	out->time_ns = raw->time_ns;
	switch (raw->domain) {
	case MAP_HM_DOMAIN_MOUNT:
		return parse_mount(raw, out);
	case MAP_HM_DOMAIN_FS:
	case MAP_HM_DOMAIN_AG:
	case MAP_HM_DOMAIN_INODE:
	case MAP_HM_DOMAIN_RTGROUP:
		return parse_health(raw, out);
	case MAP_HM_DOMAIN_DATADEV:
	case MAP_HM_DOMAIN_RTDEV:
	case MAP_HM_DOMAIN_LOGDEV:
		return parse_media(raw, out);
	case MAP_HM_DOMAIN_FILERANGE:
		return parse_file(raw, out);
	}
	return -EINVAL;
}

size_t map_healthmon_decode(const void *buf, size_t len, size_t *used, size_t *skipped,
			    void (*fn)(const struct map_hm_record *r, void *arg), void *arg)
{
	const unsigned char *p = buf;
	size_t n = 0, off = 0;

	for (; len - off >= sizeof(struct map_hm_raw); off += sizeof(struct map_hm_raw)) {
		struct map_hm_raw raw;
		struct map_hm_record r;

		memcpy(&raw, p + off, sizeof(raw));	/* the buffer may be unaligned */
		if (map_healthmon_parse(&raw, &r)) {
			(*skipped)++;
			continue;
		}
		fn(&r, arg);
		n++;
	}
	*used = off;
	return n;
}
