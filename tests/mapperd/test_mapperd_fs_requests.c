// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The main thread's requests to the pipeline's worker about filesystems
 * (start or stop a directory index, make one ready for its first report)
 * are bounded, and what gives way when they are many is the warm-up, which
 * is only a head start: many filesystems appearing at once (a host with
 * dozens of disks starting mapperd) must not cost any of them its
 * directory index, and with no warm-up to give way the oldest request goes
 * as before.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "pipeline_internal.h"

static struct dirwatch_req q[DIRWATCH_REQS];
static size_t n;

static bool add(int i, bool on, bool warm)
{
	struct dirwatch_req r = { .on = on, .warm = warm };

	snprintf(r.uuid, sizeof(r.uuid), "fs-%d", i);
	snprintf(r.mountpoint, sizeof(r.mountpoint), "/srv/disk%d", i);
	return pipeline_fs_req_add(q, &n, &r);
}

/* Is request (@i, @on, @warm) queued? */
static bool queued(int i, bool on, bool warm)
{
	char uuid[40];

	snprintf(uuid, sizeof(uuid), "fs-%d", i);
	for (size_t k = 0; k < n; k++)
		if (!strcmp(q[k].uuid, uuid) && q[k].on == on && q[k].warm == warm)
			return true;
	return false;
}

/* As discovery asks when filesystems appear: the index, then the warm-up. */
static void many_appear(void)
{
	int lost = 0, nfs = DIRWATCH_REQS - 4;

	n = 0;
	for (int i = 0; i < nfs; i++) {
		add(i, true, false);
		add(i, false, true);
	}
	CHECK_INT(n, DIRWATCH_REQS);
	for (int i = 0; i < nfs; i++)
		if (!queued(i, true, false)) {
			if (!lost++)
				printf("  the directory index of fs-%d was dropped\n", i);
		}
	CHECK(lost == 0, "%d of %d filesystems lost their directory index to warm-ups", lost,
	      nfs);
	/* The index requests keep their order. */
	int last = -1;
	for (size_t k = 0; k < n; k++) {
		int i;

		if (q[k].warm || sscanf(q[k].uuid, "fs-%d", &i) != 1)
			continue;
		CHECK(i > last, "fs-%d's index request after fs-%d's", i, last);
		last = i;
	}
}

/* A full queue of index requests: a warm-up is dropped, an index request
 * pushes the oldest out. */
static void full_of_indexes(void)
{
	n = 0;
	for (int i = 0; i < DIRWATCH_REQS; i++)
		CHECK(add(i, true, false), "index request %d", i);
	CHECK(!add(1000, false, true), "a warm-up taken into a full queue");
	CHECK_INT(n, DIRWATCH_REQS);
	CHECK(queued(0, true, false), "the oldest went for a warm-up");
	CHECK(add(1001, false, false), "a stop request dropped");
	CHECK(!queued(0, true, false), "the oldest index request is still there");
	CHECK(queued(1001, false, false), "the new request is not queued");
	CHECK_INT(n, DIRWATCH_REQS);
}

int main(void)
{
	CHECK_PART(many_appear());
	CHECK_PART(full_of_indexes());
	return check_done();
}
