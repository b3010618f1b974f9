// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapperd's notification hooks, end to end, on a dm-dust filesystem:
 *  1. a read over a bad block stores a finding; the hook directory's
 *     recording hook runs exactly once, with MAPPER_EVENT=damage, the
 *     filesystem's UUID and mount point, one new and one open finding, and a
 *     mode 0600 findings JSON file that names the damaged file (removed
 *     once the hooks have ended); its output and exit status are logged;
 *  2. a hook that ignores SIGTERM and sleeps forever is killed (SIGTERM at
 *     notify_timeout, SIGKILL after the grace), and the daemon answers its
 *     control socket promptly while it runs;
 *  3. a group-writable hook is refused, with the reason in the log, and
 *     never runs;
 *  4. damage a full scan finds (as mapctl daemon scan asks) runs the hooks
 *     with a findings JSON that lists it, with its times: the media half
 *     of a full scan stores findings on a thread of its own, and the JSON
 *     named nothing (issue 36);
 *  5. SIGTERM stops the daemon cleanly.
 * With "valgrind" the daemon runs under valgrind (memcheck, leaks are
 * errors): spawning, reaping and killing hooks must stay clean.
 *
 * Usage (in the guest): vm_mapperd_notify MAPPERD MAPCTL DEVICE [valgrind]
 */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "fixture.h"
#include "mdtest.h"
#include "vmtest.h"

#define HOOKS "/tmp/mdt-hooks"
#define OUT "/tmp/mdt-out"
#define STATE MDT_DIR "/state"
#define TIMEOUT_S 3		/* notify_timeout in this test */

static void hook(const char *name, mode_t mode, const char *body)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), HOOKS "/%s", name);
	f = fopen(path, "w");
	REQUIRE(f, "%s", path);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	REQUIRE(chmod(path, mode) == 0, "chmod %s", path);
}

static size_t count(const char *pattern, char *first, size_t len)
{
	glob_t g;
	size_t n = 0;

	if (glob(pattern, 0, NULL, &g) == 0) {
		n = g.gl_pathc;
		if (first && n)
			snprintf(first, len, "%s", g.gl_pathv[0]);
		globfree(&g);
	}
	return n;
}

static bool wait_for(const char *pattern, double timeout)
{
	double end = tl_mono() + timeout;

	while (count(pattern, NULL, 0) == 0) {
		if (tl_mono() > end)
			return false;
		tl_sleep(0.1);
	}
	return true;
}

static bool log_has(const char *text)
{
	return tl_sh("grep -qF -- '%s' " MDT_LOG, text) == 0;
}

static bool wait_log(const char *text, double timeout)
{
	double end = tl_mono() + timeout;

	while (!log_has(text)) {
		if (tl_mono() > end)
			return false;
		tl_sleep(0.2);
	}
	return true;
}

int main(int argc, char **argv)
{
	char path[512], want[256], reply[65536], uuid[64];
	int arg;

	vt_require_vm();
	arg = mdt_args(argc, argv);
	REQUIRE(arg < argc, "which device?");
	fx_setup(argv[arg], vt_features());
	tl_must("xfs_io -f -c 'pwrite -q -S 0x5a 0 64k' -c fsync %s/victim.dat", FX_MNT);
	uint64_t phys = fx_file_physical("victim.dat", 32768);
	/* Never read: only the scan of step 4 finds its bad block. */
	tl_must("xfs_io -f -c 'pwrite -q -S 0x5b 0 64k' -c fsync %s/scanned.dat", FX_MNT);
	uint64_t phys2 = fx_file_physical("scanned.dat", 16384);
	snprintf(uuid, sizeof(uuid), "%s", tl_out("blkid -o value -s UUID %s", FX_DUST));
	uuid[strcspn(uuid, "\n")] = '\0';
	REQUIRE(uuid[0], "no UUID");

	tl_must("rm -rf " HOOKS " " OUT " && mkdir -m 0755 " HOOKS " && mkdir " OUT);
	hook("10-record", 0755,
	     "env | grep '^MAPPER_' > " OUT "/env.$MAPPER_EVENT.$$\n"
	     "cp \"$MAPPER_FINDINGS_JSON\" " OUT "/json.$MAPPER_EVENT.$$\n"
	     "stat -c %a \"$MAPPER_FINDINGS_JSON\" > " OUT "/mode.$MAPPER_EVENT.$$\n"
	     "echo \"$MAPPER_FINDINGS_JSON\" > " OUT "/path.$MAPPER_EVENT.$$\n"
	     /* last: the test reads the files above once this is there */
	     "touch " OUT "/done.$MAPPER_EVENT.$$\n"
	     "echo hello from the recording hook\n"
	     "exit 3");
	hook("20-sleep", 0755,
	     "trap '' TERM\n"
	     "touch " OUT "/sleep-started\n"
	     "while :; do sleep 1; done");
	hook("30-gw", 0775, "touch " OUT "/gw-ran");

	mdt_write_config("notify_directory = " HOOKS "\n"
			 "notify_timeout = 3s\n"
			 "state_directory = " STATE "\n");
	bool valgrind = arg + 1 < argc && !strcmp(argv[arg + 1], "valgrind");
	pid_t pid = mdt_start(valgrind ? "valgrind --quiet --leak-check=full "
				"--show-leak-kinds=all --errors-for-leak-kinds=definite,indirect,"
				"possible --error-exitcode=99 --log-file=" MDT_DIR "/valgrind.log"
				: NULL);
	REQUIRE(mdt_wait_watched(FX_MNT, true, valgrind ? 60 : 10) >= 0,
		"mapperd does not watch %s", FX_MNT);

	/* 1. A read over a bad block. */
	tl_must("dmsetup message dust 0 addbadblock %llu", (unsigned long long)(phys / 4096));
	tl_must("dmsetup message dust 0 addbadblock %llu", (unsigned long long)(phys2 / 4096));
	tl_must("dmsetup message dust 0 enable");
	tl_evict(FX_MNT "/victim.dat");
	double t0 = tl_mono();
	CHECK_INT(tl_read_file(FX_MNT "/victim.dat"), EIO);
	CHECK(wait_for(OUT "/done.damage.*", 20), "the recording hook did not run for damage");
	printf("EIO -> hook ran in %.2f s\n", tl_mono() - t0);
	CHECK(wait_for(OUT "/sleep-started", 5), "the sleeping hook did not start");

	/* 2. The daemon answers while a hook runs. */
	double tq = tl_mono();
	CHECK_INT(mdt_request("status", reply, sizeof(reply)), 0);
	double answered = tl_mono() - tq;
	printf("status answered in %.3f s while a hook runs\n", answered);
	/* Under valgrind everything is some 20 times slower. */
	CHECK(answered < (valgrind ? 3.0 : 1.0), "status took %.3f s while a hook ran", answered);
	CHECK(tl_sh("pgrep -f '[/]tmp/mdt-hooks/20-sleep' >/dev/null") == 0, "the sleeping hook is not "
	      "running when asked");

	char env_path[256] = "", json_path[256] = "";
	CHECK_INT(count(OUT "/env.damage.*", env_path, sizeof(env_path)), 1);
	static char env[65536], json[65536], scan_json[65536];

	tl_slurp(env_path, env, sizeof(env));
	printf("---- hook environment ----\n%s----\n", env);
	CHECK(strstr(env, "MAPPER_EVENT=damage\n") != NULL, "MAPPER_EVENT");
	snprintf(want, sizeof(want), "MAPPER_FS_UUID=%s\n", uuid);
	CHECK(strstr(env, want) != NULL, "want %s", want);
	CHECK(strstr(env, "MAPPER_MOUNTPOINT=" FX_MNT "\n") != NULL, "MAPPER_MOUNTPOINT");
	CHECK(strstr(env, "MAPPER_NEW_FINDINGS=1\n") != NULL, "MAPPER_NEW_FINDINGS");
	CHECK(strstr(env, "MAPPER_OPEN_FINDINGS=1\n") != NULL, "MAPPER_OPEN_FINDINGS");
	CHECK(strstr(env, "MAPPER_TIME=") && strstr(env, "MAPPER_VERSION="), "time, version");
	CHECK(strstr(env, "MAPPER_FINDINGS_JSON=" STATE "/notify/") != NULL, "json path");
	CHECK_INT(count(OUT "/json.damage.*", json_path, sizeof(json_path)), 1);
	tl_slurp(json_path, json, sizeof(json));
	printf("---- findings JSON ----\n%s----\n", json);
	CHECK(strstr(json, "\"event\":\"damage\"") != NULL, "event in the JSON");
	CHECK(strstr(json, "\"paths\":[\"" FX_MNT "/victim.dat\"]") != NULL,
	      "the JSON does not name the damaged file");
	snprintf(want, sizeof(want), "\"device_offset\":%llu", (unsigned long long)phys);
	CHECK(strstr(json, want) != NULL, "want %s", want);
	CHECK(!strncmp(json, "{\"output_version\":{\"command\":\"mapperd notify\",", 46),
	      "the JSON starts with its output version");
	snprintf(want, sizeof(want), "\"fs_uuid\":\"%s\",\"mountpoint\":\"" FX_MNT "\",\"state\"",
		 uuid);
	CHECK(strstr(json, want) != NULL, "the finding names its filesystem: want %s", want);
	CHECK(!strstr(json, "\"first_seen_time\":null") && !strstr(json, "\"last_seen_time\":null"),
	      "a new finding without its times");
	count(OUT "/mode.damage.*", path, sizeof(path));
	char mode[16];
	tl_slurp(path, mode, sizeof(mode));
	CHECK_STR(mode, "600\n");

	/* The sleeper: SIGTERM at the timeout, ignored, then SIGKILL. */
	CHECK(wait_log("20-sleep (damage) killed at notify_timeout by signal 9", TIMEOUT_S + 12),
	      "the sleeping hook was not killed");
	printf("sleeping hook killed %.1f s after the report\n", tl_mono() - t0);
	CHECK(log_has("20-sleep (damage) still runs after") &&
	      log_has("20-sleep (damage) ignored SIGTERM: SIGKILL"), "TERM then KILL");
	CHECK(tl_sh("pgrep -f '[/]tmp/mdt-hooks/20-sleep' >/dev/null") != 0, "the sleeping hook lives on");
	CHECK(log_has("10-record (damage): hello from the recording hook"), "output not logged");
	CHECK(log_has("10-record (damage) failed: exit status 3"), "exit status not logged");
	/* Its findings file goes once every hook has ended. */
	count(OUT "/path.damage.*", path, sizeof(path));
	char json_file[4096];
	tl_slurp(path, json_file, sizeof(json_file));
	json_file[strcspn(json_file, "\n")] = '\0';
	struct stat st;
	CHECK(json_file[0] && stat(json_file, &st) != 0 && errno == ENOENT,
	      "findings file %s still there", json_file);
	CHECK_INT(mdt_request("status", reply, sizeof(reply)), 0);

	/* Once: nothing else came of the one bad block. */
	tl_sleep(1);
	CHECK_INT(count(OUT "/env.*", NULL, 0), 1);

	/* 3. The group-writable hook. */
	CHECK(count(OUT "/gw-ran", NULL, 0) == 0, "a group-writable hook ran");
	CHECK(log_has("hook " HOOKS "/30-gw not run: it is group or world writable"),
	      "no refusal in the log");

	/* 4. A full scan in the daemon finds scanned.dat (and victim.dat again). */
	CHECK_INT(mdt_request("scan full " FX_MNT, reply, sizeof(reply)), 0);
	double end = tl_mono() + 180;
	while (count(OUT "/done.damage.*", NULL, 0) < 2 && tl_mono() < end)
		tl_sleep(0.2);
	CHECK_INT(count(OUT "/done.damage.*", NULL, 0), 2);
	glob_t g;
	if (glob(OUT "/json.damage.*", 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++)
			if (strcmp(g.gl_pathv[i], json_path))
				tl_slurp(g.gl_pathv[i], scan_json, sizeof(scan_json));
		globfree(&g);
	}
	printf("---- findings JSON of the scan ----\n%s----\n", scan_json);
	CHECK(strstr(scan_json, "\"new_findings\":1,") != NULL, "the scan's new finding count");
	CHECK(strstr(scan_json, "\"paths\":[\"" FX_MNT "/scanned.dat\"]") != NULL,
	      "the scan's findings JSON does not name the damaged file");
	snprintf(want, sizeof(want), "\"device_offset\":%llu", (unsigned long long)phys2);
	CHECK(strstr(scan_json, want) != NULL, "want %s", want);
	CHECK(!strstr(scan_json, FX_MNT "/victim.dat"), "a finding seen again listed as new");
	CHECK(!strstr(scan_json, "\"first_seen_time\":null") &&
	      !strstr(scan_json, "\"last_seen_time\":null"), "a scan's finding without its times");

	/* 5. */
	int status = mdt_stop(pid);
	if (valgrind)
		tl_sh("cat " MDT_DIR "/valgrind.log");
	CHECK_INT(status, 0);
	if (check_failures)
		mdt_show_log();
	fx_teardown();
	return check_done();
}
