// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The pipeline's filesystem cache (mapperd/fscache.h): an entry older than
 * a minute still serves the next report, and is learnt again (a full open:
 * mount table, libblkid, libudev) after it, so that report does not pay for
 * the full open.  What an old entry may have wrong is only descriptive,
 * such as the label, and the report after the relearn has it right.
 *  1. watching starts (the warm-up learns the entry); a report of file a;
 *  2. the label is changed online (xfs_io label -s), then 61 s pass;
 *  3. a report of file b: recorded with the old label (the old entry served
 *     it, no full open before it), and then one full open (the relearn);
 *  4. a report of file c: recorded with the new label, no full open.
 * Only fanotify reports here (kmsg = no), so each read is one report.
 *
 * Usage (in the guest): vm_mapperd_cache_age MAPPERD MAPCTL DEVICE
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "fixture.h"
#include "mdtest.h"
#include "vmtest.h"

static const char *uuid;

static bool match_ino(const struct map_finding *f, void *arg)
{
	return f->ino == *(const uint64_t *)arg && !strcmp(f->kind, "file");
}

/* A failed read of @name, and its finding stored (seconds, -1: none). */
static double hurt(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), FX_MNT "/%s", name);
	uint64_t ino = fx_ino(name), phys = fx_file_physical(name, 64 * 1024);
	tl_must("dmsetup message dust 0 addbadblock %llu", (unsigned long long)(phys / 4096));
	tl_must("dmsetup message dust 0 enable");
	tl_evict(path);
	double t0 = tl_mono();
	CHECK_INT(tl_read_file(path), EIO);
	double took = mdt_wait_finding(match_ino, &ino, t0, 20, NULL);
	CHECK(took >= 0, "no finding for %s within 20 s", name);
	return took;
}

/* The label the store has for the filesystem now. */
static const char *stored_label(void)
{
	static struct map_store_fs sf;
	struct map_store *st;

	memset(&sf, 0, sizeof(sf));
	if (map_store_open(MDT_DB, MAP_STORE_READONLY, &st) != 0)
		return "(no store)";
	if (map_store_fs_by_uuid(st, uuid, &sf) != 0)
		snprintf(sf.label, sizeof(sf.label), "(no row)");
	map_store_close(st);
	return sf.label;
}

static long long full_opens(void)
{
	return mdt_status_number("\"fs_full_opens\":");
}

static long long reopens(void)
{
	return mdt_status_number("\"fs_reopens\":");
}

int main(int argc, char **argv)
{
	int arg;

	vt_require_vm();
	arg = mdt_args(argc, argv);
	REQUIRE(arg < argc, "which device?");
	fx_setup(argv[arg], vt_features());
	tl_must("xfs_io -c 'label -s before' " FX_MNT);
	for (const char *n = "abc"; *n; n++)
		tl_must("xfs_io -f -c 'pwrite -q -S 0x5a 0 256k' -c fsync " FX_MNT "/%c.bin", *n);
	uuid = tl_out("blkid -s UUID -o value " FX_DUST);
	REQUIRE(uuid[0], "no UUID for " FX_DUST);

	mdt_write_config("directory_index = no\nkmsg = no\n");
	pid_t pid = mdt_start(NULL);
	REQUIRE(mdt_wait_watched(FX_MNT, true, 10) >= 0, "mapperd does not watch %s", FX_MNT);

	/* 1. */
	double end = tl_mono() + 20;
	while (full_opens() < 1 && tl_mono() < end)
		tl_sleep(0.2);
	CHECK(full_opens() >= 1, "the warm-up learnt nothing");
	CHECK(hurt("a.bin") >= 0, "a.bin");
	CHECK_STR(stored_label(), "before");
	long long f0 = full_opens(), r0 = reopens();
	printf("after a.bin: %lld full opens, %lld reopens\n", f0, r0);

	/* 2. */
	tl_must("xfs_io -c 'label -s after' " FX_MNT);
	tl_must("blkid -p -s LABEL -o value " FX_DUST " | grep -qx after");
	tl_sleep(61);

	/* 3. */
	CHECK(hurt("b.bin") >= 0, "b.bin");
	CHECK_STR(stored_label(), "before");
	end = tl_mono() + 10;
	while (full_opens() < f0 + 1 && tl_mono() < end)
		tl_sleep(0.1);
	long long f1 = full_opens(), r1 = reopens();
	printf("after b.bin: %lld full opens, %lld reopens\n", f1, r1);
	CHECK(f1 == f0 + 1, "full opens %lld -> %lld, expected one (the relearn)", f0, f1);
	CHECK(r1 == r0 + 1, "reopens %lld -> %lld, expected one (the old entry served b.bin)",
	      r0, r1);

	/* 4. */
	CHECK(hurt("c.bin") >= 0, "c.bin");
	CHECK_STR(stored_label(), "after");
	long long f2 = full_opens(), r2 = reopens();
	printf("after c.bin: %lld full opens, %lld reopens\n", f2, r2);
	CHECK(f2 == f1, "full opens %lld -> %lld for a fresh entry", f1, f2);
	CHECK(r2 == r1 + 1, "reopens %lld -> %lld, expected one", r1, r2);

	int status = mdt_stop(pid);
	CHECK_INT(status, 0);
	if (check_failures)
		mdt_show_log();
	fx_teardown();
	return check_done();
}
