// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapperd as an administrator gets it: the Debian package installed with
 * dpkg in a guest whose PID 1 is Debian's systemd (vm/run --systemd), run
 * with systemctl, its records read with journalctl.
 *  1. dpkg -i enables and starts the unit; systemctl stop is clean (result
 *     success, so within TimeoutStopSec) and the "stopped" record is there.
 *  2. Type=notify: a daemon that cannot open its database (one outside the
 *     unit's ReadWritePaths=) never becomes active, and systemctl start
 *     fails; the database is not made.
 *  3. A good start: active (running) once systemctl start returns, with the
 *     STATUS= text of READY=1 in systemctl show and systemctl status, the
 *     "started" record in the journal and the control socket answering.
 *  4. The sandbox from inside: the daemon's mount namespace has /etc, /usr
 *     and /var/tmp read-only and /var/lib/mapper writable; its status shows
 *     no_new_privs, a seccomp filter and the unit's capability bounding set;
 *     a notify.d hook (same cgroup, filter and namespace) may read a block
 *     device but not open it for writing.
 *  5. The work in the sandbox: a filesystem mounted after the start is
 *     watched; a read of a dm-dust bad block becomes a journal record that
 *     journalctl -o json MESSAGE_ID=... MAPPER_FS_UUID=... returns with the
 *     path, inode, offset and PRIORITY=3; the finding is in the database
 *     (mapctl files), the node_exporter textfile counts the damaged file,
 *     the hooks ran and the mail example handed its mail to sendmail
 *     through systemd-run, outside the sandbox.
 *  6. systemctl reload re-reads the configuration: an exclude= added takes
 *     the filesystem off the watch, same main process.
 *  7. systemd-analyze security mapperd on the running system; the stop.
 *  8. An upgrade keeps an edited conffile; dpkg --purge stops the service
 *     and removes the unit, the configuration and the enablement.
 *
 * Usage (in the guest, vm/run --systemd): vm_mapperd_systemd DEBDIR DEVICE
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "mdtest.h"
#include "vmtest.h"

#define UNIT "mapperd.service"
#define CONF "/etc/mapper/mapperd.conf"
#define PROM_DIR "/var/lib/prometheus/node-exporter"
#define PROM PROM_DIR "/mapper.prom"
#define PROBE_HOOK "/etc/mapper/notify.d/20-probe"
#define PROBE "/run/mapper/probe"
#define MAIL_DIR "/var/tmp/mail"
#define VICTIM "victim.dat"
/* The ids of mapperd/journal_ids.h, written out: a test of the ABI. */
#define ID_DAMAGE "a497cc9eb63543f69374b97abe65ce6d"
#define ID_STARTED "dbe90944c5384e999527410aa3235107"
#define ID_STOPPED "d127ce968be24cf98d11ff15650da868"
/* CapabilityBoundingSet=CAP_SYS_ADMIN(21) CAP_DAC_READ_SEARCH(2)
 * CAP_FOWNER(3) CAP_SYSLOG(34), as /proc/PID/status prints it. */
#define CAP_BOUNDING "000000040020000c"
/* Deadlines of the polls below: far above what the step takes under TCG;
 * only a step that never happens reaches them. */
#define WAIT_SECS 60

/* One property of the unit, copied. */
static char *prop(const char *name)
{
	char *v = strdup(tl_out("systemctl show -p %s --value " UNIT, name));

	REQUIRE(v, "out of memory");
	return v;
}

static void check_prop(const char *name, const char *want)
{
	char *got = prop(name);

	CHECK(strcmp(got, want) == 0, "%s of " UNIT " is \"%s\", want \"%s\"", name, got, want);
	free(got);
}

/* Wait until shell condition @cond holds; false at the deadline. */
static bool wait_sh(const char *cond, double timeout)
{
	double end = tl_mono() + timeout;

	while (tl_sh("%s", cond) != 0) {
		if (tl_mono() > end)
			return false;
		tl_sleep(0.5);
	}
	return true;
}

/* "mapctl daemon status --json" lists @mnt (with fanotify) or not. */
static bool watched(const char *mnt)
{
	const char *out = tl_out("mapctl daemon status --json 2>/dev/null");
	char want[256];
	const char *p;

	snprintf(want, sizeof(want), "\"mountpoint\":\"%s\"", mnt);
	p = strstr(out, want);
	return p && strstr(p, "\"fanotify\":true");
}

static bool wait_watched(const char *mnt, bool present, double timeout)
{
	double end = tl_mono() + timeout;

	while (watched(mnt) != present) {
		if (tl_mono() > end)
			return false;
		tl_sleep(0.5);
	}
	return true;
}

/* A journal field of the first record a filter selects, as jq prints it. */
static char *jfield(const char *filter, const char *field)
{
	char *v = strdup(tl_out("journalctl -o json --no-pager %s | head -n 1 | jq -r '.%s'",
				filter, field));

	REQUIRE(v, "out of memory");
	return v;
}

/* What to look at when a step did not happen. */
static void diagnose(void)
{
	char *pid = prop("MainPID");

	tl_sh("mapctl daemon status --json");
	tl_sh("journalctl -q -o cat --no-pager -u " UNIT " | tail -n 30");
	tl_sh("findmnt -o TARGET,SOURCE,FSTYPE,PROPAGATION /mnt; findmnt -o TARGET,PROPAGATION /");
	tl_sh("nsenter -t %s -m findmnt -o TARGET,SOURCE,FSTYPE,PROPAGATION " FX_MNT, pid);
	free(pid);
}

static void install_hooks(void)
{
	/* The probe: what a hook, in the daemon's cgroup, seccomp filter and
	 * mount namespace, may do. */
	tl_must("cat >" PROBE_HOOK " <<'EOF'\n"
		"#!/bin/sh\n"
		"exec >" PROBE ".tmp 2>&1\n"
		"echo \"event=$MAPPER_EVENT mountpoint=$MAPPER_MOUNTPOINT\"\n"
		"touch /etc/mapper/probe 2>/dev/null && echo etc=writable || echo etc=read-only\n"
		"touch /var/lib/mapper/probe && echo state=writable || echo state=read-only\n"
		"(: <%s) 2>/dev/null && echo blockdev-read=allowed || echo blockdev-read=denied\n"
		"(: <>%s) 2>/dev/null && echo blockdev-write=allowed || echo blockdev-write=denied\n"
		"grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status\n"
		"mv " PROBE ".tmp " PROBE "\n"
		"EOF\n"
		"chmod 0755 " PROBE_HOOK, FX_DUST, FX_DUST);
	/* The mail example, and a sendmail that keeps what it is given where
	 * the daemon's sandbox cannot write (/var/tmp is read-only there). */
	tl_must("install -m 0755 /usr/share/doc/mapper/examples/notify.d/10-mail "
		"/etc/mapper/notify.d/10-mail");
	tl_must("mkdir -p " MAIL_DIR " && printf '#!/bin/sh\\ncat >" MAIL_DIR
		"/mail.$$\\n' >/usr/sbin/sendmail && chmod 0755 /usr/sbin/sendmail");
}

static void step_install(const char *debdir)
{
	/* The man-db trigger would rebuild the index for minutes under TCG;
	 * a container image's policy-rc.d (exit 101) keeps dpkg from starting
	 * services, which a booted server has not. */
	tl_must("rm -f /var/lib/man-db/auto-update /usr/sbin/policy-rc.d");
	tl_must("dpkg -i %s/mapper_*.deb", debdir);
	CHECK_STR(tl_out("systemctl is-enabled " UNIT), "enabled");
	check_prop("ActiveState", "active");
	tl_must("systemctl stop " UNIT);
	check_prop("ActiveState", "inactive");
	check_prop("Result", "success");
	check_prop("ExecMainStatus", "0");
	CHECK(wait_sh("journalctl -q -o cat _SYSTEMD_UNIT=" UNIT " MESSAGE_ID=" ID_STOPPED
		      " | grep -q stopped", WAIT_SECS),
	      "no \"stopped\" record after systemctl stop");
}

static void step_not_ready(void)
{
	tl_must("cp " CONF " /var/tmp/mapperd.conf.orig");
	tl_must("sed -i 's|^database =.*|database = /var/tmp/outside.db|' " CONF);
	CHECK(tl_sh("systemctl start " UNIT) != 0,
	      "systemctl start succeeded with a database the sandbox cannot write");
	char *active = prop("ActiveState");
	CHECK(strcmp(active, "active") != 0, "the unit became active without READY=1");
	free(active);
	check_prop("Result", "exit-code");
	CHECK(access("/var/tmp/outside.db", F_OK) != 0, "the database was made outside "
	      "ReadWritePaths=");
	tl_sh("journalctl -q -o cat --no-pager _SYSTEMD_UNIT=" UNIT " | tail -n 3");
	tl_must("systemctl stop " UNIT " && systemctl reset-failed " UNIT);
	tl_must("cp /var/tmp/mapperd.conf.orig " CONF);
}

static void step_start(void)
{
	tl_must("mkdir -p " PROM_DIR);
	tl_must("sed -i 's|^metrics_file =.*|metrics_file = " PROM "|' " CONF);
	tl_must("systemctl start " UNIT);
	check_prop("ActiveState", "active");
	check_prop("SubState", "running");
	check_prop("Type", "notify");
	check_prop("NotifyAccess", "main");
	char *status = prop("StatusText");
	CHECK(status[0] != '\0', "no STATUS= text once active");
	/* The control socket is set up before READY=1. */
	CHECK_INT(tl_sh("mapctl daemon status >/dev/null"), 0);
	const char *st = tl_out("systemctl status --no-pager --lines=0 " UNIT);
	printf("%s\n", st);
	CHECK(strstr(st, "Active: active (running)"), "systemctl status does not say running");
	char want[1024];
	snprintf(want, sizeof(want), "Status: \"%s\"", status);
	CHECK(strstr(st, want), "systemctl status does not show %s", want);
	free(status);
	CHECK(wait_sh("journalctl -q -o cat _SYSTEMD_UNIT=" UNIT " MESSAGE_ID=" ID_STARTED
		      " | grep -q started", WAIT_SECS),
	      "no \"started\" record");
}

static void step_sandbox(void)
{
	char *pid = prop("MainPID");

	CHECK(tl_sh("nsenter -t %s -m touch /etc/mapper/ns-probe", pid) != 0,
	      "/etc is writable in the daemon's mount namespace");
	CHECK(tl_sh("nsenter -t %s -m touch /usr/sbin/ns-probe", pid) != 0,
	      "/usr is writable in the daemon's mount namespace");
	CHECK(tl_sh("nsenter -t %s -m touch /var/tmp/ns-probe", pid) != 0,
	      "/var/tmp is writable in the daemon's mount namespace");
	CHECK_INT(tl_sh("nsenter -t %s -m touch /var/lib/mapper/ns-probe", pid), 0);
	CHECK_INT(tl_sh("nsenter -t %s -m touch " PROM_DIR "/ns-probe", pid), 0);
	CHECK_STR(tl_out("sed -n 's/^NoNewPrivs:[[:space:]]*//p' /proc/%s/status", pid), "1");
	CHECK_STR(tl_out("sed -n 's/^Seccomp:[[:space:]]*//p' /proc/%s/status", pid), "2");
	CHECK_STR(tl_out("sed -n 's/^CapBnd:[[:space:]]*//p' /proc/%s/status", pid), CAP_BOUNDING);
	free(pid);
}

static void step_damage(const char *uuid, uint64_t ino)
{
	char path[256], filter[256], want[64];
	uint64_t phys = fx_file_physical(VICTIM, 32768);

	snprintf(path, sizeof(path), FX_MNT "/" VICTIM);
	tl_must("dmsetup message dust 0 addbadblock %llu", (unsigned long long)(phys / 4096));
	tl_must("dmsetup message dust 0 enable");
	tl_evict(path);
	CHECK_INT(tl_read_file(path), EIO);

	snprintf(filter, sizeof(filter), "MESSAGE_ID=" ID_DAMAGE " MAPPER_FS_UUID=%s", uuid);
	char cond[512];
	snprintf(cond, sizeof(cond), "journalctl -q -o json %s | grep -q .", filter);
	REQUIRE(wait_sh(cond, WAIT_SECS), "no journal record for %s", filter);
	printf("---- journalctl -o json %s ----\n", filter);
	tl_sh("journalctl -o json --no-pager %s | head -n 1", filter);
	char *v = jfield(filter, "MAPPER_PATH");
	CHECK_STR(v, path);
	free(v);
	snprintf(want, sizeof(want), "%" PRIu64, ino);
	v = jfield(filter, "MAPPER_INODE");
	CHECK_STR(v, want);
	free(v);
	v = jfield(filter, "MAPPER_OFFSET");
	CHECK_STR(v, "32768");
	free(v);
	v = jfield(filter, "PRIORITY");
	CHECK_STR(v, "3");
	free(v);
	v = jfield(filter, "_SYSTEMD_UNIT");
	CHECK_STR(v, UNIT);
	free(v);

	/* The database, read by the packaged mapctl. */
	CHECK_INT(tl_sh("mapctl files " FX_MNT " | grep -qF '%s'", path), 0);
	/* The textfile: one damaged file on this filesystem. */
	snprintf(cond, sizeof(cond), "grep -E '^mapper_damaged_files\\{.*%s.*\\} 1$' " PROM, uuid);
	CHECK(wait_sh(cond, 2 * WAIT_SECS), "the textfile does not count the damaged file");
	/* The hooks. */
	CHECK(wait_sh("test -f " PROBE, WAIT_SECS), "the probe hook did not run");
	const char *probe = tl_out("cat " PROBE);
	printf("---- probe hook ----\n%s\n", probe);
	CHECK(strstr(probe, "event=damage mountpoint=" FX_MNT "\n"), "probe: event");
	CHECK(strstr(probe, "etc=read-only"), "a hook may write /etc");
	CHECK(strstr(probe, "state=writable"), "a hook may not write /var/lib/mapper");
	CHECK(strstr(probe, "blockdev-read=allowed"), "a hook may not read a block device");
	CHECK(strstr(probe, "blockdev-write=denied"), "a hook may open a block device to write");
	CHECK(strstr(probe, "NoNewPrivs:\t1"), "a hook runs without no_new_privs");
	CHECK(strstr(probe, "Seccomp:\t2"), "a hook runs without the seccomp filter");
	CHECK(wait_sh("grep -qsF 'Subject: [mapper] mapper-vm: damage on " FX_MNT "' " MAIL_DIR "/mail.*",
		      WAIT_SECS),
	      "no mail from 10-mail through systemd-run");
	tl_sh("cat " MAIL_DIR "/mail.* | head -n 20");
	printf("---- systemctl status " UNIT " ----\n");
	tl_sh("systemctl status --no-pager --full " UNIT);
}

static void step_reload(void)
{
	char *pid = prop("MainPID");

	tl_must("sed -i 's|^exclude =.*|exclude = " FX_MNT "|' " CONF);
	tl_must("systemctl reload " UNIT);
	CHECK(wait_watched(FX_MNT, false, WAIT_SECS), "still watched after exclude = and reload");
	CHECK(wait_sh("journalctl -q -o cat _SYSTEMD_UNIT=" UNIT " | grep -q 'configuration "
		      CONF " read again'", WAIT_SECS), "no \"read again\" record");
	char *after = prop("MainPID");
	CHECK_STR(after, pid);
	free(after);
	free(pid);
	check_prop("ActiveState", "active");
}

static void step_security_and_stop(void)
{
	const char *sec = tl_out("systemd-analyze security --no-pager " UNIT " | tail -n 1");

	printf("systemd-analyze security: %s\n", sec);
	CHECK(strstr(sec, "Overall exposure level for " UNIT), "no exposure level");
	tl_must("systemctl stop " UNIT);
	check_prop("ActiveState", "inactive");
	check_prop("Result", "success");
	check_prop("ExecMainStatus", "0");
}

/* A newer version of the same package, with a changed conffile. */
static void step_upgrade_purge(const char *debdir)
{
	tl_must("rm -rf /var/tmp/pkg && dpkg-deb -R %s/mapper_*.deb /var/tmp/pkg", debdir);
	tl_must("sed -i 's/^Version: .*/&+test1/' /var/tmp/pkg/DEBIAN/control");
	tl_must("echo '# shipped by the next version' >>/var/tmp/pkg" CONF);
	/* (md5sums lists no conffile: it stays right.) */
	tl_must("dpkg-deb -b /var/tmp/pkg /var/tmp/mapper-next.deb >/dev/null");
	tl_must("dpkg --force-confold -i /var/tmp/mapper-next.deb </dev/null");
	CHECK_INT(tl_sh("grep -qx 'exclude = " FX_MNT "' " CONF), 0);
	CHECK_INT(tl_sh("test -f " CONF ".dpkg-dist"), 0);
	check_prop("ActiveState", "active");

	tl_must("dpkg --purge mapper");
	CHECK_INT(tl_sh("test -e /etc/mapper/mapperd.conf"), 1);
	CHECK_INT(tl_sh("test -e /lib/systemd/system/" UNIT), 1);
	CHECK_INT(tl_sh("test -e /etc/systemd/system/multi-user.target.wants/" UNIT), 1);
	CHECK_INT(tl_sh("pgrep -x mapperd"), 1);
}

int main(int argc, char **argv)
{
	char uuid[64];

	vt_require_vm();
	REQUIRE(argc == 3, "usage: %s DEBDIR DEVICE", argv[0]);
	REQUIRE(strstr(tl_out("readlink /proc/1/exe"), "systemd"),
		"PID 1 is not systemd: run under vm/run --systemd");
	double t0 = tl_mono();

	step_install(argv[1]);
	step_not_ready();
	install_hooks();
	step_start();
	step_sandbox();

	/* Mounted after the start: found through the mount table. */
	fx_setup(argv[2], vt_features());
	tl_must("xfs_io -f -c 'pwrite -q -S 0x5a 0 64k' -c fsync " FX_MNT "/" VICTIM);
	uint64_t ino = fx_ino(VICTIM);
	snprintf(uuid, sizeof(uuid), "%s", tl_out("blkid -o value -s UUID " FX_DUST));
	REQUIRE(uuid[0], "no UUID");
	if (!wait_watched(FX_MNT, true, WAIT_SECS))
		diagnose();
	REQUIRE(watched(FX_MNT), "mapperd does not watch " FX_MNT);

	step_damage(uuid, ino);
	step_reload();
	step_security_and_stop();
	step_upgrade_purge(argv[1]);
	printf("mapperd_systemd: %.1f s\n", tl_mono() - t0);

	fx_teardown();
	return check_done();
}
