// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A control client's bounded buffers: request lines in, reply bytes out,
 * and a request budget.  Every size here is fixed or capped, so a client
 * can make the daemon hold at most one line and one capped reply queue.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "control_io.h"

/* A drained queue keeps its buffer unless it grew past this: most replies
 * fit, and one big status reply is not kept for the connection's life. */
#define OUT_KEEP (64u << 10)

char *md_ctl_in_tail(struct md_ctl_in *in)
{
	return in->buf + in->len;
}

size_t md_ctl_in_room(const struct md_ctl_in *in)
{
	return sizeof(in->buf) - in->len;
}

void md_ctl_in_added(struct md_ctl_in *in, size_t n)
{
	in->len += n > md_ctl_in_room(in) ? md_ctl_in_room(in) : n;
}

bool md_ctl_in_has_line(const struct md_ctl_in *in)
{
	return in->len && memchr(in->buf, '\n', in->len) != NULL;
}

int md_ctl_in_take(struct md_ctl_in *in, char *line, size_t cap)
{
	char *nl = in->len ? memchr(in->buf, '\n', in->len) : NULL;
	size_t used, n;

	if (!nl)
		return in->len == sizeof(in->buf) ? -E2BIG : 0;
	used = (size_t)(nl - in->buf) + 1;
	n = used - 1;
	if (n && in->buf[n - 1] == '\r')
		n--;
	bool nul = memchr(in->buf, '\0', n) != NULL;
	if (!nul && n < cap) {
		memcpy(line, in->buf, n);
		line[n] = '\0';
	}
	memmove(in->buf, in->buf + used, in->len - used);
	in->len -= used;
	if (nul)
		return -EBADMSG;
	return n < cap ? 1 : -E2BIG;
}

size_t md_ctl_out_pending(const struct md_ctl_out *out)
{
	return out->len - out->off;
}

int md_ctl_out_add(struct md_ctl_out *out, const char *data, size_t n)
{
	size_t pending = md_ctl_out_pending(out);

	if (n == 0)
		return 0;	/* an empty queue has no buffer to add to (fuzz_control) */
	if (n > MD_CTL_OUT_HARD - pending)
		return -EMSGSIZE;
	if (out->off) {		/* sent bytes at the front: reuse their room */
		memmove(out->p, out->p + out->off, pending);
		out->off = 0;
		out->len = pending;
	}
	if (out->cap - out->len < n) {
		size_t cap = out->cap ? out->cap : 4096;

		while (cap - out->len < n)
			cap *= 2;
		char *p = realloc(out->p, cap);
		if (!p)
			return -ENOMEM;
		out->p = p;
		out->cap = cap;
	}
	memcpy(out->p + out->len, data, n);
	out->len += n;
	return 0;
}

int md_ctl_out_send(struct md_ctl_out *out, int fd, size_t *sent)
{
	size_t total = 0;
	int rc = 0;

	while (md_ctl_out_pending(out) > 0) {
		ssize_t n = send(fd, out->p + out->off, md_ctl_out_pending(out),
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = errno == EWOULDBLOCK ? -EAGAIN : -errno;
			break;
		}
		out->off += (size_t)n;
		total += (size_t)n;
	}
	if (md_ctl_out_pending(out) == 0) {
		out->off = out->len = 0;
		if (out->cap > OUT_KEEP) {
			free(out->p);
			out->p = NULL;
			out->cap = 0;
		}
	}
	if (sent)
		*sent = total;
	return rc;
}

void md_ctl_out_free(struct md_ctl_out *out)
{
	free(out->p);
	memset(out, 0, sizeof(*out));
}
