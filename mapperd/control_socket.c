// SPDX-License-Identifier: GPL-2.0-or-later
/* The control socket's file (control_socket.h). */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "control_socket.h"
#include "map.h"

/* Is a live daemon answering at @path? */
static bool someone_listens(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool live;

	if (fd < 0)
		return false;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	live = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	close(fd);
	return live;
}

int md_ctl_listen(const char *path, ino_t *ino)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[PATH_MAX];
	struct stat st;
	int fd, rc;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		/* made if missing; refused if another user could swap the socket */
		rc = map_dir_ensure(dir, 0755);
		if (rc)
			return rc;
	}
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			return -EEXIST;
		if (someone_listens(path))
			return -EADDRINUSE;
		unlink(path);	/* left behind by a daemon that died */
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	/* Everyone may connect (status is public); requests are checked by
	 * the peer's credentials, not by the file mode. */
	mode_t old = umask(0);
	rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 ? 0 : -errno;
	umask(old);
	if (rc == 0 && listen(fd, 16) != 0)
		rc = -errno;
	if (rc == 0 && stat(path, &st) == 0)
		*ino = st.st_ino;
	if (rc) {
		close(fd);
		return rc;
	}
	return fd;
}

void md_ctl_unlink(const char *path, ino_t ino)
{
	struct stat st;

	if (stat(path, &st) == 0 && st.st_ino == ino)
		unlink(path);
}
