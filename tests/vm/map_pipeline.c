// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The libmap pipeline on a damaged filesystem: verify media finds exactly the
 * bad blocks, map names their owners with exact offsets, resolve names every
 * path, and xfs_scrub names nothing we miss.
 *
 * Usage (in the guest): vm_map_pipeline rmap|normap DEVICE
 *   rmap   : -m rmapbt=1,reflink=1; six victims: plain data, a hard-linked
 *            file, a reflinked extent, a directory block, an inode cluster
 *            and an inode btree block
 *   normap : -m rmapbt=0,reflink=1; the three data victims, through the
 *            extent index
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "fixture.h"
#include "map.h"
#include "vmtest.h"
#include "xfs_abi.h"

#define KiB 1024ULL
#define MiB (1024ULL * 1024)
#define MAX_BAD 32

struct found {
	struct map_range bad[MAX_BAD];
	int nbad;
};

static void on_bad(uint64_t start, uint64_t length, int error, void *arg)
{
	struct found *f = arg;

	printf("bad range: %llu + %llu (%s)\n", (unsigned long long)start,
	       (unsigned long long)length, strerror(error));
	if (f->nbad < MAX_BAD)
		f->bad[f->nbad++] = (struct map_range){ start, length };
}

static int cmp_range(const void *a, const void *b)
{
	const struct map_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Owners of one bad block, and the paths of each inode owner. */
struct located {
	struct map_owner_list owners;
	struct map_paths *paths;	/* parallel to owners (ino 0: empty) */
	struct map_resolve_stats st;
};

static void locate(struct map_fs *fs, uint64_t byte, struct located *l)
{
	memset(l, 0, sizeof(*l));
	int rc = map_locate(fs, byte, 4096, &l->owners);
	REQUIRE(rc == 0, "map_locate(%llu): %s", (unsigned long long)byte, map_strerror(rc));

	uint64_t *inos = calloc(l->owners.n + 1, sizeof(*inos));
	for (size_t i = 0; i < l->owners.n; i++) {
		inos[i] = l->owners.v[i].ino;
		printf("  owner %s ino %llu gen %u offset %llu length %llu flags %#x\n",
		       map_owner_kind_name(l->owners.v[i].kind), (unsigned long long)inos[i],
		       l->owners.v[i].gen, (unsigned long long)l->owners.v[i].offset,
		       (unsigned long long)l->owners.v[i].length, l->owners.v[i].flags);
	}
	struct map_resolve_stats *st = &l->st;
	rc = map_resolve_paths(fs, inos, l->owners.n, &l->paths, st);
	REQUIRE(rc == 0, "map_resolve_paths: %s", map_strerror(rc));
	printf("  resolve: %llu from the dentry cache, %llu of %llu directories read; parent "
	       "pointers %s, %llu lookups, %llu fell back\n", (unsigned long long)st->dcache_hits,
	       (unsigned long long)st->dirs_read,
	       (unsigned long long)st->dirs_total, st->used_parent_pointers ? "used" : "not used",
	       (unsigned long long)st->pptr_lookups, (unsigned long long)st->pptr_fallbacks);
	for (size_t i = 0; i < l->owners.n; i++)
		for (size_t k = 0; k < l->paths[i].npaths; k++)
			printf("  path of %llu: %s\n", (unsigned long long)inos[i],
			       l->paths[i].paths[k]);
	free(inos);
}

static void located_free(struct located *l)
{
	map_paths_free(l->paths, l->owners.n);
	map_owner_list_free(&l->owners);
}

/* The owner of @kind for inode @ino, or NULL. */
static const struct map_owner *owner_of(const struct located *l, enum map_owner_kind kind,
					uint64_t ino, size_t *index)
{
	for (size_t i = 0; i < l->owners.n; i++) {
		if (l->owners.v[i].kind == kind && l->owners.v[i].ino == ino) {
			if (index)
				*index = i;
			return &l->owners.v[i];
		}
	}
	return NULL;
}

/* Paths of owner @i must be exactly @want (sorted, NULL-terminated). */
static void check_paths(const struct located *l, size_t i, const char *const *want)
{
	size_t n = 0;

	while (want[n])
		n++;
	const struct map_paths *p = &l->paths[i];
	CHECK(p->npaths == n, "inode %llu: %zu paths, expected %zu", (unsigned long long)p->ino,
	      p->npaths, n);
	for (size_t k = 0; k < n && k < p->npaths; k++)
		CHECK_STR(p->paths[k], want[k]);
}

/*
 * On the modern profile the names of readable inodes come from their parent
 * pointers alone: no directory is read.  An owner whose inode bulkstat cannot
 * read (@unreadable of them: its inode btree is damaged) has no generation to
 * ask GETPARENTS with, and is looked for in the directories.
 */
static void check_route(const struct located *l, uint64_t unreadable)
{
	uint64_t inodes = 0;	/* owners that are inodes (each inode once here) */
	for (size_t i = 0; i < l->owners.n; i++)
		inodes += l->owners.v[i].ino != 0;
	/* Names the dentry cache gave need no other route. */
	bool all_cached = l->st.dcache_hits == inodes;
	CHECK(l->st.used_parent_pointers == (vt_modern() && !all_cached),
	      "parent pointers %s on the %s profile (%llu of %llu names from the dentry cache)",
	      l->st.used_parent_pointers ? "used" : "not used", vt_profile(),
	      (unsigned long long)l->st.dcache_hits, (unsigned long long)inodes);
	if (!vt_modern())
		return;
	CHECK_INT(l->st.pptr_fallbacks, unreadable);
	CHECK_INT(l->st.pptr_lookups + l->st.dcache_hits + unreadable, inodes);
	if (unreadable == 0)
		CHECK_INT(l->st.dirs_read, 0);
	else
		CHECK(l->st.dirs_read > 0, "no directory read for %llu unreadable inodes",
		      (unsigned long long)unreadable);
}

/* A data victim: @rel at @offset, with @names (sorted) as every path. */
static void check_data_owner(const struct located *l, const char *rel, uint64_t offset,
			     const char *const *names, uint32_t flags, bool by_index)
{
	size_t i;
	uint64_t ino = fx_ino(rel);
	const struct map_owner *o = owner_of(l, MAP_OWNER_FILE, ino, &i);

	REQUIRE(o, "no file owner for %s (ino %llu)", rel, (unsigned long long)ino);
	CHECK_INT(o->offset, offset);
	CHECK_INT(o->length, 4096);
	CHECK_INT(o->flags & ~(MAP_OWNER_F_BY_INDEX | MAP_OWNER_F_NO_INODE), flags);
	CHECK(!!(o->flags & MAP_OWNER_F_BY_INDEX) == by_index, "by-index flag for %s", rel);
	/* An owner bulkstat could not read (its inode btree is bad) gets its
	 * generation and mode from the path it was found under. */
	const struct map_paths *p = &l->paths[i];
	if (o->flags & MAP_OWNER_F_NO_INODE) {
		CHECK_INT(p->gen, fx_gen(rel));
		CHECK(S_ISREG(p->mode), "mode of %s is %o", rel, p->mode);
		CHECK(!p->unreadable, "%s reachable by path", rel);
	} else {
		CHECK_INT(o->gen, fx_gen(rel));
		CHECK_INT(p->gen, o->gen);
		CHECK(S_ISREG(o->mode), "mode of %s is %o", rel, o->mode);
	}
	check_paths(l, i, names);
}

/* ---- scrub results ---- */

struct scrubbed {
	uint64_t results, inodes_seen, bad, last_type, dirtrees, parents;
	uint64_t nlinks, inodes_at_nlinks;	/* nlinks results; inodes before it */
	uint64_t ag_after_inode;		/* AG results after an inode's */
	bool inobt_bad, dir_bad, healthy_last;
	uint32_t inobt_ag;
	uint64_t dir_ino;
	uint64_t cluster_first, cluster_last;
	int cluster_bad;
};

static bool looks_bad(const struct map_scrub_result *r)
{
	if (r->error)
		return r->error != -ENOENT;
	return r->oflags & (XFS_SCRUB_OFLAG_CORRUPT | XFS_SCRUB_OFLAG_XCORRUPT);
}

static int on_scrub(const struct map_scrub_result *r, void *arg)
{
	struct scrubbed *s = arg;

	s->results++;
	s->last_type = r->type;
	if (r->type == XFS_SCRUB_TYPE_INODE)
		s->inodes_seen++;
	if (r->type == XFS_SCRUB_TYPE_NLINKS) {
		s->nlinks++;
		s->inodes_at_nlinks = s->inodes_seen;
	}
	if (map_scrub_type(r->type)->scope == MAP_SCOPE_AG && s->inodes_seen)
		s->ag_after_inode++;
	if (r->type == XFS_SCRUB_TYPE_DIRTREE && !r->error)
		s->dirtrees++;
	if (r->type == XFS_SCRUB_TYPE_PARENT && !r->error)
		s->parents++;
	if (!looks_bad(r) || r->type == XFS_SCRUB_TYPE_HEALTHY)
		return 0;
	s->bad++;
	if (r->type == XFS_SCRUB_TYPE_INOBT && r->agno == s->inobt_ag)
		s->inobt_bad = true;
	if (r->type == XFS_SCRUB_TYPE_DIR && r->ino == s->dir_ino)
		s->dir_bad = true;
	if (r->type == XFS_SCRUB_TYPE_INODE && r->ino >= s->cluster_first &&
	    r->ino <= s->cluster_last)
		s->cluster_bad++;
	char flags[64];
	printf("  scrub %s ag %u ino %llu: %s %s\n", map_scrub_type(r->type)->name, r->agno,
	       (unsigned long long)r->ino, r->error ? map_strerror(r->error) : "",
	       map_scrub_oflags_str(r->oflags, flags, sizeof(flags)));
	return 0;
}

struct cluster {
	uint64_t first, last;
	const char *names[64];
	uint64_t inos[64];
	int n;
};

static void in_cluster(const char *rel, uint64_t ino, void *arg)
{
	struct cluster *c = arg;

	if (ino >= c->first && ino <= c->last && c->n < 64) {
		c->names[c->n] = strdup(rel);
		c->inos[c->n] = ino;
		c->n++;
	}
}

static void scrub_names(const char *const *ours, size_t n)
{
	/* xfs_scrub (6.1) names damaged files "Unfixable Error: PATH: media
	 * error at data offset ..."; every one of them must be among ours. */
	const char *out = tl_out("xfs_scrub -n -x %s 2>&1 | grep 'media error at' | "
				 "sed -e 's/^[A-Za-z ]*: %s\\///' -e 's/: media error at.*//' | sort -u",
				 FX_MNT, "\\/mnt\\/fx");
	char *copy = strdup(out), *save = NULL;
	int named = 0;

	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		bool ours_too = false;

		named++;
		for (size_t i = 0; i < n; i++)
			if (strcmp(ours[i], line) == 0)
				ours_too = true;
		CHECK(ours_too, "xfs_scrub names '%s', we do not", line);
	}
	printf("xfs_scrub named %d damaged file(s); all among ours\n", named);
	free(copy);
}

int main(int argc, char **argv)
{
	bool rmap = argc > 1 && strcmp(argv[1], "rmap") == 0;
	const char *dev = argc > 2 ? argv[2] : "/dev/vda";
	struct map_fs *fs;
	struct found found = { .nbad = 0 };

	vt_require_vm();
	fx_setup(dev, rmap ? vt_features() : "-m rmapbt=0,reflink=1");
	fx_build_tree();

	/* ---- choose victims from ground truth ---- */
	uint64_t v_plain = fx_file_physical("tree/d07/s2/f05.dat", 8192);
	uint64_t v_link = fx_file_physical("docs/thesis.pdf", 131072);
	uint64_t v_reflink = fx_file_physical("media/film.mkv", 4 * MiB);
	CHECK_INT(fx_file_physical("backup/film-copy.mkv", 4 * MiB), v_reflink);
	uint64_t v_dir = 0, v_inodes = 0, v_inobt = 0;
	uint32_t inobt_ag = 0;
	struct cluster cl = { 0 };
	uint64_t dir_ino = fx_ino("bigdir");

	if (rmap) {
		v_dir = fx_dir_first_block("bigdir");
		/* A cluster (32 inodes of 512 bytes, 16 KiB) of inodes/ files that
		 * holds no directory: with it, their names are still readable. */
		uint64_t dir_cluster = fx_ino("inodes") & ~31ULL, ino = 0;
		for (int k = 47; k >= 0 && !ino; k--) {
			char rel[32];

			snprintf(rel, sizeof(rel), "inodes/i%02d", k);
			uint64_t c = fx_ino(rel) & ~31ULL;
			if (c != dir_cluster && c != (fx_ino("") & ~31ULL))
				ino = fx_ino(rel);
		}
		REQUIRE(ino, "every inodes/ file shares a cluster with a directory");
		cl.first = ino & ~31ULL;
		cl.last = cl.first + 31;
		v_inodes = fx_inode_byte(ino) & ~4095ULL;
		fx_walk(in_cluster, &cl);
		REQUIRE(cl.n > 0, "no names in the cluster of inodes/i10");
		/* The inode btree of the AG that holds the plain victim's inode:
		 * its files must still be named although bulkstat cannot list them. */
		inobt_ag = fx_ino_agno(fx_ino("tree/d07/s2/f05.dat"));
		v_inobt = fx_inobt_root_byte(inobt_ag);
		printf("victims: dir %llu inodes %llu (%d names) inobt %llu (AG %u)\n",
		       (unsigned long long)v_dir, (unsigned long long)v_inodes, cl.n,
		       (unsigned long long)v_inobt, inobt_ag);
	}

	if (rmap) {
		/* A clean filesystem scrubs clean, every object, vectored. */
		struct map_fs *clean;
		struct scrubbed sc = { 0 };
		struct map_scrub_stats ss;

		REQUIRE(map_fs_open(FX_MNT, &clean) == 0, "open");
		CHECK_INT(map_scrub_fs(clean, NULL, on_scrub, &sc, &ss), 0);
		CHECK_INT(sc.bad, 0);
		CHECK(ss.vectored, "the 6.12 kernel has vectored scrub");
		CHECK(sc.inodes_seen >= 2700, "%llu inodes scrubbed", (unsigned long long)sc.inodes_seen);
		CHECK_INT(sc.last_type, XFS_SCRUB_TYPE_HEALTHY);
		/* Every AG's own metadata first; the link count walk beside the
		 * inode checks, not after them. */
		CHECK_INT(sc.ag_after_inode, 0);
		CHECK_INT(sc.nlinks, 1);
		CHECK(sc.inodes_at_nlinks < sc.inodes_seen, "nlinks came after %llu of %llu inodes",
		      (unsigned long long)sc.inodes_at_nlinks, (unsigned long long)sc.inodes_seen);
		/* Parent pointers: every directory's place in the tree and every
		 * file's parents are checked; without them only directories' "..". */
		printf("clean scrub: %llu dirtree, %llu parent results\n",
		       (unsigned long long)sc.dirtrees, (unsigned long long)sc.parents);
		if (vt_modern()) {
			CHECK(sc.dirtrees >= 100, "%llu dirtree results", (unsigned long long)sc.dirtrees);
			CHECK(sc.parents >= 2700, "%llu parent results", (unsigned long long)sc.parents);
		} else {
			CHECK_INT(sc.dirtrees, 0);
			CHECK(sc.parents >= 100 && sc.parents < 1000, "%llu parent results",
			      (unsigned long long)sc.parents);
		}
		printf("clean scrub: %llu results in %llu calls\n", (unsigned long long)sc.results,
		       (unsigned long long)ss.calls);
		map_fs_close(clean);
	}

	uint64_t victims[6] = { v_plain, v_link, v_reflink, v_dir, v_inodes, v_inobt };
	int nvictims = rmap ? 6 : 3;
	uint64_t blocks[6];
	for (int i = 0; i < nvictims; i++) {
		REQUIRE(victims[i] % 4096 == 0, "victim %d not block aligned", i);
		blocks[i] = victims[i] / 4096;
	}
	fx_umount();
	fx_add_bad_blocks(blocks, nvictims);
	fx_mount();

	/* ---- verify media ---- */
	int rc = map_fs_open(FX_MNT "/tree", &fs);
	REQUIRE(rc == 0, "map_fs_open: %s", map_strerror(rc));
	const struct map_fs_info *info = map_fs_info(fs);
	CHECK_STR(info->mountpoint, FX_MNT);
	CHECK(info->geo.rmapbt == rmap, "rmapbt flag");
	CHECK(strlen(info->uuid) == 36, "uuid '%s'", info->uuid);

	struct map_range_list written = { 0 };
	rc = map_written_ranges(fs, &written);
	REQUIRE(rc == 0, "map_written_ranges: %s", map_strerror(rc));
	struct map_verify_opts vo = { .io_size = 4 * MiB, .inflight = 4, .bad = on_bad,
				      .arg = &found };
	struct map_verify_stats vs;
	rc = map_verify_media(fs, &written, &vo, &vs);
	REQUIRE(rc == 0, "map_verify_media: %s", map_strerror(rc));
	printf("verified %llu bytes in %.2f s, %llu reads\n", (unsigned long long)vs.bytes_total,
	       vs.seconds, (unsigned long long)vs.reads);
	CHECK(vs.bytes_total >= 60 * MiB, "written bytes %llu", (unsigned long long)vs.bytes_total);

	qsort(found.bad, (size_t)found.nbad, sizeof(found.bad[0]), cmp_range);
	qsort(victims, (size_t)nvictims, sizeof(victims[0]), cmp_u64);
	REQUIRE(found.nbad == nvictims, "found %d bad ranges, expected %d", found.nbad, nvictims);
	for (int i = 0; i < nvictims; i++) {
		CHECK_INT(found.bad[i].start, victims[i]);
		CHECK_INT(found.bad[i].length, 4096);
	}

	/* ---- map and resolve each one ---- */
	const char *all_paths[64];
	size_t nall = 0;
	struct located l;

	printf("plain data block %llu\n", (unsigned long long)v_plain);
	locate(fs, v_plain, &l);
	check_data_owner(&l, "tree/d07/s2/f05.dat", 8192,
			 (const char *const[]){ "tree/d07/s2/f05.dat", NULL }, 0, !rmap);
	all_paths[nall++] = "tree/d07/s2/f05.dat";
	/* its inode is in the AG whose inode btree is unreadable */
	check_route(&l, 1);
	located_free(&l);

	printf("hard-linked file block %llu\n", (unsigned long long)v_link);
	locate(fs, v_link, &l);
	check_data_owner(&l, "docs/thesis.pdf", 131072,
			 (const char *const[]){ "docs/thesis.pdf", "public/thesis.pdf",
						"tree/d03/thesis-link.pdf", NULL }, 0, !rmap);
	all_paths[nall++] = "docs/thesis.pdf";
	all_paths[nall++] = "public/thesis.pdf";
	all_paths[nall++] = "tree/d03/thesis-link.pdf";
	check_route(&l, 0);
	located_free(&l);

	printf("reflinked block %llu\n", (unsigned long long)v_reflink);
	locate(fs, v_reflink, &l);
	check_data_owner(&l, "media/film.mkv", 4 * MiB,
			 (const char *const[]){ "media/film.mkv", NULL }, MAP_OWNER_F_SHARED, !rmap);
	check_data_owner(&l, "backup/film-copy.mkv", 4 * MiB,
			 (const char *const[]){ "backup/film-copy.mkv", NULL }, MAP_OWNER_F_SHARED,
			 !rmap);
	CHECK_INT(l.owners.n, 2);
	all_paths[nall++] = "media/film.mkv";
	all_paths[nall++] = "backup/film-copy.mkv";
	check_route(&l, 0);
	located_free(&l);

	if (rmap) {
		size_t i;

		printf("directory block %llu\n", (unsigned long long)v_dir);
		locate(fs, v_dir, &l);
		const struct map_owner *o = owner_of(&l, MAP_OWNER_DIR, dir_ino, &i);
		REQUIRE(o, "no directory owner for bigdir");
		CHECK_INT(l.owners.n, 1);
		CHECK_INT(o->offset, 0);
		CHECK(o->nr_scrub == 1 && o->scrub[0] == XFS_SCRUB_TYPE_DIR, "dir scrub type");
		check_paths(&l, i, (const char *const[]){ "bigdir", NULL });
		check_route(&l, 0);
		located_free(&l);

		printf("inode cluster block %llu\n", (unsigned long long)v_inodes);
		locate(fs, v_inodes, &l);
		CHECK(owner_of(&l, MAP_OWNER_INODES, 0, NULL), "no inode chunk owner");
		int inode_owners = 0;
		for (size_t k = 0; k < l.owners.n; k++)
			if (l.owners.v[k].kind == MAP_OWNER_INODE)
				inode_owners++;
		CHECK(inode_owners == cl.n, "%d inode owners, %d names in the cluster",
		      inode_owners, cl.n);
		for (int k = 0; k < cl.n; k++) {
			o = owner_of(&l, MAP_OWNER_INODE, cl.inos[k], &i);
			CHECK(o, "no inode owner for %s (ino %llu)", cl.names[k],
			      (unsigned long long)cl.inos[k]);
			if (!o)
				continue;
			CHECK(o->scrub[0] == XFS_SCRUB_TYPE_INODE, "inode scrub type");
			bool named = false;
			for (size_t p = 0; p < l.paths[i].npaths; p++)
				named |= strcmp(l.paths[i].paths[p], cl.names[k]) == 0;
			CHECK(named, "%s is not among the names of inode %llu", cl.names[k],
			      (unsigned long long)cl.inos[k]);
			if (nall < 64)
				all_paths[nall++] = cl.names[k];
		}
		/* Unreadable inodes have no readable parent pointers: their
		 * names come from the directories, and the statistics say so. */
		check_route(&l, (uint64_t)cl.n);
		located_free(&l);

		printf("inode btree block %llu\n", (unsigned long long)v_inobt);
		locate(fs, v_inobt, &l);
		REQUIRE(l.owners.n == 1, "%zu owners of the inobt block", l.owners.n);
		CHECK_INT(l.owners.v[0].kind, MAP_OWNER_INOBT);
		CHECK_INT(l.owners.v[0].agno, inobt_ag);
		CHECK_INT(l.owners.v[0].scrub[0], XFS_SCRUB_TYPE_INOBT);
		located_free(&l);
	}

	if (rmap) {
		/* Damage does not blind the scrub: the broken inode btree, the
		 * directory and the unreadable inodes are reported, and the walk
		 * still reaches every other inode and the summary at the end. */
		struct scrubbed sc = { .inobt_ag = inobt_ag, .dir_ino = dir_ino,
				       .cluster_first = cl.first, .cluster_last = cl.last };
		struct map_scrub_stats ss;

		CHECK_INT(map_scrub_fs(fs, NULL, on_scrub, &sc, &ss), 0);
		CHECK(sc.inobt_bad, "inode btree of AG %u not reported", inobt_ag);
		CHECK(sc.dir_bad, "damaged directory not reported");
		CHECK(sc.cluster_bad == cl.n, "%d of %d unreadable inodes reported", sc.cluster_bad,
		      cl.n);
		CHECK_INT(sc.last_type, XFS_SCRUB_TYPE_HEALTHY);
		/* Inodes of the AG with the broken inode btree cannot be listed;
		 * the other AGs' can, and they hold most of the tree. */
		CHECK(sc.inodes_seen >= 1000, "%llu inodes scrubbed", (unsigned long long)sc.inodes_seen);
	}

	/* xfs_scrub gives up naming files once an inode cluster is unreadable;
	 * whatever it does name must be among ours. */
	scrub_names(all_paths, nall);

	map_range_free(&written);
	map_fs_close(fs);
	fx_teardown();
	CHECK_INT(vt_kernel_log_problems(), 0);
	return check_done();
}
