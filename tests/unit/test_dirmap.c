// SPDX-License-Identifier: GPL-2.0-or-later
/* Path assembly from a directory map: deep trees, hard links, odd names. */
#include "check.h"
#include "map_testing.h"

#define ROOT 128

static void check_path(struct map_dirmap *dm, uint64_t dir, const char *name, const char *want)
{
	char *got = name ? map_dirmap_join(dm, dir, name, strlen(name)) : map_dirmap_path(dm, dir);

	if (want) {
		CHECK(got && strcmp(got, want) == 0, "dir %llu name %s: got \"%s\", want \"%s\"",
		      (unsigned long long)dir, name ? name : "-", got ? got : "(null)", want);
	} else {
		CHECK(got == NULL, "dir %llu: got \"%s\", want no path", (unsigned long long)dir,
		      got ? got : "");
	}
	free(got);
}

int main(void)
{
	struct map_dirmap *dm = map_dirmap_new(ROOT);

	REQUIRE(dm, "map_dirmap_new");
	CHECK_INT(map_dirmap_add(dm, 200, ROOT, "srv", 3), 0);
	CHECK_INT(map_dirmap_add(dm, 300, 200, "my files", 8), 0);
	CHECK_INT(map_dirmap_add(dm, 400, 300, "new\nline", 8), 0);
	CHECK_INT(map_dirmap_add(dm, 500, ROOT, "\xff\xfe", 2), 0);
	/* A name is given with its length: bytes past it are not part of it. */
	CHECK_INT(map_dirmap_add(dm, 600, ROOT, "homeXXX", 4), 0);
	/* A directory has one name: a second sighting does not rename it. */
	CHECK_INT(map_dirmap_add(dm, 300, 200, "other", 5), 0);

	check_path(dm, ROOT, NULL, "");
	check_path(dm, ROOT, "top.txt", "top.txt");
	check_path(dm, 200, NULL, "srv");
	check_path(dm, 400, NULL, "srv/my files/new\nline");
	check_path(dm, 400, "a file", "srv/my files/new\nline/a file");
	check_path(dm, 500, "f", "\xff\xfe/f");
	check_path(dm, 600, NULL, "home");

	/* Hard links: one inode named in two directories. */
	check_path(dm, 300, "thesis.pdf", "srv/my files/thesis.pdf");
	check_path(dm, 600, "thesis-link.pdf", "home/thesis-link.pdf");

	/* Unknown ancestor, and a loop, give no path rather than a wrong one. */
	CHECK_INT(map_dirmap_add(dm, 700, 999, "orphan", 6), 0);
	check_path(dm, 700, NULL, NULL);
	check_path(dm, 700, "x", NULL);
	CHECK_INT(map_dirmap_add(dm, 800, 801, "a", 1), 0);
	CHECK_INT(map_dirmap_add(dm, 801, 800, "b", 1), 0);
	check_path(dm, 800, NULL, NULL);

	/* A deep tree: 2000 levels of "d". */
	uint64_t parent = ROOT;
	for (uint64_t i = 0; i < 2000; i++) {
		CHECK_INT(map_dirmap_add(dm, 10000 + i, parent, "d", 1), 0);
		parent = 10000 + i;
	}
	char *deep = map_dirmap_path(dm, parent);
	REQUIRE(deep, "deep path");
	CHECK_INT(strlen(deep), 2000 * 2 - 1);
	CHECK(strncmp(deep, "d/d/d/", 6) == 0 && deep[strlen(deep) - 1] == 'd', "deep shape");
	free(deep);

	/* What a directory read or an event shows replaces the name known: a
	 * rename, then a move to another parent; the subtree follows. */
	CHECK_INT(map_dirmap_set(dm, 300, 200, "renamed", 7), 0);
	check_path(dm, 400, NULL, "srv/renamed/new\nline");
	CHECK_INT(map_dirmap_set(dm, 300, 500, "moved", 5), 0);
	check_path(dm, 400, "f", "\xff\xfe/moved/new\nline/f");
	/* Forgetting takes the exact name in the exact parent only. */
	CHECK(!map_dirmap_forget(dm, 300, 200, "moved", 5), "forgot under the wrong parent");
	CHECK(!map_dirmap_forget(dm, 300, 500, "move", 4), "forgot under another name");
	check_path(dm, 400, NULL, "\xff\xfe/moved/new\nline");
	CHECK(map_dirmap_forget(dm, 300, 500, "moved", 5), "the name was not forgotten");
	check_path(dm, 300, NULL, NULL);
	check_path(dm, 400, NULL, NULL);	/* no path through an unknown name */
	/* ... and a forgotten directory can be named again. */
	CHECK_INT(map_dirmap_add(dm, 300, 200, "back", 4), 0);
	check_path(dm, 400, NULL, "srv/back/new\nline");

	map_dirmap_free(dm);
	return check_done();
}
