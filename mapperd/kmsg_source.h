/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /dev/kmsg as an event source, for stock kernels and real disks: block
 * layer I/O errors (mapped from disk sector to filesystem through the
 * partition offset) and XFS metadata I/O error, corruption and shutdown
 * lines.  Starts at the end of the log: old messages are not replayed.
 */
#ifndef MAPPERD_KMSG_SOURCE_H
#define MAPPERD_KMSG_SOURCE_H

struct md_daemon;

int md_kmsg_start(struct md_daemon *d);
void md_kmsg_stop(struct md_daemon *d);

#endif
