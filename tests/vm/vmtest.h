/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers for tests that run inside the QEMU guest (through vm/run). */
#ifndef MAPPER_VMTEST_H
#define MAPPER_VMTEST_H

#include <stdbool.h>

/* Stop with a failure unless we run inside a vm/run guest as root. */
void vt_require_vm(void);
/* Run a shell command (echoed with "+ "); returns its exit status, or -1. */
int vt_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Like vt_sh(), but a nonzero status stops the test. */
void vt_must(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Output of a shell command (trailing newline removed) in a static buffer. */
const char *vt_out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Number of kernel log lines with BUG, WARNING, lockdep, KASAN or UBSAN
 * reports since boot; each one is printed. */
int vt_kernel_log_problems(void);
/* mkfs.xfs -f with the given options on dev and mount it at mnt (created). */
void vt_mkfs_mount(const char *dev, const char *mkfs_opts, const char *mnt);

#endif
