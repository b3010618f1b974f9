// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Online repair of real on-disk damage.  For each of the free space, inode,
 * reverse mapping and reference count btrees in turn: while the filesystem is
 * unmounted, xfs_db -x writes an impossible record (length 0, or more free
 * inodes than a chunk holds) into a leaf block of that btree in one AG, with a
 * valid checksum, and xfs_repair -n sees the damage.  Then, mounted:
 *
 * - scrub of that btree reports CORRUPT;
 * - REPAIR succeeds and answers with no output flag;
 * - the btree and every other AG structure then scrub clean;
 * - the summary counters check out (an inode btree rebuild marks them sick,
 *   and they must be checked before unmount writes a clean log);
 * - xfs_repair -n on the unmounted filesystem finds nothing;
 * - every file still reads back the same.
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

struct damage {
	uint32_t type;		/* XFS_SCRUB_TYPE_* */
	uint32_t agno;
	const char *header;	/* xfs_db command for the AG header */
	const char *root;	/* header field: root block */
	const char *levels;	/* header field: number of levels */
	const char *write;	/* xfs_db write in a leaf */
};

static const struct damage damages[] = {
	{ XFS_SCRUB_TYPE_BNOBT, 1, "agf", "bnoroot", "bnolevel", "recs[2].blockcount 0" },
	{ XFS_SCRUB_TYPE_INOBT, 2, "agi", "root", "level", "recs[1].freecount 65" },
	{ XFS_SCRUB_TYPE_RMAPBT, 3, "agf", "rmaproot", "rmaplevel", "recs[3].blockcount 0" },
	{ XFS_SCRUB_TYPE_REFCNTBT, 1, "agf", "refcntroot", "refcntlevel",
	  "recs[2].blockcount 0" },
};

static const char *type_name(uint32_t type)
{
	return map_scrub_type(type)->name;
}

/* Write the damage into the leftmost leaf of the btree, unmounted. */
static void damage_btree(const char *dev, const struct damage *d)
{
	const char *out = tl_out("xfs_db -r -c '%s %u' -c 'print %s' %s | sed 's/.* = //'",
				 d->header, d->agno, d->levels, dev);
	int levels = atoi(out);
	char path[256] = "";

	REQUIRE(levels >= 1, "cannot read the %s levels of AG %u", type_name(d->type), d->agno);
	for (int i = 1; i < levels; i++)
		strcat(path, " -c 'addr ptrs[1]'");
	tl_must("xfs_db -x -c '%s %u' -c 'addr %s'%s -c 'write %s' %s", d->header, d->agno,
		d->root, path, d->write, dev);
	CHECK(tl_sh("xfs_repair -n %s >/dev/null 2>&1", dev) != 0,
	      "xfs_repair -n does not see the damage to the %s of AG %u", type_name(d->type),
	      d->agno);
}

/* Every AG-scoped structure of @agno scrubs without damage. */
static void scrub_ag(int fd, uint32_t agno, const char *when)
{
	static const uint32_t types[] = {
		XFS_SCRUB_TYPE_SB,    XFS_SCRUB_TYPE_AGF,   XFS_SCRUB_TYPE_AGFL,
		XFS_SCRUB_TYPE_AGI,   XFS_SCRUB_TYPE_BNOBT, XFS_SCRUB_TYPE_CNTBT,
		XFS_SCRUB_TYPE_INOBT, XFS_SCRUB_TYPE_FINOBT, XFS_SCRUB_TYPE_RMAPBT,
		XFS_SCRUB_TYPE_REFCNTBT,
	};
	char flags[128];

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		uint32_t oflags;
		int rc = map_scrub_call(fd, types[i], agno, 0, 0, 0, &oflags);

		/* Secondary superblocks from mkfs.xfs 6.1 only want a preen. */
		CHECK(rc == 0 && !(oflags & ~XFS_SCRUB_OFLAG_PREEN),
		      "%s: %s of AG %u: %s [%s]", when, type_name(types[i]), agno,
		      kt_errno_name(rc), map_scrub_oflags_str(oflags, flags, sizeof(flags)));
	}
}

static void repair_round(const char *dev, const struct damage *d)
{
	char flags[128];
	uint32_t oflags;

	printf("--- %s of AG %u: %s\n", type_name(d->type), d->agno, d->write);
	tl_umount(MNT);
	damage_btree(dev, d);
	tl_mount(dev, MNT, NULL);
	int fd = tl_open(MNT, O_RDONLY | O_DIRECTORY);

	int rc = map_scrub_call(fd, d->type, d->agno, 0, 0, 0, &oflags);
	printf("scrub: %s [%s]\n", kt_errno_name(rc),
	       map_scrub_oflags_str(oflags, flags, sizeof(flags)));
	CHECK(rc == 0 && (oflags & XFS_SCRUB_OFLAG_CORRUPT),
	      "scrub of the damaged %s: %s [%s], expected corrupt", type_name(d->type),
	      kt_errno_name(rc), flags);

	rc = map_scrub_call(fd, d->type, d->agno, 0, 0, XFS_SCRUB_IFLAG_REPAIR, &oflags);
	printf("repair: %s [%s]\n", kt_errno_name(rc),
	       map_scrub_oflags_str(oflags, flags, sizeof(flags)));
	CHECK(rc == 0 && oflags == 0, "repair of the damaged %s: %s [%s]", type_name(d->type),
	      kt_errno_name(rc), flags);

	rc = map_scrub_call(fd, d->type, d->agno, 0, 0, 0, &oflags);
	CHECK(rc == 0 && oflags == 0, "scrub after repair of %s: %s [%s]", type_name(d->type),
	      kt_errno_name(rc), map_scrub_oflags_str(oflags, flags, sizeof(flags)));
	scrub_ag(fd, d->agno, "after repair");

	/*
	 * Rebuilding inode btrees (and AG headers) marks the summary counters
	 * sick so that they are recomputed, and until they are, unmount leaves
	 * the log dirty on purpose.  Checking them clears that.
	 */
	rc = map_scrub_call(fd, XFS_SCRUB_TYPE_FSCOUNTERS, 0, 0, 0, XFS_SCRUB_IFLAG_REPAIR,
			    &oflags);
	CHECK(rc == 0 && !(oflags & ~XFS_SCRUB_OFLAG_NO_REPAIR_NEEDED),
	      "summary counters after repair of %s: %s [%s]", type_name(d->type),
	      kt_errno_name(rc), map_scrub_oflags_str(oflags, flags, sizeof(flags)));
	close(fd);

	tl_umount(MNT);
	rc = tl_sh("xfs_repair -n %s >/tmp/xfs_repair.out 2>&1", dev);
	if (rc != 0)
		tl_sh("grep -v '^ *- \\|^Phase' /tmp/xfs_repair.out");
	CHECK(rc == 0, "xfs_repair -n finds damage after the online repair of %s",
	      type_name(d->type));
	tl_mount(dev, MNT, NULL);
}

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : "/dev/vda";
	struct kt_population pop;

	vt_require_vm();
	tl_allow_small_fs(dev);
	tl_mkfs(dev, "%s -d agcount=4,size=256m", vt_features());
	tl_mount(dev, MNT, NULL);
	kt_populate(MNT, 400, &pop);
	char *before = tl_checksums(MNT);

	for (size_t i = 0; i < sizeof(damages) / sizeof(damages[0]); i++)
		repair_round(dev, &damages[i]);

	char *after = tl_checksums(MNT);
	CHECK(strcmp(before, after) == 0, "file contents changed");
	tl_umount(MNT);
	free(before);
	free(after);

	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
