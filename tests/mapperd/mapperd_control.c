// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapperd's control socket and mount tracking:
 *  1. an unprivileged user (nobody) may read status but cannot start or
 *     cancel a scan or reload: nothing reaches the database;
 *  2. nobody with the configured control_group (users) may start a scan,
 *     and it runs and is recorded under that user's name;
 *  3. root through 'mapctl daemon' (status, scan, progress), and nobody
 *     through mapctl is refused with exit status 2;
 *  4. an unmount and a mount, and a second filesystem mounted later, are
 *     noticed within two seconds;
 *  5. SIGHUP with a configuration that excludes a filesystem drops it, and
 *     the old configuration brings it back; SIGTERM exits 0.
 *
 * Usage (in the guest): vm_mapperd_control MAPPERD MAPCTL DEV1 DEV2
 */
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "mdtest.h"
#include "vmtest.h"

#define MNT "/mnt/ctl"
#define MNT2 "/mnt/ctl2"
#define NOBODY 65534
#define USERS_GID 100

static char reply[1 << 16];

/* Run a command as @uid/@gid (groups: none, or @extra); its exit status. */
static int run_as(uid_t uid, gid_t gid, gid_t extra, const char *cmd)
{
	pid_t pid = fork();
	int st;

	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		gid_t groups[1] = { extra };

		if (setgroups(extra == (gid_t)-1 ? 0 : 1, groups) || setgid(gid) || setuid(uid))
			_exit(99);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static int scans_recorded(const char *mnt, struct map_scan_row *row)
{
	struct map_store *st;
	struct map_fs *fs;
	struct map_store_fs sf;
	int rc;

	if (map_store_open(MDT_DB, MAP_STORE_READONLY, &st) != 0)
		return -1;
	rc = map_fs_open(mnt, &fs);
	if (rc == 0) {
		rc = map_store_fs_by_uuid(st, map_fs_info(fs)->uuid, &sf);
		if (rc == 0)
			rc = map_store_scan_latest(st, sf.id, row);
		map_fs_close(fs);
	}
	map_store_close(st);
	return rc == 0 ? 1 : rc == -ENOENT ? 0 : -1;
}

static bool wait_scan_complete(const char *mnt, struct map_scan_row *row, double timeout)
{
	double t0 = tl_mono();

	while (tl_mono() - t0 < timeout) {
		if (scans_recorded(mnt, row) == 1 && row->state == MAP_SCAN_COMPLETE)
			return true;
		tl_sleep(0.1);
	}
	return false;
}

int main(int argc, char **argv)
{
	struct map_scan_row row;
	int arg, rc;

	vt_require_vm();
	arg = mdt_args(argc, argv);
	REQUIRE(arg + 1 < argc, "which two devices?");
	const char *dev1 = argv[arg], *dev2 = argv[arg + 1];

	tl_mkfs_mount(dev1, vt_features(), MNT);
	tl_must("mkdir -p %s/a && for i in $(seq 1 50); do head -c 20000 /dev/urandom > %s/a/f$i; "
		"done && sync", MNT, MNT);
	mdt_write_config("control_group = users\n");
	pid_t pid = mdt_start(NULL);
	REQUIRE(mdt_wait_watched(MNT, true, 10) >= 0, "mapperd does not watch %s", MNT);

	/* 1. nobody, no groups: read-only. */
	rc = mdt_request_as(NOBODY, NOBODY, (gid_t)-1, "status", reply, sizeof(reply));
	CHECK(rc == 0, "status as nobody: %s", reply);
	CHECK(strstr(reply, MNT) != NULL, "status does not show %s: %s", MNT, reply);
	rc = mdt_request_as(NOBODY, NOBODY, (gid_t)-1, "progress json", reply, sizeof(reply));
	CHECK(rc == 0, "progress as nobody: %s", reply);
	static const char *const refused[] = { "scan full " MNT, "scan metadata " MNT,
					       "cancel " MNT, "reload" };
	for (size_t i = 0; i < 4; i++) {
		rc = mdt_request_as(NOBODY, NOBODY, (gid_t)-1, refused[i], reply, sizeof(reply));
		CHECK(rc == 1 && strstr(reply, "permission denied"), "'%s' as nobody: %s",
		      refused[i], reply);
	}
	tl_sleep(1);
	CHECK_INT(scans_recorded(MNT, &row), 0);

	/* 2. nobody in the control group: allowed. */
	rc = mdt_request_as(NOBODY, NOBODY, USERS_GID, "scan metadata " MNT, reply, sizeof(reply));
	CHECK(rc == 0 && strstr(reply, "queued"), "scan as nobody in 'users': %s", reply);
	CHECK(wait_scan_complete(MNT, &row, 120), "the scan nobody started did not complete");
	CHECK(strstr(row.user, "nobody") != NULL, "scan recorded for user '%s'", row.user);
	CHECK(row.do_metadata && !row.do_media, "scan kind metadata=%d media=%d", row.do_metadata,
	      row.do_media);
	int64_t first_scan = row.id;

	/* 3. mapctl daemon, as root and as nobody. */
	char cmd[8192];
	snprintf(cmd, sizeof(cmd), "%s daemon status --socket %s", mdt_mapctl, MDT_SOCK);
	CHECK_INT(tl_sh("%s", cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s daemon scan --media --socket %s %s/a", mdt_mapctl, MDT_SOCK,
		 MNT);
	CHECK_INT(tl_sh("%s", cmd), 0);
	tl_sh("%s daemon progress --socket %s", mdt_mapctl, MDT_SOCK);
	CHECK(wait_scan_complete(MNT, &row, 120) && row.id != first_scan && row.do_media,
	      "the media scan root asked for did not complete (scan %lld %s)", (long long)row.id,
	      map_scan_state_name(row.state));
	tl_must("install -d -m 1777 /run/mdtest/nobody");
	snprintf(cmd, sizeof(cmd), "%s daemon scan --socket %s %s 2>/run/mdtest/nobody/err",
		 mdt_mapctl, MDT_SOCK, MNT);
	CHECK_INT(run_as(NOBODY, NOBODY, (gid_t)-1, cmd), 2);
	const char *err = tl_out("cat /run/mdtest/nobody/err");
	CHECK(strstr(err, "permission denied") != NULL, "mapctl as nobody said: %s", err);
	snprintf(cmd, sizeof(cmd), "%s daemon status --json --socket %s >/dev/null", mdt_mapctl,
		 MDT_SOCK);
	CHECK_INT(run_as(NOBODY, NOBODY, (gid_t)-1, cmd), 0);

	/* 4. mounts come and go. */
	tl_must("umount %s", MNT);
	double t = mdt_wait_watched(MNT, false, 10);
	printf("unmount noticed after %.3f s\n", t);
	CHECK(t >= 0 && t < 2, "unmount noticed after %.3f s", t);
	tl_must("mount %s %s", dev1, MNT);
	t = mdt_wait_watched(MNT, true, 10);
	printf("mount noticed after %.3f s\n", t);
	CHECK(t >= 0 && t < 2, "mount noticed after %.3f s", t);
	tl_mkfs_mount(dev2, "-m rmapbt=1", MNT2);
	t = mdt_wait_watched(MNT2, true, 10);
	printf("a new filesystem noticed after %.3f s\n", t);
	CHECK(t >= 0 && t < 2, "new filesystem noticed after %.3f s", t);

	/* 5. SIGHUP: exclude the second filesystem, then take it back. */
	mdt_write_config("control_group = users\nexclude = " MNT2 "\n");
	kill(pid, SIGHUP);
	CHECK(mdt_wait_watched(MNT2, false, 10) >= 0, "excluded filesystem still watched");
	CHECK(mdt_wait_watched(MNT, true, 1) >= 0, "the other filesystem was dropped too");
	mdt_write_config("control_group = users\n");
	kill(pid, SIGHUP);
	CHECK(mdt_wait_watched(MNT2, true, 10) >= 0, "filesystem not watched again after SIGHUP");
	tl_must("umount %s", MNT2);

	CHECK_INT(mdt_stop(pid), 0);
	mdt_show_log();
	tl_sh("umount %s", MNT);
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
