// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Issue 38 item 2, "sick and healthy objects open and close metadata
 * findings", on stock Linux 7.x with mapperd reading the XFS health
 * monitor (health_monitor = yes, no event scans):
 *  1. a directory of 30 entries (one directory block) has the magic of its
 *     block overwritten with xfs_db while unmounted; listing it fails with
 *     EUCLEAN.  The kernel marks the inode's directory sick, the monitor
 *     says so, mapperd scrubs the inode, and the store holds an open
 *     finding of kind directory for that inode, scrub type "directory",
 *     the directory's path;
 *  2. the directory is repaired online (xfs_io repair directory; parent
 *     pointers rebuild it); the kernel marks it healthy again and the
 *     monitor says so: the finding becomes resolved, with an actions row
 *     (resolve, by "kernel (healthmon)", resolved, naming the inode) and a
 *     healthmon events row saying "healthy".  The entries list again;
 *  3. the directory is damaged the same way again (unmounted, xfs_db) and
 *     listed: the kernel marks it sick again and the finding is open again.
 *     The de-duplication window is an hour here, so that "again" is inside
 *     it whatever the guest's speed: a sick record after a healthy one is
 *     news, not a duplicate of the first sick record;
 *  4. SIGTERM stops the daemon cleanly (exit 0).
 * If the kernel sends no healthy record after the repair, step 2 fails with
 * the log showing what came.
 *
 * Usage (in the guest): vm_mapperd_healthy MAPPERD MAPCTL DEVICE
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"
#include "mdtest.h"
#include "vmtest.h"

#define NENTRIES 30

struct want {
	uint64_t ino;
	int state;			/* -1: any */
};

static bool match(const struct map_finding *f, void *arg)
{
	const struct want *w = arg;

	return !strcmp(f->kind, "directory") && f->ino == w->ino && !f->has_range &&
	       (w->state < 0 || (int)f->state == w->state);
}

static int list_dir(const char *path)
{
	DIR *d = opendir(path);
	int err, n = 0;

	if (!d)
		return -errno;
	errno = 0;
	while (readdir(d))
		n++;
	err = errno;
	closedir(d);
	return err ? -err : n;
}

struct act_find {
	int64_t finding_id;
	int n;
};

static int on_action(const struct map_action *a, void *arg)
{
	struct act_find *c = arg;

	printf("action: finding %lld %s by %s: %s (%s)\n", (long long)a->finding_id, a->action,
	       a->user, a->outcome, a->detail);
	c->n += a->finding_id == c->finding_id && !strcmp(a->action, "resolve") &&
		!strcmp(a->user, "kernel (healthmon)") && !strcmp(a->outcome, "resolved");
	return 0;
}

static int count_actions(int64_t finding_id)
{
	struct act_find c = { finding_id, 0 };
	struct map_store *st;

	if (map_store_open(MDT_DB, MAP_STORE_READONLY, &st) != 0)
		return -1;
	map_store_actions(st, 0, on_action, &c);
	map_store_close(st);
	return c.n;
}

int main(int argc, char **argv)
{
	struct map_finding f;
	char needle[64];
	int arg;

	vt_require_vm();
	arg = mdt_args(argc, argv);
	REQUIRE(arg < argc, "which device?");
	fx_setup(argv[arg], vt_features());
	tl_must("mkdir %s/dir && cd %s/dir && for i in $(seq -w 1 %d); do "
		": > entry-with-a-rather-long-name-number-$i; done", FX_MNT, FX_MNT, NENTRIES);
	struct want w = { fx_ino("dir"), MAP_STATE_OPEN };
	fx_umount();
	/* One directory block: its header's magic (bhdr.hdr.magic) zeroed. */
	tl_must("xfs_db -x -c 'inode %llu' -c 'print core.format core.nextents' -c 'dblock 0' "
		"-c 'write -d bhdr.hdr.magic 0' %s", (unsigned long long)w.ino, FX_DUST);
	fx_mount();

	mdt_write_config("health_monitor = yes\nevent_scans = no\nkmsg = no\n"
			 "dedup_window = 1h\n");
	pid_t pid = mdt_start(NULL);
	REQUIRE(mdt_wait_watched(FX_MNT, true, 10) >= 0, "mapperd does not watch %s", FX_MNT);
	const char *hm = mdt_status_field(FX_MNT, "health_monitor");
	REQUIRE(hm && !strncmp(hm, "\"on\"", 4), "health monitor not on: %.60s", hm ? hm : "-");

	/* 1. sick: a finding opens */
	double t0 = tl_mono();
	int n = list_dir(FX_MNT "/dir");
	CHECK(n == -EUCLEAN, "listing dir: %s, expected EUCLEAN", n < 0 ? strerror(-n) : "worked");
	double waited = mdt_wait_finding(match, &w, t0, 30, &f);
	REQUIRE(waited >= 0, "no open directory finding for inode %llu",
		(unsigned long long)w.ino);
	printf("sick directory -> open finding #%lld in %.3f s (scrub %s)\n", (long long)f.id,
	       waited, f.scrub);
	int64_t id = f.id;
	CHECK(strstr(f.scrub, "directory") != NULL, "scrub types %s", f.scrub);
	CHECK(f.npaths == 1 && !strcmp(f.paths[0], "dir"), "paths: %zu, first %s", f.npaths,
	      f.npaths ? f.paths[0] : "-");
	map_finding_clear(&f);
	snprintf(needle, sizeof(needle), "inode %llu ", (unsigned long long)w.ino);
	CHECK(mdt_count_events_with("healthmon", needle) >= 1,
	      "no healthmon event names inode %llu", (unsigned long long)w.ino);

	/* 2. repaired online: healthy closes it */
	t0 = tl_mono();
	CHECK(tl_sh("xfs_io -x -c 'repair directory' %s/dir", FX_MNT) == 0,
	      "xfs_io repair directory failed");
	w.state = MAP_STATE_RESOLVED;
	waited = mdt_wait_finding(match, &w, t0, 30, &f);
	CHECK(waited >= 0, "the directory finding of inode %llu was not resolved within 30 s of "
	      "the repair", (unsigned long long)w.ino);
	if (waited >= 0) {
		printf("repaired directory -> finding #%lld resolved in %.3f s\n", (long long)f.id,
		       waited);
		CHECK_INT(f.id, id);
		map_finding_clear(&f);
	}
	CHECK_INT(count_actions(id), 1);
	CHECK(mdt_count_events_with("healthmon", "healthy") >= 1, "no healthmon event says healthy");
	n = list_dir(FX_MNT "/dir");
	CHECK(n == NENTRIES + 2, "dir lists %d entries after the repair, expected %d", n,
	      NENTRIES + 2);

	/* 3. sick again: open again */
	fx_umount();
	tl_must("xfs_db -x -c 'inode %llu' -c 'print core.format core.nextents' -c 'dblock 0' "
		"-c 'write -d bhdr.hdr.magic 0' %s", (unsigned long long)w.ino, FX_DUST);
	fx_mount();
	REQUIRE(mdt_wait_watched(FX_MNT, true, 10) >= 0, "mapperd does not watch %s again",
		FX_MNT);
	t0 = tl_mono();
	n = list_dir(FX_MNT "/dir");
	CHECK(n == -EUCLEAN, "listing dir again: %s, expected EUCLEAN",
	      n < 0 ? strerror(-n) : "worked");
	w.state = MAP_STATE_OPEN;
	waited = mdt_wait_finding(match, &w, t0, 30, &f);
	CHECK(waited >= 0, "the directory of inode %llu is sick again, but no finding of it is "
	      "open within 30 s", (unsigned long long)w.ino);
	if (waited >= 0) {
		printf("sick again -> finding #%lld open in %.3f s\n", (long long)f.id, waited);
		map_finding_clear(&f);
	}

	/* 4 */
	CHECK_INT(mdt_stop(pid), 0);
	mdt_show_log();
	fx_teardown();
	return check_done();
}
