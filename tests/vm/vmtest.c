// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vmtest.h"

bool vt_mainline(void)
{
	const char *p = getenv("MAPPER_PROFILE");

	return p && strcmp(p, "mainline") == 0;
}

bool vt_modern(void)
{
	const char *p = getenv("MAPPER_PROFILE");

	return vt_mainline() || (p && strcmp(p, "modern") == 0);
}

const char *vt_profile(void)
{
	if (vt_mainline())
		return "mainline";
	return vt_modern() ? "modern" : "classic";
}

const char *vt_features(void)
{
	if (vt_mainline())
		return VT_FEATURES_MAINLINE;
	return vt_modern() ? VT_FEATURES_MODERN : VT_FEATURES_CLASSIC;
}

/*
 * A modern-profile test run with Debian 12's mkfs.xfs would make a classic
 * filesystem and pass for the wrong reason: check the tools we were given.
 */
static void vt_check_profile(void)
{
	const char *p = getenv("MAPPER_PROFILE");
	char line[256] = "";
	FILE *f;

	if (p && strcmp(p, "classic") != 0 && strcmp(p, "modern") != 0 &&
	    strcmp(p, "mainline") != 0) {
		fprintf(stderr, "FAIL: unknown MAPPER_PROFILE '%s' (classic, modern or mainline)\n", p);
		exit(1);
	}
	f = popen("mkfs.xfs -V 2>&1", "r");
	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = '\0';
		pclose(f);
	}
	const char *want = vt_mainline() ? "version 7." : vt_modern() ? "version 6.13" : "version 6.1.";
	if (!strstr(line, want)) {
		fprintf(stderr, "FAIL: the %s profile needs %s, but mkfs.xfs says: %s\n",
			vt_profile(),
			vt_mainline() ? "xfsprogs 7.x first in PATH (vm/run --kernel-series mainline)" :
			vt_modern() ? "xfsprogs 6.13 first in PATH (vm/run --profile modern)" :
				      "Debian 12's xfsprogs", line);
		exit(1);
	}
	printf("profile %s: %s", vt_profile(), line);
}

void vt_require_vm(void)
{
	if (!getenv("MAPPER_IN_VM")) {
		fprintf(stderr, "FAIL: this test runs inside the QEMU guest: use vm/run -- %s\n",
			"<test>");
		exit(1);
	}
	if (geteuid() != 0) {
		fprintf(stderr, "FAIL: this test needs root inside the guest\n");
		exit(1);
	}
	vt_check_profile();
}

int vt_debug_locks(void)
{
	FILE *f = fopen("/proc/lockdep_stats", "r");
	char line[256];
	int value = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " debug_locks: %d", &value) == 1)
			break;
		value = -1;
	}
	fclose(f);
	return value;
}

int vt_kernel_log_problems(void)
{
	static const char *const patterns[] = {
		"BUG:", "WARNING:", "possible circular locking", "possible recursive locking",
		"inconsistent lock state", "KASAN:", "UBSAN:", "Oops", "general protection fault",
		"INFO: task", "INFO: possible", "Call Trace:",
	};
	FILE *p = popen("dmesg", "r");
	char line[1024];
	int problems = 0, ignoring = 0;

	if (!p)
		return 1;
	while (fgets(line, sizeof(line), p)) {
		/* The scheduler's deadline bandwidth accounting warned once
		 * in a CI run under TCG (sub_running_bw underflow, 18 s after
		 * boot): not XFS, not ours.  That warning and its trace (at
		 * most 80 lines) are shown but not counted. */
		if (strstr(line, "WARNING:") && strstr(line, "kernel/sched/deadline.c"))
			ignoring = 80;
		if (ignoring > 0) {
			fprintf(stderr, "kernel log (not counted: scheduler): %s", line);
			ignoring = strstr(line, "---[ end trace") ? 0 : ignoring - 1;
			continue;
		}
		for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++) {
			if (strstr(line, patterns[i])) {
				fprintf(stderr, "kernel log: %s", line);
				problems++;
				break;
			}
		}
	}
	pclose(p);
	/* Lockdep stops checking after its first report, or when it runs out
	 * of room (that one prints "BUG:" above): the rest of the test ran
	 * unchecked. */
	if (vt_debug_locks() == 0) {
		fprintf(stderr, "kernel: lockdep turned itself off (debug_locks 0)\n");
		problems++;
	}
	return problems;
}

