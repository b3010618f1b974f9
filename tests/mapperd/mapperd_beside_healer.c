// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapperd beside xfs_healer 7.x on stock Linux 7.x (issue 38, item 3), on a
 * dm-dust filesystem made by mkfs 7.x (its autofsck property is "repair",
 * the xattr trusted.xfs:autofsck of the root directory):
 *  1. xfs_healer first, then mapperd with health_monitor = yes: the kernel
 *     allows one health monitor per mount, so mapperd's status says the
 *     monitor is off because another is attached and that fanotify is on.
 *     A 4 KiB read of a bad block at 6 MiB of a 10 MiB file fails; mapperd
 *     stores a finding for exactly that block (inode, offset 6 MiB, FIEMAP's
 *     device byte, 4096 bytes, the path) and xfs_healer prints its own line
 *     for it (the path, "pos 6291456 len 4096").
 *  2. mapperd first, then xfs_healer: mapperd holds the monitor, xfs_healer
 *     gives up (exits non-zero; it neither waits nor falls back), mapperd's
 *     status still says the monitor is on.
 *  3. xfs_healer repairing on its own (autofsck=repair) while mapctl scans
 *     and repairs the same filesystem: the inode btree roots of AG 1 and 2
 *     are damaged (64 bytes overwritten: a checksum error); the scan's scrub
 *     marks them corrupt, which xfs_healer sees and repairs while mapctl
 *     repair --all runs too (who gets to a root first varies from run to
 *     run: the scan may find one, both or none still damaged).
 *     xfs_healer repairs at least one itself, each of mapctl's findings
 *     ends healed or not-needed, a second scan exits 0, xfs_scrub -n exits
 *     0, xfs_repair -n finds
 *     nothing after unmount, and the kernel log has no WARNING, BUG or
 *     lockdep report.
 * Every xfs_healer line and mapctl's repair outcome is printed.
 *
 * BESIDE_HEALER_CONFIG (environment): more mapperd.conf lines for step 1
 * ("fanotify = no" takes away the fallback: step 1 must then fail).
 *
 * Usage (in the guest): vm_mapperd_beside_healer MAPPERD MAPCTL DEVICE
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "mdtest.h"
#include "vmtest.h"

#define MiB (1024ULL * 1024)
#define FILE_MB 10
#define BAD_AT (6 * MiB)
#define HEALER_OUT "/run/mdtest/healer.out"
#define CTL_DB "/run/mdtest/mapctl.db"

struct want {
	uint64_t ino, offset, physical;
};

static bool match(const struct map_finding *f, void *arg)
{
	const struct want *w = arg;

	return !strcmp(f->kind, "file") && f->ino == w->ino && f->has_offset &&
	       f->offset == w->offset && f->has_range && f->physical == w->physical;
}

/* xfs_healer --foreground on the test mount, its output in HEALER_OUT. */
static pid_t healer_start(void)
{
	mkdir(MDT_DIR, 0755);
	pid_t pid = fork();

	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		int fd = open(HEALER_OUT, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (fd < 0)
			_exit(127);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		execlp("xfs_healer", "xfs_healer", "--foreground", FX_MNT, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* Wait up to @timeout s for a line of HEALER_OUT holding @needle. */
static bool healer_said(const char *needle, double timeout)
{
	double end = tl_mono() + timeout;

	do {
		FILE *f = fopen(HEALER_OUT, "r");
		char line[1024];
		bool found = false;

		if (f) {
			while (!found && fgets(line, sizeof(line), f))
				found = strstr(line, needle) != NULL;
			fclose(f);
		}
		if (found)
			return true;
		tl_sleep(0.1);
	} while (tl_mono() < end);
	return false;
}

static void healer_stop(pid_t pid)
{
	kill(pid, SIGTERM);
	tl_wait_or_kill(pid, 10);
	printf("--- xfs_healer said:\n");
	fflush(stdout);
	tl_sh("cat " HEALER_OUT);
}

static int ctl(const char *args)
{
	return tl_sh("%s --db " CTL_DB " %s", mdt_mapctl, args);
}

/* Overwrite 64 bytes of the 4 KiB btree block at device byte @byte, from
 * its first record on, with 0xa5 (unmounted): its checksum no longer
 * matches. */
static void smudge(uint64_t byte)
{
	tl_must("head -c 64 /dev/zero | tr '\\0' '\\245' | dd of=%s bs=1 seek=%llu "
		"conv=notrunc status=none", FX_DUST, (unsigned long long)(byte + 56));
}

static void step1_healer_first(const struct want *w)
{
	struct map_finding f;
	char line[160];
	const char *extra = getenv("BESIDE_HEALER_CONFIG");
	char conf[512];

	pid_t hp = healer_start();
	REQUIRE(healer_said("monitoring started", 30), "xfs_healer did not start monitoring");
	snprintf(conf, sizeof(conf), "health_monitor = yes\nevent_scans = no\n%s",
		 extra ? extra : "");
	mdt_write_config(conf);
	pid_t pid = mdt_start(NULL);
	mdt_no_fanotify = extra && strstr(extra, "fanotify = no");
	REQUIRE(mdt_wait_watched(FX_MNT, true, 10) >= 0, "mapperd does not watch %s", FX_MNT);
	MDT_CHECK_STATUS(FX_MNT, "health_monitor", "\"off: another monitor is attached\"");
	MDT_CHECK_STATUS(FX_MNT, "autofsck", "\"repair\"");
	MDT_CHECK_STATUS(FX_MNT, "fanotify", "true");
	tl_sh("%s daemon status --socket " MDT_SOCK " | head -n 2", mdt_mapctl);

	tl_must("dmsetup message dust 0 addbadblock %llu", (unsigned long long)(w->physical / 4096));
	tl_must("dmsetup message dust 0 enable");
	double t0 = tl_mono();
	int err = tl_read_block(FX_MNT "/big.bin", BAD_AT);
	CHECK(err == EIO, "reading big.bin at 6 MiB: %s, expected EIO",
	      err ? strerror(err) : "no error");
	double waited = mdt_wait_finding(match, (void *)w, t0, 30, &f);
	CHECK(waited >= 0, "mapperd stored no finding for big.bin's block at 6 MiB");
	if (waited >= 0) {
		printf("mapperd (fanotify beside xfs_healer): finding after %.3f s: %s offset %llu "
		       "length %llu\n", waited, f.npaths ? f.paths[0] : "-",
		       (unsigned long long)f.offset, (unsigned long long)f.length);
		CHECK_INT(f.length, 4096);
		CHECK(f.npaths == 1 && !strcmp(f.paths[0], "big.bin"), "paths: %zu, first %s",
		      f.npaths, f.npaths ? f.paths[0] : "-");
		map_finding_clear(&f);
	}
	snprintf(line, sizeof(line), FX_MNT "/big.bin pos %llu len 4096:",
		 (unsigned long long)BAD_AT);
	CHECK(healer_said(line, 30), "xfs_healer printed no '%s' line", line);
	CHECK_INT(mdt_stop(pid), 0);
	healer_stop(hp);
}

static void step2_mapperd_first(void)
{
	mdt_write_config("health_monitor = yes\nevent_scans = no\n");
	pid_t pid = mdt_start(NULL);
	REQUIRE(mdt_wait_watched(FX_MNT, true, 10) >= 0, "mapperd does not watch %s", FX_MNT);
	MDT_CHECK_STATUS(FX_MNT, "health_monitor", "\"on\"");
	pid_t hp = healer_start();
	int rc = tl_wait_or_kill(hp, 30);

	printf("xfs_healer started after mapperd: exit %d\n", rc);
	CHECK(rc > 0, "xfs_healer %s beside mapperd's monitor",
	      rc < 0 ? "is still running" : "exited 0");
	tl_sh("cat " HEALER_OUT);
	MDT_CHECK_STATUS(FX_MNT, "health_monitor", "\"on\"");
	CHECK_INT(mdt_stop(pid), 0);
}

static void step3_both_repair(void)
{
	uint64_t root1 = fx_inobt_root_byte(1), root2 = fx_inobt_root_byte(2);

	tl_must("dmsetup message dust 0 disable");	/* the data block reads again */
	fx_umount();
	smudge(root1);
	smudge(root2);
	fx_mount();
	pid_t hp = healer_start();
	REQUIRE(healer_said("monitoring started", 30), "xfs_healer did not start monitoring");
	/* The scan's scrub marks both roots corrupt: xfs_healer hears of it and
	 * repairs while the scan goes on and while mapctl repair runs. */
	int src = ctl("scan " FX_MNT " --metadata >/tmp/scan1.out 2>&1");

	/* A race, either way right: 1 when the scan saw damage before
	 * xfs_healer had repaired it, 0 when xfs_healer was first for both. */
	printf("first scan beside xfs_healer: exit %d\n", src);
	CHECK(src == 0 || src == 1, "mapctl scan exited %d", src);
	tl_sh("tail -n 3 /tmp/scan1.out");
	ctl("files " FX_MNT);
	int rrc = ctl("repair " FX_MNT " --all --yes");
	printf("mapctl repair beside xfs_healer: exit %d\n", rrc);
	CHECK(rrc == 0, "mapctl repair --all exited %d beside xfs_healer", rrc);
	CHECK_STR(tl_out("sqlite3 " CTL_DB " \"SELECT count(*) FROM actions WHERE action = "
			 "'repair-result' AND outcome NOT IN ('healed', 'not-needed')\""),
		  "0");
	ctl("history " FX_MNT " | tail -n 8");
	/* xfs_healer took part: it repaired at least one of the two itself */
	CHECK(healer_said("inobt: Repairs successful", 30), "xfs_healer repaired nothing");
	tl_sleep(2);	/* xfs_healer's last repair, if any, ends */
	CHECK_INT(ctl("scan " FX_MNT " --metadata >/tmp/scan2.out 2>&1"), 0);
	tl_sh("tail -n 3 /tmp/scan2.out");
	CHECK_INT(tl_sh("xfs_scrub -n " FX_MNT " >/tmp/xfs_scrub.out 2>&1; rc=$?; "
			"tail -n 5 /tmp/xfs_scrub.out; exit $rc"), 0);
	healer_stop(hp);
	fx_umount();
	CHECK_INT(fx_repair_check(), 0);
}

int main(int argc, char **argv)
{
	int arg;

	vt_require_vm();
	arg = mdt_args(argc, argv);
	REQUIRE(arg < argc, "which device?");
	fx_setup(argv[arg], vt_features());
	/* mkfs 7.x's property, an xattr of the root directory (mapperd(8)) */
	CHECK_STR(tl_out("xfs_property %s get autofsck 2>&1", FX_MNT), "autofsck=repair");
	CHECK_STR(tl_out("getfattr --only-values -n trusted.xfs:autofsck %s", FX_MNT), "repair");
	tl_must("dd if=/dev/urandom of=%s/big.bin bs=1M count=%d status=none && sync", FX_MNT,
		FILE_MB);
	for (int i = 0; i < 4; i++)	/* inodes, so that every AG's inobt has records */
		tl_must("mkdir -p %s/d%d && touch %s/d%d/a %s/d%d/b", FX_MNT, i, FX_MNT, i, FX_MNT,
			i);
	tl_must("sync");
	struct want w = { fx_ino("big.bin"), BAD_AT, fx_file_physical("big.bin", BAD_AT) };

	printf("== 1: xfs_healer first, then mapperd\n");
	step1_healer_first(&w);
	printf("== 2: mapperd first, then xfs_healer\n");
	step2_mapperd_first();
	printf("== 3: xfs_healer and mapctl repair at once\n");
	step3_both_repair();
	mdt_show_log();
	fx_teardown();
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
