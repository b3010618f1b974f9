/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The control socket's file: made, listened on, removed only if ours. */
#ifndef MAPPERD_CONTROL_SOCKET_H
#define MAPPERD_CONTROL_SOCKET_H

#include <sys/types.h>

/*
 * A listening, non-blocking socket at @path, its folder made if missing;
 * one left behind by a daemon that died is replaced, a live one or
 * anything else there refused (-EADDRINUSE, -EEXIST).  The descriptor, or
 * -errno; *@ino is the socket file's inode number, for md_ctl_unlink().
 */
int md_ctl_listen(const char *path, ino_t *ino);
/* Remove @path if it is still the socket file we made. */
void md_ctl_unlink(const char *path, ino_t ino);

#endif
