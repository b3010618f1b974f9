// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapperd reacts to errors as they happen, on a dm-dust filesystem:
 *  1. a read of a file over a bad block fails with EIO; the database soon
 *     holds an event finding for exactly that block: kind file, the inode,
 *     offset 128 KiB, and all three of its names (fanotify FAN_FS_ERROR from
 *     the patched kernel);
 *  2. a directory block that cannot be read (ls fails) gives a finding of
 *     kind directory naming that directory at offset 0 (XFS's "metadata I/O
 *     error ... daddr" kernel log line);
 * The time each took is printed; bench/ measures it over many events (the
 * target is under a second), so a slow machine does not fail this test.
 *  3. two files read with EIO while mapperd is stopped (SIGSTOP): fanotify
 *     merges them into one report with a count of 2; mapperd records the
 *     first file from the report and finds the other with the media scan it
 *     queues for what the report could not name (event_scan_interval is
 *     2 s here: on stock 7.x step 1's read already gives a report with a
 *     count above 1, and its scan must not use up step 3's).  Stock Linux
 *     7.x may also send the second file's report on its own, when the first
 *     was read before the second error came (the test's own listener sees
 *     the second inode named):
 *     on the mainline profile the media scan's check is skipped with a
 *     message and the second file's event finding is checked instead;
 *  4. a file whose inode core fails verification (two bytes of di_mode
 *     overwritten while unmounted): stat fails with EUCLEAN; the kernel's
 *     report names the inode (kernel/patches 1/4) and mapperd stores a
 *     finding of kind inode with that inode and the file's path.  On the
 *     mainline profile only, a kernel whose report does not name the inode
 *     (stock Linux 7.x: the test's own listener sees a report without a
 *     handle) skips the finding's checks with a message; on our kernel that
 *     is a failure;
 *  5. the daemon's repair plan (control socket repair-plan, and mapctl
 *     daemon repair-plan) names the damaged metadata it stored: bigdir of
 *     step 2 with its path, and the inode of step 4 with its path and an
 *     inode rebuild step (when the kernel named it); nobody may not ask;
 *  6. SIGTERM stops the daemon cleanly (exit 0).
 * Classic profile: mapperd builds its directory index of the filesystem
 * before step 1 (status: one ready, as many directories as the tree has),
 * step 1's three names come through it without a retry, a folder renamed
 * and one made and removed reach it as fanotify events; 20 000 files made
 * while the daemon is stopped overflow the event queue: the index is reset
 * and built again after its 10 s delay, with every directory.
 * Modern profile: parent pointers name files, no index is built.
 * Both: after step 1 the filesystem was opened again from what an earlier
 * open learnt (status fs_reopens), and the unmounts of steps 2 and 4 work
 * while the daemon runs (it keeps nothing open between reports).
 *
 * Usage (in the guest): vm_mapperd_events MAPPERD MAPCTL DEVICE
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "fixture.h"
#include "fserror_listen.h"
#include "mdtest.h"
#include "vmtest.h"

#define KiB 1024ULL
#define MiB (1024 * KiB)

#define NOBODY 65534

static char plan[1 << 16];

/*
 * The finding object of the plan in @json for inode @ino (NULL: none): from
 * its "finding_id" to the next one's.  Copied into @buf.
 */
static const char *plan_finding(const char *json, uint64_t ino, char *buf, size_t len)
{
	char key[48];

	snprintf(key, sizeof(key), "\"inode\":%llu,", (unsigned long long)ino);
	const char *at = strstr(json, key);
	if (!at)
		return NULL;
	const char *start = at, *end = strstr(at, "\"finding_id\":");
	while (start > json && strncmp(start, "\"finding_id\":", 13) != 0)
		start--;
	size_t n = end ? (size_t)(end - start) : strlen(start);
	snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), start);
	return buf;
}

/* 5. The daemon's repair plan names @dir_ino at bigdir and, unless 0,
 * @inode_ino at @inode_path with an inode step. */
static void check_repair_plan(uint64_t dir_ino, uint64_t inode_ino, const char *inode_path)
{
	char item[4096] = "", want[256];

	CHECK_INT(mdt_request("repair-plan " FX_MNT, plan, sizeof(plan)), 0);
	printf("repair-plan:\n%s\n", plan);
	CHECK(strstr(plan, "\"command\":\"mapctl daemon repair-plan\"") != NULL,
	      "no output_version of repair-plan");
	CHECK(strstr(plan, "\"dry_run\":true") != NULL, "the plan is not a dry run");
	CHECK(plan_finding(plan, dir_ino, item, sizeof(item)) != NULL,
	      "the plan does not name bigdir (inode %llu)", (unsigned long long)dir_ino);
	snprintf(want, sizeof(want), "\"paths\":[\"%s/bigdir\"]", FX_MNT);
	CHECK(strstr(item, want) && strstr(item, "\"outcome\":\"planned\""),
	      "bigdir's plan item: %s", item);
	if (inode_ino) {
		CHECK(plan_finding(plan, inode_ino, item, sizeof(item)) != NULL,
		      "the plan does not name inode %llu", (unsigned long long)inode_ino);
		snprintf(want, sizeof(want), "\"paths\":[\"%s/%s\"]", FX_MNT, inode_path);
		CHECK(strstr(item, want) && strstr(item, "\"kind\":\"inode\"") &&
		      strstr(item, "\"scrub\":\"inode\""), "%s's plan item: %s", inode_path,
		      item);
	}
	/* mapctl asks for the same plan; nobody is refused (no control_group). */
	const char *via = tl_out("%s daemon repair-plan --socket %s %s", mdt_mapctl, MDT_SOCK,
				 FX_MNT);
	CHECK(plan_finding(via, dir_ino, item, sizeof(item)) != NULL,
	      "mapctl daemon repair-plan does not name bigdir: %s", via);
	CHECK(mdt_request_as(NOBODY, NOBODY, (gid_t)-1, "repair-plan " FX_MNT, plan,
			     sizeof(plan)) == 1 && strstr(plan, "permission denied"),
	      "repair-plan as nobody: %s", plan);
}

struct want {
	const char *kind;
	uint64_t ino;
	uint64_t physical;
	enum map_finding_source source;	/* NONE: event */
};

static bool match_inode(const struct map_finding *f, void *arg)
{
	const uint64_t *ino = arg;

	return f->source == MAP_SOURCE_EVENT && !strcmp(f->kind, "inode") && f->ino == *ino;
}

static bool match(const struct map_finding *f, void *arg)
{
	const struct want *w = arg;

	return f->source == (w->source ? w->source : MAP_SOURCE_EVENT) &&
	       !strcmp(f->kind, w->kind) && f->ino == w->ino && f->has_range &&
	       f->physical == w->physical;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void check_paths(struct map_finding *f, const char *const *want, size_t n)
{
	CHECK(f->npaths == n, "%zu paths, expected %zu", f->npaths, n);
	qsort(f->paths, f->npaths, sizeof(char *), cmp_str);
	for (size_t i = 0; i < n && i < f->npaths; i++)
		CHECK_STR(f->paths[i], want[i]);
}

static int list_dir(const char *path)
{
	DIR *d = opendir(path);
	int err = 0;

	if (!d)
		return errno;
	errno = 0;
	while (readdir(d))
		;
	err = errno;
	closedir(d);
	return err;
}

/* What the test's own listener was told in step 3. */
struct step3_reports {
	uint32_t errors;		/* sum of the reports' counts */
	bool merged;			/* a report had a count above 1 */
	bool named_other;		/* a report named the second file's inode */
};

/*
 * Wait until the listener @fan has been told of @n errors, then 1 s more
 * for reports still on their way; note whether one named inode @other.
 * Linux 6.12 merges every error of a filesystem into one pending report;
 * stock 7.x (fs/fserror.c) sends one report per file.
 */
static bool wait_reports(int fan, uint32_t n, uint64_t other, struct step3_reports *r)
{
	struct kt_fserror ev[8];
	double end = tl_mono() + 10;
	bool grace = false;

	*r = (struct step3_reports){ 0 };
	while (tl_mono() < end) {
		int got = kt_fserror_read(fan, 200, ev, 8);

		for (int i = 0; i < got; i++) {
			kt_fserror_print("step 3 report", &ev[i]);
			r->errors += ev[i].count;
			r->merged |= ev[i].count > 1;
			r->named_other |= ev[i].has_inode && ev[i].ino == other;
		}
		if (r->errors >= n && !grace) {
			grace = true;
			end = tl_mono() + 1;
		}
	}
	return r->errors >= n;
}

/*
 * Feature probe of step 4: does the kernel's FAN_FS_ERROR report for an
 * inode whose core fails verification name that inode?  Stock Linux reports
 * such an inode (still being loaded) for the whole filesystem, with no
 * handle; our patched kernel names it.  A kernel that reports nothing at
 * all fails the test.
 */
static bool kernel_names_inode(int fan, uint64_t ino)
{
	struct kt_fserror ev[8];
	bool named = false;
	int got = 0, n;
	double end = tl_mono() + 10;

	/* After the first report, 3 s more for one that names the inode. */
	while (!named && tl_mono() < end && (n = kt_fserror_read(fan, 1000, ev, 8)) >= 0) {
		for (int i = 0; i < n; i++) {
			kt_fserror_print("step 4 report", &ev[i]);
			named |= ev[i].has_inode && ev[i].ino == ino;
		}
		if (n > 0 && got == 0 && tl_mono() + 3 < end)
			end = tl_mono() + 3;
		got += n;
	}
	CHECK(got > 0, "the kernel reported nothing for the corrupt inode core within 10 s");
	return named;
}

/* A scan an event asked for holds the filesystem open: unmount after it. */
static void wait_scans_idle(void)
{
	double end = tl_mono() + 180;
	const char *v;

	while (tl_mono() < end) {
		bool busy = (v = mdt_status_field(FX_MNT, "running")) && !strncmp(v, "true", 4);

		busy |= (v = mdt_status_field(FX_MNT, "queued")) && !strncmp(v, "true", 4);
		if (!busy)
			return;
		tl_sleep(0.2);
	}
	CHECK(0, "the event scans of %s still run after 180 s", FX_MNT);
}

/* Directories of the tree, the root included. */
static long long count_dirs(void)
{
	return atoll(tl_out("find %s -type d -printf x | wc -c", FX_MNT));
}

/* The directory index: built (classic) or not needed (modern). */
static void check_dir_index(void)
{
	double t = mdt_wait_dirindex(30);

	CHECK(t >= 0, "the directory index is neither ready nor unneeded after 30 s");
	CHECK_INT(mdt_status_number("\"building\":"), 0);
	if (vt_modern()) {
		CHECK_INT(mdt_status_number("\"ready\":"), 0);
		CHECK_INT(mdt_status_number("\"unneeded\":"), 1);
		return;
	}
	CHECK_INT(mdt_status_number("\"ready\":"), 1);
	CHECK_INT(mdt_status_number("\"unneeded\":"), 0);
	printf("directory index ready after %.2f s\n", t);
	CHECK_INT(mdt_status_number("\"directories\":"), count_dirs());
}

int main(int argc, char **argv)
{
	struct map_finding f;
	int arg;

	vt_require_vm();
	arg = mdt_args(argc, argv);
	REQUIRE(arg < argc, "which device?");
	fx_setup(argv[arg], vt_features());
	double t_tree = tl_mono();
	fx_build_tree();
	printf("tree built in %.1f s\n", tl_mono() - t_tree);

	/* Ground truth from FIEMAP / GETBMAPX / lstat, before any damage. */
	const uint64_t thesis_off = 128 * KiB;
	uint64_t thesis_phys = fx_file_physical("docs/thesis.pdf", thesis_off);
	uint64_t thesis_ino = fx_ino("docs/thesis.pdf");
	uint32_t thesis_gen = fx_gen("docs/thesis.pdf");
	uint64_t dir_phys = fx_dir_first_block("bigdir");
	uint64_t dir_ino = fx_ino("bigdir");
	const char *small = "tree/d05/s1/f03.dat", *archive = "big/archive.tar";
	uint64_t small_phys = fx_file_physical(small, 0), small_ino = fx_ino(small);
	uint64_t archive_phys = fx_file_physical(archive, 20 * MiB), archive_ino = fx_ino(archive);
	printf("victims: docs/thesis.pdf inode %llu offset %llu at byte %llu; bigdir inode %llu "
	       "block 0 at byte %llu\n", (unsigned long long)thesis_ino,
	       (unsigned long long)thesis_off, (unsigned long long)thesis_phys,
	       (unsigned long long)dir_ino, (unsigned long long)dir_phys);
	REQUIRE(thesis_phys % 4096 == 0 && dir_phys % 4096 == 0, "victims not block aligned");

	/* A short event_scan_interval: on stock 7.x one failed read of step 1
	 * is reported with a count above 1 (fanotify cannot say the errors
	 * were all of that file), which requests a media scan; with the 6 h
	 * default step 3's merged report could not have its own scan. */
	mdt_write_config("event_scan_interval = 2s\n");
	pid_t pid = mdt_start(NULL);
	REQUIRE(mdt_wait_watched(FX_MNT, true, 10) >= 0, "mapperd does not watch %s", FX_MNT);
	check_dir_index();

	/* 1. A file's data block goes bad; an application reads the file. */
	tl_must("dmsetup message dust 0 addbadblock %llu", (unsigned long long)(thesis_phys / 4096));
	tl_must("dmsetup message dust 0 enable");
	tl_evict(FX_MNT "/docs/thesis.pdf");
	double t0 = tl_mono();
	int err = tl_read_file(FX_MNT "/docs/thesis.pdf");
	printf("the read failed after %.3f s\n", tl_mono() - t0);
	CHECK(err == EIO, "reading docs/thesis.pdf: %s, expected EIO", strerror(err));
	struct want w = { "file", thesis_ino, thesis_phys, MAP_SOURCE_NONE };
	double latency = mdt_wait_finding(match, &w, t0, 10, &f);
	CHECK(latency >= 0, "no event finding for docs/thesis.pdf within 10 s");
	if (latency >= 0) {
		printf("EIO -> stored finding (file) in %.3f s\n", latency);
		CHECK_INT(f.gen, thesis_gen);
		CHECK(f.has_offset, "no file offset");
		CHECK_INT(f.offset, thesis_off);
		CHECK_INT(f.length, 4096);
		CHECK_STR(f.fork, "data");
		CHECK_INT(f.state, MAP_STATE_OPEN);
		static const char *const names[] = { "docs/thesis.pdf", "public/thesis.pdf",
						     "tree/d03/thesis-link.pdf" };
		check_paths(&f, names, 3);
		map_finding_clear(&f);
	}
	CHECK(mdt_count_events("fanotify") >= 1, "no fanotify row in the events table");
	/* The one bad block gives one finding, however often it was read. */
	CHECK_INT(mdt_count_findings(match, &w), 1);
	/* opened again from what the first open learnt, not probed each time */
	CHECK(mdt_status_number("\"fs_reopens\":") >= 1, "no filesystem reopened");
	if (!vt_modern()) {
		CHECK(mdt_status_number("\"uses\":") >= 1, "the directory index was not used");
		CHECK_INT(mdt_status_number("\"retries\":"), 0);
		/* the index follows the tree: a folder renamed, one removed */
		long long before = mdt_status_number("\"events_applied\":");
		tl_must("mv %s/tree/d07 %s/tree/d07-renamed && mkdir %s/tree/new && "
			"rmdir %s/tree/new", FX_MNT, FX_MNT, FX_MNT, FX_MNT);
		double t = tl_mono();
		while (mdt_status_number("\"events_applied\":") < before + 4 && tl_mono() - t < 10)
			tl_sleep(0.1);
		CHECK(mdt_status_number("\"events_applied\":") >= before + 4,
		      "directory events not applied: %lld, then %lld", before,
		      mdt_status_number("\"events_applied\":"));
		CHECK_INT(mdt_status_number("\"directories\":"), count_dirs());
		/* more changes than fanotify queues while the daemon is stopped:
		 * the index is reset, then built again after its delay (10 s) */
		kill(pid, SIGSTOP);
		tl_must("mkdir %s/flood && cd %s/flood && seq -w 1 20000 | xargs touch", FX_MNT,
			FX_MNT);
		kill(pid, SIGCONT);
		t = tl_mono();
		while (mdt_status_number("\"resets\":") < 1 && tl_mono() - t < 10)
			tl_sleep(0.1);
		CHECK_INT(mdt_status_number("\"resets\":"), 1);
		CHECK_INT(mdt_status_number("\"ready\":"), 0);
		while (mdt_status_number("\"ready\":") < 1 && tl_mono() - t < 40)
			tl_sleep(0.2);
		printf("directory index rebuilt %.1f s after the overflow was seen\n", tl_mono() - t);
		CHECK(tl_mono() - t >= 8, "rebuilt before its delay");
		CHECK_INT(mdt_status_number("\"ready\":"), 1);
		CHECK_INT(mdt_status_number("\"directories\":"), count_dirs());
		tl_must("rm -r %s/flood", FX_MNT);
	}

	/* 2. A directory block cannot be read any more.  Remount so nothing
	 * is cached; mapperd must notice both. */
	wait_scans_idle();
	fx_umount();
	CHECK(mdt_wait_watched(FX_MNT, false, 10) >= 0, "unmount not noticed");
	tl_must("dmsetup message dust 0 addbadblock %llu", (unsigned long long)(dir_phys / 4096));
	fx_mount();
	CHECK(mdt_wait_watched(FX_MNT, true, 10) >= 0, "mount not noticed");
	t0 = tl_mono();
	err = list_dir(FX_MNT "/bigdir");
	CHECK(err == EIO, "listing bigdir: %s, expected EIO", strerror(err));
	struct want wd = { map_owner_kind_name(MAP_OWNER_DIR), dir_ino, dir_phys, MAP_SOURCE_NONE };
	latency = mdt_wait_finding(match, &wd, t0, 10, &f);
	CHECK(latency >= 0, "no event finding for directory bigdir within 10 s");
	if (latency >= 0) {
		printf("unreadable directory block -> stored finding (%s) in %.3f s\n", f.kind,
		       latency);
		CHECK(f.has_offset && f.offset == 0, "directory offset %llu, expected 0",
		      (unsigned long long)f.offset);
		CHECK_INT(f.length, 4096);
		static const char *const names[] = { "bigdir" };
		check_paths(&f, names, 1);
		map_finding_clear(&f);
	}
	CHECK(mdt_count_events("kmsg") >= 1, "no kmsg row in the events table");

	/* 3. Two errors before mapperd reads either: one merged report.  The
	 * kernel delivers its reports from a worker, after the reads have
	 * failed; mapperd stays stopped until our own listener has both. */
	tl_sleep(2.5);		/* past event_scan_interval since step 1's scan */
	int fan = kt_fserror_listen(FX_MNT);
	struct kt_fserror stray[8];
	while (kt_fserror_read(fan, 1000, stray, 8) > 0)
		;	/* late reports of step 2 go to mapperd before it stops */
	REQUIRE(kill(pid, SIGSTOP) == 0, "SIGSTOP");
	tl_must("dmsetup message dust 0 addbadblock %llu", (unsigned long long)(small_phys / 4096));
	tl_must("dmsetup message dust 0 addbadblock %llu",
		(unsigned long long)(archive_phys / 4096));
	tl_evict(FX_MNT "/tree/d05/s1/f03.dat");
	tl_evict(FX_MNT "/big/archive.tar");
	t0 = tl_mono();
	CHECK_INT(tl_read_file(FX_MNT "/tree/d05/s1/f03.dat"), EIO);
	CHECK_INT(tl_read_file(FX_MNT "/big/archive.tar"), EIO);
	struct step3_reports rep;
	CHECK(wait_reports(fan, 2, archive_ino, &rep),
	      "the kernel did not deliver 2 error reports within 10 s");
	close(fan);
	REQUIRE(kill(pid, SIGCONT) == 0, "SIGCONT");
	struct want ws = { "file", small_ino, small_phys, MAP_SOURCE_NONE };
	latency = mdt_wait_finding(match, &ws, t0, 10, &f);
	CHECK(latency >= 0, "no event finding for %s (the merged report's inode)", small);
	if (latency >= 0) {
		CHECK(f.npaths == 1 && !strcmp(f.paths[0], small), "path of the first error");
		map_finding_clear(&f);
	}
	/* A kernel that reports each file on its own (stock 7.x) names the
	 * archive itself: an event finding.  One that merged both into the
	 * first report leaves it to the queued media scan.  On our kernel
	 * the reports must merge (kernel/patches keep 6.12's behaviour). */
	if (rep.named_other && !strcmp(vt_profile(), "mainline"))
		printf("SKIPPED step 3's media scan: this kernel reported %s in a report of its "
		       "own (one report per file, stock Linux 7.x), so no scan is needed to "
		       "find it; the report's finding is checked instead\n", archive);
	else
		CHECK(!rep.named_other, "the kernel reported %s on its own: not merged", archive);
	struct want wa = { "file", archive_ino, archive_phys,
			   rep.named_other ? MAP_SOURCE_NONE : MAP_SOURCE_MEDIA };
	latency = mdt_wait_finding(match, &wa, t0, rep.named_other ? 10 : 240, &f);
	CHECK(latency >= 0, "%s did not find %s", rep.named_other ? "its own report" :
	      "the queued media scan", archive);
	if (latency >= 0) {
		printf("the second file's error found by %s after %.1f s\n",
		       rep.named_other ? "its own report" : "the queued media scan", latency);
		CHECK(f.has_offset && f.offset == 20 * MiB, "archive offset %llu",
		      (unsigned long long)f.offset);
		CHECK(f.npaths == 1 && !strcmp(f.paths[0], archive), "archive path");
		map_finding_clear(&f);
	}
	if (rep.merged)
		CHECK(mdt_status_number("\"merged\":") >= 1, "no merged report counted");
	CHECK(mdt_status_number("\"scans_requested\":") >= 1, "no scan requested");

	/* 4. An inode core that fails verification; a cold mount. */
	const char *broken = "tree/d02/s0/f01.dat";
	uint64_t broken_ino = fx_ino(broken);
	wait_scans_idle();	/* step 3's merged report asked for one */
	fx_umount();
	CHECK(mdt_wait_watched(FX_MNT, false, 10) >= 0, "unmount not noticed");
	tl_must("printf '\\377\\377' | dd of=%s bs=1 seek=%llu conv=notrunc status=none", FX_DUST,
		(unsigned long long)fx_inode_byte(broken_ino) + 2);
	fx_mount();
	CHECK(mdt_wait_watched(FX_MNT, true, 10) >= 0, "mount not noticed");
	fan = kt_fserror_listen(FX_MNT);
	t0 = tl_mono();
	struct stat st;
	err = stat(FX_MNT "/tree/d02/s0/f01.dat", &st) == 0 ? 0 : errno;
	CHECK(err == EUCLEAN, "stat of %s: %s, expected EUCLEAN", broken, strerror(err));
	bool named = kernel_names_inode(fan, broken_ino);
	if (named) {
		latency = mdt_wait_finding(match_inode, &broken_ino, t0, 20, &f);
		CHECK(latency >= 0, "no inode finding for %s (inode %llu) within 20 s", broken,
		      (unsigned long long)broken_ino);
		if (latency >= 0) {
			printf("inode core corrupt -> stored finding (inode) in %.3f s\n", latency);
			static const char *const names[] = { "tree/d02/s0/f01.dat" };
			check_paths(&f, names, 1);
			map_finding_clear(&f);
		}
	} else if (!strcmp(vt_profile(), "mainline")) {
		printf("SKIPPED step 4's inode finding: this kernel reported the inode core that "
		       "fails verification without naming the inode (stock Linux; our "
		       "kernel/patches 1/4 names it), so no event can lead to inode %llu\n",
		       (unsigned long long)broken_ino);
	} else {
		/* Our patched kernel must name it: a regression of 1/4 fails here. */
		CHECK(0, "the kernel's report of the corrupt inode core did not name inode %llu",
		      (unsigned long long)broken_ino);
	}
	close(fan);
	check_repair_plan(dir_ino, named ? broken_ino : 0, broken);

	/* mapctl reads what the daemon stored. */
	const char *files = tl_out("%s --db %s files 2>&1", mdt_mapctl, MDT_DB);
	printf("mapctl files:\n%s\n", files);
	CHECK(strstr(files, "docs/thesis.pdf") != NULL, "mapctl files does not list the thesis");

	long long received = mdt_status_number("\"received\":");
	printf("reports received by mapperd: %lld\n", received);
	CHECK_INT(mdt_stop(pid), 0);
	mdt_show_log();
	fx_teardown();
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
