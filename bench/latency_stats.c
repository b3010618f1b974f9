// SPDX-License-Identifier: GPL-2.0-or-later
/* The latency benches' summary line (latency_stats.h). */
#include <stdio.h>
#include <stdlib.h>

#include "latency_stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The value at fraction @p of @sorted (nearest rank). */
static double percentile(const double *sorted, size_t n, double p)
{
	size_t i = (size_t)(p * (double)(n - 1) + 0.5);

	return sorted[i < n ? i : n - 1];
}

void latency_print(const char *label, double *v, size_t n)
{
	qsort(v, n, sizeof(v[0]), cmp_double);
	printf("%s %.0f %.0f %.0f %zu\n", label, percentile(v, n, 0.50), percentile(v, n, 0.99),
	       v[n - 1], n);
}
