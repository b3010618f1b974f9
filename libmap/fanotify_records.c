// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The records of fanotify events as read(2) returns them, and the XFS file
 * handles inside: one bounds-checked reader for mapperd's error reports and
 * the directory index's events.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/fanotify.h>

#include "map_dirindex.h"

/* XFS's handle types (FILEID_INO32_GEN[_PARENT], and the 64-bit flag). */
#define XFS_FILEID_INO32_GEN		1
#define XFS_FILEID_INO32_GEN_PARENT	2
#define XFS_FILEID_64BIT		0x80

int map_xfs_handle_decode(int type, const unsigned char *h, size_t len, uint64_t *ino,
			  uint32_t *gen)
{
	uint32_t v;

	switch (type) {
	case XFS_FILEID_INO32_GEN:
	case XFS_FILEID_INO32_GEN_PARENT:
		if (len < 8)
			return -EINVAL;
		memcpy(&v, h, sizeof(v));
		*ino = v;
		memcpy(gen, h + 4, sizeof(*gen));
		return 0;
	case XFS_FILEID_INO32_GEN | XFS_FILEID_64BIT:
	case XFS_FILEID_INO32_GEN_PARENT | XFS_FILEID_64BIT:
		/* packed { u64 ino; u32 gen; ... } */
		if (len < 12)
			return -EINVAL;
		memcpy(ino, h, sizeof(*ino));
		memcpy(gen, h + 8, sizeof(*gen));
		return 0;
	default:
		return -EINVAL;
	}
}

int map_fan_info_each(const void *info, size_t len,
		      int (*fn)(int type, const unsigned char *rec, size_t reclen, void *arg),
		      void *arg)
{
	const unsigned char *p = info;

	while (len > 0) {
		struct fanotify_event_info_header hdr;
		int rc;

		if (len < sizeof(hdr))
			return -EINVAL;
		memcpy(&hdr, p, sizeof(hdr));
		if (hdr.len < sizeof(hdr) || hdr.len > len)
			return -EINVAL;
		rc = fn(hdr.info_type, p, hdr.len, arg);
		if (rc)
			return rc;
		p += hdr.len;
		len -= hdr.len;
	}
	return 0;
}

int map_fan_fid(const unsigned char *rec, size_t reclen, int *type, const unsigned char **handle,
		size_t *hlen, const unsigned char **rest, size_t *restlen)
{
	size_t off = sizeof(struct fanotify_event_info_fid);
	struct file_handle fh;

	if (reclen < off + sizeof(fh))
		return -EINVAL;
	memcpy(&fh, rec + off, sizeof(fh));
	off += sizeof(fh);
	if (fh.handle_bytes > reclen - off)
		return -EINVAL;
	*type = fh.handle_type;
	*handle = rec + off;
	*hlen = fh.handle_bytes;
	off += fh.handle_bytes;
	*rest = rec + off;
	*restlen = reclen - off;
	return 0;
}
