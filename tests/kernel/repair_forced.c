// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Forced online repair of every scrub object on a populated reflink
 * filesystem whose free space, reverse mapping and reference count btrees
 * have more than one level.  Half of the rebuilds are forced with the
 * force_repair errortag (/sys/fs/xfs/<dev>/errortag), the rest with
 * XFS_SCRUB_IFLAG_FORCE_REBUILD:
 *
 * - bnobt, cntbt, inobt, finobt, rmapbt and refcountbt in every AG, and the
 *   inode record and data/attr/CoW fork mappings of sample files are rebuilt
 *   (0, no output flag) and scrub clean right after;
 * - every other type gives exactly the answer of the table below (repaired,
 *   EOPNOTSUPP and why, ENOENT when absent);
 * - the repair tracepoints fire: xrep_attempt/xrep_done for each rebuild, and
 *   the record-gathering events of each btree rebuild;
 * - afterwards everything scrubs clean, every file reads back the same after
 *   a remount, and xfs_repair -n finds nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fserror_listen.h"
#include "ktest.h"
#include "map_scrub.h"
#include "populate.h"
#include "scrub_objects.h"
#include "vmtest.h"
#include "xfs_abi.h"

#define MNT "/tmp/mnt"
#define MNT_OPTS "uquota,gquota,pquota"
#define MAX_OBJECTS 256
#define FILES_PER_AG 1400

static struct kt_population pop;
static struct kt_object obj[MAX_OBJECTS];
static size_t nobj;
static const char *fs_name;

/* What a forced rebuild of @o answers on this filesystem, and why. */
static int rebuild_expected(const struct kt_object *o, const char **why)
{
	*why = kt_absent_reason(o, &pop);
	if (*why)
		return -ENOENT;
	switch (o->type) {
	case XFS_SCRUB_TYPE_SB:
		if (o->agno > 0)
			return 0;
		*why = "the primary superblock is never repaired online";
		return -EOPNOTSUPP;
	case XFS_SCRUB_TYPE_DIR:
	case XFS_SCRUB_TYPE_XATTR:
	case XFS_SCRUB_TYPE_SYMLINK:
		if (vt_modern())
			return 0;	/* rebuilt in a temporary file, exchanged in */
		*why = "rebuilds through a temporary file: needs the exchange-range feature, "
		       "which mkfs.xfs 6.1 cannot set";
		return -EOPNOTSUPP;
	case XFS_SCRUB_TYPE_HEALTHY:
		*why = "a summary of the other checks: nothing to rebuild";
		return -EOPNOTSUPP;
	default:
		return 0;
	}
}

/* The rebuilds the task names; the errortag forces every other one. */
static bool core_rebuild(const struct kt_object *o)
{
	switch (o->type) {
	case XFS_SCRUB_TYPE_BNOBT:
	case XFS_SCRUB_TYPE_CNTBT:
	case XFS_SCRUB_TYPE_INOBT:
	case XFS_SCRUB_TYPE_FINOBT:
	case XFS_SCRUB_TYPE_RMAPBT:
	case XFS_SCRUB_TYPE_REFCNTBT:
	case XFS_SCRUB_TYPE_INODE:
	case XFS_SCRUB_TYPE_BMBTD:
	case XFS_SCRUB_TYPE_BMBTA:
	case XFS_SCRUB_TYPE_BMBTC:
		return true;
	default:
		return false;
	}
}

static bool use_errortag(const struct kt_object *o)
{
	return core_rebuild(o) && (o->sample >= 0 ? o->sample % 2 == 0 : o->agno % 2 == 0);
}

/* Substring that the xchk_class tracepoints print for @o. */
static const char *trace_key(const struct kt_object *o)
{
	static char key[128];

	snprintf(key, sizeof(key), "type %s agno 0x%x inum 0x%llx ",
		 map_scrub_type(o->type)->name, o->agno, (unsigned long long)o->ino);
	return key;
}

/*
 * The flags a clean result may carry besides none.  On the modern profile the
 * 6.12 xattr rebuild writes leaf blocks whose free map keeps zero-length
 * entries with a nonzero base, which scrub marks for preening although
 * nothing is inconsistent (xfs_repair -n stays clean, checked below).
 */
static uint32_t preen_ok(const struct kt_object *o)
{
	return vt_modern() && o->type == XFS_SCRUB_TYPE_XATTR ? XFS_SCRUB_OFLAG_PREEN : 0;
}

static void rebuild_everything(int fd)
{
	char got[128];

	for (size_t i = 0; i < nobj; i++) {
		const struct kt_object *o = &obj[i];
		const char *why;
		int want = rebuild_expected(o, &why);
		bool tag = use_errortag(o);
		uint32_t oflags;

		if (tag)
			kt_errortag(fs_name, "force_repair", 1);
		int rc = kt_scrub(fd, o, XFS_SCRUB_IFLAG_REPAIR |
				  (tag ? 0 : XFS_SCRUB_IFLAG_FORCE_REBUILD), &oflags);
		if (tag)
			kt_errortag(fs_name, "force_repair", 0);

		printf("rebuild %-45s %-8s %-12s %s\n", kt_object_name(o, &pop),
		       tag ? "errortag" : "flag", kt_errno_name(rc),
		       o->type == XFS_SCRUB_TYPE_PROBE ? "(nothing to repair)" :
		       rc == 0 ? "repaired" : why ? why : "");
		CHECK(rc == want, "rebuild %s: %s, expected %s", kt_object_name(o, &pop),
		      kt_errno_name(rc), kt_errno_name(want));
		if (core_rebuild(o) && !kt_absent_reason(o, &pop))
			CHECK(rc == 0, "%s was not rebuilt", kt_object_name(o, &pop));
		if (rc != 0)
			continue;
		CHECK((oflags & ~preen_ok(o)) == 0, "rebuild %s left flags %s", kt_object_name(o, &pop),
		      map_scrub_oflags_str(oflags, got, sizeof(got)));

		/* And it checks out right after. */
		rc = kt_scrub(fd, o, 0, &oflags);
		CHECK(rc == 0 && (oflags & ~preen_ok(o)) == 0, "scrub after rebuilding %s: %s [%s]",
		      kt_object_name(o, &pop), kt_errno_name(rc),
		      map_scrub_oflags_str(oflags, got, sizeof(got)));
	}
}

static void check_trace(const char *trace)
{
	for (size_t i = 0; i < nobj; i++) {
		const struct kt_object *o = &obj[i];
		const char *why;
		int want = rebuild_expected(o, &why);

		if (want == -ENOENT || o->type == XFS_SCRUB_TYPE_PROBE)
			continue;
		CHECK(kt_trace_count(trace, "xrep_attempt:", trace_key(o), NULL) >= 1,
		      "no xrep_attempt for %s", kt_object_name(o, &pop));
		CHECK(kt_trace_count(trace, "xrep_done:", trace_key(o),
				     want == 0 ? "error 0" : "error -95", NULL) >= 1,
		      "no xrep_done with the expected error for %s", kt_object_name(o, &pop));
	}
	/* The rebuilds gathered their records. */
	static const char *const found[] = { "xrep_abt_found:", "xrep_ibt_found:",
					     "xrep_rmap_found:", "xrep_refc_found:",
					     "xrep_bmap_found:" };
	for (size_t i = 0; i < sizeof(found) / sizeof(found[0]); i++) {
		int n = kt_trace_count(trace, found[i], NULL);

		printf("%s %d events\n", found[i], n);
		CHECK(n > 0, "tracepoint %s did not fire", found[i]);
	}
}

/* Highest btree level over the AGs, from xfs_db on the unmounted device. */
static int max_level(const char *dev, uint32_t agcount, const char *hdr, const char *field)
{
	int max = 0;

	for (uint32_t ag = 0; ag < agcount; ag++) {
		const char *out = tl_out("xfs_db -r -c '%s %u' -c 'print %s' %s | sed 's/.* = //'",
					 hdr, ag, field, dev);
		int level = atoi(out);

		if (level > max)
			max = level;
	}
	printf("highest %s %s: %d\n", hdr, field, max);
	return max;
}

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : "/dev/vda";
	static const char *const events[] = {
		"xfs_scrub:xrep_attempt",  "xfs_scrub:xrep_done",	 "xfs_scrub:xrep_abt_found",
		"xfs_scrub:xrep_ibt_found", "xfs_scrub:xrep_rmap_found", "xfs_scrub:xrep_refc_found",
		"xfs_scrub:xrep_bmap_found",
	};
	struct xfs_fsop_geom geo;
	char flags[128];

	vt_require_vm();
	tl_allow_small_fs(dev);
	tl_mkfs(dev, "%s -d agcount=4,size=256m", vt_features());
	tl_mount(dev, MNT, MNT_OPTS);
	kt_populate(MNT, FILES_PER_AG, &pop);
	char *before = tl_checksums(MNT);
	int fd = tl_open(MNT, O_RDONLY | O_DIRECTORY);
	kt_geometry(fd, &geo);
	close(fd);

	/* The rebuilds must bulk-load trees with interior nodes. */
	tl_umount(MNT);
	CHECK(max_level(dev, geo.agcount, "agf", "bnolevel") >= 2, "bnobt has one level");
	CHECK(max_level(dev, geo.agcount, "agf", "cntlevel") >= 2, "cntbt has one level");
	CHECK(max_level(dev, geo.agcount, "agf", "rmaplevel") >= 2, "rmapbt has one level");
	CHECK(max_level(dev, geo.agcount, "agf", "refcntlevel") >= 2, "refcountbt has one level");
	tl_mount(dev, MNT, MNT_OPTS);

	fs_name = kt_fs_name(dev);
	fd = tl_open(MNT, O_RDONLY | O_DIRECTORY);
	nobj = kt_scrub_objects(geo.agcount, &pop, obj, MAX_OBJECTS);
	REQUIRE(nobj <= MAX_OBJECTS, "too many scrub objects");

	/* A FAN_FS_ERROR listener hears nothing: rebuilding healthy metadata
	 * is no error (repair's own marks are not reported, kernel/patches 1/4). */
	int fan = kt_fserror_listen(MNT);
	kt_trace_start(events, sizeof(events) / sizeof(events[0]));
	rebuild_everything(fd);
	char *trace = kt_trace_stop();
	struct kt_fserror ev[8];
	int nev = kt_fserror_read(fan, 1500, ev, 8);
	for (int i = 0; i < nev; i++)
		kt_fserror_print("during the rebuilds", &ev[i]);
	CHECK(nev == 0, "%d error events during the forced rebuilds", nev);
	close(fan);
	check_trace(trace);
	free(trace);

	/* Everything is consistent afterwards. */
	for (size_t i = 0; i < nobj; i++) {
		uint32_t oflags;
		int rc = kt_scrub(fd, &obj[i], 0, &oflags);
		int want = kt_absent_reason(&obj[i], &pop) ? -ENOENT : 0;

		/* The root directory's forced rebuild on the modern profile
		 * leaves it an (empty) attribute fork, which then checks out. */
		if (vt_modern() && obj[i].sample == KT_ROOT && obj[i].type == XFS_SCRUB_TYPE_BMBTA &&
		    rc == 0)
			want = 0;
		CHECK(rc == want && (oflags & ~preen_ok(&obj[i])) == 0, "final scrub %s: %s [%s]",
		      kt_object_name(&obj[i], &pop), kt_errno_name(rc),
		      map_scrub_oflags_str(oflags, flags, sizeof(flags)));
	}
	close(fd);

	/* Same data through cold caches, and a clean offline check. */
	tl_umount(MNT);
	CHECK_INT(tl_sh("xfs_repair -n %s >/dev/null 2>&1", dev), 0);
	tl_mount(dev, MNT, MNT_OPTS);
	char *after = tl_checksums(MNT);
	CHECK(strcmp(before, after) == 0, "file contents changed");
	tl_umount(MNT);
	free(before);
	free(after);

	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
