/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The filesystem that holds the database, seen from the main thread.  When
 * it is one of the watched filesystems, say so at start (its umount fails
 * while the daemon has the database open).  When it is shut down, close
 * every connection the daemon has to the database -- the main thread's,
 * the event pipeline's, a running scan's -- so the administrator can
 * unmount it; reports meanwhile wait in the spool.  Open it again once the
 * file is back on the same device (after the remount).
 */
#ifndef MAPPERD_DBGUARD_H
#define MAPPERD_DBGUARD_H

struct md_daemon;
struct md_fs;

/* After the database was opened: note the device it lives on. */
void md_db_init(struct md_daemon *d);
/* A filesystem is now watched: warn if it holds the database, and try the
 * database again if it was closed. */
void md_db_fs_added(struct md_daemon *d, struct md_fs *fs);
/* The kernel reported @fs shut down. */
void md_db_fs_shut_down(struct md_daemon *d, struct md_fs *fs);
/* Try a closed database again when due; milliseconds until the next try,
 * -1 when it is open. */
int md_db_tick(struct md_daemon *d);

#endif
