// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The offline path's plan: every device range the database recorded as
 * unreadable (media reads and kernel events, closed findings too: a rebuilt
 * btree leaves its old block unreadable in free space, where xfs_repair
 * still reads AG headers), widened to whole sectors of the device and
 * merged, each merged range knowing the findings it holds; then, with the
 * device open, which of its sectors still cannot be read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "act_offline.h"

static int add_evidence(const struct map_evidence *e, void *arg)
{
	struct offline_plan *p = arg;

	if (!e->has_range || !e->length ||
	    (e->source != MAP_SOURCE_MEDIA && e->source != MAP_SOURCE_EVENT))
		return 0;
	/* the same range seen twice (this finding's are last) */
	for (size_t i = p->nrr; i > 0 && p->rr[i - 1].finding == p->nf; i--)
		if (p->rr[i - 1].start == e->physical && p->rr[i - 1].length == e->length)
			return 0;
	if (p->nrr >= OFFLINE_MAX_RANGES) {
		p->too_many = true;
		return 0;
	}
	struct offline_rec_range *v = realloc(p->rr, (p->nrr + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->rr = v;
	p->rr[p->nrr++] = (struct offline_rec_range){ .finding = p->nf, .start = e->physical,
						      .length = e->length, .range = SIZE_MAX };
	return 0;
}

/* Every finding, closed ones too, with the unreadable ranges its evidence
 * recorded. */
static int collect(const struct map_finding *f, void *arg)
{
	struct offline_plan *p = arg;
	size_t before = p->nrr;
	int rc = map_store_finding_evidence(p->st, f->id, add_evidence, p);

	if (rc || p->nrr == before)
		return rc;
	struct map_finding *v = realloc(p->f, (p->nf + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->f = v;
	struct map_finding *c = &p->f[p->nf++];
	*c = *f;
	c->paths = NULL;
	c->npaths = 0;
	for (size_t i = 0; i < f->npaths; i++)
		if (map_finding_add_path(c, f->paths[i]) != 0)
			return -ENOMEM;
	return 0;
}

static int cmp_rec_range(const void *a, const void *b)
{
	const struct offline_rec_range *x = a, *y = b;

	if (x->range != y->range)
		return x->range < y->range ? -1 : 1;
	if (x->finding != y->finding)
		return x->finding < y->finding ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

size_t offline_plan_range_of(const struct offline_plan *p, uint64_t pos)
{
	size_t lo = 0, hi = p->ranges.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->ranges.v[mid].start <= pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

/* The recorded ranges, widened to whole units and merged; those past the end
 * of the device (when known) are counted and left out.  Each recorded range
 * then knows the merged range holding it. */
static int build_ranges(struct offline_plan *p)
{
	for (size_t i = 0; i < p->nrr; i++) {
		struct offline_rec_range *r = &p->rr[i];
		uint64_t start = r->start / p->unit * p->unit;
		uint64_t end = r->start + r->length;

		if (end < r->start || end > UINT64_MAX - p->unit)
			end = UINT64_MAX;	/* a corrupt record: left out below */
		else
			end = (end + p->unit - 1) / p->unit * p->unit;
		if (end == UINT64_MAX || (p->dev.size && end > p->dev.size)) {
			p->outside++;
			r->length = 0;	/* left out */
			continue;
		}
		int rc = map_range_add(&p->ranges, start, end - start);
		if (rc)
			return rc;
	}
	map_range_merge(&p->ranges, 0);
	for (size_t i = 0; i < p->nrr; i++)
		if (p->rr[i].length)
			p->rr[i].range = offline_plan_range_of(p, p->rr[i].start);
	qsort(p->rr, p->nrr, sizeof(*p->rr), cmp_rec_range);
	return 0;
}

int offline_plan_collect(struct offline_plan *p)
{
	int rc = map_store_findings(p->st, p->t.fs_id, MAP_FIND_ALL, collect, p);

	return rc ? rc : build_ranges(p);
}

int offline_plan_each_finding(const struct offline_plan *p, size_t range, uint64_t start,
			      uint64_t length,
			      int (*fn)(const struct offline_plan *p, const struct map_finding *f,
					void *arg),
			      void *arg)
{
	size_t lo = 0, hi = p->nrr, last = SIZE_MAX;

	while (lo < hi) {	/* the first of this range */
		size_t mid = lo + (hi - lo) / 2;

		if (p->rr[mid].range < range)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < p->nrr && p->rr[i].range == range; i++) {
		const struct offline_rec_range *r = &p->rr[i];

		if (r->finding == last || r->start >= start + length || start >= r->start + r->length)
			continue;
		last = r->finding;
		int rc = fn(p, &p->f[r->finding], arg);
		if (rc)
			return rc;
	}
	return 0;
}

struct check {
	struct offline_plan *p;
	size_t range;
};

static int note_bad(uint64_t pos, void *arg)
{
	struct check *c = arg;
	struct offline_plan *p = c->p;

	p->range_bad[c->range]++;
	p->total_bad++;
	if (p->nbad < p->max_bad)
		p->bad[p->nbad++] = pos;
	return 0;
}

int offline_plan_check(struct offline_plan *p)
{
	int rc;

	p->range_bad = calloc(p->ranges.n ? p->ranges.n : 1, sizeof(*p->range_bad));
	p->max_bad = OFFLINE_MAX_OVERWRITE / p->unit;
	p->bad = calloc(p->max_bad, sizeof(*p->bad));
	if (!p->range_bad || !p->bad)
		return -ENOMEM;
	for (size_t i = 0; i < p->ranges.n; i++) {
		struct check c = { p, i };

		rc = offline_device_scan(&p->dev, p->ranges.v[i].start, p->ranges.v[i].length,
					 note_bad, &c);
		if (rc)
			return rc;
	}
	p->checked = true;
	return 0;
}

void offline_plan_free(struct offline_plan *p)
{
	offline_device_close(&p->dev);
	for (size_t i = 0; i < p->nf; i++)
		map_finding_clear(&p->f[i]);
	free(p->f);
	free(p->rr);
	free(p->range_bad);
	free(p->bad);
	map_range_free(&p->ranges);
	p->f = NULL;
	p->rr = NULL;
	p->range_bad = p->bad = NULL;
	p->nf = p->nrr = 0;
}
