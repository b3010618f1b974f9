// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapctl refetch: put back from a mirror what the damage (or a repair) took:
 * file data in place, size, mode, owner, times, ACLs and extended attributes,
 * symbolic links, folders' own attributes, files a repair deleted, and names
 * a repair moved to the orphanage (lost+found/INODE).
 *
 * mapctl runs as root while any local user may rename the folders they own,
 * so it runs no other program on these paths (rsync resolved them again as
 * strings): each path
 * is walked one name at a time with O_NOFOLLOW from the mount root
 * (act_path_check.c), its last name must still be the recorded inode and
 * generation, and the copy (act_restore_copy.c) writes through the descriptors
 * of that walk.  A folder swapped for a symbolic link after the walk changes
 * nothing: the descriptors hold the real folder and the real file.  A path
 * whose walk meets a link, another filesystem or another inode is refused
 * and nothing is written for it.  The mirror is a local folder on another
 * filesystem, walked the same way; its object must be of the same kind.
 *
 * A path is "restored" only when, after the copy, its bytes were read back
 * from the device equal to the mirror's (read again, unchanged), and its
 * size, mode, owner, modification time, extended attributes or link target
 * equal the mirror's.  Anything else is said with its reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/fs.h>

#include "mapctl.h"
#include "act_path_check.h"
#include "act_refetch_dir.h"
#include "act_restore_copy.h"
#include "act_restore_list.h"
#include "act_restore_verify.h"

/* The orphanage: where xfs_repair and online repair put files whose name
 * was lost, each named by its inode number. */
#define ORPHANAGE "lost+found"

#ifndef FS_IOC_GETFSUUID
/* Linux 6.5: a filesystem's UUID from any of its files. */
struct fsuuid2 {
	uint8_t len;
	uint8_t uuid[16];
};
#define FS_IOC_GETFSUUID _IOR(0x15, 0, struct fsuuid2)
#endif

/* Best first: a finding gets the worst outcome of its paths. */
enum outcome { OUT_RESTORED, OUT_REMOVED, OUT_STILL_BAD, OUT_FAILED, OUT_REFUSED, OUT_NR };
/* Words for the outcomes, as recorded and printed. */
static const char *const outcome_name[OUT_NR] = {
	[OUT_RESTORED] = "restored",
	[OUT_REMOVED] = "removed",
	[OUT_STILL_BAD] = "still-unreadable",
	[OUT_FAILED] = "failed",
	[OUT_REFUSED] = "refused",
};

enum what { W_FILE, W_SYMLINK, W_DIR };

struct entry {
	struct restore_item *it;
	enum what what;
	enum outcome outcome;
	bool sent;		/* passed the checks: written (or would be) */
	bool missing;		/* not there before: recreated */
	bool in_place;		/* an existing file or folder rewritten in its inode */
	bool split;		/* one of several names of a file the mirror has apart */
	dev_t mirror_dev;	/* one of several names: the mirror's file they all are */
	ino_t mirror_ino;	/* (0: not one of several names) */
	uint64_t orphan_ino;	/* lost+found/<ino> held this inode, 0 if not */
	bool orphan_removed;
	char detail[512];	/* why, for people */
	char orphan_note[512];
	char put_back[1024];	/* a folder: its entries put back (act_refetch_dir.c) */
};

struct refetch {
	struct ctl *ctl;
	struct map_fs *fs;
	const char *mnt, *from;
	int rootfd;
	uint64_t dev;
	int mirror_fd;		/* the mirror's root (O_PATH) */
	bool dry_run;
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

/* The mirror's copy of @rel must exist, be on another filesystem, and be
 * what we mean to restore: a regular file is only replaced by a regular
 * file, a link by a link.  @mpc keeps it (O_PATH) for the copy. */
static bool check_mirror(struct refetch *r, struct entry *e, struct path_check *mpc)
{
	path_check(r->mirror_fd, 0, e->it->path, 0, 0, mpc);
	if (mpc->state == PATH_MISSING) {
		set(e, OUT_REFUSED, "the mirror has no such name");
	} else if (mpc->state != PATH_SAME) {
		char why[sizeof(e->detail)];

		snprintf(why, sizeof(why), "in the mirror: %s", mpc->why);
		set(e, OUT_REFUSED, why);
	} else if ((uint64_t)mpc->st.st_dev == r->dev ||
		   (uint64_t)mpc->dir_st.st_dev == r->dev) {
		/* A mount of this filesystem inside the mirror: its own damage. */
		set(e, OUT_REFUSED, "in the mirror: on the filesystem being restored");
	} else if (e->mirror_ino && (mpc->st.st_dev != e->mirror_dev ||
				     mpc->st.st_ino != e->mirror_ino)) {
		/* One of several names of a file: see refuse_split_links(). */
		set(e, OUT_REFUSED, "in the mirror: no longer the file this file's other names "
		    "are there; nothing was written to it");
	} else if (what_of(mpc->st.st_mode) != e->what ||
		   (e->what == W_FILE && !S_ISREG(mpc->st.st_mode))) {
		set(e, OUT_REFUSED, S_ISLNK(mpc->st.st_mode) ? "the mirror has a symbolic link "
		    "here: a link never replaces a file or folder" :
		    "the mirror has another type of file here");
	} else {
		return true;
	}
	return false;
}

/* Earlier versions of refetch renamed a file whose extended attributes
 * could not be read to .mapctl-refetch.INODE in its folder and wrote a new
 * one; a scan then names it, by that inode.  Is @it such a file? */
static bool is_set_aside(const struct restore_item *it)
{
	char ours[64];

	snprintf(ours, sizeof(ours), ".mapctl-refetch.%llu", (unsigned long long)it->ino);
	return it->ino && strcmp(path_last_name(it->path), ours) == 0;
}

/* Remove such a file (walked to, @pc) once XFS can free it: after the
 * repair of its attribute fork.  Its own file was restored back then. */
static void remove_set_aside(struct refetch *r, struct entry *e, struct path_check *pc)
{
	const char *name = path_last_name(e->it->path);
	struct stat st;

	if (!S_ISREG(pc->st.st_mode) || pc->st.st_nlink != 1) {
		set(e, OUT_REFUSED, "named as mapctl's own, but not a file with one name: left "
		    "alone");
	} else if (xattrs_unreadable(pc->fd)) {
		set(e, OUT_FAILED, "a damaged file an earlier refetch set aside (its file was "
		    "restored then): removed once its extended attributes are repaired ('mapctl "
		    "repair', else 'mapctl repair --offline')");
	} else if (r->dry_run) {
		set(e, OUT_REMOVED, "a damaged file an earlier refetch set aside: would be removed");
	} else if (fstatat(pc->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		   st.st_ino != pc->st.st_ino || unlinkat(pc->dirfd, name, 0) != 0) {
		set(e, OUT_FAILED, "a damaged file an earlier refetch set aside: it cannot be "
		    "removed now");
	} else {
		set(e, OUT_REMOVED, "a damaged file an earlier refetch set aside (its file was "
		    "restored then): removed");
	}
}

/* Order of entries by recorded inode, for refuse_split_links(). */
static int cmp_ino(const void *a, const void *b)
{
	const struct entry *x = *(struct entry *const *)a, *y = *(struct entry *const *)b;

	return x->it->ino < y->it->ino ? -1 : x->it->ino > y->it->ino;
}

/* The mirror's object of @rel (any kind): its device and inode, or false. */
static bool mirror_object(const struct refetch *r, const char *rel, struct stat *st)
{
	struct path_check mpc;
	bool ok = path_check(r->mirror_fd, 0, rel, 0, 0, &mpc) == PATH_SAME;

	if (ok)
		*st = mpc.st;
	path_check_close(&mpc);
	return ok;
}

/*
 * A regular file recorded under several names is written in its own inode
 * once per name, each time from the mirror's file of that name, with that
 * file's owner and mode: the last name wins.  A user who hard-links root's
 * file into a folder of theirs, where the mirror has a file of their own
 * (an old copy made without -H, or a mirror folder they can write), would
 * get root's file with their bytes and their ownership.  So the names of
 * one inode must be one file in the mirror too (a copy that keeps hard
 * links, rsync -H); otherwise each of them is refused and nothing is
 * written to that inode.  0 or -ENOMEM.
 */
static int refuse_split_links(struct refetch *r)
{
	struct entry **v = calloc(r->n + 1, sizeof(*v));
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < r->n; i++)
		if (r->e[i].it->ino && what_of(r->e[i].it->mode) == W_FILE)
			v[n++] = &r->e[i];
	qsort(v, n, sizeof(*v), cmp_ino);
	for (size_t a = 0, b; a < n; a = b) {
		struct stat first, st;
		bool same = true;

		for (b = a + 1; b < n && v[b]->it->ino == v[a]->it->ino; b++)
			;
		if (b - a < 2)
			continue;
		same = mirror_object(r, v[a]->it->path, &first);
		for (size_t k = a + 1; same && k < b; k++)
			same = mirror_object(r, v[k]->it->path, &st) && st.st_dev == first.st_dev &&
			       st.st_ino == first.st_ino;
		if (same) {
			/* Checked again when each is copied: the same file still. */
			for (size_t k = a; k < b; k++) {
				v[k]->mirror_dev = first.st_dev;
				v[k]->mirror_ino = first.st_ino;
			}
			continue;
		}
		for (size_t k = a; k < b; k++) {
			v[k]->split = true;
			set(v[k], OUT_REFUSED, "this file has other names here that the mirror does "
			    "not hold as the same file (hard links not kept there, or another file "
			    "at one of them): which one it should become is not known; nothing was "
			    "written to it");
		}
	}
	free(v);
	return 0;
}

/*
 * May this path be written, and how?  True when it may: @pc holds the walk
 * (the folder, and the recorded inode unless it is missing), @mpc the
 * mirror's.  Nothing is written here.
 */
static bool check_entry(struct refetch *r, struct entry *e, struct path_check *pc,
			struct path_check *mpc)
{
	struct restore_item *it = e->it;

	e->what = what_of(it->mode);
	if (it->conflict) {
		set(e, OUT_REFUSED, "the database names two inodes for this path");
		return false;
	}
	switch (path_check(r->rootfd, r->dev, it->path, it->ino, it->gen, pc)) {
	case PATH_SAME:
		if (is_set_aside(it)) {
			remove_set_aside(r, e, pc);
			return false;
		}
		e->in_place = true;
		if (!it->mode)
			e->what = what_of(pc->st.st_mode);	/* recorded unknown */
		break;
	case PATH_MISSING:
		/* Deleted by a repair, or moved to the orphanage: recreated in
		 * the checked folder.  A missing folder on the way comes back
		 * first when it is a finding too (paths are in order). */
		if (!pc->parent_exists) {
			char why[sizeof(e->detail)];

			snprintf(why, sizeof(why), "%s: its folder must come back first", pc->why);
			set(e, OUT_FAILED, why);
			return false;
		}
		e->missing = true;
		break;
	case PATH_ERROR:
		set(e, OUT_FAILED, pc->why);	/* e.g. its inode cannot be read */
		return false;
	default:
		set(e, OUT_REFUSED, pc->why);
		return false;
	}
	if (!check_mirror(r, e, mpc))
		return false;
	/* Its extended attributes cannot be listed, so they cannot be made the
	 * mirror's; and XFS cannot free an attribute fork it cannot read, so
	 * the file cannot be replaced either.  The repair comes first. */
	if (e->what != W_SYMLINK && e->in_place && xattrs_unreadable(pc->fd)) {
		set(e, OUT_FAILED, "its extended attributes cannot be read: rebuild them first "
		    "('mapctl repair', else 'mapctl repair --offline'), then refetch again; "
		    "nothing was written");
		return false;
	}
	if (e->missing && it->ino) {
		struct path_check opc;
		char orphan[64];

		snprintf(orphan, sizeof(orphan), ORPHANAGE "/%llu", (unsigned long long)it->ino);
		if (path_check(r->rootfd, r->dev, orphan, it->ino, it->gen, &opc) == PATH_SAME)
			e->orphan_ino = it->ino;
		path_check_close(&opc);
	}
	e->sent = true;
	return true;
}
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

/* Write the path from the mirror through the checked descriptors. */
static void restore_entry(struct refetch *r, struct entry *e, struct path_check *pc,
			  const struct path_check *mpc)
{
	static const enum outcome outcome_of[] = {
		[RESTORE_OK] = OUT_RESTORED, [RESTORE_STILL_BAD] = OUT_STILL_BAD,
		[RESTORE_FAILED] = OUT_FAILED, [RESTORE_REFUSED] = OUT_REFUSED,
	};
	const char *name = path_last_name(e->it->path);
	int target = e->missing ? -1 : pc->fd;
	char why[sizeof(e->detail)] = "";
	enum restore_result rr;

	switch (e->what) {
	case W_SYMLINK:
		rr = restore_symlink(pc->dirfd, name, target, mpc->fd, why, sizeof(why));
		break;
	case W_DIR:
		rr = restore_dir(pc->dirfd, name, target, mpc->fd, why, sizeof(why));
		break;
	default:
		rr = restore_file(r->fs, pc->dirfd, name, target, mpc->fd, why, sizeof(why));
		break;
	}
	set(e, outcome_of[rr], rr == RESTORE_OK && e->missing ? "recreated" : why);
	if (rr != RESTORE_OK || !e->orphan_ino)
		return;
	int fd = e->what != W_FILE ? -1 : openat(pc->dirfd, name, O_RDONLY | O_NOFOLLOW |
						   O_NOATIME | O_NONBLOCK | O_CLOEXEC);
	settle_orphan(r, e, fd);
	if (fd >= 0)
		close(fd);
}

/* The mirror on the filesystem it would restore (the same device, a bind
 * mount of it, or a clone with its UUID) holds the same damage: refused
 * before anything is written. */
static bool mirror_is_this_fs(const struct refetch *r)
{
	struct fsuuid2 a = { .len = 16 }, b = { .len = 16 };
	struct stat st;

	if (fstat(r->mirror_fd, &st) == 0 && (uint64_t)st.st_dev == r->dev)
		return true;
	int mfd = openat(r->mirror_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool same = mfd >= 0 && ioctl(mfd, FS_IOC_GETFSUUID, &a) == 0 &&
		    ioctl(r->rootfd, FS_IOC_GETFSUUID, &b) == 0 && a.len == b.len &&
		    memcmp(a.uuid, b.uuid, a.len) == 0;
	if (mfd >= 0)
		close(mfd);
	return same;
}

/* Each folder restored gets the mirror's entries it lacks, then lost+found
 * loses the orphans that are copies of them (act_refetch_dir.c).  0 or -errno. */
static int put_back_entries(struct refetch *r)
{
	const struct refetch_src src = { .fs = r->fs, .rootfd = r->rootfd,
		.dev = r->dev, .from = r->from, .mirror_fd = r->mirror_fd };

	for (size_t i = 0; i < r->n; i++) {
		struct entry *e = &r->e[i];

		if (!e->sent || e->what != W_DIR || e->outcome != OUT_RESTORED)
			continue;
		/* Recreated: any inode, the one the restore made. */
		int rc = refetch_dir_put_back(&src, e->it->path, e->in_place ? e->it->ino : 0,
					      e->in_place ? e->it->gen : 0, &r->put_back,
					      e->put_back, sizeof(e->put_back));
		if (rc < 0)
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
			if (rc == 0 && (e->outcome == OUT_RESTORED || e->outcome == OUT_REMOVED))
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
	if (r->dry_run && e->outcome == OUT_REMOVED)
		return "would-remove";
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
		map_json_int(&j, "open_findings", map_counts_open(counts));
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

	opterr = 0;	/* option_error() says it, in one line */
	while ((c = getopt_long(argc, argv, "n", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': r.from = optarg; break;
		case 'n': r.dry_run = true; break;
		case 'j': ctl->json = true; break;
		default: return option_error(ctl, argv, "n", longopts);
		}
	}
	if (optind >= argc)
		return fail(ctl, 0, "which filesystem? (mapctl refetch PATH --from DIR)");
	if (!r.from || !r.from[0])
		return fail(ctl, 0, "where from? give --from DIR (a local folder holding the same "
			    "tree)");
	rc = need_root(ctl, "refetching");
	if (rc)
		return rc;
	if (!is_local(r.from))
		return fail(ctl, 0, "the mirror %s: refetch copies from a local folder only, "
			    "checking every file it reads and writes by descriptor; mount the "
			    "mirror (NFS, sshfs) and give that folder, or copy with 'mapctl "
			    "export --rsync'", shown(r.from));
	r.mirror_fd = open(r.from, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (r.mirror_fd < 0)
		return fail(ctl, -errno, "the mirror %s", shown(r.from));
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
	if (mirror_is_this_fs(&r)) {
		rc = fail(ctl, 0, "the mirror %s is on the filesystem it would restore (%s): it "
			  "has the same damage; give a copy on another filesystem", shown(r.from),
			  shown(r.mnt));
		goto out;
	}
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
	if (!ctl->json && !r.dry_run) {
		printf("%s: refetching %zu path%s from %s\n", shown(r.mnt), r.n,
		       r.n == 1 ? "" : "s", shown(r.from));
		fflush(stdout);
	}
	for (size_t i = 0; i < r.n; i++) {
		r.e[i].it = &list.v[i];
		r.e[i].outcome = OUT_FAILED;
	}
	rc = refuse_split_links(&r);
	if (rc) {
		rc = fail(ctl, rc, "refetch");
		goto out;
	}
	/* In path order: a folder that comes back comes before what is in it. */
	size_t nsent = 0;
	for (size_t i = 0; i < r.n; i++) {
		struct path_check pc = { .fd = -1, .dirfd = -1 }, mpc = { .fd = -1, .dirfd = -1 };
		struct entry *e = &r.e[i];

		if (e->split)
			continue;
		if (check_entry(&r, e, &pc, &mpc) && !r.dry_run)
			restore_entry(&r, e, &pc, &mpc);
		path_check_close(&pc);
		path_check_close(&mpc);
		nsent += e->sent;
	}
	if (r.dry_run) {
		if (ctl->json) {
			print_json(&r, NULL);
		} else {
			printf("%s: would refetch %zu of %zu path%s from %s\n", shown(r.mnt), nsent,
			       r.n, r.n == 1 ? "" : "s", shown(r.from));
			print_text(&r);
		}
		goto out;
	}
	rc = put_back_entries(&r);
	if (rc) {
		rc = fail(ctl, rc, "putting back the entries of folders");
		goto out;
	}
	int unrecorded = record_outcomes(&r, st, fs_id);
	int counts[MAP_STATE_NR], restored = 0, removed = 0;
	for (size_t i = 0; i < r.n; i++) {
		restored += r.e[i].outcome == OUT_RESTORED;
		removed += r.e[i].outcome == OUT_REMOVED;
	}
	rc = map_store_count(st, fs_id, counts);
	if (rc) {
		rc = fail(ctl, rc, "reading the database");
		goto out;
	}
	if (ctl->json) {
		print_json(&r, counts);
	} else {
		print_text(&r);
		printf("%s: %d restored and verified, ", shown(r.mnt), restored);
		if (removed)
			printf("%d set aside earlier removed, ", removed);
		printf("%zu not; %d finding%s still open%s\n", r.n - (size_t)(restored + removed),
		       map_counts_open(counts), map_counts_open(counts) == 1 ? "" : "s",
		       restored + removed ? "; 'mapctl scan' confirms" : "");
	}
	if (unrecorded)
		rc = fail(ctl, 0, "%d outcome%s could not be recorded; the findings keep their "
			  "state", unrecorded, unrecorded == 1 ? "" : "s");
	else
		rc = map_counts_open(counts) ? EXIT_DAMAGE : EXIT_CLEAN;
out:
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
	"Usage: mapctl refetch PATH --from DIR [--dry-run] [--json]\n"
	"\n"
	"Restore what the open findings of the filesystem holding PATH lost, from DIR,\n"
	"a local folder on another filesystem holding the same tree (mount a remote\n"
	"mirror first): file data, rewritten in its own inode so every hard link sees\n"
	"it; size, mode, owner, times, ACLs and extended attributes; symbolic links;\n"
	"folders' own attributes (a folder whose entries cannot be read stays\n"
	"still-unreadable: 'mapctl repair' rebuilds it); and files a repair deleted,\n"
	"recreated at their recorded paths.\n"
	"\n"
	"Refused before anything is written: a mirror on this filesystem (also through\n"
	"a bind mount); a path whose walk from the mount root, name by name without\n"
	"following links, meets a link, another filesystem, or another inode or\n"
	"generation than recorded; a mirror's object of another kind.  Every write\n"
	"goes through the descriptors of that walk, never the path again.\n"
	"\n"
	"A failed copy leaves the file as it was: the mirror's bytes go first into an\n"
	"unnamed file of the same folder, read back equal to the mirror; only then do\n"
	"they replace the old bytes, in the old inode.  A mirror that cannot be read,\n"
	"a full filesystem or a mirror that changes fails with the reason.\n"
	"\n"
	"restored means: after the copy, every block was read back from the device,\n"
	"its bytes equal the mirror's (read again, unchanged), and its size, mode,\n"
	"owner, modification time and extended attributes (or link target) equal the\n"
	"mirror's.  Otherwise: failed, still-unreadable or refused, with the reason.\n"
	"A file whose extended attributes cannot be read fails: repair it first.\n"
	"\n"
	"A damaged folder, once restored, gets back the mirror's entries it lacks, one\n"
	"level, copied the same way and never over a name it has; a regular file\n"
	"of lost+found with one name that has the bytes of a file put back (or is a\n"
	"damaged copy) is then removed.  A file found as lost+found/INODE (its recorded\n"
	"inode) is restored at its path, and the orphan removed when it is a copy.\n"
	"\n"
	"A finding whose paths were all restored is marked refetched (a later 'mapctl\n"
	"scan' resolves it); the others stay open.  Needs root.\n"
	"\n"
	"Options:\n"
	"  --from DIR    where good copies are (a local folder)\n"
	"  -n, --dry-run show what would be copied and refused; change nothing\n"
	"  --json        each path with its outcome, as JSON (mapper-json(7))\n"
	"  -h, --help    this text\n"
	"\n"
	"Exit status: 0 nothing left open, 1 findings still open, 2 could not run.\n",
};
