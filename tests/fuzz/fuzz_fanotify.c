// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Buffers as read(2) returns them from a fanotify descriptor, and the XFS
 * file handles inside: the decoder must stay inside the buffer and every
 * record, whatever lengths the records claim.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>

#include "fanotify_source.h"
#include "map_dirindex.h"

static void on_report(const struct md_fan_report *r, void *arg)
{
	(*(int *)arg)++;
	if (r->count < 1)
		abort();
}

/* The decoder closes the descriptor an event carries (the kernel's, in the
 * daemon); here the fields are the fuzzer's: make them FAN_NOFD first. */
static void no_fds(unsigned char *p, size_t len)
{
	while (len >= sizeof(struct fanotify_event_metadata)) {
		struct fanotify_event_metadata m;

		memcpy(&m, p, sizeof(m));
		m.fd = FAN_NOFD;
		memcpy(p, &m, sizeof(m));
		if (m.event_len < sizeof(m) || m.event_len > len)
			break;
		p += m.event_len;
		len -= m.event_len;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *buf = malloc(size ? size : 1);	/* exact size, aligned like read(2)'s */
	int reports = 0;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	no_fds(buf, size);
	int n = md_fanotify_decode(buf, size, on_report, &reports);
	if (n >= 0 && n != reports)
		abort();
	if (n < 0 && n != -EINVAL)
		abort();

	if (size >= 1) {
		uint64_t ino;
		uint32_t gen;

		memcpy(buf, data + 1, size - 1);
		map_xfs_handle_decode(data[0], buf, size - 1, &ino, &gen);
	}
	free(buf);
	return 0;
}
