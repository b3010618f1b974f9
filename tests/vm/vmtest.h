/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a test that runs inside the QEMU guest (through vm/run) asks of it:
 * the filesystem profile, root in a guest, a clean kernel log.
 */
#ifndef MAPPER_VMTEST_H
#define MAPPER_VMTEST_H

#include <stdbool.h>

#include "testlib.h"

/*
 * Filesystem profiles (vm/run --profile, MAPPER_PROFILE in the guest):
 *   classic: Debian 12's mkfs.xfs 6.1 with the reverse map and reflink, what
 *            exists in the field;
 *   modern:  xfsprogs 6.13 with parent pointers and exchange-range too.
 *   mainline: xfsprogs 7.x with its mkfs defaults (rmapbt, reflink, parent
 *            pointers, exchange-range, nrext64, autofsck), on stock Linux 7.x
 *            (vm/run --kernel-series mainline).
 */
#define VT_FEATURES_CLASSIC "-m rmapbt=1,reflink=1"
#define VT_FEATURES_MODERN "-m rmapbt=1,reflink=1 -n parent=1 -i exchange=1"
#define VT_FEATURES_MAINLINE ""	/* mkfs 7.x defaults have every feature above */
/* The filesystem has parent pointers and exchange-range (modern, mainline). */
bool vt_modern(void);
bool vt_mainline(void);			/* stock Linux 7.x and xfsprogs 7.x */
const char *vt_profile(void);		/* "classic", "modern" or "mainline" */
const char *vt_features(void);		/* mkfs.xfs feature options of the profile */

/* Stop with a failure unless we run inside a vm/run guest as root, with the
 * xfsprogs that MAPPER_PROFILE asks for first in PATH. */
void vt_require_vm(void);
/* Number of kernel log lines with BUG, WARNING, lockdep, KASAN or UBSAN
 * reports since boot; each one is printed.  On a kernel with lockdep,
 * debug_locks 0 (lockdep turned itself off) counts as one more. */
int vt_kernel_log_problems(void);
/* Lockdep's debug_locks (/proc/lockdep_stats): 1 while it checks, 0 once
 * it turned itself off, -1 on a kernel without lockdep. */
int vt_debug_locks(void);

#endif
