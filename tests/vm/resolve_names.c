// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Inode numbers to paths, on both filesystem profiles.
 *
 * modern: every name comes from the inodes' parent pointers (GETPARENTS) and
 *         no directory is read, as the resolver's statistics must show: hard
 *         links in several folders, a 30-level path, names with odd bytes, a
 *         file renamed back and forth during the lookups (every answer is a
 *         name it really had).  A file whose attribute fork (and so its
 *         parent pointers) is unreadable is found in the directories instead,
 *         and the statistics say it fell back.
 * classic: the same names from the directory walk.
 * Both: with the names in the dentry cache, the files with one link are
 *       named from it (no parent pointer, no directory read), a file with
 *       three links still gets all three; a directory is named from the
 *       cache even after the cache was dropped (the kernel reconnects it).
 *       Every other check runs with the dentry cache dropped first, so the
 *       routes above are what is tested.
 * Both: an open but unlinked file has no name; a scan of the damaged
 *       filesystem (an unreadable attribute block, directory block and data
 *       block) completes, exits 1 and names the three damaged paths.
 *
 * Usage (in the guest): vm_resolve_names MAPCTL DEVICE
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "map.h"
#include "vmtest.h"

#define DB "/tmp/resolve.db"
#define DEPTH 30
#define RACE_LOOKUPS 100

static void mkdir_rel(const char *rel)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", FX_MNT, rel);
	REQUIRE(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", path, strerror(errno));
}

static void write_rel(const char *rel, size_t size)
{
	static char buf[65536];
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", FX_MNT, rel);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	REQUIRE(fd >= 0, "create %s: %s", path, strerror(errno));
	memset(buf, 'r', sizeof(buf));
	for (size_t done = 0; done < size;) {
		size_t n = size - done < sizeof(buf) ? size - done : sizeof(buf);

		REQUIRE(write(fd, buf, n) == (ssize_t)n, "write %s: %s", path, strerror(errno));
		done += n;
	}
	REQUIRE(close(fd) == 0, "close %s", path);
}

static void link_rel(const char *from, const char *to)
{
	char a[4096], b[4096];

	snprintf(a, sizeof(a), "%s/%s", FX_MNT, from);
	snprintf(b, sizeof(b), "%s/%s", FX_MNT, to);
	REQUIRE(link(a, b) == 0, "link %s %s: %s", a, b, strerror(errno));
}

/* Resolve one inode; its paths (sorted) joined with '|' in a static buffer. */
static const char *names_of(struct map_fs *fs, uint64_t ino, struct map_resolve_stats *st,
			    struct map_paths *copy)
{
	static char out[8192];
	struct map_paths *p;
	int rc = map_resolve_paths(fs, &ino, 1, &p, st);

	REQUIRE(rc == 0, "map_resolve_paths(%llu): %s", (unsigned long long)ino, map_strerror(rc));
	out[0] = '\0';
	for (size_t k = 0; k < p->npaths; k++) {
		strncat(out, p->paths[k], sizeof(out) - strlen(out) - 2);
		strcat(out, "|");
	}
	if (copy) {
		*copy = *p;
		copy->paths = NULL;
		copy->npaths = 0;
	}
	map_paths_free(p, 1);
	return out;
}

static void print_stats(const char *what, const struct map_resolve_stats *st)
{
	printf("%s: %llu from the dentry cache, parent pointers %s, %llu lookups, %llu fell back, "
	       "%llu of %llu directories read\n", what, (unsigned long long)st->dcache_hits,
	       st->used_parent_pointers ? "used" : "not used",
	       (unsigned long long)st->pptr_lookups, (unsigned long long)st->pptr_fallbacks,
	       (unsigned long long)st->dirs_read, (unsigned long long)st->dirs_total);
}

/* Names of readable inodes: from parent pointers alone on the modern profile,
 * from the directories on the classic one. */
static void check_route(const struct map_resolve_stats *st, uint64_t targets)
{
	CHECK(st->used_parent_pointers == vt_modern(), "parent pointers %s on the %s profile",
	      st->used_parent_pointers ? "used" : "not used", vt_profile());
	if (vt_modern()) {
		CHECK_INT(st->pptr_lookups, targets);
		CHECK_INT(st->pptr_fallbacks, 0);
		CHECK_INT(st->dirs_read, 0);
	} else {
		CHECK(st->dirs_read > 0, "no directory read on the classic profile");
	}
}

static char deep_rel[DEPTH * 4 + 16];

static void build(void)
{
	mkdir_rel("links");
	mkdir_rel("links/a");
	mkdir_rel("links/b");
	mkdir_rel("links/b/c");
	mkdir_rel("links/d");
	mkdir_rel("links/d/e");
	mkdir_rel("links/d/e/f");
	write_rel("links/a/file", 65536);
	link_rel("links/a/file", "links/b/c/file-2");
	link_rel("links/a/file", "links/d/e/f/file-3");

	strcpy(deep_rel, "deep");
	mkdir_rel(deep_rel);
	for (int i = 1; i <= DEPTH; i++) {
		char part[8];

		snprintf(part, sizeof(part), "/l%02d", i);
		strcat(deep_rel, part);
		mkdir_rel(deep_rel);
	}
	strcat(deep_rel, "/leaf");
	write_rel(deep_rel, 4096);

	mkdir_rel("odd");
	write_rel("odd/new\nline", 4096);
	write_rel("odd/\xff\xfe-bytes", 4096);
	write_rel("odd/\r-carriage", 4096);
	write_rel("odd/#hash", 4096);
	write_rel("odd/-dash", 4096);

	mkdir_rel("race");
	write_rel("race/x", 4096);

	/* A file whose attribute fork needs blocks of its own (its parent
	 * pointer lives there too), a directory of several blocks, plain data. */
	mkdir_rel("damaged");
	write_rel("damaged/attrs.dat", 8192);
	int fd = open(FX_MNT "/damaged/attrs.dat", O_RDONLY | O_CLOEXEC);
	REQUIRE(fd >= 0, "open attrs.dat");
	for (int i = 0; i < 40; i++) {
		char name[32], value[250];

		snprintf(name, sizeof(name), "user.a%02d", i);
		memset(value, 'A' + i % 26, sizeof(value));
		REQUIRE(fsetxattr(fd, name, value, sizeof(value), 0) == 0, "setxattr: %s",
			strerror(errno));
	}
	close(fd);
	mkdir_rel("damaged/bigdir");
	for (int i = 0; i < 600; i++) {
		char rel[128];

		snprintf(rel, sizeof(rel), "damaged/bigdir/entry-%04d-with-a-longer-name", i);
		write_rel(rel, 0);
	}
	write_rel("damaged/plain.dat", 65536);
	sync();
}

/* Rename race/x <-> race/y in a child while the parent looks the inode up:
 * every answer must be a name the file really had, never a stale one. */
static void rename_race(struct map_fs *fs)
{
	uint64_t ino = fx_ino("race/x");
	pid_t child = fork();

	REQUIRE(child >= 0, "fork");
	if (child == 0) {
		/* A rename every millisecond or so: often enough to land
		 * inside lookups, rarely enough that most of them can finish. */
		for (;;) {
			if (rename(FX_MNT "/race/x", FX_MNT "/race/y") != 0)
				_exit(1);
			usleep(1000);
			if (rename(FX_MNT "/race/y", FX_MNT "/race/x") != 0)
				_exit(1);
			usleep(1000);
		}
	}
	int named = 0, wrong = 0;
	for (int i = 0; i < RACE_LOOKUPS; i++) {
		const char *got = names_of(fs, ino, NULL, NULL);

		if (strcmp(got, "race/x|") == 0 || strcmp(got, "race/y|") == 0)
			named++;
		else if (got[0])
			wrong++, printf("race: wrong answer '%s'\n", got);
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	printf("race: %d of %d lookups named the file, %d wrong\n", named, RACE_LOOKUPS, wrong);
	CHECK_INT(wrong, 0);
	CHECK(named > RACE_LOOKUPS / 2, "only %d of %d lookups named a file being renamed", named,
	      RACE_LOOKUPS);
}

int main(int argc, char **argv)
{
	const char *mapctl = argc > 1 ? argv[1] : "mapctl";
	const char *dev = argc > 2 ? argv[2] : "/dev/vda";
	struct map_resolve_stats st;
	struct map_fs *fs;

	vt_require_vm();
	fx_setup(dev, vt_features());
	build();
	REQUIRE(map_fs_open(FX_MNT, &fs) == 0, "map_fs_open");
	CHECK(map_fs_info(fs)->geo.parent == vt_modern(), "parent pointer feature flag");

	/* ---- every name of readable files, in one call ---- */
	const char *rels[] = { "links/a/file", deep_rel, "odd/new\nline", "odd/\xff\xfe-bytes",
			       "odd/\r-carriage", "odd/#hash", "odd/-dash" };
	const size_t n = sizeof(rels) / sizeof(rels[0]);
	uint64_t inos[sizeof(rels) / sizeof(rels[0])];
	struct map_paths *p;

	for (size_t i = 0; i < n; i++)
		inos[i] = fx_ino(rels[i]);
	/* First with a cold dentry cache (the full routes), then warm: the
	 * first call's checks looked every name up. */
	tl_drop_caches(2);
	for (int warm = 0; warm < 2; warm++) {
		REQUIRE(map_resolve_paths(fs, inos, n, &p, &st) == 0, "map_resolve_paths");
		print_stats(warm ? "clean tree, names cached" : "clean tree", &st);
		if (!warm) {
			CHECK_INT(st.dcache_hits, 0);
			check_route(&st, n);
		} else {
			/* all but the file with three links */
			CHECK_INT(st.dcache_hits, n - 1);
			CHECK_INT(st.pptr_lookups, vt_modern() ? 1 : 0);
		}
		CHECK_INT(p[0].npaths, 3);
		if (p[0].npaths == 3) {
			CHECK_STR(p[0].paths[0], "links/a/file");
			CHECK_STR(p[0].paths[1], "links/b/c/file-2");
			CHECK_STR(p[0].paths[2], "links/d/e/f/file-3");
		}
		for (size_t i = 1; i < n; i++) {
			CHECK(p[i].npaths == 1, "%zu names for %s", p[i].npaths, rels[i]);
			if (p[i].npaths == 1)
				CHECK_STR(p[i].paths[0], rels[i]);
		}
		map_paths_free(p, n);
	}

	/* A directory opened by handle is reconnected by the kernel, so even a
	 * cold cache names it without a directory read of ours. */
	char deep_dir[sizeof(deep_rel)];
	snprintf(deep_dir, sizeof(deep_dir), "%.*s", (int)(strrchr(deep_rel, '/') - deep_rel),
		 deep_rel);
	uint64_t deep_dir_ino = fx_ino(deep_dir);
	tl_drop_caches(2);
	char want_dir[sizeof(deep_rel) + 1];
	snprintf(want_dir, sizeof(want_dir), "%s|", deep_dir);
	CHECK_STR(names_of(fs, deep_dir_ino, &st, NULL), want_dir);
	print_stats("a directory, cold cache", &st);
	CHECK_INT(st.dcache_hits, 1);
	CHECK_INT(st.dirs_read, 0);
	CHECK_INT(st.pptr_lookups, 0);

	/* ---- an open but unlinked file has no name ---- */
	write_rel("gone.dat", 4096);
	int gone = open(FX_MNT "/gone.dat", O_RDONLY | O_CLOEXEC);
	REQUIRE(gone >= 0, "open gone.dat");
	uint64_t gone_ino = fx_ino("gone.dat");
	REQUIRE(unlink(FX_MNT "/gone.dat") == 0, "unlink");
	struct map_paths g;
	CHECK_STR(names_of(fs, gone_ino, &st, &g), "");
	CHECK(g.unlinked, "an open unlinked file is reported as unlinked");
	CHECK_INT(st.dirs_read, 0);
	close(gone);

	rename_race(fs);
	map_fs_close(fs);

	/* ---- damage: the attribute fork (parent pointers) of one file, a
	 * directory block, a data block ---- */
	uint64_t attrs_ino = fx_ino("damaged/attrs.dat");
	uint64_t plain_ino = fx_ino("damaged/plain.dat");
	uint64_t blocks[] = {
		fx_attr_first_block("damaged/attrs.dat") / 4096,
		fx_dir_first_block("damaged/bigdir") / 4096,
		fx_file_physical("damaged/plain.dat", 8192) / 4096,
	};
	fx_umount();
	fx_add_bad_blocks(blocks, 3);
	fx_mount();
	REQUIRE(map_fs_open(FX_MNT, &fs) == 0, "map_fs_open");

	struct map_paths a;
	tl_drop_caches(2);
	CHECK_STR(names_of(fs, attrs_ino, &st, &a), "damaged/attrs.dat|");
	print_stats("unreadable parent pointers", &st);
	CHECK(a.pptr_unreadable == vt_modern(), "the result says whether parent pointers failed");
	if (vt_modern()) {
		CHECK_INT(st.pptr_fallbacks, 1);
		CHECK(st.dirs_read > 0, "the fallback read no directory");
	}
	/* mapctl locate says where the names came from */
	tl_drop_caches(2);
	const char *loc = tl_out("%s locate " FX_MNT " --byte %llu", mapctl,
				 (unsigned long long)blocks[0] * 4096);
	CHECK(!!strstr(loc, "parent pointers unreadable") == vt_modern(), "locate says: %s", loc);
	CHECK(strstr(loc, "damaged/attrs.dat") != NULL, "locate names the file: %s", loc);
	tl_drop_caches(2);
	CHECK_STR(names_of(fs, plain_ino, &st, NULL), "damaged/plain.dat|");
	print_stats("readable parent pointers", &st);
	check_route(&st, 1);
	map_fs_close(fs);

	/* ---- a whole scan is not blinded by the damage ---- */
	CHECK_INT(tl_sh("%s --db " DB " scan " FX_MNT, mapctl), 1);
	const char *files = tl_out("%s --db " DB " files -0 " FX_MNT " | tr '\\0' '\\n' | sort | "
				   "tr '\\n' '|'", mapctl);
	CHECK_STR(files, FX_MNT "/damaged/attrs.dat|" FX_MNT "/damaged/bigdir|"
		  FX_MNT "/damaged/plain.dat|");

	fx_teardown();
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
