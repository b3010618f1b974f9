// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Keeping a directory index current from fanotify directory-entry events.
 *
 * A filesystem mark reports every create, delete and move of a name, with
 * the parent's handle, the name and the child's handle.  Events are not
 * replayed as history: each one says "look at this name in this directory
 * again", and what the directory holds now is recorded.  So late, merged or
 * reordered events still leave the index right, and a name a local user
 * crafts can only make us look at a directory entry, never record one that
 * is not there.  Non-directory events (the mark cannot leave them out) are
 * skipped unread; a queue overflow resets the index for a rebuild.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "map_internal.h"

#define DIR_EVENTS	(FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | FAN_MOVED_TO)
#define DRAIN_BUF	65536
#define DRAIN_READS	64	/* per drain: the rest waits for the next one */

int map_dirindex_watch(const char *mountpoint)
{
	int fd = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME_TARGET | FAN_CLOEXEC |
			       FAN_NONBLOCK, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, DIR_EVENTS | FAN_ONDIR,
			  AT_FDCWD, mountpoint) != 0) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	return fd;
}

struct dir_event {
	bool have_parent, have_child;
	uint64_t pino, cino;
	uint32_t pgen, cgen;
	const char *name;
	size_t len;
};

/* One handle record: the handle's inode, and for DFID_NAME the name after it. */
static int decode_fid(const unsigned char *p, size_t len, bool with_name, uint64_t *ino,
		      uint32_t *gen, const char **name, size_t *namelen)
{
	const unsigned char *h, *rest;
	size_t hlen, restlen;
	int type;

	if (map_fan_fid(p, len, &type, &h, &hlen, &rest, &restlen) ||
	    map_xfs_handle_decode(type, h, hlen, ino, gen))
		return -EINVAL;
	if (!with_name)
		return 0;
	/* the name runs to a NUL inside the record (the record is padded) */
	const unsigned char *end = memchr(rest, '\0', restlen);
	if (!end || end == rest)
		return -EINVAL;
	*name = (const char *)rest;
	*namelen = (size_t)(end - rest);
	return 0;
}

static int event_record(int type, const unsigned char *p, size_t len, void *arg)
{
	struct dir_event *ev = arg;

	if (type == FAN_EVENT_INFO_TYPE_DFID_NAME) {
		if (decode_fid(p, len, true, &ev->pino, &ev->pgen, &ev->name, &ev->len))
			return -EINVAL;
		ev->have_parent = true;
	} else if (type == FAN_EVENT_INFO_TYPE_FID) {
		if (decode_fid(p, len, false, &ev->cino, &ev->cgen, NULL, NULL) == 0)
			ev->have_child = true;
	}
	return 0;
}

/* Look at @name in the directory again and record what it holds now. */
static int apply(struct map_dirindex *ix, struct map_fs *fs, const struct dir_event *ev,
		 uint64_t mask)
{
	struct map_dirmap *dm = map_dirindex_dirmap(ix);
	struct stat st;
	bool is_dir = false;
	char name[256];
	int pfd, rc = 0;

	if (ev->len >= sizeof(name) || memchr(ev->name, '/', ev->len))
		return 0;	/* not a name XFS can hold */
	memcpy(name, ev->name, ev->len);
	name[ev->len] = '\0';
	pfd = map_open_by_ino(fs, ev->pino, ev->pgen, O_DIRECTORY);
	if (pfd == -ENOMEM)
		return pfd;
	if (pfd >= 0) {
		is_dir = fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
		close(pfd);
	}
	if (ev->have_child && (!is_dir || st.st_ino != ev->cino)) {
		map_dirmap_forget(dm, ev->cino, ev->pino, name, ev->len);
		if (mask & FAN_DELETE)
			map_dirindex_note_gone(ix, ev->cino);
	}
	if (is_dir) {
		uint32_t gen = ev->cgen;
		struct xfs_bulkstat bs;

		if (!ev->have_child || st.st_ino != ev->cino) {
			if (map_bulkstat_one(fs, st.st_ino, &bs) != 0)
				return 0;
			gen = bs.bs_gen;
		}
		rc = map_dirindex_note_dir(ix, st.st_ino, gen);
		if (rc == 0)
			rc = map_dirmap_set(dm, st.st_ino, ev->pino, name, ev->len);
	}
	return rc;
}

int map_dirindex_apply_events(struct map_dirindex *ix, struct map_fs *fs, const void *buf,
			      size_t len)
{
	const unsigned char *p = buf;
	int n = 0;

	while (len >= sizeof(struct fanotify_event_metadata)) {
		struct fanotify_event_metadata m;

		memcpy(&m, p, sizeof(m));
		if (m.event_len < m.metadata_len || m.metadata_len < sizeof(m) || m.event_len > len ||
		    m.vers != FANOTIFY_METADATA_VERSION)
			return -EINVAL;
		if (m.fd >= 0)
			close(m.fd);	/* never for FID groups, but never leak one */
		if (m.mask & FAN_Q_OVERFLOW) {
			map_dirindex_reset(ix);
		} else if ((m.mask & FAN_ONDIR) && (m.mask & DIR_EVENTS) && map_dirindex_dirmap(ix)) {
			struct dir_event ev = { 0 };

			if (map_fan_info_each(p + m.metadata_len, m.event_len - m.metadata_len,
					      event_record, &ev))
				return -EINVAL;
			if (ev.have_parent) {
				int rc = apply(ix, fs, &ev, m.mask);

				if (rc)
					return rc;
				map_dirindex_count_event(ix);
				n++;
			}
		}
		p += m.event_len;
		len -= m.event_len;
	}
	return len ? -EINVAL : n;
}

int map_dirindex_drain(struct map_dirindex *ix, struct map_fs *fs, int fan_fd)
{
	char *buf = malloc(DRAIN_BUF);
	int total = 0;

	if (!buf)
		return -ENOMEM;
	for (int i = 0; i < DRAIN_READS; i++) {
		ssize_t n = read(fan_fd, buf, DRAIN_BUF);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;	/* nothing more waiting (EAGAIN), or the group is gone */
		int rc = map_dirindex_apply_events(ix, fs, buf, (size_t)n);
		if (rc < 0) {
			/* an event we could not read: what it said is lost */
			map_dirindex_reset(ix);
			if (rc == -ENOMEM) {
				free(buf);
				return rc;
			}
			continue;
		}
		total += rc;
	}
	free(buf);
	return total;
}
