// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * refetch, for a directory finding.  A folder whose block was lost keeps
 * only some of its names after a repair: xfs_repair moves the files whose
 * names were in that block to lost+found, named by inode number.  The
 * database never named those children (they are not findings), so the
 * mirror says what belongs here.
 *
 * Put back: once the folder's own restore is verified, a second rsync run
 * copies the mirror's entries of that one folder (--dirs: one level; a
 * missing subfolder is created empty with its attributes, its contents are
 * not copied) with --ignore-existing, so no name that is here is touched.
 * Not recursive on purpose: a lost subfolder is itself whole in lost+found
 * (with everything under it), and every level more is more paths that rsync,
 * running as root, resolves again by name in folders users may write.  The
 * destination is the checked folder's descriptor (/proc/self/fd/N), and with
 * a local mirror the source too.  No --inplace: rsync writes a new file and
 * renames it into place, so a name a user slips in meanwhile (a link, say)
 * is replaced, never followed.  Links are copied as links (-l), never
 * followed; no devices or FIFOs (--no-D).
 *
 * Which names are new is told by listing the folder before and after rsync;
 * with a local mirror a new name must also be the mirror's (type, size,
 * owner), so a file a user creates meanwhile is not taken for ours.  Each
 * new file is read back from the device, its extended attributes checked.
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
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "path_check.h"
#include "refetch_dir.h"
#include "restore_verify.h"

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

/* ---- rsync ---- */

/* One level of the mirror's folder @src_path into folder @dst_fd; its exit
 * status, or -errno.  @src_fd >= 0: a local mirror's folder, by descriptor. */
static int rsync_entries(const struct refetch_src *src, const char *src_path, int src_fd,
			 int dst_fd)
{
	const char *argv[24];
	char from[40], to[40];
	int n = 0, status;
	pid_t pid;

	argv[n++] = "rsync";
	argv[n++] = "--dirs";		/* this folder's entries, one level */
	argv[n++] = "--links";		/* a link is copied as a link, never followed */
	argv[n++] = "--perms";
	argv[n++] = "--times";
	argv[n++] = "--owner";
	argv[n++] = "--group";
	argv[n++] = "-A";		/* ACLs */
	argv[n++] = "-X";		/* extended attributes */
	argv[n++] = "--numeric-ids";	/* the mirror's user names may differ */
	argv[n++] = "--no-D";		/* never a device node or FIFO from a mirror */
	argv[n++] = "-H";		/* names of one file here stay one file */
	argv[n++] = "--ignore-existing";	/* never a name that is here */
	argv[n++] = src_fd >= 0 ? from : src_path;
	argv[n++] = to;
	argv[n] = NULL;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/* By descriptor: the checked folders are not looked up again by
		 * path (dup() leaves them open across exec). */
		snprintf(to, sizeof(to), "/proc/self/fd/%d/", dup(dst_fd));
		if (src_fd >= 0)
			snprintf(from, sizeof(from), "/proc/self/fd/%d/", dup(src_fd));
		if (src->ctl->json)
			dup2(STDERR_FILENO, STDOUT_FILENO);	/* stdout is the JSON */
		execvp("rsync", (char *const *)argv);
		fprintf(stderr, "%s: cannot run rsync: %s\n", src->ctl->prog, strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
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
	struct name_list files, links, empty_dirs, failed, foreign;
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

/* Is new name @name the mirror's (a local mirror): same type, and for a file
 * the same size and owner? */
static bool is_the_mirrors(const struct put_back *pb, const char *name, const struct stat *st)
{
	struct stat m;

	if (pb->mirror_dirfd < 0)
		return true;	/* a remote mirror: rsync's word */
	if (fstatat(pb->mirror_dirfd, name, &m, AT_SYMLINK_NOFOLLOW) != 0 ||
	    (m.st_mode & S_IFMT) != (st->st_mode & S_IFMT))
		return false;
	return !S_ISREG(m.st_mode) || (m.st_size == st->st_size && m.st_uid == st->st_uid &&
				       m.st_gid == st->st_gid);
}

static void failed(struct put_back *pb, const char *name, const char *why)
{
	char item[NAME_MAX + 200];

	snprintf(item, sizeof(item), "%s (%s)", name, why);
	list_add(&pb->failed, item);
}

/* A file put back: read back from the device, attributes checked. */
static void check_new_file(struct put_back *pb, const char *name, const struct stat *st)
{
	char why[300] = "";
	struct stat now;
	int fd = openat(pb->dirfd, name, O_RDONLY | O_NOFOLLOW | O_NOATIME | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		failed(pb, name, strerror(errno));
		return;
	}
	if (fstat(fd, &now) != 0 || now.st_ino != st->st_ino) {
		failed(pb, name, "replaced while it was checked");
		goto out;
	}
	int v = verify_file_media(pb->src->fs, fd);
	if (v) {
		failed(pb, name, v == 1 ? "blocks unreadable" : map_strerror(v));
		goto out;
	}
	int mfd = -1;
	if (pb->mirror_dirfd >= 0)
		mfd = openat(pb->mirror_dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	v = verify_xattrs(fd, mfd, why, sizeof(why));
	if (mfd >= 0)
		close(mfd);
	if (v) {
		failed(pb, name, v < 0 ? map_strerror(v) : why);
		goto out;
	}
	list_add(&pb->files, name);
	remember_file(pb, name, &now);
out:
	close(fd);
}

static void check_new_link(struct put_back *pb, const char *name)
{
	char why[300] = "";
	int fd = openat(pb->dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC), mfd = -1;

	if (fd < 0) {
		failed(pb, name, strerror(errno));
		return;
	}
	if (pb->mirror_dirfd >= 0)
		mfd = openat(pb->mirror_dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	int v = verify_symlink(fd, mfd, why, sizeof(why));
	if (v)
		failed(pb, name, v < 0 ? map_strerror(v) : why);
	else
		list_add(&pb->links, name);
	if (mfd >= 0)
		close(mfd);
	close(fd);
}

/* After rsync: every name that was not there before. */
static int check_new_names(struct put_back *pb, const struct names *before)
{
	DIR *d = open_listing(pb->dirfd);
	struct dirent *de;
	size_t seen = 0;

	if (!d)
		return -errno;
	errno = 0;
	while ((de = readdir(d)) != NULL && seen < DIR_NAMES_MAX) {
		struct stat st;
		const char *name = de->d_name;

		if (dot_or_dotdot(name) || names_has(before, name)) {
			errno = 0;
			continue;
		}
		seen++;
		if (fstatat(pb->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			failed(pb, name, strerror(errno));
		else if (!is_the_mirrors(pb, name, &st))
			list_add(&pb->foreign, name);
		else if (S_ISREG(st.st_mode))
			check_new_file(pb, name, &st);
		else if (S_ISLNK(st.st_mode))
			check_new_link(pb, name);
		else if (S_ISDIR(st.st_mode))
			list_add(&pb->empty_dirs, name);
		else
			list_add(&pb->foreign, name);
		errno = 0;
	}
	int rc = de == NULL && errno ? -errno : 0;
	pb->more = de != NULL;
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
	char *src_path = NULL;
	int rc;

	note[0] = '\0';
	/* The folder's own path check again, right before: rsync writes into
	 * what this descriptor holds. */
	if (path_check(src->rootfd, src->dev, rel, ino, gen, &pc) != PATH_SAME ||
	    !S_ISDIR(pc.st.st_mode)) {
		snprintf(note, len, "its entries were not put back: %s",
			 pc.state == PATH_SAME ? "no longer a folder" : pc.why);
		rc = 1;
		goto out;
	}
	pb.dirfd = pc.fd;
	if (src->mirror_fd >= 0) {
		if (path_check(src->mirror_fd, 0, rel, 0, 0, &mpc) != PATH_SAME ||
		    !S_ISDIR(mpc.st.st_mode)) {
			snprintf(note, len, "its entries were not put back: in the mirror: %s",
				 mpc.state == PATH_SAME ? "not a folder" : mpc.why);
			rc = 1;
			goto out;
		}
		pb.mirror_dirfd = mpc.fd;
	} else {
		size_t n = strlen(src->from) + strlen(rel) + 3;

		src_path = malloc(n);
		if (!src_path) {
			rc = -ENOMEM;
			goto out;
		}
		snprintf(src_path, n, "%s%s%s/", src->from,
			 src->from[strlen(src->from) - 1] == '/' ? "" : "/", rel);
	}
	rc = names_of(pb.dirfd, &before);
	if (rc) {
		snprintf(note, len, "its entries were not put back: %s",
			 rc == -E2BIG ? "more names than one run compares (65536)" :
			 map_strerror(rc));
		rc = 1;
		goto out;
	}
	rc = rsync_entries(src, src_path, pb.mirror_dirfd, pb.dirfd);
	if (rc < 0 || rc == 127)
		goto out;	/* rsync could not run */
	int rs = rc;
	rc = check_new_names(&pb, &before);
	if (rc) {
		snprintf(note, len, "its entries cannot be listed after the put-back: %s",
			 map_strerror(rc));
		rc = 1;
		goto out;
	}
	list_note(note, len, &pb.files, "files put back from the mirror");
	list_note(note, len, &pb.links, "symbolic links put back");
	list_note(note, len, &pb.empty_dirs, "folders created empty (their contents were "
		  "not copied)");
	list_note(note, len, &pb.failed, "not put back");
	list_note(note, len, &pb.foreign, "new names that are not the mirror's, left alone");
	if (pb.more)
		add(note, len, "%smore new names than one run checks (%d): the rest were not "
		    "checked", note[0] ? "; " : "", DIR_NAMES_MAX);
	if (rs)
		add(note, len, "%srsync exited %d putting back its entries", note[0] ? "; " : "",
		    rs);
	if (!note[0])
		add(note, len, "no entry of the mirror was missing");
	rc = rs || pb.failed.n || pb.more ? 1 : 0;
out:
	names_free(&before);
	free(src_path);
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
 * or SIZE_MAX; @why says how it matched. */
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
	ofd = reopen_read(opath, O_NOATIME | O_NONBLOCK);
	if (ofd < 0) {
		snprintf(fate->why, sizeof(fate->why), "kept in lost+found: cannot be read: %s",
			 map_strerror(ofd));
		goto out;
	}
	size_t i = find_match(set, ofd, &st, why, sizeof(why));
	if (i == SIZE_MAX) {
		snprintf(fate->why, sizeof(fate->why), "kept in lost+found: no restored file has "
			 "its content");
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
