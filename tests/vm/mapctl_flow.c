// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The administrator's whole flow with mapctl on a damaged filesystem:
 * scan finds the damage (exit 1), files lists exactly the damaged paths
 * (every hard link, every reflink sharer, odd names exact with -0 and
 * JSON, escaped in text), export --rsync feeds rsync from a pristine
 * mirror, repair rebuilds the damaged inode btree, and the next scan is
 * clean (exit 0) with every finding resolved, contents equal to the mirror
 * and hard links intact.  Then new damage, restored with refetch --from.
 *
 * Usage (in the guest): vm_mapctl_flow MAPCTL DEVICE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"
#include "map_fs.h"
#include "vmtest.h"
#include "xfs_abi.h"

#define MiB (1024ULL * 1024)
#define DB "/tmp/flow.db"
#define MIRROR "/tmp/mirror"

static const char *mapctl;

/* Run mapctl with arguments; its exit status. */
static int ctl(const char *args)
{
	return tl_sh("%s --db " DB " %s", mapctl, args);
}

/*
 * mapctl ARGS prints JSON that holds to its schema in mapper-json(7):
 * tests/unit/json_schema.sh, found next to this source (the guest sees the
 * source tree at the same path).  Not --strict: a real filesystem need not
 * have every member (no refetch orphans, say); none it has may be unlisted.
 */
static void check_schema(const char *command, const char *args)
{
	char top[4096];
	const char *slash = strrchr(__FILE__, '/');

	snprintf(top, sizeof(top), "%.*s/../..", slash ? (int)(slash - __FILE__) : 1,
		 slash ? __FILE__ : ".");
	CHECK_INT(tl_sh("%s --db " DB " %s > /tmp/schema.json; cat /tmp/schema.json; "
			"sh %s/tests/unit/json_schema.sh %s/cli/mapper-json.7 '%s' /tmp/schema.json",
			mapctl, args, top, top, command), 0);
}

/* The NUL-separated output of a command as a sorted, newline-joined list
 * with NUL shown as '|' and newlines inside names as '\n' (2 chars). */
static char *nul_list(const char *cmd)
{
	const char *out = tl_out("%s | tr '\\n\\0' '\\001\\n' | sort | sed 's/\\x01/\\\\n/g' | "
				 "tr '\\n' '|'", cmd);
	return strdup(out);
}

static void check_contents_equal_mirror(void)
{
	/* Every regular file byte-for-byte, names included. */
	CHECK_INT(tl_sh("cd " FX_MNT " && find . -path ./bigdir -prune -o -type f -print0 | sort -z | "
			"xargs -0 sha256sum > /tmp/now.sum && cd " MIRROR " && "
			"sha256sum --quiet -c /tmp/now.sum"), 0);
	/* The hard-linked file still has its three names on one inode. */
	/* tl_out() reuses its buffer: keep the first answer. */
	char *first = strdup(tl_out("stat -c '%%h %%i' " FX_MNT "/docs/thesis.pdf"));
	CHECK_STR(tl_out("stat -c '%%h %%i' " FX_MNT "/public/thesis.pdf"), first);
	free(first);
	CHECK_STR(tl_out("stat -c %%h " FX_MNT "/tree/d03/thesis-link.pdf"), "3");
}

int main(int argc, char **argv)
{
	mapctl = argc > 1 ? argv[1] : "mapctl";
	const char *dev = argc > 2 ? argv[2] : "/dev/vda";

	vt_require_vm();
	fx_setup(dev, vt_features());
	fx_build_tree();
	tl_must("rm -rf " MIRROR " && cp -a " FX_MNT " " MIRROR);

	/* A clean filesystem scans clean. */
	CHECK_INT(ctl("scan " FX_MNT), 0);
	CHECK_INT(ctl("files " FX_MNT), 0);

	/* ---- damage: data, hard link, reflink, odd names, an inode btree, and a
	 * directory block (which our kernel cannot rebuild online) ---- */
	uint32_t ag = fx_ino_agno(fx_ino("big/archive.tar"));
	uint64_t victims[] = {
		fx_file_physical("tree/d07/s2/f05.dat", 8192),
		fx_file_physical("docs/thesis.pdf", 131072),
		fx_file_physical("media/film.mkv", 4 * MiB),
		fx_file_physical("odd/new\nline.txt", 4096),
		fx_file_physical("odd/\xff\xfe-bytes.bin", 0),
		fx_inobt_root_byte(ag),
		fx_dir_first_block("bigdir"),
	};
	int n = (int)(sizeof(victims) / sizeof(victims[0]));
	uint64_t blocks[8];
	for (int i = 0; i < n; i++)
		blocks[i] = victims[i] / 4096;
	fx_umount();
	fx_add_bad_blocks(blocks, n);
	fx_mount();

	CHECK_INT(ctl("scan --json " FX_MNT " > /tmp/scan.json"), 1);
	CHECK_INT(tl_sh("cat /tmp/scan.json; jq -e '.scans[0].open_findings > 0' /tmp/scan.json"), 0);
	CHECK_INT(ctl("status " FX_MNT), 1);

	/* Every JSON of mapctl holds to mapper-json(7) (the database-only
	 * commands also on the host: test_mapctl_json). */
	check_schema("mapctl scan", "scan --json --metadata " FX_MNT);
	check_schema("mapctl status", "status --json " FX_MNT);
	check_schema("mapctl files", "files --json --all " FX_MNT);
	check_schema("mapctl history", "history --json " FX_MNT);
	check_schema("mapctl events", "events --json");
	check_schema("mapctl repair", "repair --dry-run --json " FX_MNT);
	check_schema("mapctl refetch", "refetch --json --dry-run " FX_MNT " --from " MIRROR);
	char locate[128];
	snprintf(locate, sizeof(locate), "locate --json " FX_MNT " --byte %llu",
		 (unsigned long long)victims[1]);
	check_schema("mapctl locate", locate);
	CHECK_STR(tl_out("%s --db " DB " %s | jq -r '.owners[0].paths[0]'", mapctl, locate),
		  FX_MNT "/docs/thesis.pdf");

	/* Exactly the damaged paths, every name, exact bytes with -0. */
	char *cmd;
	REQUIRE(asprintf(&cmd, "%s --db " DB " files -0 " FX_MNT, mapctl) > 0, "asprintf");
	char *got = nul_list(cmd);
	free(cmd);
	const char *want = FX_MNT "/backup/film-copy.mkv|" FX_MNT "/bigdir|" FX_MNT "/docs/thesis.pdf|"
			   FX_MNT "/media/film.mkv|" FX_MNT "/odd/new\\nline.txt|"
			   FX_MNT "/odd/\xff\xfe-bytes.bin|" FX_MNT "/public/thesis.pdf|"
			   FX_MNT "/tree/d03/thesis-link.pdf|" FX_MNT "/tree/d07/s2/f05.dat|";
	CHECK_STR(got, want);
	free(got);

	/* Text escapes, JSON is exact (surrogate escapes for invalid bytes). */
	const char *text = tl_out("%s --db " DB " files " FX_MNT, mapctl);
	CHECK(strstr(text, "odd/new\\nline.txt"), "text shows the newline as \\n");
	CHECK(strstr(text, "odd/\\xff\\xfe-bytes.bin"), "text shows bad bytes as \\xNN");
	CHECK(strstr(text, "131072") && strstr(text, "4194304"), "offsets in the listing");
	const char *json = tl_out("%s --db " DB " files --json " FX_MNT, mapctl);
	CHECK(strstr(json, "odd/new\\nline.txt\""), "JSON escapes the newline");
	CHECK(strstr(json, "odd/\\udcff\\udcfe-bytes.bin\""), "JSON keeps bad bytes as \\udcNN");
	CHECK(strstr(json, "/mnt/fx/bigdir\""), "the damaged directory is listed by its path");
	CHECK_STR(tl_out("%s --db " DB " files --json " FX_MNT
			 " | jq '[.findings[] | select(.kind == \"file\")] | length'", mapctl), "6");
	CHECK_STR(tl_out("%s --db " DB " files --json " FX_MNT
			 " | jq -r '.findings[] | select(.inode == %llu) | .file_offset'", mapctl,
			 (unsigned long long)fx_ino("docs/thesis.pdf")), "131072");

	/* One finding per damaged object (issue 16): the inode btree block is
	 * one finding that both the media read and scrub saw, listed by ID
	 * and AG in files and status; no inode object is recorded twice. */
	CHECK_STR(tl_out("%s --db " DB " files --json " FX_MNT
			 " | jq '[.findings[] | select(.kind == \"inode-btrees\")] | length'", mapctl), "1");
	CHECK_STR(tl_out("%s --db " DB " files --json " FX_MNT " | jq -r '.findings[] | "
			 "select(.kind == \"inode-btrees\") | [.evidence[].source] | unique | "
			 "join(\",\")'", mapctl), "media,scrub");
	CHECK_STR(tl_out("sqlite3 " DB " \"select count(*) from (select kind, ino from findings "
			 "where ino is not null and kind != 'file' group by kind, ino "
			 "having count(*) > 1)\""), "0");
	char inobt_line[64];
	snprintf(inobt_line, sizeof(inobt_line), "#%s ",
		 tl_out("sqlite3 " DB " \"select id from findings where kind = 'inode-btrees'\""));
	text = tl_out("%s --db " DB " files " FX_MNT, mapctl);
	CHECK(strstr(text, inobt_line) && strstr(text, "(AG "), "files lists %s... by AG",
	      inobt_line);
	CHECK(strstr(tl_out("%s --db " DB " status " FX_MNT, mapctl), inobt_line),
	      "status lists finding %s", inobt_line);

	/* ---- restore with export | rsync, repair the metadata ---- */
	CHECK_INT(tl_sh("%s --db " DB " export " FX_MNT " --rsync -0 | rsync -a --inplace "
			"--whole-file --ignore-times --from0 --files-from=- " MIRROR "/ " FX_MNT "/",
			mapctl), 0);
	struct map_fs *fs;
	const char *hist;
	if (vt_modern()) {
		/* With exchange-range the kernel rebuilds the directory from its
		 * readable blocks and its children's parent pointers: every name
		 * comes back, and nothing is left open. */
		CHECK_INT(ctl("repair " FX_MNT " --yes"), 0);
		hist = tl_out("%s --db " DB " history " FX_MNT, mapctl);
		CHECK(strstr(hist, "repaired") && strstr(hist, "inobt"), "inobt repair recorded");
		CHECK(strstr(hist, "repaired") && strstr(hist, "directory"),
		      "directory repair recorded");
		CHECK_STR(tl_out("ls -a " FX_MNT "/bigdir | wc -l"), "502");
		CHECK_INT(tl_sh("ls -a " FX_MNT "/bigdir >/tmp/names.now && ls -a " MIRROR
				"/bigdir >/tmp/names.mirror && cmp /tmp/names.now /tmp/names.mirror"), 0);
	} else {
		/* The inode btree is rebuilt; the directory cannot be without the
		 * exchange-range feature, and the record says so. */
		CHECK_INT(ctl("repair " FX_MNT " --yes"), 1);
	}
	/* The rebuild leaves no summary counters marked sick (else the
	 * filesystem could not be unmounted clean). */
	REQUIRE(map_fs_open(FX_MNT, &fs) == 0, "map_fs_open");
	CHECK_INT(map_fs_info(fs)->geo.sick & XFS_FSOP_GEOM_SICK_COUNTERS, 0);
	map_fs_close(fs);
	if (!vt_modern()) {
		hist = tl_out("%s --db " DB " history " FX_MNT, mapctl);
		CHECK(strstr(hist, "repaired") && strstr(hist, "inobt"), "inobt repair recorded");
		CHECK(strstr(hist, "unsupported") && strstr(hist, "exchange-range"),
		      "directory repair recorded as unsupported, with the reason");
		/* The administrator accepts the directory damage for now: its
		 * entries, and its dotdot entry (in the same unreadable block). */
		CHECK_INT(tl_sh("%s --db " DB " ignore --note 'rebuild offline' $(sqlite3 " DB
				" \"select id from findings where state = 'open' and kind in "
				"('directory', 'parent')\")", mapctl), 0);
	}
	CHECK_INT(ctl("scan " FX_MNT), 0);
	CHECK_STR(tl_out("%s --db " DB " files --all --json " FX_MNT
			 " | jq -r '[.findings[] | select(.kind == \"file\") | .state] | unique | join(\",\")'",
			 mapctl), "resolved");
	CHECK_STR(tl_out("sqlite3 " DB " \"select count(*) from findings where state not in "
			 "('resolved', 'ignored')\""), "0");
	if (vt_modern())
		CHECK_STR(tl_out("sqlite3 " DB " \"select count(*) from findings where state = "
				 "'ignored'\""), "0");
	else
		/* Exactly the directory findings were ignored, nothing else. */
		CHECK_STR(tl_out("sqlite3 " DB " \"select count(*) from findings where "
				 "(state = 'ignored') != (kind in ('directory', 'parent'))\""), "0");
	check_contents_equal_mirror();

	/* ---- new damage, restored with refetch --from ---- */
	uint64_t more[] = {
		fx_file_physical("big/archive.tar", 10 * MiB),
		fx_file_physical("tree/d11/s1/f02.dat", 0),
	};
	blocks[0] = more[0] / 4096;
	blocks[1] = more[1] / 4096;
	fx_umount();
	fx_add_bad_blocks(blocks, 2);
	fx_mount();
	CHECK_INT(ctl("scan --media " FX_MNT), 1);
	CHECK_INT(ctl("refetch " FX_MNT " --from " MIRROR " --dry-run"), 0);
	CHECK_INT(ctl("files " FX_MNT), 1);	/* a dry run changes nothing */
	CHECK_INT(ctl("refetch " FX_MNT " --from " MIRROR), 0);
	CHECK_STR(tl_out("sqlite3 " DB " \"select count(*) from findings where state = "
			 "'refetched'\""), "2");
	CHECK_INT(ctl("scan " FX_MNT), 0);
	CHECK_INT(ctl("status " FX_MNT), 0);
	check_contents_equal_mirror();
	CHECK(strstr(tl_out("%s --db " DB " history " FX_MNT, mapctl), "refetch"),
	      "history shows the refetch");

	CHECK_STR(tl_out("sqlite3 " DB " 'pragma integrity_check'"), "ok");
	fx_umount();
	/* Unmounted, the database-only commands still name it by its recorded
	 * mount point (issue 14), and the paths are the recorded ones. */
	CHECK_INT(ctl("status " FX_MNT), 0);
	CHECK_INT(ctl("history " FX_MNT " | grep refetch"), 0);
	CHECK_STR(tl_out("%s --db " DB " files --all --json " FX_MNT
			 " | jq -r '[.findings[].mountpoint] | unique | join(\",\")'", mapctl), FX_MNT);
	/* The old inode btree block is free now but still unreadable; stop
	 * dm-dust failing it (as a drive remaps a sector) so that xfs_repair,
	 * which reads AG headers in large chunks, can check the rest. */
	tl_must("dmsetup message dust 0 disable");
	CHECK_INT(fx_repair_check(), 0);
	fx_teardown();
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
