// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * refetch, for a directory finding.  A folder whose block was lost keeps
 * only some of its names after a repair: xfs_repair moves the files whose
 * names were in that block to lost+found, named by inode number.  The
 * database never named those children (they are not findings), so the
 * mirror says what belongs here.
 *
 * Put back: once the folder's own restore is verified, each entry of the
 * mirror's folder that this one lacks is copied in by mapctl itself
 * (act_restore_copy.h), one level: a missing subfolder is created empty with
 * its attributes, its contents are not copied.  Not recursive on purpose: a
 * lost subfolder is itself whole in lost+found (with everything under it).
 * Every copy goes through the checked folder's descriptor, is read back
 * equal to the mirror, and gets its name only if no file took it meanwhile,
 * so no name that is here is touched and a name a user slips in (a link,
 * say) is left alone, never followed.  Links are copied as links; devices,
 * FIFOs and sockets are not copied.  Names the mirror shares between hard
 * links become separate copies.
 *
 * Orphans: each regular file of lost+found with one name is compared with
 * the files put back of the same size; one that has the same bytes, or is a
 * damaged copy (same size, every readable block equal), is removed, each put
 * back file accounting for one orphan at most.  The others are kept and
 * reported.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "act_path_check.h"
#include "act_refetch_dir.h"
#include "act_restore_copy.h"
#include "act_restore_verify.h"

/* Names of one folder held to tell new names from old: a name is at most
 * 256 bytes, so at most 16 MiB.  A bigger folder is not put back (said so). */
#define DIR_NAMES_MAX 65536
/* Each folder that got files back keeps its descriptor until the orphan
 * pass: well below the usual limit of 1024 descriptors. */
#define PUT_BACK_DIRS_MAX 256
/* Entries of lost+found examined.  Each may be read whole; xfs_repair moves
 * there the files of lost folder blocks, a few hundred names per block, so
 * this covers dozens of lost blocks and keeps one run's time bounded.  The
 * rest are kept and counted. */
#define ORPHANS_EXAMINED_MAX 10000
/* Put back files of an orphan's size compared with it, at most: each
 * mismatch costs a read up to the first differing block. */
#define COMPARE_MAX 64
/* Room for the names listed in a note; the rest are counted. */
#define NAMES_SHOWN 400

struct put_back_dir {
	int fd;			/* the folder (O_PATH), checked before the put-back */
	char *rel;
};

struct put_back_file {
	size_t dir;
	char *name;
	uint64_t ino;
	off_t size;
	bool matched;		/* an orphan was its copy */
};

/* ---- the names of a folder ---- */

struct names {
	char **v;
	size_t n;
};

static void names_free(struct names *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool dot_or_dotdot(const char *n)
{
	return n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0'));
}

/* Folder @opath_fd (O_PATH) opened for reading as a stream, or NULL (errno). */
static DIR *open_listing(int opath_fd)
{
	int fd = reopen_read(opath_fd, O_DIRECTORY);

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	DIR *d = fdopendir(fd);
	if (!d)
		close(fd);
	return d;
}

/* The sorted names of folder @opath_fd: 0, -E2BIG beyond DIR_NAMES_MAX, -errno. */
static int names_of(int opath_fd, struct names *s)
{
	DIR *d = open_listing(opath_fd);
	struct dirent *de;
	int rc = 0;

	if (!d)
		return -errno;
	s->v = calloc(DIR_NAMES_MAX, sizeof(*s->v));
	if (!s->v) {
		closedir(d);
		return -ENOMEM;
	}
	errno = 0;
	while ((de = readdir(d)) != NULL) {
		if (dot_or_dotdot(de->d_name))
			continue;
		if (s->n == DIR_NAMES_MAX) {
			rc = -E2BIG;
			break;
		}
		s->v[s->n] = strdup(de->d_name);
		if (!s->v[s->n]) {
			rc = -ENOMEM;
			break;
		}
		s->n++;
		errno = 0;
	}
	if (rc == 0 && errno)
		rc = -errno;	/* a block of the folder that cannot be read */
	closedir(d);
	if (rc == 0)
		qsort(s->v, s->n, sizeof(*s->v), cmp_str);
	return rc;
}

static bool names_has(const struct names *s, const char *name)
{
	return s->n && bsearch(&name, s->v, s->n, sizeof(*s->v), cmp_str) != NULL;
}

/* ---- notes for people, bounded ---- */

static void add(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

/* A list of names: shown while they fit in NAMES_SHOWN, then counted. */
struct name_list {
	char text[NAMES_SHOWN];
	size_t n, shown;
};

static void list_add(struct name_list *l, const char *name)
{
	size_t used = strlen(l->text), need = strlen(name) + 2;

	l->n++;
	if (used + need + 1 > sizeof(l->text))
		return;
	add(l->text, sizeof(l->text), "%s%s", used ? ", " : "", name);
	l->shown++;
}

static void list_note(char *note, size_t len, const struct name_list *l, const char *what)
{
	if (!l->n)
		return;
	add(note, len, "%s%zu %s: %s", note[0] ? "; " : "", l->n, what, l->text);
	if (l->shown < l->n)
		add(note, len, " and %zu more", l->n - l->shown);
}

/* ---- put back ---- */

struct put_back {
	const struct refetch_src *src;
	struct put_back_set *set;
	int dirfd;		/* the folder here (O_PATH) */
	int mirror_dirfd;	/* the mirror's folder (O_PATH), or -1 */
	const char *rel;
	size_t dir_index;	/* in set->dirs, or SIZE_MAX */
	bool more;		/* more new names than one run checks */
	struct name_list files, links, empty_dirs, failed, foreign, skipped;
};

/* Keep the folder's descriptor for the orphan pass (once). */
static size_t remember_dir(struct put_back *pb)
{
	struct put_back_set *set = pb->set;

	if (pb->dir_index != SIZE_MAX)
		return pb->dir_index;
	if (set->ndirs >= PUT_BACK_DIRS_MAX)
		return SIZE_MAX;
	struct put_back_dir *v = realloc(set->dirs, (set->ndirs + 1) * sizeof(*v));
	if (!v)
		return SIZE_MAX;
	set->dirs = v;
	v[set->ndirs].fd = dup(pb->dirfd);
	v[set->ndirs].rel = strdup(pb->rel);
	if (v[set->ndirs].fd < 0 || !v[set->ndirs].rel) {
		if (v[set->ndirs].fd >= 0)
			close(v[set->ndirs].fd);
		free(v[set->ndirs].rel);
		return SIZE_MAX;
	}
	pb->dir_index = set->ndirs++;
	return pb->dir_index;
}

static void remember_file(struct put_back *pb, const char *name, const struct stat *st)
{
	size_t d = remember_dir(pb);
	struct put_back_set *set = pb->set;

	if (d == SIZE_MAX)
		return;		/* not compared with the orphans: they are kept */
	struct put_back_file *v = realloc(set->files, (set->nfiles + 1) * sizeof(*v));
	if (!v)
		return;
	set->files = v;
	v[set->nfiles] = (struct put_back_file){ .dir = d, .name = strdup(name),
		.ino = (uint64_t)st->st_ino, .size = st->st_size };
	if (v[set->nfiles].name)
		set->nfiles++;
}

static void failed(struct put_back *pb, const char *name, const char *why)
{
	char item[NAME_MAX + 200];

	snprintf(item, sizeof(item), "%s (%s)", name, why);
	list_add(&pb->failed, item);
}

/* Entry @name of the mirror's folder, missing here: copied in. */
static void put_back_one(struct put_back *pb, const char *name)
{
	int m = openat(pb->mirror_dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	enum restore_result rr;
	char why[300] = "";
	struct stat st;

	if (m < 0 || fstat(m, &st) != 0) {
		failed(pb, name, map_strerror(errno));
		goto out;
	}
	if ((uint64_t)st.st_dev == pb->src->dev) {
		failed(pb, name, "in the mirror: on the filesystem being restored");
		goto out;
	}
	if (S_ISREG(st.st_mode))
		rr = restore_file(pb->src->fs, pb->dirfd, name, -1, m, why, sizeof(why));
	else if (S_ISLNK(st.st_mode))
		rr = restore_symlink(pb->dirfd, name, -1, m, why, sizeof(why));
	else if (S_ISDIR(st.st_mode))
		rr = restore_dir(pb->dirfd, name, -1, m, why, sizeof(why));
	else {
		list_add(&pb->skipped, name);
		goto out;
	}
	if (rr == RESTORE_REFUSED) {
		list_add(&pb->foreign, name);	/* a name that appeared meanwhile */
	} else if (rr != RESTORE_OK) {
		failed(pb, name, why);
	} else if (S_ISREG(st.st_mode)) {
		list_add(&pb->files, name);
		if (fstatat(pb->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			remember_file(pb, name, &st);
	} else {
		list_add(S_ISLNK(st.st_mode) ? &pb->links : &pb->empty_dirs, name);
	}
out:
	if (m >= 0)
		close(m);
}

/* Every entry of the mirror's folder not among @before (this folder's). */
static int put_back_names(struct put_back *pb, const struct names *before)
{
	DIR *d = open_listing(pb->mirror_dirfd);
	struct dirent *de;
	size_t seen = 0;

	if (!d)
		return -errno;
	errno = 0;
	while ((de = readdir(d)) != NULL) {
		if (dot_or_dotdot(de->d_name) || names_has(before, de->d_name)) {
			errno = 0;
			continue;
		}
		if (seen++ == DIR_NAMES_MAX) {
			pb->more = true;
			break;
		}
		put_back_one(pb, de->d_name);
		errno = 0;
	}
	int rc = de == NULL && errno ? -errno : 0;
	closedir(d);
	return rc;
}

int refetch_dir_put_back(const struct refetch_src *src, const char *rel, uint64_t ino,
			 uint32_t gen, struct put_back_set *set, char *note, size_t len)
{
	struct put_back pb = { .src = src, .set = set, .dirfd = -1, .mirror_dirfd = -1,
			       .rel = rel, .dir_index = SIZE_MAX };
	struct path_check pc, mpc = { .fd = -1, .dirfd = -1 };
	struct names before = { 0 };
	int rc;

	note[0] = '\0';
	/* The folder's own path check again, right before: the copies go into
	 * what this descriptor holds. */
	if (path_check(src->rootfd, src->dev, rel, ino, gen, &pc) != PATH_SAME ||
	    !S_ISDIR(pc.st.st_mode)) {
		snprintf(note, len, "its entries were not put back: %s",
			 pc.state == PATH_SAME ? "no longer a folder" : pc.why);
		rc = 1;
		goto out;
	}
	pb.dirfd = pc.fd;
	if (path_check(src->mirror_fd, 0, rel, 0, 0, &mpc) != PATH_SAME ||
	    !S_ISDIR(mpc.st.st_mode)) {
		snprintf(note, len, "its entries were not put back: in the mirror: %s",
			 mpc.state == PATH_SAME ? "not a folder" : mpc.why);
		rc = 1;
		goto out;
	}
	pb.mirror_dirfd = mpc.fd;
	rc = names_of(pb.dirfd, &before);
	if (rc) {
		snprintf(note, len, "its entries were not put back: %s",
			 rc == -E2BIG ? "more names than one run compares (65536)" :
			 map_strerror(rc));
		rc = 1;
		goto out;
	}
	rc = put_back_names(&pb, &before);
	if (rc) {
		snprintf(note, len, "the mirror's folder cannot be listed: %s", map_strerror(rc));
		rc = 1;
		goto out;
	}
	list_note(note, len, &pb.files, "files put back from the mirror");
	list_note(note, len, &pb.links, "symbolic links put back");
	list_note(note, len, &pb.empty_dirs, "folders created empty (their contents were "
		  "not copied)");
	list_note(note, len, &pb.failed, "not put back");
	list_note(note, len, &pb.foreign, "names that appeared meanwhile, left alone");
	list_note(note, len, &pb.skipped, "devices, FIFOs or sockets, not copied");
	if (pb.more)
		add(note, len, "%smore missing names than one run copies (%d): run refetch again",
		    note[0] ? "; " : "", DIR_NAMES_MAX);
	if (!note[0])
		add(note, len, "no entry of the mirror was missing");
	rc = pb.failed.n || pb.foreign.n || pb.more ? 1 : 0;
out:
	names_free(&before);
	path_check_close(&pc);
	path_check_close(&mpc);
	return rc;
}

/* ---- orphans ---- */

int orphan_remove(int dirfd, const char *name, uint64_t ino, int fd, char *why, size_t len)
{
	char proc[40];
	struct stat st;

	/* Not through open(): with ACLs, opening reads the attribute fork. */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (listxattr(proc, NULL, 0) < 0 && (errno == EIO || errno == EUCLEAN)) {
		snprintf(why, len, "its extended attributes cannot be read, and deleting it "
			 "would leak their blocks: remove it after 'mapctl repair'");
		return 0;
	}
	/* The same inode, checked again right before it goes. */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return -errno;
	if ((uint64_t)st.st_ino != ino) {
		snprintf(why, len, "its name now holds another inode");
		return 0;
	}
	if (unlinkat(dirfd, name, 0) != 0)
		return -errno;
	return 1;
}

/* The put back file that orphan @ofd (open for reading, @st) is a copy of,
 * or SIZE_MAX; @why says how it matched, or why the first near miss did
 * not (empty if no file of its size could be compared). */
static size_t find_match(struct put_back_set *set, int ofd, const struct stat *st, char *why,
			 size_t len)
{
	size_t compared = 0;

	for (size_t i = 0; i < set->nfiles && compared < COMPARE_MAX; i++) {
		struct put_back_file *f = &set->files[i];
		struct stat now;

		if (f->matched || f->size != st->st_size)
			continue;
		compared++;
		int cfd = openat(set->dirs[f->dir].fd, f->name,
				 O_RDONLY | O_NOFOLLOW | O_NOATIME | O_NONBLOCK | O_CLOEXEC);
		if (cfd < 0)
			continue;
		char how[200] = "";
		int m = fstat(cfd, &now) == 0 && (uint64_t)now.st_ino == f->ino ?
			orphan_matches(ofd, cfd, how, sizeof(how)) : 0;
		close(cfd);
		/* Bytes alone do not make one owner's orphan a copy of a file the
		 * mirror gives to another: it stays for the administrator. */
		if (m == 1 && (now.st_uid != st->st_uid || now.st_gid != st->st_gid)) {
			snprintf(why, len, "it has the bytes of %s/%s, but its owner %u:%u is not "
				 "that file's %u:%u", set->dirs[f->dir].rel, f->name,
				 (unsigned)st->st_uid, (unsigned)st->st_gid, (unsigned)now.st_uid,
				 (unsigned)now.st_gid);
			continue;
		}
		if (m == 0 && how[0] && !why[0])
			snprintf(why, len, "%s/%s: %s", set->dirs[f->dir].rel, f->name, how);
		if (m == 1) {
			snprintf(why, len, "%s as %s/%s", how, set->dirs[f->dir].rel, f->name);
			return i;
		}
	}
	return SIZE_MAX;
}

static void examine_orphan(struct put_back_set *set, int lfd, const char *name,
			   struct orphan_report *rep)
{
	struct orphan_fate *fate = &rep->v[rep->n];
	char why[sizeof(fate->why)] = "";
	struct stat st;
	int opath = openat(lfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC), ofd = -1;

	if (opath < 0 || fstat(opath, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
		rep->others++;
		if (opath >= 0)
			close(opath);
		return;
	}
	memset(fate, 0, sizeof(*fate));
	snprintf(fate->name, sizeof(fate->name), "%s", name);
	rep->n++;
	/* An empty orphan equals every empty file: no evidence it is a copy. */
	if (st.st_size == 0) {
		snprintf(fate->why, sizeof(fate->why), "kept in lost+found: it is empty, so "
			 "nothing shows which file it was");
		goto out;
	}
	ofd = reopen_read(opath, O_NOATIME | O_NONBLOCK);
	if (ofd < 0) {
		snprintf(fate->why, sizeof(fate->why), "kept in lost+found: cannot be read: %s",
			 map_strerror(ofd));
		goto out;
	}
	size_t i = find_match(set, ofd, &st, why, sizeof(why));
	if (i == SIZE_MAX) {
		snprintf(fate->why, sizeof(fate->why), "kept in lost+found: %s",
			 why[0] ? why : "no restored file has its content");
		goto out;
	}
	char kept[200] = "";
	int rm = orphan_remove(lfd, name, (uint64_t)st.st_ino, opath, kept, sizeof(kept));
	if (rm == 1) {
		set->files[i].matched = true;
		fate->removed = true;
		snprintf(fate->why, sizeof(fate->why), "removed: %s", why);
	} else if (rm == 0) {
		snprintf(fate->why, sizeof(fate->why), "kept in lost+found: %s", kept);
	} else {
		snprintf(fate->why, sizeof(fate->why), "kept in lost+found: cannot remove it: %s",
			 map_strerror(rm));
	}
out:
	if (ofd >= 0)
		close(ofd);
	close(opath);
}

void refetch_dir_orphans(const struct refetch_src *src, struct put_back_set *set,
			 struct orphan_report *rep)
{
	struct path_check pc;
	struct dirent *de;
	DIR *d;

	memset(rep, 0, sizeof(*rep));
	if (set->nfiles == 0)
		return;
	if (path_check(src->rootfd, src->dev, "lost+found", 0, 0, &pc) != PATH_SAME ||
	    !S_ISDIR(pc.st.st_mode)) {
		if (pc.state != PATH_MISSING)
			snprintf(rep->note, sizeof(rep->note), "lost+found not read: %s",
				 pc.state == PATH_SAME ? "not a folder" : pc.why);
		path_check_close(&pc);
		return;
	}
	d = open_listing(pc.fd);
	rep->v = calloc(ORPHANS_EXAMINED_MAX, sizeof(*rep->v));
	if (!d || !rep->v) {
		snprintf(rep->note, sizeof(rep->note), "lost+found not read: %s",
			 map_strerror(d ? -ENOMEM : -errno));
		if (d)
			closedir(d);
		path_check_close(&pc);
		return;
	}
	rep->examined = true;
	/* Entries removed while reading are fine: readdir moves on by offset. */
	while ((de = readdir(d)) != NULL) {
		if (dot_or_dotdot(de->d_name))
			continue;
		if (rep->n + rep->others >= ORPHANS_EXAMINED_MAX) {
			rep->truncated = true;
			break;
		}
		examine_orphan(set, pc.fd, de->d_name, rep);
	}
	closedir(d);
	path_check_close(&pc);
}

void put_back_set_free(struct put_back_set *set)
{
	for (size_t i = 0; i < set->ndirs; i++) {
		close(set->dirs[i].fd);
		free(set->dirs[i].rel);
	}
	for (size_t i = 0; i < set->nfiles; i++)
		free(set->files[i].name);
	free(set->dirs);
	free(set->files);
	memset(set, 0, sizeof(*set));
}

void orphan_report_free(struct orphan_report *rep)
{
	free(rep->v);
	memset(rep, 0, sizeof(*rep));
}
