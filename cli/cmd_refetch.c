// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapctl refetch: put back from a mirror what the damage (or a repair) took:
 * file data in place, size, mode, owner, times, ACLs and extended attributes,
 * symbolic links, files a repair deleted, and names a repair moved to the
 * orphanage (lost+found/INODE).  rsync copies; mapctl decides what it may
 * write and checks the result.
 *
 * rsync runs as root and takes paths as strings, while any local user may
 * rename folders they own.  So every path is walked first with O_NOFOLLOW
 * from the mount root (path_check.c) and must still be the recorded inode
 * and generation, reached through real folders of this filesystem; a path
 * that fails is refused and not given to rsync.  The destination is the
 * mount root's descriptor (/proc/self/fd/N), not its path; names go to rsync
 * NUL-separated and prefixed with "./".  rsync's implied folders (--relative,
 * which --files-from turns on) replace a symbolic link met on the way with a
 * folder instead of following it.
 *
 * What remains (a race we narrow and detect, but cannot close while rsync
 * resolves paths itself): a user who can rename a folder on a checked path
 * can swap it for a symbolic link in the moment between rsync making sure it
 * is a folder and opening the file inside.  Every path is walked again after
 * rsync; a folder or file that is not the one checked before makes the path
 * "failed" with the reason, and is reported, but a write through such a swap
 * cannot be undone.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "mapctl.h"
#include "path_check.h"
#include "refetch_dir.h"
#include "restore_list.h"
#include "restore_verify.h"

/* The orphanage: where xfs_repair and online repair put files whose name
 * was lost, each named by its inode number. */
#define ORPHANAGE "lost+found"
/* Where a file whose extended attributes cannot be read goes, in its own
 * folder, so that rsync writes a new one (see settle_aside). */
#define ASIDE_FMT ".mapctl-refetch.%llu"
/* Each file set aside keeps its folder open until the end: well below the
 * usual limit of 1024 descriptors. */
#define ASIDE_MAX 256

enum outcome { OUT_RESTORED, OUT_STILL_BAD, OUT_FAILED, OUT_REFUSED, OUT_NR };
/* Words for the outcomes, as recorded and printed. */
static const char *const outcome_name[OUT_NR] = {
	[OUT_RESTORED] = "restored",
	[OUT_STILL_BAD] = "still-unreadable",
	[OUT_FAILED] = "failed",
	[OUT_REFUSED] = "refused",
};

enum what { W_FILE, W_SYMLINK, W_DIR };

struct entry {
	struct restore_item *it;
	enum what what;
	enum outcome outcome;
	bool sent;		/* given to rsync */
	bool missing;		/* not there before: rsync recreates it */
	bool in_place;		/* an existing file or folder rewritten in its inode */
	int aside_dirfd;	/* set aside under ASIDE_NAME in this folder, or -1 */
	uint64_t dir_ino;	/* the folder the check reached */
	uint64_t orphan_ino;	/* lost+found/<ino> held this inode, 0 if not */
	bool orphan_removed;
	char detail[512];	/* why, for people */
	char orphan_note[512];
	char put_back[1024];	/* a folder: its entries put back (refetch_dir.c) */
};

struct refetch {
	struct ctl *ctl;
	struct map_fs *fs;
	const char *mnt, *from;
	int rootfd;
	uint64_t dev;
	int mirror_fd;		/* a local mirror's root (O_PATH), or -1 */
	bool dry_run;
	size_t naside;		/* files set aside (ASIDE_MAX) */
	struct entry *e;
	size_t n;
	struct put_back_set put_back;	/* files put back in folders */
	struct orphan_report orphans;	/* lost+found compared with them */
};

static enum what what_of(uint32_t mode)
{
	if (S_ISLNK(mode))
		return W_SYMLINK;
	if (S_ISDIR(mode))
		return W_DIR;
	return W_FILE;	/* regular, or unknown (an inode that could not be read) */
}

/* rsync reads "HOST:PATH", "HOST::MOD" and "rsync://" as remote; anything
 * else, or a ':' after the first '/', is a local path. */
static bool is_local(const char *src)
{
	const char *colon = strchr(src, ':'), *slash = strchr(src, '/');

	return !colon || (slash && slash < colon);
}

static void set(struct entry *e, enum outcome o, const char *why)
{
	e->outcome = o;
	snprintf(e->detail, sizeof(e->detail), "%s", why);
}

/* The mirror's copy of @rel must exist and be what we mean to restore:
 * a regular file is only replaced by a regular file, a link by a link. */
static void check_mirror(struct refetch *r, struct entry *e)
{
	struct path_check pc;

	if (r->mirror_fd < 0)
		return;
	path_check(r->mirror_fd, 0, e->it->path, 0, 0, &pc);
	if (pc.state == PATH_MISSING) {
		set(e, OUT_REFUSED, "the mirror has no such name");
	} else if (pc.state != PATH_SAME) {
		char why[sizeof(e->detail)];

		snprintf(why, sizeof(why), "in the mirror: %s", pc.why);
		set(e, OUT_REFUSED, why);
	} else if (what_of(pc.st.st_mode) != e->what ||
		   (e->what == W_FILE && !S_ISREG(pc.st.st_mode))) {
		set(e, OUT_REFUSED, S_ISLNK(pc.st.st_mode) ? "the mirror has a symbolic link "
		    "here: a link never replaces a file or folder" :
		    "the mirror has another type of file here");
	}
	path_check_close(&pc);
}

/* A damaged symbolic link whose target cannot be read is removed before
 * rsync writes the link again (its inode re-checked right before). */
static void drop_unreadable_link(struct refetch *r, struct entry *e, struct path_check *pc)
{
	char buf[16];
	struct stat st;
	const char *name = path_last_name(e->it->path);

	if (readlinkat(pc->fd, "", buf, sizeof(buf)) >= 0)
		return;
	if (fstatat(pc->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    (uint64_t)st.st_ino == (uint64_t)pc->st.st_ino && S_ISLNK(st.st_mode) &&
	    unlinkat(pc->dirfd, name, 0) == 0)
		e->missing = true;
	else
		warn_msg(r->ctl, "cannot remove the unreadable link %s before the restore",
			 shown(e->it->path));
}

/*
 * rsync cannot rewrite the extended attributes of a file whose attribute
 * fork cannot be read (it must list them first, and with ACLs even open()
 * fails), and no system call drops a fork.  A file with one name is renamed
 * aside (same folder, checked inode) so rsync writes a new inode; with more
 * names that would split the hard links, and with parent pointers the rename
 * itself needs the fork: both fail with the remedy.  False when the entry is
 * settled.
 */
static bool set_aside_if_unreadable(struct refetch *r, struct entry *e, struct path_check *pc)
{
	char aside[64];
	const char *name = path_last_name(e->it->path);
	struct stat st;
	char proc[40];

	/* Not through open(): with ACLs, opening reads the attribute fork too
	 * (and fails the same way). */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pc->fd);
	if (listxattr(proc, NULL, 0) >= 0 || (errno != EIO && errno != EUCLEAN))
		return true;
	if (pc->st.st_nlink > 1) {
		set(e, OUT_FAILED, "its extended attributes cannot be read and it has several "
		    "names: repair it first ('mapctl repair'), or restore it by hand");
		return false;
	}
	if (map_fs_info(r->fs)->geo.parent) {
		/* Renaming or removing it rewrites the parent pointer in that same
		 * unreadable fork: the kernel shuts the filesystem down. */
		set(e, OUT_FAILED, "its extended attributes cannot be read, and with parent "
		    "pointers it cannot be renamed or removed either: repair it first "
		    "('mapctl repair', else offline)");
		return false;
	}
	if (r->naside >= ASIDE_MAX) {
		set(e, OUT_FAILED, "its extended attributes cannot be read; too many such files "
		    "for one run: run refetch again");
		return false;
	}
	snprintf(aside, sizeof(aside), ASIDE_FMT, (unsigned long long)e->it->ino);
	if (fstatat(pc->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	    (uint64_t)st.st_ino != e->it->ino ||
	    renameat2(pc->dirfd, name, pc->dirfd, aside, RENAME_NOREPLACE) != 0) {
		set(e, OUT_FAILED, "its extended attributes cannot be read, and it cannot be set "
		    "aside for a new copy");
		return false;
	}
	r->naside++;
	e->aside_dirfd = pc->dirfd;	/* kept open: the folder, not its path */
	pc->dirfd = -1;
	e->in_place = false;
	e->missing = true;
	return true;
}

/*
 * After the restore: a file set aside is put back if its replacement failed.
 * Otherwise it stays: XFS cannot free an attribute fork it cannot read (the
 * unlinked inode keeps its blocks, and a debug kernel asserts), so it waits
 * for 'mapctl repair' or xfs_repair; the next scan names it.
 */
static void settle_aside(struct entry *e)
{
	char aside[64];
	struct stat st;
	const char *name = path_last_name(e->it->path);

	if (e->aside_dirfd < 0)
		return;
	snprintf(aside, sizeof(aside), ASIDE_FMT, (unsigned long long)e->it->ino);
	if (fstatat(e->aside_dirfd, aside, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    (uint64_t)st.st_ino == e->it->ino) {
		if (e->outcome != OUT_RESTORED &&
		    renameat2(e->aside_dirfd, aside, e->aside_dirfd, name, RENAME_NOREPLACE) == 0)
			snprintf(e->orphan_note, sizeof(e->orphan_note), "the damaged file is back "
				 "at its name");
		else
			snprintf(e->orphan_note, sizeof(e->orphan_note), "the damaged file is kept "
				 "as " ASIDE_FMT " in its folder: remove it after 'mapctl repair' "
				 "(deleting a file whose extended attributes cannot be read leaks "
				 "their blocks)", (unsigned long long)e->it->ino);
	}
	close(e->aside_dirfd);
	e->aside_dirfd = -1;
}

/* Before rsync: may this path be written, and how? */
static void check_entry(struct refetch *r, struct entry *e)
{
	struct restore_item *it = e->it;
	struct path_check pc;

	e->what = what_of(it->mode);
	if (it->conflict) {
		set(e, OUT_REFUSED, "the database names two inodes for this path");
		return;
	}
	switch (path_check(r->rootfd, r->dev, it->path, it->ino, it->gen, &pc)) {
	case PATH_SAME:
		e->dir_ino = (uint64_t)pc.dir_st.st_ino;
		e->in_place = e->what != W_SYMLINK;	/* rsync writes a link anew */
		break;
	case PATH_MISSING:
		/* Deleted by a repair, or moved to the orphanage: rsync recreates it
		 * (and any folder on the way) under folders that were checked. */
		e->missing = true;
		if (pc.parent_exists)
			e->dir_ino = (uint64_t)pc.dir_st.st_ino;
		break;
	case PATH_ERROR:
		set(e, OUT_FAILED, pc.why);	/* e.g. its inode cannot be read */
		path_check_close(&pc);
		return;
	default:
		set(e, OUT_REFUSED, pc.why);
		path_check_close(&pc);
		return;
	}
	check_mirror(r, e);
	if (e->outcome == OUT_REFUSED) {
		path_check_close(&pc);
		return;
	}
	/* The mirror has what we need: now it is safe to take the damaged
	 * object out of rsync's way. */
	if (e->what == W_SYMLINK && !e->missing && !r->dry_run)
		drop_unreadable_link(r, e, &pc);
	if (e->what == W_FILE && e->in_place && !r->dry_run &&
	    !set_aside_if_unreadable(r, e, &pc)) {
		path_check_close(&pc);
		return;
	}
	path_check_close(&pc);
	if (e->missing && it->ino) {
		char orphan[64];

		snprintf(orphan, sizeof(orphan), ORPHANAGE "/%llu", (unsigned long long)it->ino);
		if (path_check(r->rootfd, r->dev, orphan, it->ino, it->gen, &pc) == PATH_SAME)
			e->orphan_ino = it->ino;
		path_check_close(&pc);
	}
	e->sent = true;
}

/* Run rsync over the entries of one kind with the list on its stdin; its
 * exit status, or -errno. */
static int run_rsync(struct refetch *r, bool links)
{
	const char *argv[32];
	char src[4096 + 2], dst[64];
	int n = 0, pipefd[2], status;
	size_t count = 0;
	pid_t pid;

	for (size_t i = 0; i < r->n; i++)
		count += r->e[i].sent && (r->e[i].what == W_SYMLINK) == links;
	if (count == 0)
		return 0;
	if (snprintf(src, sizeof(src), "%s%s", r->from,
		     r->from[strlen(r->from) - 1] == '/' ? "" : "/") >= (int)sizeof(src))
		return -ENAMETOOLONG;
	argv[n++] = "rsync";
	argv[n++] = "-a";		/* times, permissions, owner, group */
	argv[n++] = "-A";		/* ACLs */
	argv[n++] = "-X";		/* extended attributes */
	argv[n++] = "--numeric-ids";	/* the mirror's user names may differ */
	argv[n++] = "--no-D";		/* never a device node or FIFO from a mirror */
	if (!links) {
		/* A mirror's link never replaces a file: skipped, so the file stays
		 * as it was (and open).  --inplace keeps the inode (all hard links)
		 * and overwrites the bad sectors; --whole-file and --ignore-times
		 * make sure every byte is rewritten even when the file looks
		 * unchanged; -H links again the names of a file recreated whole. */
		argv[n++] = "--no-links";
		argv[n++] = "-H";
		argv[n++] = "--inplace";
		argv[n++] = "--whole-file";
		argv[n++] = "--ignore-times";
	}
	argv[n++] = "--from0";
	argv[n++] = "--files-from=-";
	if (r->dry_run) {
		argv[n++] = "--dry-run";
		argv[n++] = "--itemize-changes";
	}
	argv[n++] = src;
	argv[n++] = dst;
	argv[n] = NULL;

	if (pipe2(pipefd, O_CLOEXEC) != 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return -errno;
	}
	if (pid == 0) {
		/* The mount root by descriptor: no path to the mount is resolved
		 * again (dup() leaves it open across exec). */
		int root = dup(r->rootfd);

		snprintf(dst, sizeof(dst), "/proc/self/fd/%d/", root);
		dup2(pipefd[0], STDIN_FILENO);
		if (r->ctl->json)
			dup2(STDERR_FILENO, STDOUT_FILENO);	/* stdout is the JSON */
		execvp("rsync", (char *const *)argv);
		fprintf(stderr, "%s: cannot run rsync: %s\n", r->ctl->prog, strerror(errno));
		_exit(127);
	}
	close(pipefd[0]);
	signal(SIGPIPE, SIG_IGN);
	for (size_t i = 0; i < r->n; i++) {
		const char *p = r->e[i].it->path;
		size_t len = strlen(p) + 1;	/* with its NUL */

		if (!r->e[i].sent || (r->e[i].what == W_SYMLINK) != links)
			continue;
		/* "./": a name is never read as a comment or an option. */
		if (write(pipefd[1], "./", 2) != 2 || write(pipefd[1], p, len) != (ssize_t)len)
			break;
	}
	close(pipefd[1]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Put the orphan's fate in e->orphan_note: removed when it is the restored
 * file or a damaged copy of it, else kept. */
static void settle_orphan(struct refetch *r, struct entry *e, int restored_fd)
{
	char rel[64], why[160] = "";
	struct path_check pc;
	int ofd = -1, m = -EINVAL;

	snprintf(rel, sizeof(rel), ORPHANAGE "/%llu", (unsigned long long)e->orphan_ino);
	if (path_check(r->rootfd, r->dev, rel, e->it->ino, e->it->gen, &pc) != PATH_SAME) {
		snprintf(e->orphan_note, sizeof(e->orphan_note), "%s: %s", rel, pc.why);
		path_check_close(&pc);
		return;
	}
	if (e->what == W_FILE && S_ISREG(pc.st.st_mode) && restored_fd >= 0) {
		ofd = reopen_read(pc.fd, O_NOATIME);
		m = ofd < 0 ? ofd : orphan_matches(ofd, restored_fd, why, sizeof(why));
		if (ofd >= 0)
			close(ofd);
	} else {
		snprintf(why, sizeof(why), "not a regular file: compare it by hand");
		m = 0;
	}
	if (m == 1) {
		char kept[160] = "";
		int rm = orphan_remove(pc.dirfd, path_last_name(rel), e->orphan_ino, pc.fd, kept,
				       sizeof(kept));

		if (rm == 1) {
			e->orphan_removed = true;
			snprintf(e->orphan_note, sizeof(e->orphan_note), "%s removed: %s", rel, why);
		} else if (rm == 0) {
			snprintf(e->orphan_note, sizeof(e->orphan_note), "%s kept: %s", rel, kept);
		} else {
			snprintf(e->orphan_note, sizeof(e->orphan_note), "%s kept: cannot remove it: "
				 "%s", rel, map_strerror(rm));
		}
	} else if (m == 0) {
		snprintf(e->orphan_note, sizeof(e->orphan_note), "%s kept: %s", rel, why);
	} else {
		snprintf(e->orphan_note, sizeof(e->orphan_note), "%s kept: cannot compare: %s",
			 rel, map_strerror(m));
	}
	path_check_close(&pc);
}

/* The mirror's copy of @rel, for comparisons (O_PATH), or -1. */
static int mirror_open(struct refetch *r, const char *rel)
{
	struct path_check pc;

	if (r->mirror_fd < 0)
		return -1;
	if (path_check(r->mirror_fd, 0, rel, 0, 0, &pc) != PATH_SAME) {
		path_check_close(&pc);
		return -1;
	}
	int fd = pc.fd;
	pc.fd = -1;
	path_check_close(&pc);
	return fd;
}

/* After rsync: walk the path again and check what is there now. */
static void check_restored(struct refetch *r, struct entry *e)
{
	struct restore_item *it = e->it;
	struct path_check pc;
	char why[480] = "";
	int fd = -1, mfd = -1, v;

	/* Rewritten in place: still the recorded inode; recreated: any. */
	enum path_state s = path_check(r->rootfd, r->dev, it->path, e->in_place ? it->ino : 0,
				       e->in_place ? it->gen : 0, &pc);
	if (s != PATH_SAME) {
		snprintf(why, sizeof(why), "%s after the restore: %s",
			 s == PATH_MISSING ? "missing" : "changed", pc.why);
		set(e, OUT_FAILED, why);
		goto out;
	}
	if (e->dir_ino && (uint64_t)pc.dir_st.st_ino != e->dir_ino) {
		set(e, OUT_FAILED, "its folder was replaced during the restore");
		goto out;
	}
	if (what_of(pc.st.st_mode) != e->what || (e->what == W_FILE && !S_ISREG(pc.st.st_mode))) {
		set(e, OUT_FAILED, "the mirror gave another type of file");
		goto out;
	}
	mfd = mirror_open(r, it->path);
	if (e->what == W_SYMLINK) {
		v = verify_symlink(pc.fd, mfd, why, sizeof(why));
		set(e, v == 0 ? OUT_RESTORED : OUT_FAILED, v < 0 ? map_strerror(v) : why);
		goto out;
	}
	fd = reopen_read(pc.fd, O_NOATIME | (e->what == W_DIR ? O_DIRECTORY : 0));
	if (fd < 0) {
		snprintf(why, sizeof(why), "cannot be opened after the restore: %s",
			 map_strerror(fd));
		set(e, OUT_FAILED, why);
		goto out;
	}
	if (e->what == W_FILE) {
		v = verify_file_media(r->fs, fd);
		if (v) {
			set(e, v == 1 ? OUT_STILL_BAD : OUT_FAILED,
			    v == 1 ? "blocks still unreadable" : map_strerror(v));
			goto out;
		}
	} else if (verify_dir_entries(fd, why, sizeof(why))) {
		set(e, OUT_STILL_BAD, why);	/* 'mapctl repair' (or offline) rebuilds it */
		goto out;
	}
	int mread = mfd >= 0 ? reopen_read(mfd, e->what == W_DIR ? O_DIRECTORY : 0) : -1;
	v = verify_xattrs(fd, mread, why, sizeof(why));
	if (mread >= 0)
		close(mread);
	if (v) {
		set(e, OUT_FAILED, v < 0 ? map_strerror(v) : why);
		goto out;
	}
	set(e, OUT_RESTORED, e->missing ? "recreated" : "");
	if (e->orphan_ino)
		settle_orphan(r, e, fd);
out:
	if (fd >= 0)
		close(fd);
	if (mfd >= 0)
		close(mfd);
	path_check_close(&pc);
}

/* Each folder restored gets the mirror's entries it lacks, then lost+found
 * loses the orphans that are copies of them (refetch_dir.c).  0, or -errno
 * (or 127) when rsync could not run. */
static int put_back_entries(struct refetch *r)
{
	const struct refetch_src src = { .ctl = r->ctl, .fs = r->fs, .rootfd = r->rootfd,
		.dev = r->dev, .from = r->from, .mirror_fd = r->mirror_fd };

	for (size_t i = 0; i < r->n; i++) {
		struct entry *e = &r->e[i];

		if (!e->sent || e->what != W_DIR || e->outcome != OUT_RESTORED)
			continue;
		/* Recreated: any inode, as check_restored() took it. */
		int rc = refetch_dir_put_back(&src, e->it->path, e->in_place ? e->it->ino : 0,
					      e->in_place ? e->it->gen : 0, &r->put_back,
					      e->put_back, sizeof(e->put_back));
		if (rc < 0 || rc == 127)
			return rc;
		if (rc == 1)
			set(e, OUT_FAILED, "not every entry of the mirror could be put back");
	}
	refetch_dir_orphans(&src, &r->put_back, &r->orphans);
	return 0;
}

/* ---- recording: one outcome per finding, the worst of its paths ---- */

struct pair {
	int64_t id;
	size_t entry;
};

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* Record an action per finding; its state becomes refetched when every path
 * of it was restored.  The number of findings that could not be recorded. */
static int record_outcomes(struct refetch *r, struct map_store *st, int64_t fs_id)
{
	size_t np = 0, bad = 0;

	for (size_t i = 0; i < r->n; i++)
		np += r->e[i].it->nfindings;
	struct pair *p = calloc(np + 1, sizeof(*p));
	if (!p)
		return (int)np;
	np = 0;
	for (size_t i = 0; i < r->n; i++)
		for (size_t k = 0; k < r->e[i].it->nfindings; k++)
			p[np++] = (struct pair){ r->e[i].it->findings[k], i };
	qsort(p, np, sizeof(*p), cmp_pair);
	for (size_t a = 0, b; a < np; a = b) {
		size_t worst = p[a].entry;

		for (b = a; b < np && p[b].id == p[a].id; b++)
			if (r->e[p[b].entry].outcome > r->e[worst].outcome)
				worst = p[b].entry;
		const struct entry *e = &r->e[worst];
		char detail[4096];	/* cut to what the store keeps */

		snprintf(detail, sizeof(detail), "%s from %s%s%s%s%s%s%s", e->it->path, r->from,
			 e->detail[0] ? ": " : "", e->detail, e->orphan_note[0] ? "; " : "",
			 e->orphan_note, e->put_back[0] ? "; " : "", e->put_back);
		/* What was done and the state it leads to: both or neither. */
		int rc = map_store_begin(st);
		if (rc == 0) {
			rc = record_action(st, fs_id, p[a].id, "refetch", outcome_name[e->outcome],
					   detail);
			if (rc == 0 && e->outcome == OUT_RESTORED)
				rc = map_store_finding_set_state(st, p[a].id, MAP_STATE_REFETCHED);
			rc = store_finish(st, rc);
		}
		if (rc) {
			fail(r->ctl, rc, "recording the outcome of finding #%lld",
			     (long long)p[a].id);
			bad++;
		}
	}
	free(p);
	return (int)bad;
}

/* ---- output ---- */

static const char *shown_outcome(const struct refetch *r, const struct entry *e)
{
	if (r->dry_run)
		return e->sent ? "would-restore" : outcome_name[e->outcome];
	return outcome_name[e->outcome];
}

static void print_text(const struct refetch *r)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct entry *e = &r->e[i];

		printf("  %-16s ", shown_outcome(r, e));
		print_path_text(stdout, r->mnt, e->it->path);
		if (e->detail[0])
			printf(": %s", shown(e->detail));
		if (e->orphan_note[0])
			printf("; %s", shown(e->orphan_note));
		else if (e->orphan_ino && r->dry_run)
			printf("; its orphan " ORPHANAGE "/%llu is compared after the restore",
			       (unsigned long long)e->orphan_ino);
		if (e->put_back[0])
			printf("; %s", shown(e->put_back));
		else if (r->dry_run && e->sent && e->what == W_DIR)
			printf("; the mirror's entries it lacks are put back after the restore");
		putchar('\n');
	}
	const struct orphan_report *o = &r->orphans;
	for (size_t i = 0; i < o->n; i++)
		printf("  " ORPHANAGE "/%s %s\n", shown(o->v[i].name), shown(o->v[i].why));
	if (o->note[0])
		printf("  %s\n", shown(o->note));
	if (o->truncated)
		printf("  " ORPHANAGE " has more entries than one run compares: the rest are "
		       "kept\n");
}

static void print_json(const struct refetch *r, const int counts[MAP_STATE_NR])
{
	struct map_json j;

	json_open(&j, stdout, "mapctl refetch");
	map_json_str(&j, "fs_uuid", map_fs_info(r->fs)->uuid);
	map_json_str(&j, "mountpoint", r->mnt);
	map_json_str(&j, "from", r->from);
	map_json_bool(&j, "dry_run", r->dry_run);
	map_json_arr(&j, "paths");
	for (size_t i = 0; i < r->n; i++) {
		const struct entry *e = &r->e[i];
		char *full = map_join_path(r->mnt, e->it->path);

		map_json_obj(&j, NULL);
		map_json_str(&j, "path", full ? full : e->it->path);
		free(full);
		map_json_str(&j, "outcome", shown_outcome(r, e));
		map_json_str_or_null(&j, "detail", e->detail);
		map_json_arr(&j, "finding_ids");
		for (size_t k = 0; k < e->it->nfindings; k++)
			map_json_int(&j, NULL, e->it->findings[k]);
		map_json_end_arr(&j);
		if (e->orphan_ino) {
			char o[64];

			snprintf(o, sizeof(o), ORPHANAGE "/%llu", (unsigned long long)e->orphan_ino);
			map_json_str(&j, "orphan", o);
			map_json_bool(&j, "orphan_removed", e->orphan_removed);
			map_json_str_or_null(&j, "orphan_detail", e->orphan_note);
			map_json_null(&j, "note");
		} else {
			map_json_null(&j, "orphan");
			map_json_null(&j, "orphan_removed");
			map_json_null(&j, "orphan_detail");
			map_json_str_or_null(&j, "note", e->orphan_note);
		}
		map_json_str_or_null(&j, "put_back", e->put_back);
		map_json_end_obj(&j);
	}
	map_json_end_arr(&j);
	if (r->orphans.examined || r->orphans.note[0]) {
		/* lost+found after folders got entries back */
		map_json_arr(&j, "orphans");
		for (size_t i = 0; i < r->orphans.n; i++) {
			char o[sizeof(ORPHANAGE) + NAME_MAX + 1];

			snprintf(o, sizeof(o), ORPHANAGE "/%s", r->orphans.v[i].name);
			map_json_obj(&j, NULL);
			map_json_str(&j, "path", o);
			map_json_bool(&j, "removed", r->orphans.v[i].removed);
			map_json_str_or_null(&j, "detail", r->orphans.v[i].why);
			map_json_end_obj(&j);
		}
		map_json_end_arr(&j);
		map_json_bool(&j, "orphans_truncated", r->orphans.truncated);
	} else {
		map_json_null(&j, "orphans");
		map_json_null(&j, "orphans_truncated");
	}
	map_json_str_or_null(&j, "orphans_note", r->orphans.note);
	if (counts)
		map_json_int(&j, "open_findings", counts[MAP_STATE_OPEN]);
	else
		map_json_null(&j, "open_findings");
	json_close(&j);
}

static int run(struct ctl *ctl, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "from", required_argument, NULL, 'f' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct refetch r = { .ctl = ctl, .mirror_fd = -1 };
	struct map_store *st = NULL;
	struct map_store_fs sfs;
	struct restore_list list = { 0 };
	int64_t fs_id;
	int c, rc;

	while ((c = getopt_long(argc, argv, "n", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': r.from = optarg; break;
		case 'n': r.dry_run = true; break;
		case 'j': ctl->json = true; break;
		default: return fail(ctl, 0, "see 'mapctl refetch --help'");
		}
	}
	if (optind >= argc)
		return fail(ctl, 0, "which filesystem? (mapctl refetch PATH --from SRC)");
	if (!r.from || !r.from[0])
		return fail(ctl, 0, "where from? give --from SRC (any rsync source: DIR, HOST:DIR, "
			    "rsync://...)");
	rc = need_root(ctl, "refetching");
	if (rc)
		return rc;
	if (is_local(r.from)) {
		r.mirror_fd = open(r.from, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (r.mirror_fd < 0)
			return fail(ctl, -errno, "the mirror %s", shown(r.from));
	}
	rc = open_store(ctl, !r.dry_run, &st);
	if (rc)
		goto out;
	rc = fs_id_for_path(ctl, st, argv[optind], &fs_id, &sfs);
	if (rc == 0)
		rc = open_fs(ctl, argv[optind], &r.fs);
	if (rc == 0 && map_fs_info(r.fs)->read_only)
		rc = fail(ctl, 0, "%s is mounted read-only: cannot write the files back",
			  shown(map_fs_info(r.fs)->mountpoint));
	if (rc == 0 && (rc = restore_list_build_kinds(st, fs_id, RESTORE_SYMLINKS | RESTORE_DIRS,
						      &list)) != 0)
		rc = fail(ctl, rc, "reading the database");
	if (rc)
		goto out;
	r.mnt = map_fs_info(r.fs)->mountpoint;
	r.rootfd = map_fs_fd(r.fs);
	r.dev = map_fs_info(r.fs)->dev;
	if (list.n == 0) {
		if (ctl->json)
			print_json(&r, NULL);
		else
			printf("%s: nothing to refetch\n", shown(r.mnt));
		goto out;
	}
	r.e = calloc(list.n, sizeof(*r.e));
	if (!r.e) {
		rc = fail(ctl, -ENOMEM, "refetch");
		goto out;
	}
	r.n = list.n;
	size_t nsent = 0;
	for (size_t i = 0; i < r.n; i++) {
		r.e[i].it = &list.v[i];
		r.e[i].outcome = OUT_FAILED;
		r.e[i].aside_dirfd = -1;
		check_entry(&r, &r.e[i]);
		nsent += r.e[i].sent;
	}
	if (!ctl->json) {
		printf("%s: %s %zu of %zu path%s from %s\n", shown(r.mnt),
		       r.dry_run ? "would refetch" : "refetching", nsent, r.n, r.n == 1 ? "" : "s",
		       shown(r.from));
		fflush(stdout);
	}
	for (int links = 0; links < 2; links++) {
		int rs = run_rsync(&r, links);

		if (rs < 0 || rs == 127) {
			rc = fail(ctl, rs < 0 ? rs : 0, "rsync could not run");
			goto out;
		}
		if (rs != 0)
			warn_msg(ctl, "rsync exited %d; checking each path anyway", rs);
	}
	if (r.dry_run) {
		if (ctl->json)
			print_json(&r, NULL);
		else
			print_text(&r);
		goto out;
	}
	syncfs(r.rootfd);
	for (size_t i = 0; i < r.n; i++) {
		if (r.e[i].sent)
			check_restored(&r, &r.e[i]);
		settle_aside(&r.e[i]);
	}
	rc = put_back_entries(&r);
	if (rc) {
		rc = fail(ctl, rc < 0 ? rc : 0, "rsync could not run");
		goto out;
	}
	int unrecorded = record_outcomes(&r, st, fs_id);
	int counts[MAP_STATE_NR], restored = 0;
	for (size_t i = 0; i < r.n; i++)
		restored += r.e[i].outcome == OUT_RESTORED;
	rc = map_store_count(st, fs_id, counts);
	if (rc) {
		rc = fail(ctl, rc, "reading the database");
		goto out;
	}
	if (ctl->json) {
		print_json(&r, counts);
	} else {
		print_text(&r);
		printf("%s: %d restored and verified, %zu not; %d finding%s still open%s\n",
		       shown(r.mnt), restored, r.n - (size_t)restored, counts[MAP_STATE_OPEN],
		       counts[MAP_STATE_OPEN] == 1 ? "" : "s",
		       restored ? "; 'mapctl scan' confirms" : "");
	}
	if (unrecorded)
		rc = fail(ctl, 0, "%d outcome%s could not be recorded; the findings keep their "
			  "state", unrecorded, unrecorded == 1 ? "" : "s");
	else
		rc = counts[MAP_STATE_OPEN] ? EXIT_DAMAGE : EXIT_CLEAN;
out:
	for (size_t i = 0; i < r.n; i++)
		if (r.e[i].aside_dirfd >= 0)
			close(r.e[i].aside_dirfd);
	free(r.e);
	put_back_set_free(&r.put_back);
	orphan_report_free(&r.orphans);
	if (r.mirror_fd >= 0)
		close(r.mirror_fd);
	restore_list_free(&list);
	map_fs_close(r.fs);
	map_store_close(st);
	return rc;
}

const struct command cmd_refetch = {
	"refetch", run, "restore damaged or lost files from a mirror and re-verify them",
	"Usage: mapctl refetch PATH --from SRC [--dry-run] [--json]\n"
	"\n"
	"Restore what the open findings of the filesystem holding PATH lost, from SRC,\n"
	"any rsync source holding the same tree (a folder, HOST:/dir, rsync://host/mod):\n"
	"file data, rewritten in its own inode (rsync --inplace --whole-file\n"
	"--ignore-times) so every hard link is restored and the bad sectors are\n"
	"overwritten; size, mode, owner (--numeric-ids), times, ACLs (-A) and extended\n"
	"attributes (-X); symbolic links; folders' own attributes (a folder whose\n"
	"entries cannot be read stays still-unreadable: 'mapctl repair' rebuilds it);\n"
	"and files a repair deleted, recreated at their recorded paths.\n"
	"\n"
	"A damaged folder, once restored, gets back the mirror's entries it lacks, one\n"
	"level (a missing subfolder is created empty), never touching a name it has\n"
	"(rsync --dirs --ignore-existing); each is read back.  A regular file of\n"
	"lost+found with one name that has the bytes of a file put back (or is a\n"
	"damaged copy) is then removed; the others are kept and listed.\n"
	"\n"
	"Before rsync runs as root, each path is walked name by name without following\n"
	"symbolic links from the mount root: a folder on the way that is now a link\n"
	"or on another filesystem, or a last name that is no longer the recorded inode\n"
	"and generation, makes the path 'refused' (nothing is written for it, its\n"
	"finding stays open).  A missing last name is recreated.  A regular file is\n"
	"only replaced by a regular file: a link, device or FIFO in the mirror is\n"
	"refused (local mirror) or skipped by rsync (--no-links --no-D).  A symbolic\n"
	"link whose target cannot be read is removed and written again.  A file with\n"
	"one name whose extended attributes cannot be read is renamed aside in its\n"
	"folder to .mapctl-refetch.INODE and written anew; the damaged one is kept\n"
	"until 'mapctl repair' (XFS cannot free attributes it cannot read).  With\n"
	"parent pointers such a file cannot be renamed: it fails, repair it first.\n"
	"\n"
	"A file found in the orphanage as lost+found/INODE (its recorded inode) is\n"
	"restored at its recorded path; the orphan is then removed if it has the same\n"
	"bytes or is a damaged copy (same size, every readable block equal), else kept.\n"
	"\n"
	"Then each path is walked again and checked: data read back from the device,\n"
	"extended attributes listed and read, link targets read; with a local mirror,\n"
	"extended attributes and targets compared with it.  Each path is restored,\n"
	"refused, still-unreadable or failed; a finding whose paths were all\n"
	"restored is marked refetched (a later 'mapctl scan' resolves it), the\n"
	"others stay open.  Needs root.\n"
	"\n"
	"Options:\n"
	"  --from SRC    where good copies are\n"
	"  -n, --dry-run show what would be copied and refused; change nothing\n"
	"  --json        each path with its outcome, as JSON (mapper-json(7))\n"
	"  -h, --help    this text\n"
	"\n"
	"Exit status: 0 nothing left open, 1 findings still open, 2 could not run.\n",
};
