// SPDX-License-Identifier: GPL-2.0-or-later
/* Who is asking on the control socket: credentials, privilege, name. */
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "control.h"
#include "daemon.h"

/*
 * Privilege is decided for every request, from the credentials the kernel
 * recorded when the peer connected (SO_PEERCRED, SO_PEERGROUPS), against
 * the configuration in force now.
 *
 * Not once per connection: a reload may change or remove control_group,
 * and a connection opened before it must not keep a right the
 * administrator has just taken away.
 *
 * The connect-time identity, not that of whoever writes each request:
 * the kernel vouches for it, and a process that hands its connected
 * socket to another or drops its own credentials afterwards has delegated
 * what it held, as with any open descriptor.  Per-message credentials
 * (SCM_CREDENTIALS) would not be better: they carry the real uid and no
 * supplementary groups, so membership of control_group could not be
 * checked with them at all.  Connections are short-lived anyway: idle
 * ones are dropped (control.c).
 */
bool md_peer_privileged(const struct md_daemon *d, const struct md_peer *peer)
{
	if (peer->uid == 0)
		return true;
	if (!d->cfg.control_group[0])
		return false;
	if (peer->gid == d->cfg.control_gid)
		return true;
	for (int i = 0; i < peer->ngroups; i++)
		if (peer->groups[i] == d->cfg.control_gid)
			return true;
	return false;
}

/* Looked up only when needed: a name service lookup may be slow, and most
 * requests (status) never need the name. */
const char *md_peer_name(struct md_peer *p)
{
	if (p->name[0])
		return p->name;
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
	return p->name;
}

void md_peer_identify(int fd, struct md_peer *p)
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
	/* More groups than fit: none are counted (the primary group still is). */
	len = sizeof(p->groups);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, p->groups, &len) == 0)
		p->ngroups = (int)(len / sizeof(gid_t));
}
