// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Every scrub type on a clean, populated reflink filesystem (with quotas):
 *
 * - a check finds nothing wrong: every object answers 0 with no output flag,
 *   except the secondary superblocks that mkfs.xfs 6.1 writes (inprogress
 *   still set, no rt inode numbers), which 6.12 marks PREEN;
 * - what does not exist answers ENOENT, exactly where expected, and counts as
 *   absent, not as an error;
 * - REPAIR on every object: the secondary superblocks are preened, PROBE runs
 *   its empty repair, all else answers NO_REPAIR_NEEDED and is not touched
 *   (the scrub statistics count no repair and the xrep_attempt tracepoint
 *   does not fire for it);
 * - a second REPAIR pass finds nothing at all to do;
 * - file contents are unchanged and xfs_repair -n finds nothing;
 * - mounted without quotas, the quota types are absent.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ktest.h"
#include "map_scrub.h"
#include "populate.h"
#include "scrub_objects.h"
#include "vmtest.h"
#include "xfs_abi.h"

#define MNT "/tmp/mnt"
#define MAX_OBJECTS 256

static struct kt_population pop;
static struct kt_object obj[MAX_OBJECTS];
static size_t nobj;

static bool is_secondary_sb(const struct kt_object *o)
{
	return o->type == XFS_SCRUB_TYPE_SB && o->agno > 0;
}

/* The result of one call must be @want_rc, and @want_flags if it is 0. */
static void check_call(const char *pass, const struct kt_object *o, int rc, uint32_t oflags,
		       int want_rc, uint32_t want_flags)
{
	char got[128], want[128];

	map_scrub_oflags_str(oflags, got, sizeof(got));
	map_scrub_oflags_str(want_flags, want, sizeof(want));
	CHECK(rc == want_rc && (rc != 0 || oflags == want_flags),
	      "%s %s: got %s [%s], expected %s [%s]", pass, kt_object_name(o, &pop),
	      kt_errno_name(rc), got, kt_errno_name(want_rc), want);
}

static void scrub_pass(int fd)
{
	unsigned int clean = 0, absent = 0, errors = 0;

	for (size_t i = 0; i < nobj; i++) {
		const char *why = kt_absent_reason(&obj[i], &pop);
		uint32_t oflags;
		int rc = kt_scrub(fd, &obj[i], 0, &oflags);

		if (rc == -ENOENT) {
			absent++;
			printf("absent: %-45s (%s)\n", kt_object_name(&obj[i], &pop),
			       why ? why : "unexpected");
		} else if (rc == 0 && !(oflags & (XFS_SCRUB_OFLAG_CORRUPT |
						   XFS_SCRUB_OFLAG_XCORRUPT))) {
			clean++;
		} else {
			errors++;
		}
		CHECK(!(oflags & (XFS_SCRUB_OFLAG_CORRUPT | XFS_SCRUB_OFLAG_XCORRUPT)),
		      "scrub %s reports damage", kt_object_name(&obj[i], &pop));
		check_call("scrub", &obj[i], rc, oflags, why ? -ENOENT : 0,
			   is_secondary_sb(&obj[i]) ? XFS_SCRUB_OFLAG_PREEN : 0);
	}
	printf("scrub: %zu objects: %u without damage, %u absent, %u errors\n", nobj, clean,
	       absent, errors);
	CHECK_INT(errors, 0);
}

/* REPAIR on every object; @first: the secondary superblocks still need a preen. */
static void repair_pass(int fd, bool first)
{
	for (size_t i = 0; i < nobj; i++) {
		uint32_t want = XFS_SCRUB_OFLAG_NO_REPAIR_NEEDED;
		uint32_t oflags;
		int rc = kt_scrub(fd, &obj[i], XFS_SCRUB_IFLAG_REPAIR, &oflags);

		/* PROBE only says that repair is available. */
		if (obj[i].type == XFS_SCRUB_TYPE_PROBE || (first && is_secondary_sb(&obj[i])))
			want = 0;
		check_call(first ? "repair" : "repair again", &obj[i], rc, oflags,
			   kt_absent_reason(&obj[i], &pop) ? -ENOENT : 0, want);
	}
}

/* Only the secondary superblocks were ever repaired. */
static void check_repair_stats(const char *fs_name, uint32_t agcount)
{
	for (uint32_t t = 1; t < map_scrub_type_count(); t++) {
		const char *name = map_scrub_type(t)->name;
		unsigned int tries, fixed, want = t == XFS_SCRUB_TYPE_SB ? agcount - 1 : 0;

		kt_repair_stats(fs_name, name, &tries, &fixed);
		CHECK(tries == want && fixed == want,
		      "scrub stats for %s: %u repairs, %u successful; expected %u", name, tries,
		      fixed, want);
	}
}

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : "/dev/vda";
	static const char *const events[] = { "xfs_scrub:xrep_attempt" };
	struct xfs_fsop_geom geo;

	vt_require_vm();
	tl_allow_small_fs(dev);
	tl_mkfs(dev, "%s -d agcount=4,size=256m", vt_features());
	tl_mount(dev, MNT, "uquota,gquota,pquota");
	kt_populate(MNT, 200, &pop);
	char *before = tl_checksums(MNT);

	int fd = tl_open(MNT, O_RDONLY | O_DIRECTORY);
	kt_geometry(fd, &geo);
	nobj = kt_scrub_objects(geo.agcount, &pop, obj, MAX_OBJECTS);
	REQUIRE(nobj <= MAX_OBJECTS, "too many scrub objects");

	scrub_pass(fd);

	kt_trace_start(events, 1);
	repair_pass(fd, true);
	char *trace = kt_trace_stop();
	/* PROBE goes through the (empty) probe repair on purpose. */
	CHECK_INT(kt_trace_count(trace, "xrep_attempt:", NULL), geo.agcount);
	CHECK_INT(kt_trace_count(trace, "xrep_attempt:", "type sb ", NULL), geo.agcount - 1);
	CHECK_INT(kt_trace_count(trace, "xrep_attempt:", "type probe ", NULL), 1);
	free(trace);
	check_repair_stats(kt_fs_name(dev), geo.agcount);

	repair_pass(fd, false);
	check_repair_stats(kt_fs_name(dev), geo.agcount);
	close(fd);

	char *after = tl_checksums(MNT);
	CHECK(strcmp(before, after) == 0, "file contents changed");
	tl_umount(MNT);
	CHECK_INT(tl_sh("xfs_repair -n %s", dev), 0);

	/* Quota types are absent while quotas are off. */
	tl_mount(dev, MNT, NULL);
	fd = tl_open(MNT, O_RDONLY | O_DIRECTORY);
	static const uint32_t quota_types[] = { XFS_SCRUB_TYPE_UQUOTA, XFS_SCRUB_TYPE_GQUOTA,
						XFS_SCRUB_TYPE_PQUOTA, XFS_SCRUB_TYPE_QUOTACHECK };
	for (size_t i = 0; i < sizeof(quota_types) / sizeof(quota_types[0]); i++) {
		uint32_t oflags;

		CHECK_INT(map_scrub_call(fd, quota_types[i], 0, 0, 0, 0, &oflags), -ENOENT);
	}
	close(fd);
	tl_umount(MNT);
	free(before);
	free(after);

	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
