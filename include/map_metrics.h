/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The store's figures for Prometheus (mapctl metrics, mapperd). */
#ifndef MAP_METRICS_H
#define MAP_METRICS_H

#include <stdio.h>

struct map_store;

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the figures for Prometheus (metrics.c) ---- */

/*
 * The store's figures in the Prometheus text format (0.0.4) on @out, read
 * in one read transaction: open findings by kind, damaged files, the last
 * complete scan of each type, events, repairs and refetches; every sample
 * labelled with its filesystem's uuid and mountpoint (escaped as
 * map_escape_text writes them, then for the format).  The families are
 * listed in mapctl(8), METRICS.  @st NULL (no database yet): every family
 * without samples.  0, or a negative errno (-EIO: @out failed).
 */
int map_metrics_write(struct map_store *st, FILE *out);
/*
 * The same into @path for a textfile collector: @path.tmp (a link or file
 * left there is removed, never written through), mode 0644 whatever the
 * umask, synced, then renamed over @path, so a reader sees the old file or
 * the new one, never a part.  No symbolic link on @path's folders is
 * followed (-ELOOP): a folder of another user on the way could be swapped
 * for a link to one of root's.  @extra (may be NULL) appends families of
 * the caller's own (mapperd's counters) before the file is synced.  0, or
 * a negative errno; @path.tmp is gone.
 */
int map_metrics_write_file(struct map_store *st, const char *path,
			   void (*extra)(FILE *out, void *arg), void *arg);

#ifdef __cplusplus
}
#endif
#endif /* MAP_METRICS_H */
