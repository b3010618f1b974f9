/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The latency benches' summary line: sorted times, their median, 99th
 * percentile, maximum and count. */
#ifndef BENCH_LATENCY_STATS_H
#define BENCH_LATENCY_STATS_H

#include <stddef.h>

/* Sort @v (@n > 0 times in ms) and print "@label P50 P99 MAX N". */
void latency_print(const char *label, double *v, size_t n);

#endif
