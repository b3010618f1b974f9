// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What mapctl repair --offline guarantees (issue 35, items 5-9; mapctl(8)
 * "The offline path"), on both filesystem profiles:
 *  6. a copy of the filesystem on another device (same UUID) while the
 *     original is mounted: refused; its bytes and the original's history
 *     stay as they were;
 *  8. kill -9 of mapctl while xfs_repair runs (a wrapper holds the real
 *     xfs_repair until the test lets it go): the start is recorded before,
 *     xfs_repair lives on and ends with status 0, a rerun meanwhile refuses
 *     and says it still runs, a rerun afterwards records how it ended;
 *  9. the finding whose sector was overwritten is "zeroed": a scan does not
 *     close it (status, files, export and JSON show it); refetch does, and
 *     the scan after that resolves it;
 *  7. a local user who owns a folder above the recorded mount point puts a
 *     symbolic link to another folder in its place: not mounted there (nor
 *     anywhere), mapctl says where the device was left, exit 2; the same
 *     link in root's folder: refused too; the real folder back: mounted;
 *  5. a recorded XFS device reused for ext4, then swap, then wiped (its
 *     secondary XFS superblocks still there): refused each time, not one
 *     byte of it changed; wiped, only --uuid naming the filesystem recorded
 *     on it would let it go on.
 *
 * Usage (in the guest): vm_mapctl_offline_guard MAPCTL DEVICE OTHER_DEVICE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "vmtest.h"

#define DB "/tmp/guard.db"
#define MIRROR "/mnt/mirror"
#define WRAP "/tmp/xrwrap"		/* the xfs_repair that waits for the test */
#define USERS "/mnt/users"		/* a folder a local user owns */
#define USER_MNT USERS "/data"
#define CONF "/mnt/conf"		/* what the user points the mount point at */
#define OTHER_MNT "/mnt/other"
#define USER "setpriv --reuid=1000 --regid=1000 --clear-groups"
/* Polls of 0.1 s for something another process does: 10 minutes of TCG. */
#define WAIT_POLLS 6000

static const char *mapctl;

static int ctl(const char *args)
{
	return tl_sh("%s --db " DB " %s", mapctl, args);
}

static const char *sql(const char *query)
{
	return tl_out("sqlite3 " DB " \"%s\"", query);
}

static char *dup_out(const char *s)
{
	char *d = strdup(s);

	REQUIRE(d, "strdup");
	return d;
}

/* Whole-device digest: that nothing was written is checked byte for byte. */
static char *device_sum(const char *dev)
{
	return dup_out(tl_out("sha256sum < %s | cut -c1-64", dev));
}

static int actions(void)
{
	return atoi(sql("select count(*) from actions"));
}

/* Run mapctl with output kept in /tmp/out (shown); its exit status. */
static int ctl_out(const char *args)
{
	int rc = tl_sh("%s --db " DB " %s </dev/null >/tmp/out 2>&1", mapctl, args);

	tl_sh("cat /tmp/out");
	return rc;
}

static bool out_has(const char *text)
{
	return tl_sh("grep -qF -- '%s' /tmp/out", text) == 0;
}

/* Wait until shell condition @cond holds; else show @log and stop. */
static void wait_for(const char *cond, const char *what, const char *log)
{
	int rc = tl_sh("i=0; until %s; do i=$((i + 1)); [ $i -lt %d ] || exit 1; sleep 0.1; done",
		       cond, WAIT_POLLS);

	if (rc != 0)
		tl_sh("cat %s", log);
	REQUIRE(rc == 0, "waited for %s", what);
}

static void build_tree(void)
{
	tl_must("mkdir -p " FX_MNT "/plain " FX_MNT "/docs");
	tl_must("head -c 262144 /dev/urandom > " FX_MNT "/plain/data.bin");
	tl_must("echo another file > " FX_MNT "/plain/other.txt");
	tl_must("for i in $(seq 1 40); do echo note $i > " FX_MNT "/docs/n$i.txt; done");
	tl_must("sync");
}

/* 6: a clone of the recorded filesystem while the original is mounted. */
static void clone_refused(const char *dev, const char *other)
{
	/* From under dm-dust: the copy reads well where the original does not. */
	tl_must("dd if=%s of=%s bs=1M status=none conv=fsync", dev, other);
	fx_mount();
	char *before = device_sum(other);
	int n = actions();

	char args[256];
	snprintf(args, sizeof(args), "repair %s --offline --yes", other);
	CHECK_INT(ctl_out(args), 2);
	CHECK(out_has("is mounted at " FX_MNT) && out_has("copy"),
	      "the clone is refused because the original is mounted");
	CHECK_INT(actions(), n);
	char *after = device_sum(other);
	CHECK_STR(after, before);
	free(before);
	free(after);
	fx_umount();
}

/* 8: kill -9 of mapctl while xfs_repair runs. */
static void killed_during_repair(void)
{
	char real[512];

	snprintf(real, sizeof(real), "%s", tl_out("command -v xfs_repair"));
	REQUIRE(real[0] == '/', "xfs_repair in PATH: %s", real);
	tl_must("rm -rf " WRAP " && mkdir " WRAP " && mkfifo " WRAP "/fifo");
	tl_must("printf '#!/bin/sh\\necho $$ > " WRAP "/pid.tmp && mv " WRAP "/pid.tmp " WRAP
		"/pid\\nread go < " WRAP "/fifo\\n%s \"$@\"\\nrc=$?\\necho $rc > " WRAP
		"/rc\\nexit $rc\\n' > " WRAP "/xfs_repair && chmod 755 " WRAP "/xfs_repair", real);
	int pid = atoi(tl_out("PATH=" WRAP ":$PATH %s --db " DB " repair " FX_DUST
			      " --offline --yes </dev/null >/tmp/killed.out 2>&1 & echo $!", mapctl));
	REQUIRE(pid > 0, "mapctl started");
	wait_for("test -s " WRAP "/pid", "xfs_repair to start", "/tmp/killed.out");
	/* Recorded before it runs. */
	CHECK_STR(sql("select outcome from actions where action = 'xfs_repair' order by id desc "
		      "limit 1"), "started");
	tl_must("kill -9 %d", pid);
	/* Gone, or a zombie nobody reaped yet. */
	char wait_dead[96];
	snprintf(wait_dead, sizeof(wait_dead), "! ps -o stat= -p %d | grep -qv Z", pid);
	wait_for(wait_dead, "mapctl to die", "/tmp/killed.out");
	tl_sh("cat /tmp/killed.out");
	int xr = atoi(tl_out("cat " WRAP "/pid"));
	CHECK(tl_sh("kill -0 %d", xr) == 0, "xfs_repair (pid %d) outlives mapctl", xr);

	/* While it runs: refused, and said so; the plan says it too. */
	CHECK_INT(ctl_out("repair " FX_DUST " --offline --yes"), 2);
	CHECK(out_has("still running"), "a rerun says xfs_repair still runs");
	CHECK_INT(ctl_out("repair " FX_DUST " --offline-plan"), 0);
	CHECK(out_has("by an earlier mapctl (watcher pid ") &&
	      out_has("is still running: --offline refuses until it ends"),
	      "the plan says xfs_repair still runs");

	tl_must("echo go > " WRAP "/fifo");
	snprintf(wait_dead, sizeof(wait_dead), "! ps -o stat= -p %d | grep -qv Z", xr);
	wait_for(wait_dead, "xfs_repair to end", "/dev/null");
	CHECK_STR(tl_out("cat " WRAP "/rc"), "0");	/* not killed by SIGPIPE */

	/* Ended, not recorded yet: the plan says how it ended (once its
	 * watcher, which writes the exit status, is gone too). */
	int watcher = 0;
	sscanf(sql("select detail from actions where action = 'xfs_repair' order by id desc "
		   "limit 1"), "pid %d", &watcher);
	REQUIRE(watcher > 0, "the watcher's pid is recorded");
	snprintf(wait_dead, sizeof(wait_dead), "! ps -o stat= -p %d | grep -qv Z", watcher);
	wait_for(wait_dead, "the watcher to end", "/dev/null");
	/* Ended, not recorded yet: the plan says how it ended. */
	CHECK_INT(ctl_out("repair " FX_DUST " --offline-plan"), 0);
	CHECK(out_has("ended with exit status 0, not recorded yet: --offline records it first"),
	      "the plan says how the unrecorded xfs_repair ended");
	/* Afterwards: its end is recorded, and the repair goes through. */
	CHECK_INT(ctl_out("repair " FX_DUST " --offline --yes"), 1);
	CHECK(out_has("ended with exit status 0"), "the rerun reports how it ended");
	CHECK_STR(sql("select group_concat(outcome, ',') from (select outcome from actions where "
		      "action = 'xfs_repair' order by id)"), "started,done,started,done");
	CHECK(atoi(sql("select count(*) from actions where action = 'xfs_repair' and outcome = "
		       "'done' and detail like '%ended while no mapctl watched: exit 0%'")) == 1,
	      "the outcome of the orphaned xfs_repair is recorded");
	CHECK_INT(tl_sh("mountpoint -q " FX_MNT), 0);
}

/* 9: a scan does not close a zeroed finding; refetch does. */
static void zeroed_survives_scan(void)
{
	CHECK_STR(sql("select state from findings where kind = 'file'"), "zeroed");
	CHECK_INT(ctl("scan " FX_MNT), 1);
	CHECK_STR(sql("select state from findings where kind = 'file'"), "zeroed");
	CHECK_INT(ctl_out("status " FX_MNT), 1);
	CHECK(out_has("DAMAGED") && out_has("zeroed 1"), "status shows the zeroed finding");
	CHECK_STR(tl_out("%s --db " DB " status " FX_MNT " --json | jq -c "
			 "'.filesystems[0].finding_counts.zeroed'", mapctl), "1");
	CHECK_INT(ctl_out("files " FX_MNT), 1);
	CHECK(out_has("zeroed") && out_has(FX_MNT "/plain/data.bin"), "files lists it");
	CHECK_STR(tl_out("%s --db " DB " files " FX_MNT " --json | jq -r '.findings[].state'",
			 mapctl), "zeroed");
	CHECK_STR(tl_out("%s --db " DB " export --rsync " FX_MNT, mapctl), "plain/data.bin");

	CHECK_INT(ctl("refetch " FX_MNT " --from " MIRROR), 0);
	CHECK_STR(sql("select state from findings where kind = 'file'"), "refetched");
	CHECK_INT(tl_sh("cmp " FX_MNT "/plain/data.bin " MIRROR "/plain/data.bin"), 0);
	CHECK_INT(ctl("scan " FX_MNT), 0);
	CHECK_STR(sql("select state from findings where kind = 'file'"), "resolved");
	fx_umount();
}

/* Not mounted at CONF, nor anywhere else, and the folder still shows its file. */
static void not_mounted_over_conf(void)
{
	CHECK(tl_sh("mountpoint -q " CONF) != 0, CONF " is not mounted over");
	CHECK_STR(tl_out("cat " CONF "/keep.conf"), "keep me");
	CHECK(tl_sh("findmnt -n --source " FX_DUST) != 0, "the device is left unmounted");
}

/* 7: the recorded mount point replaced by a symbolic link. */
static void mountpoint_swapped(void)
{
	tl_must("mkdir -p " USERS " " CONF " && chown 1000:1000 " USERS " && mkdir " USER_MNT);
	tl_must("echo 'keep me' > " CONF "/keep.conf");
	tl_must("mount " FX_DUST " " USER_MNT);
	CHECK_INT(ctl("scan " USER_MNT), 0);	/* records the mount point */
	tl_must("umount " USER_MNT);
	tl_must(USER " sh -c 'mv " USER_MNT " " USERS "/data.old && ln -s " CONF " " USER_MNT "'");

	CHECK_INT(ctl_out("repair " FX_DUST " --offline --yes"), 2);
	not_mounted_over_conf();
	CHECK(out_has("left unmounted") && out_has(FX_DUST) && out_has("owned by uid 1000"),
	      "mapctl says why and where the device was left");
	CHECK_STR(sql("select outcome from actions where action = 'mount' order by id desc "
		      "limit 1"), "refused");

	/* Root's folder now, the link still there: not followed either. */
	tl_must("chown 0:0 " USERS);
	CHECK_INT(ctl_out("repair " FX_DUST " --offline --yes"), 2);
	not_mounted_over_conf();
	CHECK(out_has("symbolic link") && out_has("left unmounted"), "the link is refused");

	/* The real folder back: mounted there. */
	tl_must("rm " USER_MNT " && mv " USERS "/data.old " USER_MNT);
	CHECK_INT(ctl_out("repair " FX_DUST " --offline --yes"), 0);
	CHECK_INT(tl_sh("mountpoint -q " USER_MNT), 0);
	CHECK_INT(tl_sh("test -f " USER_MNT "/plain/data.bin"), 0);
	CHECK_STR(sql("select outcome from actions where action = 'mount' order by id desc "
		      "limit 1"), "done");
	/* Wherever it went: the device is needed unmounted below. */
	tl_sh("umount " USER_MNT "; umount " CONF "; true");
	tl_must("! findmnt -n --source " FX_DUST);
}

/* 5: a recorded XFS device reused for something else. */
static void reused_device(const char *other)
{
	char args[512], *before, *after;

	/* Six AGs of 85 MiB: secondary superblocks that ext4's groups (128 MiB)
	 * leave alone, which xfs_repair would find and "repair" from. */
	tl_must("wipefs -q -a %s && mkfs.xfs -q -f %s -d agcount=6 %s && mkdir -p " OTHER_MNT
		" && mount %s " OTHER_MNT, other, vt_features(), other, other);
	tl_must("echo data > " OTHER_MNT "/file && sync");
	CHECK_INT(ctl("scan " OTHER_MNT), 0);
	tl_must("umount " OTHER_MNT);
	char *uuid = dup_out(sql("select uuid from filesystems where mountpoint = '" OTHER_MNT
				 "'"));
	int n = actions();
	snprintf(args, sizeof(args), "repair %s --offline --yes", other);

	/* Without discard, as on a disk that does not zero discarded blocks. */
	tl_must("mkfs.ext4 -q -F -E nodiscard %s", other);
	before = device_sum(other);
	CHECK_INT(ctl_out(args), 2);
	CHECK(out_has("ext4") && out_has("nothing written"), "ext4 is named and refused");
	after = device_sum(other);
	CHECK_STR(after, before);
	free(before);
	free(after);

	tl_must("wipefs -q -a %s && mkswap -q %s", other, other);
	before = device_sum(other);
	CHECK_INT(ctl_out(args), 2);
	CHECK(out_has("swap"), "a swap signature is refused");
	after = device_sum(other);
	CHECK_STR(after, before);
	free(before);
	free(after);

	/* No signature at all: only --uuid of the filesystem recorded on it. */
	tl_must("wipefs -q -a %s", other);
	before = device_sum(other);
	CHECK_INT(ctl_out(args), 2);
	CHECK(out_has("--uuid"), "without a superblock, --uuid is asked for");
	/* The first filesystem's UUID: recorded on the dm-dust device. */
	const char *dust_uuid = sql("select uuid from filesystems where id = (select fs_id from "
				    "findings limit 1)");
	snprintf(args, sizeof(args), "repair %s --offline --yes --uuid %s", other, dust_uuid);
	CHECK_INT(ctl_out(args), 2);
	snprintf(args, sizeof(args), "not on %s", other);
	CHECK(out_has("was recorded on") && out_has(args),
	      "--uuid of another device's filesystem is refused");
	after = device_sum(other);
	CHECK_STR(after, before);
	CHECK_INT(actions(), n);
	snprintf(args, sizeof(args), "repair %s --offline-plan --uuid %s", other, uuid);
	CHECK_INT(ctl_out(args), 0);
	CHECK(out_has(uuid), "the plan with --uuid names the recorded filesystem");
	free(before);
	free(after);
	free(uuid);
}

int main(int argc, char **argv)
{
	mapctl = argc > 1 ? argv[1] : "mapctl";
	const char *dev = argc > 2 ? argv[2] : "/dev/vda";
	const char *other = argc > 3 ? argv[3] : "/dev/vdb";

	vt_require_vm();
	fx_setup(dev, vt_features());
	build_tree();
	tl_must("rm -rf " MIRROR " && cp -a " FX_MNT " " MIRROR " && rm -rf " MIRROR "/lost+found");
	CHECK_INT(ctl("scan " FX_MNT), 0);

	uint64_t victim = fx_file_physical("plain/data.bin", 128 * 1024) / 4096;
	fx_umount();
	fx_add_bad_blocks(&victim, 1);
	fx_mount();
	CHECK_INT(ctl("scan " FX_MNT), 1);
	CHECK_STR(sql("select kind || ':' || state from findings"), "file:open");
	fx_umount();

	clone_refused(dev, other);
	killed_during_repair();
	zeroed_survives_scan();
	mountpoint_swapped();
	reused_device(other);

	CHECK_STR(sql("pragma integrity_check"), "ok");
	CHECK_INT(fx_repair_check(), 0);
	fx_teardown();
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
