// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The spool and the pipeline's database writer (issue 12, item 6): reports
 * written while the database connection is given up land in the spool, one
 * file each, findings and paths whole; when the database can be opened
 * again they are written in order and the files go.  The spool is bounded
 * in entries and per entry, and a file that is not one of its entries is
 * removed, never half-read.  A rehearsed write (a filesystem made ready
 * for its first report) leaves nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "dbwriter.h"
#include "spool.h"
#include "testlib.h"

static char dir[] = "/tmp/mdspoolXXXXXX";

static void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

/* A dbwriter on a new, empty database @dbname spooling into @spoolname;
 * their paths in @db and @spool. */
static struct md_dbwriter *writer_on_new_db(const char *dbname, const char *spoolname,
					    char db[static 128], char spool[static 128])
{
	struct md_dbwriter *w;
	struct map_store *st;

	path_of(db, 128, dbname);
	path_of(spool, 128, spoolname);
	REQUIRE(map_store_open(db, 0, &st) == 0, "create %s", db);
	map_store_close(st);
	REQUIRE(md_dbwriter_open(db, spool, &w) == 0, "dbwriter");
	return w;
}

static int count_files(const char *sub)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "exit $(ls %s/%s | grep -c '\\.rec$')", dir, sub);
	return WEXITSTATUS(system(cmd));
}

/* A report of @n file findings, each with two names. */
static struct md_spool_entry *report(int n, bool have_info, const char *tag)
{
	struct md_spool_entry *e = calloc(1, sizeof(*e));

	REQUIRE(e, "out of memory");
	e->have_info = have_info;
	snprintf(e->info.uuid, sizeof(e->info.uuid), "0b5e5a1c-1111-4222-8333-444455556666");
	snprintf(e->info.mountpoint, sizeof(e->info.mountpoint), "/srv");
	snprintf(e->info.device, sizeof(e->info.device), "/dev/vdb");
	e->info.geo.blocksize = 4096;
	e->info.geo.agcount = 4;
	e->row.source = MAP_EVENT_FANOTIFY;
	snprintf(e->row.detail, sizeof(e->row.detail), "report %s", tag);
	e->row.error = EIO;
	e->v = calloc((size_t)n + 1, sizeof(*e->v));
	e->n = (size_t)n;
	for (int i = 0; i < n; i++) {
		struct map_finding *f = &e->v[i];
		char p[64];

		map_finding_init(f);
		f->source = MAP_SOURCE_EVENT;
		snprintf(f->kind, sizeof(f->kind), "file");
		f->has_range = true;
		f->physical = 1048576 * (uint64_t)(unsigned char)tag[0] + 4096 * (uint64_t)i;
		f->length = 4096;
		f->ino = 131 + (uint64_t)i;
		f->has_offset = true;
		f->offset = 8192;
		snprintf(p, sizeof(p), "data/%s-%d.bin", tag, i);
		map_finding_add_path(f, p);
		map_finding_add_path(f, "odd/new\nline \xff.txt");
	}
	return e;
}

static void report_free(struct md_spool_entry *e)
{
	md_spool_entry_free(e);
	free(e);
}

static bool never(void *arg)
{
	(void)arg;
	return false;
}

struct tally {
	int findings, paths, events, unnamed_fs;
};

static int on_finding(const struct map_finding *f, void *arg)
{
	struct tally *t = arg;

	t->findings++;
	t->paths += (int)f->npaths;
	for (size_t i = 0; i < f->npaths; i++)
		if (!strcmp(f->paths[i], "odd/new\nline \xff.txt"))
			t->paths += 100;
	return 0;
}

static int on_event(const struct map_event *e, void *arg)
{
	struct tally *t = arg;

	t->events++;
	t->unnamed_fs += e->fs_id == 0;
	return 0;
}

static void writer(void)
{
	char db[128], spool[128];
	struct md_dbwriter *w;
	struct md_dbwriter_stats s;
	struct map_store *st;
	int nnew;

	w = writer_on_new_db("mapper.db", "spool", db, spool);

	/* written straight away while the database is there */
	struct md_spool_entry *e = report(1, true, "live");
	CHECK_INT(md_dbwriter_write(w, e, &nnew, never, NULL), 0);
	CHECK_INT(nnew, 1);
	report_free(e);

	/* given up (its filesystem shut down): kept, one file each */
	md_dbwriter_release(w);
	const char *tags[] = { "a", "b", "c" };
	for (int i = 0; i < 3; i++) {
		e = report(2, i != 2, tags[i]);	/* the last one knows only the uuid */
		CHECK_INT(md_dbwriter_write(w, e, &nnew, never, NULL), 1);
		report_free(e);
	}
	md_dbwriter_get_stats(w, &s);
	CHECK_INT(s.spooled, 3);
	CHECK_INT(s.pending, 3);
	CHECK(s.down, "the writer says it is connected");
	CHECK_INT(count_files("spool"), 3);

	/* the database is back: the next try (a few seconds on) writes them */
	double wait = md_dbwriter_tick(w);
	CHECK(wait > 0 && wait <= 5.0, "next try in %.1f s", wait);
	usleep((useconds_t)(wait * 1e6) + 100000);
	CHECK(md_dbwriter_tick(w) < 0, "something still waits after the replay");
	md_dbwriter_get_stats(w, &s);
	CHECK_INT(s.replayed, 3);
	CHECK_INT(s.pending, 0);
	CHECK(!s.down, "the writer says it is not connected");
	CHECK_INT(count_files("spool"), 0);
	md_dbwriter_close(w);

	struct tally t = { 0 };
	REQUIRE(map_store_open(db, MAP_STORE_READONLY, &st) == 0, "open %s", db);
	CHECK_INT(map_store_findings(st, 0, MAP_FIND_ALL, on_finding, &t), 0);
	CHECK_INT(map_store_events(st, 0, on_event, &t), 0);
	map_store_close(st);
	printf("database after the replay: %d findings, %d events\n", t.findings, t.events);
	CHECK_INT(t.findings, 7);
	CHECK_INT(t.paths, 7 * 2 + 7 * 100);
	CHECK_INT(t.events, 4);
	CHECK_INT(t.unnamed_fs, 0);
}

/* A scrub finding of inode 500 with scrub types @scrub. */
static void metadata_finding(struct map_finding *f, const char *kind, const char *scrub)
{
	map_finding_init(f);
	f->source = MAP_SOURCE_EVENT;
	snprintf(f->kind, sizeof(f->kind), "%s", kind);
	snprintf(f->scrub, sizeof(f->scrub), "%s", scrub);
	f->ino = 500;
	f->gen = 7;
}

static int on_state(const struct map_finding *f, void *arg)
{
	char *out = arg;
	size_t used = strlen(out);

	snprintf(out + used, 256 - used, "%s%s=%s", used ? " " : "", f->kind,
		 map_state_name(f->state));
	return 0;
}

/*
 * A healthy record kept in the spool (the database away) and replayed: the
 * inode's metadata findings whose scrub types the kernel called healthy are
 * resolved (one actions row each), a finding with another type stays open,
 * and so does one of another inode, and one of that inode number whose
 * generation is not known (it may be an earlier inode's).
 */
static void healthy(void)
{
	char db[128], spool[128], states[256] = "";
	struct md_dbwriter *w;
	struct map_store *st;
	int nnew;

	w = writer_on_new_db("healthy.db", "healthy-spool", db, spool);
	struct md_spool_entry *e = report(0, true, "sick");
	free(e->v);			/* report(0, ...) made an empty array */
	e->v = calloc(4, sizeof(*e->v));
	REQUIRE(e->v, "out of memory");
	e->n = 4;
	metadata_finding(&e->v[0], "directory", "directory");
	metadata_finding(&e->v[1], "parent", "parent");
	metadata_finding(&e->v[2], "xattr", "xattr");
	e->v[2].ino = 501;
	metadata_finding(&e->v[3], "xattr", "xattr");
	e->v[3].gen = 0;
	CHECK_INT(md_dbwriter_write(w, e, &nnew, never, NULL), 0);
	CHECK_INT(nnew, 4);
	report_free(e);

	md_dbwriter_release(w);
	e = report(0, true, "healthy");
	e->row.error = 0;
	e->healthy_ino = 500;
	e->healthy_gen = 7;
	snprintf(e->healthy_scrub, sizeof(e->healthy_scrub), "directory,xattr");
	CHECK_INT(md_dbwriter_write(w, e, &nnew, never, NULL), 1);	/* spooled */
	report_free(e);
	double wait = md_dbwriter_tick(w);
	usleep((useconds_t)(wait * 1e6) + 100000);
	CHECK(md_dbwriter_tick(w) < 0, "the healthy record still waits");
	md_dbwriter_close(w);

	REQUIRE(map_store_open(db, MAP_STORE_READONLY, &st) == 0, "open %s", db);
	CHECK_INT(map_store_findings(st, 0, MAP_FIND_ALL, on_state, states), 0);
	map_store_close(st);
	CHECK_STR(states, "directory=resolved parent=open xattr=open xattr=open");
}

static void bounds(void)
{
	char spool[128], junk[256];
	struct md_spool *sp;
	size_t done = 0;
	int rc = 0, kept = 0;

	path_of(spool, sizeof(spool), "bounded");
	REQUIRE(md_spool_open(spool, &sp) == 0, "spool %s", spool);
	struct md_spool_entry *e = report(1, true, "x");
	while (kept <= MD_SPOOL_MAX_ENTRIES && (rc = md_spool_put(sp, e)) == 0)
		kept++;
	report_free(e);
	CHECK_INT(rc, -ENOSPC);
	CHECK_INT(kept, MD_SPOOL_MAX_ENTRIES);
	CHECK_INT(md_spool_pending(sp), MD_SPOOL_MAX_ENTRIES);
	md_spool_close(sp);

	/* one entry past its own bound */
	path_of(spool, sizeof(spool), "big");
	REQUIRE(md_spool_open(spool, &sp) == 0, "spool %s", spool);
	e = report(1, true, "big");
	char *name = malloc(8000);
	memset(name, 'n', 7999);
	name[7999] = '\0';
	for (int i = 0; i < 200; i++)
		map_finding_add_path(&e->v[0], name);
	free(name);
	CHECK_INT(md_spool_put(sp, e), -EFBIG);
	report_free(e);
	CHECK_INT(md_spool_pending(sp), 0);

	/* a file that is not an entry is removed, not handed on */
	snprintf(junk, sizeof(junk), "%s/0000000000000007.rec", spool);
	FILE *f = fopen(junk, "w");
	REQUIRE(f, "%s", junk);
	fputs("MDSPOOL1 but nothing after", f);
	fclose(f);
	md_spool_close(sp);
	REQUIRE(md_spool_open(spool, &sp) == 0, "spool %s", spool);
	CHECK_INT(md_spool_pending(sp), 1);
	CHECK_INT(md_spool_replay(sp, NULL, NULL, &done), 0);
	CHECK_INT(done, 0);
	CHECK_INT(md_spool_pending(sp), 0);
	CHECK(access(junk, F_OK) != 0, "%s is still there", junk);
	md_spool_close(sp);
}

/* A rehearsed report leaves nothing; the same report written after it is
 * new, and a rehearsal while the spool holds reports does nothing. */
static void rehearsal(void)
{
	char db[128], spool[128];
	struct md_dbwriter *w;
	struct map_store *st;
	struct tally t = { 0 };
	int nnew;

	w = writer_on_new_db("rehearsal.db", "spool-rehearsal", db, spool);
	struct md_spool_entry *e = report(2, true, "r");
	md_dbwriter_rehearse(w, e);
	md_dbwriter_rehearse(w, e);
	REQUIRE(map_store_open(db, MAP_STORE_READONLY, &st) == 0, "open %s", db);
	CHECK_INT(map_store_findings(st, 0, MAP_FIND_ALL, on_finding, &t), 0);
	CHECK_INT(map_store_events(st, 0, on_event, &t), 0);
	map_store_close(st);
	CHECK_INT(t.findings, 0);
	CHECK_INT(t.events, 0);
	CHECK_INT(md_dbwriter_write(w, e, &nnew, never, NULL), 0);
	CHECK_INT(nnew, 2);
	report_free(e);

	md_dbwriter_release(w);
	e = report(1, true, "s");
	CHECK_INT(md_dbwriter_write(w, e, &nnew, never, NULL), 1);	/* spooled */
	md_dbwriter_rehearse(w, e);
	report_free(e);
	md_dbwriter_close(w);
	CHECK_INT(count_files("spool-rehearsal"), 1);
}

int main(void)
{
	REQUIRE(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
	writer();
	healthy();
	rehearsal();
	bounds();
	tl_cleanup(dir);
	return check_done();
}
