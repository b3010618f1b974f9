// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * refetch: put back from a mirror what the damage (or a repair) took:
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
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/fs.h>

#include "act_path_check.h"
#include "act_refetch.h"
#include "act_restore_copy.h"
#include "act_restore_verify.h"
#include "map_act.h"

#ifndef FS_IOC_GETFSUUID
/* Linux 6.5: a filesystem's UUID from any of its files. */
struct fsuuid2 {
	uint8_t len;
	uint8_t uuid[16];
};
#define FS_IOC_GETFSUUID _IOR(0x15, 0, struct fsuuid2)
#endif

/* Words for the outcomes, as recorded and printed. */
static const char *const outcome_name[OUT_NR] = {
	[OUT_RESTORED] = "restored",
	[OUT_REMOVED] = "removed",
	[OUT_STILL_BAD] = "still-unreadable",
	[OUT_FAILED] = "failed",
	[OUT_REFUSED] = "refused",
};

static enum refetch_what what_of(uint32_t mode)
{
	if (S_ISLNK(mode))
		return W_SYMLINK;
	if (S_ISDIR(mode))
		return W_DIR;
	return W_FILE;	/* regular, or unknown (an inode that could not be read) */
}

bool refetch_is_local(const char *from)
{
	const char *colon = strchr(from, ':'), *slash = strchr(from, '/');

	return !colon || (slash && slash < colon);
}

static void set(struct refetch_entry *e, enum refetch_outcome o, const char *why)
{
	e->outcome = o;
	snprintf(e->detail, sizeof(e->detail), "%s", why);
}

/* The mirror's copy of @rel must exist, be on another filesystem, and be
 * what we mean to restore: a regular file is only replaced by a regular
 * file, a link by a link.  @mpc keeps it (O_PATH) for the copy. */
static bool check_mirror(struct refetch *r, struct refetch_entry *e, struct path_check *mpc)
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
static void remove_set_aside(struct refetch *r, struct refetch_entry *e, struct path_check *pc)
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
	const struct refetch_entry *x = *(struct refetch_entry *const *)a;
	const struct refetch_entry *y = *(struct refetch_entry *const *)b;

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
	struct refetch_entry **v = calloc(r->n + 1, sizeof(*v));
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
static bool check_entry(struct refetch *r, struct refetch_entry *e, struct path_check *pc,
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
static void settle_orphan(struct refetch *r, struct refetch_entry *e, int restored_fd)
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

/* Write the path from the mirror through the checked descriptors. */
static void restore_entry(struct refetch *r, struct refetch_entry *e, struct path_check *pc,
			  const struct path_check *mpc)
{
	static const enum refetch_outcome outcome_of[] = {
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

bool refetch_mirror_is_this_fs(const struct refetch *r)
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

int refetch_put_back(struct refetch *r)
{
	const struct refetch_src src = { .fs = r->fs, .rootfd = r->rootfd,
		.dev = r->dev, .from = r->from, .mirror_fd = r->mirror_fd };

	for (size_t i = 0; i < r->n; i++) {
		struct refetch_entry *e = &r->e[i];

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

int refetch_record(struct refetch *r, struct map_store *st, int64_t fs_id)
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
		const struct refetch_entry *e = &r->e[worst];
		char detail[4096];	/* cut to what the store keeps */

		snprintf(detail, sizeof(detail), "%s from %s%s%s%s%s%s%s", e->it->path, r->from,
			 e->detail[0] ? ": " : "", e->detail, e->orphan_note[0] ? "; " : "",
			 e->orphan_note, e->put_back[0] ? "; " : "", e->put_back);
		/* What was done and the state it leads to: both or neither. */
		int rc = map_store_begin(st);
		if (rc == 0) {
			rc = record_action(st, fs_id, p[a].id, "refetch", refetch_outcome_name(e->outcome),
					   detail);
			if (rc == 0 && (e->outcome == OUT_RESTORED || e->outcome == OUT_REMOVED))
				rc = map_store_finding_set_state(st, p[a].id, MAP_STATE_REFETCHED);
			rc = store_finish(st, rc);
		}
		if (rc) {
			if (r->unrecorded)
				r->unrecorded(p[a].id, rc, r->arg);
			bad++;
		}
	}
	free(p);
	return (int)bad;
}

const char *refetch_outcome_name(enum refetch_outcome o)
{
	return o < OUT_NR ? outcome_name[o] : "?";
}

int refetch_open_mirror(struct refetch *r)
{
	r->mirror_fd = open(r->from, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return r->mirror_fd < 0 ? -errno : 0;
}

int refetch_load(struct refetch *r, struct map_store *st, int64_t fs_id)
{
	int rc = restore_list_build_kinds(st, fs_id, RESTORE_SYMLINKS | RESTORE_DIRS, &r->list);

	if (rc)
		return rc;
	r->mnt = map_fs_info(r->fs)->mountpoint;
	r->rootfd = map_fs_fd(r->fs);
	r->dev = map_fs_info(r->fs)->dev;
	r->n = r->list.n;
	return 0;
}

int refetch_paths(struct refetch *r)
{
	int rc;

	r->e = calloc(r->n + 1, sizeof(*r->e));
	if (!r->e)
		return -ENOMEM;
	for (size_t i = 0; i < r->n; i++) {
		r->e[i].it = &r->list.v[i];
		r->e[i].outcome = OUT_FAILED;
	}
	rc = refuse_split_links(r);
	if (rc)
		return rc;
	for (size_t i = 0; i < r->n; i++) {
		struct path_check pc = { .fd = -1, .dirfd = -1 }, mpc = { .fd = -1, .dirfd = -1 };
		struct refetch_entry *e = &r->e[i];

		if (e->split)
			continue;
		if (check_entry(r, e, &pc, &mpc) && !r->dry_run)
			restore_entry(r, e, &pc, &mpc);
		path_check_close(&pc);
		path_check_close(&mpc);
	}
	return 0;
}

void refetch_free(struct refetch *r)
{
	free(r->e);
	r->e = NULL;
	r->n = 0;
	put_back_set_free(&r->put_back);
	orphan_report_free(&r->orphans);
	if (r->mirror_fd >= 0)
		close(r->mirror_fd);
	r->mirror_fd = -1;
	restore_list_free(&r->list);
}
