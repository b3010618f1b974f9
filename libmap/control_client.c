// SPDX-License-Identifier: GPL-2.0-or-later
/* A client of mapperd's control socket (map_control_client.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "map_control_client.h"

int map_control_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* Is the last complete line of @r a final one?  Then it ends the text. */
static bool final_line(struct map_control_reply *r)
{
	char *end = r->len ? r->text + r->len : NULL;
	char *start;

	if (!end || end[-1] != '\n')
		return false;
	start = end - 1;
	while (start > r->text && start[-1] != '\n')
		start--;
	if (strncmp(start, "ok", 2) && strncmp(start, "error:", 6))
		return false;
	end[-1] = '\0';
	r->last = start;
	r->len = (size_t)(start - r->text);
	return true;
}

static int failed(enum map_control_fail at, int e, enum map_control_fail *where, int *err)
{
	*where = at;
	*err = e;
	return -1;
}

int map_control_ask(int fd, const char *request, struct map_control_reply *r,
		    enum map_control_fail *where, int *err)
{
	size_t cap = 4096;
	size_t reqlen = strlen(request);

	memset(r, 0, sizeof(*r));
	if (write(fd, request, reqlen) != (ssize_t)reqlen || write(fd, "\n", 1) != 1)
		return failed(MAP_CONTROL_WRITE, -errno, where, err);
	r->text = malloc(cap);
	if (!r->text)
		return failed(MAP_CONTROL_READ, -ENOMEM, where, err);
	while (!final_line(r)) {
		if (r->len + 1 >= cap) {
			char *p = realloc(r->text, cap * 2);

			if (!p)
				return failed(MAP_CONTROL_READ, -ENOMEM, where, err);
			r->text = p;
			cap *= 2;
		}
		ssize_t n = read(fd, r->text + r->len, cap - r->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return failed(MAP_CONTROL_CLOSED, n < 0 ? -errno : 0, where, err);
		r->len += (size_t)n;
		r->text[r->len] = '\0';
	}
	return 0;
}

long map_control_open_findings(const char *json)
{
	const char *key = "\"open_findings\":";
	long total = 0;

	for (const char *p = strstr(json, key); p; p = strstr(p + 1, key))
		total += strtol(p + strlen(key), NULL, 10);
	return total;
}
