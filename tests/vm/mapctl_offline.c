// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The guided offline path (issue 16), on the classic profile, where the
 * kernel cannot rebuild a directory online (no exchange-range):
 * a directory of 300 files loses a block (dm-dust, the block chosen from
 * GETBMAPX), a plain file loses one too.  scan names both; repair leaves the
 * directory open (unsupported); repair --offline-plan lists the steps and the
 * ranges; refused while mounted or unconfirmed; on the unmounted device
 * repair --offline overwrites exactly the sectors that still fail, runs
 * xfs_repair and mounts back; refetch from the mirror and a scan leave
 * nothing open; xfs_repair -n is clean; every file equals the mirror
 * (content, size, mode), every name of the directory is back, and
 * lost+found keeps no copy of a restored file.
 *
 * Usage (in the guest): vm_mapctl_offline MAPCTL DEVICE
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "vmtest.h"

#define DB "/tmp/offline.db"
/* On the guest's /mnt tmpfs: one filesystem (the overlay at /tmp gives a
 * copy's files and folders different devices). */
#define MIRROR "/mnt/mirror"
#define DIR_FILES 300
#define FS_BLOCK 4096

static const char *mapctl;

static int ctl(const char *args)
{
	return tl_sh("%s --db " DB " %s", mapctl, args);
}

static char *out_dup(const char *s)
{
	char *d = strdup(s);

	REQUIRE(d, "strdup");
	return d;
}

static void write_rel(const char *rel, const char *text, size_t len, mode_t mode)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", FX_MNT, rel);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	REQUIRE(fd >= 0, "open %s: %s", path, strerror(errno));
	REQUIRE(write(fd, text, len) == (ssize_t)len, "write %s: %s", path, strerror(errno));
	REQUIRE(fchmod(fd, mode) == 0, "chmod %s", path);
	close(fd);
}

/* A small tree: dir300 (300 files, each with its own content and one of
 * three modes), plain/data.bin (256 KiB), and a few other files. */
static void build_tree(void)
{
	static char big[256 * 1024];
	char rel[256], text[256];

	tl_must("mkdir -p " FX_MNT "/dir300 " FX_MNT "/plain " FX_MNT "/docs/deep");
	for (int i = 0; i < DIR_FILES; i++) {
		static const mode_t modes[] = { 0644, 0600, 0755 };

		snprintf(rel, sizeof(rel), "dir300/entry-%03d-a-name-long-enough-to-fill-blocks", i);
		int n = snprintf(text, sizeof(text), "file %d of the directory, %.*s\n", i,
				 i % 100, "0123456789012345678901234567890123456789012345678901234567890"
				 "123456789012345678901234567890123456789");
		write_rel(rel, text, (size_t)n, modes[i % 3]);
	}
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)(i * 7 + i / 4096);
	write_rel("plain/data.bin", big, sizeof(big), 0640);
	write_rel("plain/other.txt", "another file, not damaged\n", 26, 0644);
	write_rel("docs/deep/notes.txt", "notes\n", 6, 0600);
	sync();
}

/* Device blocks (4 KiB) to make unreadable: the first data block of dir300
 * and a block in the middle of plain/data.bin (GETBMAPX and FIEMAP). */
static void choose_victims(uint64_t victims[2])
{
	victims[0] = fx_dir_first_block("dir300");
	victims[1] = fx_file_physical("plain/data.bin", 128 * 1024);
	REQUIRE(victims[0] % FS_BLOCK == 0 && victims[1] % FS_BLOCK == 0,
		"victims are block aligned: %llu %llu", (unsigned long long)victims[0],
		(unsigned long long)victims[1]);
}

/* Units of @unit bytes in the victim blocks that fail an O_DIRECT read. */
static int unreadable_units(const uint64_t victims[2], unsigned int unit)
{
	void *buf;
	int bad = 0;
	int fd = open(FX_DUST, O_RDONLY | O_DIRECT | O_CLOEXEC);

	REQUIRE(fd >= 0, "open %s: %s", FX_DUST, strerror(errno));
	REQUIRE(posix_memalign(&buf, 65536, 65536) == 0, "memalign");
	for (int v = 0; v < 2; v++)
		for (uint64_t off = 0; off < FS_BLOCK; off += unit)
			if (pread(fd, buf, unit, (off_t)(victims[v] + off)) != (ssize_t)unit)
				bad++;
	free(buf);
	close(fd);
	return bad;
}

static unsigned int device_int(unsigned long req)
{
	unsigned int v = 0;
	int fd = open(FX_DUST, O_RDONLY | O_CLOEXEC);

	REQUIRE(fd >= 0 && ioctl(fd, req, &v) == 0, "ioctl on %s: %s", FX_DUST, strerror(errno));
	close(fd);
	return v;
}

/* "path mode size sha256" of every file under @root but lost+found, sorted. */
static char *tree_listing(const char *root)
{
	return out_dup(tl_out("cd %s && find . -path ./lost+found -prune -o -type f -printf "
			      "'%%p %%m %%s ' -exec sh -c 'sha256sum < \"$1\" | cut -c1-64' _ {} \\; "
			      "| sort", root));
}

int main(int argc, char **argv)
{
	mapctl = argc > 1 ? argv[1] : "mapctl";
	const char *dev = argc > 2 ? argv[2] : "/dev/vda";
	uint64_t victims[2];

	vt_require_vm();
	REQUIRE(!vt_modern(), "the offline path is tested on the classic profile");
	fx_setup(dev, vt_features());
	build_tree();
	tl_must("rm -rf " MIRROR " && cp -a " FX_MNT " " MIRROR " && rm -rf " MIRROR "/lost+found");
	CHECK_INT(ctl("scan " FX_MNT), 0);

	choose_victims(victims);
	uint64_t blocks[2] = { victims[0] / FS_BLOCK, victims[1] / FS_BLOCK };
	fx_umount();
	fx_add_bad_blocks(blocks, 2);
	fx_mount();

	/* ---- scan names both; online repair cannot rebuild the directory ---- */
	CHECK_INT(ctl("scan " FX_MNT), 1);
	char *files = out_dup(tl_out("%s --db " DB " files -0 " FX_MNT " | tr '\\0' '\\n' | sort",
				     mapctl));
	CHECK(strstr(files, FX_MNT "/dir300\n"), "files names the directory: %s", files);
	CHECK(strstr(files, FX_MNT "/plain/data.bin"), "files names the file: %s", files);
	free(files);
	CHECK_INT(ctl("repair " FX_MNT " --all --yes"), 1);
	CHECK_STR(tl_out("sqlite3 " DB " \"select count(*) from findings where kind = 'directory' "
			 "and state = 'open'\""), "1");

	/* ---- the plan, mounted: the steps and the two recorded ranges ---- */
	char *plan = out_dup(tl_out("%s --db " DB " repair " FX_MNT " --offline-plan", mapctl));
	printf("%s\n", plan);
	for (int v = 0; v < 2; v++) {
		char want[64];

		snprintf(want, sizeof(want), "bytes %llu+4096", (unsigned long long)victims[v]);
		CHECK(strstr(plan, want), "the plan lists the range %s", want);
	}
	CHECK(strstr(plan, "xfs_repair") && strstr(plan, "refetch") && strstr(plan, "umount"),
	      "the plan names xfs_repair, refetch and the unmount");
	CHECK(strstr(plan, FX_MNT "/dir300\n") && strstr(plan, FX_MNT "/plain/data.bin\n"),
	      "the plan names the paths of each range");
	CHECK(strstr(plan, "lost+found"), "the plan says where lost names go");
	free(plan);
	tl_sh("%s --db " DB " repair " FX_MNT " --offline-plan --json > /tmp/plan.json; "
	      "cat /tmp/plan.json", mapctl);
	CHECK_STR(tl_out("jq -c '[(.ranges | length), ([.ranges[].findings[].kind] | sort)]' "
			 "/tmp/plan.json"), "[2,[\"directory\",\"file\"]]");

	/* The unit mapctl works in: the device's logical or physical sector. */
	unsigned int unit = (unsigned int)atoi(tl_out("%s --db " DB " repair " FX_MNT
						      " --offline-plan --json | jq .sector_size",
						      mapctl));
	unsigned int lss = device_int(BLKSSZGET), pss = device_int(BLKPBSZGET);
	CHECK(unit == lss || unit == pss, "sector size %u is the device's (%u, %u)", unit, lss, pss);
	REQUIRE(unit >= 512 && unit <= FS_BLOCK, "sector size %u", unit);
	int bad = unreadable_units(victims, unit);
	CHECK_INT(bad, 2 * (FS_BLOCK / unit));
	CHECK_INT(atoi(tl_out("%s --db " DB " repair " FX_MNT " --offline-plan --json | "
			      "jq .unreadable_sectors", mapctl)), bad);

	/* ---- refused while mounted, and unconfirmed on a non-terminal ---- */
	CHECK_INT(ctl("repair " FX_MNT " --offline --yes < /dev/null"), 2);
	CHECK_INT(ctl("repair " FX_DUST " --offline --yes < /dev/null"), 2);
	fx_umount();
	CHECK_INT(ctl("repair " FX_DUST " --offline < /dev/null"), 2);
	/* The recorded mount point names the unmounted filesystem and its device. */
	char want[128];
	snprintf(want, sizeof(want), "[\"%s\",null,%d]", FX_DUST, bad);
	CHECK_STR(tl_out("%s --db " DB " repair " FX_MNT " --offline-plan --json | jq -c "
			 "'[.device, .mounted_at, .unreadable_sectors]'", mapctl), want);
	CHECK_INT(unreadable_units(victims, unit), bad);	/* nothing was written */
	CHECK(tl_sh("mountpoint -q " FX_MNT) != 0, "still unmounted");

	/* ---- the offline repair, by device ---- */
	/* Findings stay open until refetch and a scan settle them: exit 1. */
	CHECK_INT(tl_sh("%s --db " DB " repair " FX_DUST " --offline --yes --json </dev/null "
			">/tmp/offline.json 2>/tmp/offline.log", mapctl), 1);
	tl_sh("cat /tmp/offline.log /tmp/offline.json");
	snprintf(want, sizeof(want), "[%d,0,0,\"%s\"]", bad, FX_MNT);
	CHECK_STR(tl_out("jq -c '[.overwritten_sectors, .still_unreadable_sectors, "
			 ".xfs_repair.status, .mounted_at]' /tmp/offline.json"), want);
	CHECK_INT(unreadable_units(victims, unit), 0);
	CHECK_INT(tl_sh("dd if=" FX_DUST " of=/dev/null bs=1M iflag=direct status=none"), 0);
	CHECK_INT(tl_sh("mountpoint -q " FX_MNT), 0);
	/* Each overwritten range is recorded for its findings, and each step. */
	CHECK_STR(tl_out("sqlite3 " DB " \"select group_concat(kind, ',') from (select distinct "
			 "f.kind from actions a join findings f on f.id = a.finding_id where "
			 "a.action = 'overwrite' and a.outcome = 'overwritten' order by f.kind)\""),
		  "directory,file");
	const char *steps = tl_out("sqlite3 " DB " \"select group_concat(action || ':' || outcome, "
				   "',') from (select action, outcome from actions where finding_id "
				   "is null and action in ('overwrite', 'xfs_repair', 'xfs_repair -n', "
				   "'mount') order by id)\"");
	printf("steps recorded: %s\n", steps);
	const char *head = "overwrite:overwritten,xfs_repair:started,xfs_repair:done,xfs_repair -n:";
	const char *tail = "xfs_repair -n:clean,mount:done";
	size_t n = strlen(steps);
	CHECK(strncmp(steps, head, strlen(head)) == 0 && n >= strlen(tail) &&
	      strcmp(steps + n - strlen(tail), tail) == 0, "the steps are recorded in order: %s", steps);
	/* What only the mirror brings back is zeroed: no scan may close it. */
	CHECK_STR(tl_out("sqlite3 " DB " \"select group_concat(kind || ':' || state, ',') from "
			 "(select kind, state from findings where kind in ('directory', 'file') "
			 "order by kind)\""),
		  "directory:zeroed,file:zeroed");
	/* The damage was real: names of dir300 were lost to lost+found. */
	int left = atoi(tl_out("ls -A " FX_MNT "/dir300 | wc -l"));
	int orphans = atoi(tl_out("ls -A " FX_MNT "/lost+found 2>/dev/null | wc -l"));
	printf("after xfs_repair: %d names left in dir300, %d in lost+found\n", left, orphans);
	CHECK(left < DIR_FILES && orphans > 0, "xfs_repair moved names to lost+found");
	CHECK_INT(left + orphans, DIR_FILES);
	CHECK_INT(atoi(tl_out("jq .xfs_repair.moved_to_lost_found /tmp/offline.json")), orphans);

	/* ---- refetch puts everything back; the scan is clean ---- */
	CHECK_INT(ctl("refetch " FX_MNT " --from " MIRROR), 0);
	CHECK_INT(ctl("scan " FX_MNT), 0);
	CHECK_INT(ctl("status " FX_MNT), 0);

	char *now = tree_listing(FX_MNT), *mirror = tree_listing(MIRROR);
	CHECK(strcmp(now, mirror) == 0, "every file equals the mirror (content, size, mode)");
	if (strcmp(now, mirror) != 0)
		tl_sh("cd " FX_MNT " && find . -type f | sort > /tmp/now.names; cd " MIRROR
		      " && find . -type f | sort | diff - /tmp/now.names | head -20");
	free(now);
	free(mirror);
	CHECK_INT(tl_sh("ls -A " FX_MNT "/dir300 > /tmp/names.now && ls -A " MIRROR "/dir300 > "
			"/tmp/names.mirror && diff /tmp/names.mirror /tmp/names.now | head -5; "
			"cmp -s /tmp/names.mirror /tmp/names.now"), 0);
	/* lost+found keeps no copy of a restored file. */
	CHECK_STR(tl_out("cd " FX_MNT "/lost+found && find . -type f -exec sha256sum {} + | "
			 "cut -c1-64 | sort -u > /tmp/orphans.sum; cd " MIRROR " && find . -type f "
			 "-exec sha256sum {} + | cut -c1-64 | sort -u | comm -12 - /tmp/orphans.sum "
			 "| wc -l"), "0");

	CHECK_STR(tl_out("sqlite3 " DB " 'pragma integrity_check'"), "ok");
	fx_umount();
	CHECK_INT(fx_repair_check(), 0);
	fx_teardown();
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
