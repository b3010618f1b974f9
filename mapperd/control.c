// SPDX-License-Identifier: GPL-2.0-or-later
/* The control socket: connections, request lines, peer credentials. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "control.h"
#include "daemon.h"
#include "log.h"

#define MAX_CLIENTS 64
#define LINE_MAX_LEN 4096
#define SEND_TIMEOUT_MS 2000

struct client {
	struct md_watch w;
	struct md_control *ctl;
	struct md_peer peer;
	char in[LINE_MAX_LEN];
	size_t inlen;
};

struct md_control {
	struct md_watch listen;
	char path[PATH_MAX];
	ino_t ino;			/* of our socket file, to remove only ours */
	struct client *clients[MAX_CLIENTS];
	int nclients;
};

static void peer_identify(struct md_daemon *d, int fd, struct md_peer *p)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);

	memset(p, 0, sizeof(*p));
	p->uid = (uid_t)-1;
	p->gid = (gid_t)-1;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) == 0) {
		p->pid = uc.pid;
		p->uid = uc.uid;
		p->gid = uc.gid;
	}
	len = sizeof(p->groups);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, p->groups, &len) == 0)
		p->ngroups = (int)(len / sizeof(gid_t));
	p->privileged = p->uid == 0;
	if (!p->privileged && d->cfg.control_group[0]) {
		p->privileged = p->gid == d->cfg.control_gid;
		for (int i = 0; i < p->ngroups && !p->privileged; i++)
			p->privileged = p->groups[i] == d->cfg.control_gid;
	}
	if (p->uid == 0) {
		snprintf(p->name, sizeof(p->name), "root");
	} else {
		struct passwd pw, *res = NULL;
		char buf[1024];

		if (getpwuid_r(p->uid, &pw, buf, sizeof(buf), &res) == 0 && res)
			snprintf(p->name, sizeof(p->name), "%.40s (uid %u)", pw.pw_name,
				 (unsigned int)p->uid);
		else
			snprintf(p->name, sizeof(p->name), "uid %u", (unsigned int)p->uid);
	}
}

/* Write all of it, waiting a little for a slow reader. */
static int send_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EAGAIN) {
			struct pollfd pfd = { .fd = fd, .events = POLLOUT };

			if (poll(&pfd, 1, SEND_TIMEOUT_MS) <= 0)
				return -ETIMEDOUT;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void client_close(struct md_daemon *d, struct client *c)
{
	struct md_control *ctl = c->ctl;

	for (int i = 0; i < ctl->nclients; i++) {
		if (ctl->clients[i] == c) {
			ctl->clients[i] = ctl->clients[--ctl->nclients];
			break;
		}
	}
	md_watch_del(d, &c->w);
	close(c->w.fd);
	free(c);
}

static void client_ready(struct md_daemon *d, struct md_watch *w, uint32_t events)
{
	struct client *c = w->arg;

	for (;;) {
		ssize_t n = recv(w->fd, c->in + c->inlen, sizeof(c->in) - c->inlen, MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0) {
			client_close(d, c);
			return;
		}
		c->inlen += (size_t)n;
		char *nl;
		while ((nl = memchr(c->in, '\n', c->inlen))) {
			struct md_buf out = { 0 };
			size_t used = (size_t)(nl - c->in) + 1;

			*nl = '\0';
			if (nl > c->in && nl[-1] == '\r')
				nl[-1] = '\0';
			md_control_handle(d, &c->peer, c->in, &out);
			memmove(c->in, c->in + used, c->inlen - used);
			c->inlen -= used;
			int rc = out.failed ? -ENOMEM : send_all(w->fd, out.p ? out.p : "", out.len);
			md_buf_free(&out);
			if (rc) {
				client_close(d, c);
				return;
			}
		}
		if (c->inlen == sizeof(c->in)) {
			static const char msg[] = "error: request line too long\n";

			send_all(w->fd, msg, sizeof(msg) - 1);
			client_close(d, c);
			return;
		}
	}
	if (events & (EPOLLHUP | EPOLLERR))
		client_close(d, c);
}

static void listen_ready(struct md_daemon *d, struct md_watch *w, uint32_t events)
{
	struct md_control *ctl = w->arg;

	(void)events;
	for (;;) {
		int fd = accept4(w->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
				log_warn("control socket: accept: %s", strerror(errno));
			return;
		}
		if (ctl->nclients >= MAX_CLIENTS) {
			static const char msg[] = "error: too many connections\n";

			send_all(fd, msg, sizeof(msg) - 1);
			close(fd);
			continue;
		}
		struct client *c = calloc(1, sizeof(*c));
		if (!c) {
			close(fd);
			continue;
		}
		c->ctl = ctl;
		c->w.fd = fd;
		c->w.ready = client_ready;
		c->w.arg = c;
		peer_identify(d, fd, &c->peer);
		if (md_watch_add(d, &c->w, EPOLLIN | EPOLLRDHUP)) {
			close(fd);
			free(c);
			continue;
		}
		ctl->clients[ctl->nclients++] = c;
	}
}

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

int md_control_start(struct md_daemon *d, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct md_control *ctl;
	char dir[PATH_MAX];
	struct stat st;
	int fd, rc;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) != 0 && errno != EEXIST)
			return -errno;
	}
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			return -EEXIST;
		if (someone_listens(path))
			return -EADDRINUSE;
		unlink(path);	/* left behind by a daemon that died */
	}
	ctl = calloc(1, sizeof(*ctl));
	if (!ctl)
		return -ENOMEM;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		free(ctl);
		return rc;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	/* Everyone may connect (status is public); requests are checked by
	 * the peer's credentials, not by the file mode. */
	mode_t old = umask(0);
	rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 ? 0 : -errno;
	umask(old);
	if (rc == 0 && listen(fd, 16) != 0)
		rc = -errno;
	if (rc == 0 && stat(path, &st) == 0)
		ctl->ino = st.st_ino;
	if (rc == 0) {
		ctl->listen.fd = fd;
		ctl->listen.ready = listen_ready;
		ctl->listen.arg = ctl;
		snprintf(ctl->path, sizeof(ctl->path), "%s", path);
		rc = md_watch_add(d, &ctl->listen, EPOLLIN);
	}
	if (rc) {
		close(fd);
		free(ctl);
		return rc;
	}
	d->ctl = ctl;
	return 0;
}

void md_control_stop(struct md_daemon *d)
{
	struct md_control *ctl = d->ctl;
	struct stat st;

	if (!ctl)
		return;
	while (ctl->nclients > 0)
		client_close(d, ctl->clients[0]);
	md_watch_del(d, &ctl->listen);
	close(ctl->listen.fd);
	if (stat(ctl->path, &st) == 0 && st.st_ino == ctl->ino)
		unlink(ctl->path);
	free(ctl);
	d->ctl = NULL;
}
