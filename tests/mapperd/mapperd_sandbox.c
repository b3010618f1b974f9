// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapperd.service's sandbox keeps the daemon working.  The guest has no
 * systemd to run the unit, so the daemon runs under strace through a
 * day's work: start, status and refused requests, a full scan, an EIO
 * read that becomes a finding, a reload and SIGHUP, an unmount and a
 * mount, SIGTERM.  Then:
 *  1. every system call it made is one the unit's SystemCallFilter= lines
 *     allow (worked out by service_syscalls.sh with systemd-analyze);
 *  2. of the processes in /proc it opened only its own (the others are
 *     hidden by ProtectProc=invisible).
 *
 * Usage (in the guest): vm_mapperd_sandbox MAPPERD MAPCTL UNIT SCRIPT DEVICE
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "mdtest.h"
#include "vmtest.h"

#define TRACE MDT_DIR "/strace.out"
#define NOBODY 65534

static char reply[1 << 16];

static bool match_file(const struct map_finding *f, void *arg)
{
	const uint64_t *w = arg;

	return f->source == MAP_SOURCE_EVENT && !strcmp(f->kind, "file") && f->ino == w[0];
}

static bool wait_idle(double timeout)
{
	double t0 = tl_mono();

	while (tl_mono() - t0 < timeout) {
		if (mdt_request("progress", reply, sizeof(reply)) == 0 &&
		    strstr(reply, "no scan is running or queued"))
			return true;
		tl_sleep(0.5);
	}
	return false;
}

int main(int argc, char **argv)
{
	int arg;

	vt_require_vm();
	arg = mdt_args(argc, argv);
	REQUIRE(arg + 2 < argc, "usage: %s MAPPERD MAPCTL UNIT SCRIPT DEVICE", argv[0]);
	const char *unit = argv[arg], *script = argv[arg + 1], *dev = argv[arg + 2];
	REQUIRE(tl_sh("command -v strace >/dev/null") == 0,
		"strace is not installed (scripts/packages lists it)");

	fx_setup(dev, "-m rmapbt=1,reflink=1");
	tl_must("mkdir -p %s/d && for i in $(seq 1 20); do head -c 50000 /dev/urandom > %s/d/f$i; "
		"done && head -c 262144 /dev/urandom > %s/victim.dat && sync", FX_MNT, FX_MNT,
		FX_MNT);
	uint64_t want[1] = { fx_ino("victim.dat") };
	uint64_t phys = fx_file_physical("victim.dat", 64 * 1024);

	mdt_write_config("control_group = users\n");
	pid_t spid = mdt_start("strace -f -qq -o " TRACE);
	REQUIRE(mdt_wait_watched(FX_MNT, true, 30) >= 0, "mapperd does not watch %s", FX_MNT);

	/* The work of a day. */
	CHECK_INT(mdt_request("status json", reply, sizeof(reply)), 0);
	CHECK_INT(mdt_request_as(NOBODY, NOBODY, (gid_t)-1, "status", reply, sizeof(reply)), 0);
	CHECK_INT(mdt_request_as(NOBODY, NOBODY, (gid_t)-1, "reload", reply, sizeof(reply)), 1);
	CHECK_INT(tl_sh("%s daemon scan --socket %s %s", mdt_mapctl, MDT_SOCK, FX_MNT), 0);
	CHECK(wait_idle(600), "the full scan did not finish");
	tl_must("dmsetup message dust 0 addbadblock %llu", (unsigned long long)(phys / 4096));
	tl_must("dmsetup message dust 0 enable");
	tl_evict(FX_MNT "/victim.dat");
	double t0 = tl_mono();
	CHECK_INT(tl_read_file(FX_MNT "/victim.dat"), EIO);
	CHECK(mdt_wait_finding(match_file, want, t0, 60, NULL) >= 0, "no finding for the EIO read");
	CHECK_INT(mdt_request("reload", reply, sizeof(reply)), 0);
	pid_t dpid = (pid_t)atoi(tl_out("pgrep -P %d", (int)spid));
	REQUIRE(dpid > 0, "which process is mapperd?");
	kill(dpid, SIGHUP);
	fx_umount();
	CHECK(mdt_wait_watched(FX_MNT, false, 30) >= 0, "unmount not noticed");
	fx_mount();
	CHECK(mdt_wait_watched(FX_MNT, true, 30) >= 0, "mount not noticed");
	kill(dpid, SIGTERM);
	int st;
	REQUIRE(waitpid(spid, &st, 0) == spid, "waitpid: %s", strerror(errno));
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "mapperd under strace: status %#x", st);

	/* 1. Every call it made is allowed. */
	CHECK_INT(tl_sh("sh %s %s > %s/allowed", script, unit, MDT_DIR), 0);
	tl_must("sed -n 's/^[0-9]\\+ \\+\\([a-z0-9_]\\+\\)(.*/\\1/p' %s | sort -u > %s/used", TRACE,
		MDT_DIR);
	printf("system calls made: %s\n", tl_out("tr '\\n' ' ' < %s/used", MDT_DIR));
	CHECK(atoi(tl_out("wc -l < %s/used", MDT_DIR)) > 30, "too few calls traced to be true");
	const char *denied = tl_out("comm -23 %s/used %s/allowed | tr '\\n' ' '", MDT_DIR, MDT_DIR);
	CHECK(denied[0] == '\0', "mapperd calls what mapperd.service does not allow: %s", denied);

	/* 2. Only its own processes' /proc entries (its threads are the pids
	 * strace saw). */
	tl_must("awk '{print $1}' %s | sort -u > %s/pids", TRACE, MDT_DIR);
	tl_must("grep -o '\"/proc/[0-9]*' %s | cut -c8- | grep . | sort -u > %s/procpids || true",
		TRACE, MDT_DIR);
	const char *other = tl_out("comm -23 %s/procpids %s/pids | tr '\\n' ' '", MDT_DIR,
				   MDT_DIR);
	CHECK(other[0] == '\0', "mapperd opens /proc entries of other processes: %s", other);
	printf("/proc entries opened: %s\n",
	       tl_out("grep -o '\"/proc/[^\"]*\"' %s | sort -u | tr '\\n' ' '", TRACE));

	mdt_show_log();
	fx_teardown();
	return check_done();
}
