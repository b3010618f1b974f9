// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reports kept on the side while the database cannot be written.  One file
 * per report, "<16-digit sequence>.rec", written under a temporary name and
 * renamed into place, so a file that is there is whole.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "spool.h"

#define SPOOL_MAGIC "MDSPOOL1"
#define SPOOL_END "END1"
#define SPOOL_VERSION 2	/* 2: the healthy record (1 still read) */
#define NAME_DIGITS 16
#define STR_MAX 65536			/* longest string kept: a path of many levels */

#define DIR_MAX (PATH_MAX - 64)	/* room for "/<name>" after it */
#define NAME_PATH_MAX (DIR_MAX + 1 + 256)

struct md_spool {
	char dir[DIR_MAX];
	uint64_t next_seq;
	size_t entries;
	uint64_t bytes;
};

/* ---- encoding ---- */

struct wbuf {
	unsigned char *p;
	size_t n, cap;
	int err;
};

static void put(struct wbuf *w, const void *data, size_t len)
{
	if (w->err)
		return;
	if (w->n + len > MD_SPOOL_MAX_ENTRY) {
		w->err = -EFBIG;
		return;
	}
	if (w->n + len > w->cap) {
		size_t cap = w->cap ? w->cap : 4096;
		unsigned char *p;

		while (cap < w->n + len)
			cap *= 2;
		p = realloc(w->p, cap);
		if (!p) {
			w->err = -ENOMEM;
			return;
		}
		w->p = p;
		w->cap = cap;
	}
	memcpy(w->p + w->n, data, len);
	w->n += len;
}

static void put_u8(struct wbuf *w, uint8_t v) { put(w, &v, sizeof(v)); }
static void put_u32(struct wbuf *w, uint32_t v) { put(w, &v, sizeof(v)); }
static void put_u64(struct wbuf *w, uint64_t v) { put(w, &v, sizeof(v)); }

static void put_str(struct wbuf *w, const char *s)
{
	size_t len = s ? strlen(s) : 0;

	if (len > STR_MAX) {
		w->err = w->err ? w->err : -EFBIG;
		return;
	}
	put_u32(w, (uint32_t)len);
	put(w, s, len);
}

static void encode(struct wbuf *w, const struct md_spool_entry *e)
{
	const struct map_fs_info *in = &e->info;

	put(w, SPOOL_MAGIC, 8);
	put_u32(w, SPOOL_VERSION);
	put_u32(w, (uint32_t)sizeof(struct map_geometry));
	put_u8(w, e->have_info);
	put_str(w, in->mountpoint);
	put_str(w, in->device);
	put_str(w, in->uuid);
	put_str(w, in->label);
	put_str(w, in->model);
	put_str(w, in->serial);
	put_str(w, in->wwn);
	put_u64(w, in->dev);
	put_u32(w, in->fsmap_dev);
	put_u8(w, in->read_only);
	put(w, &in->geo, sizeof(in->geo));

	put_u64(w, (uint64_t)e->row.at);
	put_str(w, map_event_source_name(e->row.source));
	put_u64(w, e->row.ino);
	put_u32(w, e->row.gen);
	put_u32(w, (uint32_t)e->row.error);
	put_str(w, e->row.detail);
	put_u64(w, e->healthy_ino);
	put_u32(w, e->healthy_gen);
	put_str(w, e->healthy_scrub);

	put_u32(w, (uint32_t)e->n);
	for (size_t i = 0; i < e->n; i++) {
		const struct map_finding *f = &e->v[i];

		put_str(w, map_finding_source_name(f->source));
		put_str(w, f->kind);
		put_u8(w, f->has_range);
		put_u64(w, f->physical);
		put_u64(w, f->length);
		put_u64(w, f->ino);
		put_u32(w, f->gen);
		put_u32(w, f->mode);
		put_str(w, f->fork);
		put_u8(w, f->has_offset);
		put_u64(w, f->offset);
		put_u64(w, (uint64_t)f->agno);
		put_u32(w, f->flags);
		put_str(w, f->scrub);
		put_str(w, f->detail);
		put_u32(w, (uint32_t)f->state);
		put_u64(w, (uint64_t)f->first_seen);
		put_u64(w, (uint64_t)f->last_seen);
		put_u64(w, (uint64_t)f->first_scan);
		put_u64(w, (uint64_t)f->last_scan);
		put_u32(w, (uint32_t)f->npaths);
		for (size_t k = 0; k < f->npaths; k++)
			put_str(w, f->paths[k]);
	}
	put(w, SPOOL_END, 4);
}

/* ---- decoding: every read checked against the end ---- */

struct rbuf {
	const unsigned char *p;
	size_t n, off;
	bool bad;
};

static void get(struct rbuf *r, void *dst, size_t len)
{
	if (r->bad || len > r->n - r->off) {
		r->bad = true;
		memset(dst, 0, len);
		return;
	}
	memcpy(dst, r->p + r->off, len);
	r->off += len;
}

static uint8_t get_u8(struct rbuf *r) { uint8_t v; get(r, &v, sizeof(v)); return v; }
static uint32_t get_u32(struct rbuf *r) { uint32_t v; get(r, &v, sizeof(v)); return v; }
static uint64_t get_u64(struct rbuf *r) { uint64_t v; get(r, &v, sizeof(v)); return v; }

/* A string into a fixed field: too long for it means a file not ours. */
static void get_str(struct rbuf *r, char *dst, size_t size)
{
	uint32_t len = get_u32(r);

	if (r->bad || len >= size || len > r->n - r->off) {
		r->bad = true;
		dst[0] = '\0';
		return;
	}
	memcpy(dst, r->p + r->off, len);
	dst[len] = '\0';
	r->off += len;
}

static char *get_strdup(struct rbuf *r)
{
	uint32_t len = get_u32(r);
	char *s;

	if (r->bad || len > STR_MAX || len > r->n - r->off) {
		r->bad = true;
		return NULL;
	}
	s = malloc(len + 1);
	if (!s) {
		r->bad = true;
		return NULL;
	}
	memcpy(s, r->p + r->off, len);
	s[len] = '\0';
	r->off += len;
	return s;
}

void md_spool_entry_free(struct md_spool_entry *e)
{
	for (size_t i = 0; i < e->n; i++)
		map_finding_clear(&e->v[i]);
	free(e->v);
	e->v = NULL;
	e->n = 0;
}

static void get_info(struct rbuf *r, struct map_fs_info *in)
{
	get_str(r, in->mountpoint, sizeof(in->mountpoint));
	get_str(r, in->device, sizeof(in->device));
	get_str(r, in->uuid, sizeof(in->uuid));
	get_str(r, in->label, sizeof(in->label));
	get_str(r, in->model, sizeof(in->model));
	get_str(r, in->serial, sizeof(in->serial));
	get_str(r, in->wwn, sizeof(in->wwn));
	in->dev = get_u64(r);
	in->fsmap_dev = get_u32(r);
	in->read_only = get_u8(r);
	get(r, &in->geo, sizeof(in->geo));
}

/* A word from its name table, by the _from_name() that knows it: one not
 * in the table means a file not ours. */
static int get_word(struct rbuf *r, int (*from_name)(const char *name))
{
	char word[16];
	int i;

	get_str(r, word, sizeof(word));
	i = r->bad ? -EINVAL : from_name(word);
	if (i < 0)
		r->bad = true;
	return i < 0 ? 0 : i;
}

/* The events row, and (from version 2) the inode it marks healthy. */
static void get_row(struct rbuf *r, struct md_spool_entry *e, uint32_t version)
{
	e->row.at = (int64_t)get_u64(r);
	e->row.source = (enum map_event_source)get_word(r, map_event_source_from_name);
	e->row.ino = get_u64(r);
	e->row.gen = get_u32(r);
	e->row.error = (int)get_u32(r);
	get_str(r, e->row.detail, sizeof(e->row.detail));
	if (version >= 2) {
		e->healthy_ino = get_u64(r);
		e->healthy_gen = get_u32(r);
		get_str(r, e->healthy_scrub, sizeof(e->healthy_scrub));
	}
}

/* One finding into @f (initialised here); r->bad when it cannot be one. */
static void get_finding(struct rbuf *r, struct map_finding *f)
{
	uint32_t npaths;

	map_finding_init(f);
	f->source = (enum map_finding_source)get_word(r, map_finding_source_from_name);
	get_str(r, f->kind, sizeof(f->kind));
	f->has_range = get_u8(r);
	f->physical = get_u64(r);
	f->length = get_u64(r);
	f->ino = get_u64(r);
	f->gen = get_u32(r);
	f->mode = get_u32(r);
	get_str(r, f->fork, sizeof(f->fork));
	f->has_offset = get_u8(r);
	f->offset = get_u64(r);
	f->agno = (int64_t)get_u64(r);
	f->flags = get_u32(r);
	get_str(r, f->scrub, sizeof(f->scrub));
	get_str(r, f->detail, sizeof(f->detail));
	f->state = (enum map_finding_state)get_u32(r);
	f->first_seen = (int64_t)get_u64(r);
	f->last_seen = (int64_t)get_u64(r);
	f->first_scan = (int64_t)get_u64(r);
	f->last_scan = (int64_t)get_u64(r);
	npaths = get_u32(r);
	if (f->state >= MAP_STATE_NR || npaths > (r->n - r->off) / 4)
		r->bad = true;
	for (uint32_t k = 0; k < npaths && !r->bad; k++) {
		char *path = get_strdup(r);

		if (path && map_finding_add_path(f, path) != 0)
			r->bad = true;
		free(path);
	}
}

static int decode(struct rbuf *r, struct md_spool_entry *e)
{
	char magic[8], end[4];
	uint32_t n, version;

	memset(e, 0, sizeof(*e));
	get(r, magic, 8);
	version = get_u32(r);
	if (r->bad || memcmp(magic, SPOOL_MAGIC, 8) != 0 || version < 1 ||
	    version > SPOOL_VERSION || get_u32(r) != sizeof(struct map_geometry))
		return -EINVAL;
	e->have_info = get_u8(r);
	get_info(r, &e->info);
	get_row(r, e, version);

	n = get_u32(r);
	/* each finding takes well over 64 bytes: a count the file cannot hold is a lie */
	if (r->bad || n > (r->n - r->off) / 64)
		return -EINVAL;
	e->v = calloc(n ? n : 1, sizeof(*e->v));
	if (!e->v)
		return -ENOMEM;
	for (uint32_t i = 0; i < n && !r->bad; i++) {
		e->n = i + 1;
		get_finding(r, &e->v[i]);
	}
	get(r, end, 4);
	if (r->bad || memcmp(end, SPOOL_END, 4) != 0 || r->off != r->n) {
		md_spool_entry_free(e);
		return -EINVAL;
	}
	return 0;
}

/* ---- the folder ---- */

static bool entry_name(const char *name, uint64_t *seq)
{
	char *end;

	if (strlen(name) != NAME_DIGITS + 4 || strcmp(name + NAME_DIGITS, ".rec") != 0)
		return false;
	for (int i = 0; i < NAME_DIGITS; i++)
		if (name[i] < '0' || name[i] > '9')
			return false;
	*seq = strtoull(name, &end, 10);
	return true;
}

int md_spool_open(const char *dir, struct md_spool **out)
{
	struct md_spool *sp;
	struct dirent *de;
	DIR *dh;
	int rc;

	*out = NULL;
	if (strlen(dir) >= DIR_MAX)
		return -ENAMETOOLONG;
	rc = map_dir_ensure(dir, 0700);
	if (rc)
		return rc;
	sp = calloc(1, sizeof(*sp));
	if (!sp)
		return -ENOMEM;
	snprintf(sp->dir, sizeof(sp->dir), "%s", dir);
	sp->next_seq = 1;
	dh = opendir(dir);
	if (!dh) {
		rc = -errno;
		free(sp);
		return rc;
	}
	while ((de = readdir(dh))) {
		char path[NAME_PATH_MAX];
		struct stat st;
		uint64_t seq;

		if (!entry_name(de->d_name, &seq))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		sp->entries++;
		sp->bytes += (uint64_t)st.st_size;
		if (seq >= sp->next_seq)
			sp->next_seq = seq + 1;
	}
	closedir(dh);
	if (sp->entries)
		log_notice("spool %s: %zu reports wait for the database", dir, sp->entries);
	*out = sp;
	return 0;
}

void md_spool_close(struct md_spool *sp)
{
	free(sp);
}

size_t md_spool_pending(const struct md_spool *sp)
{
	return sp ? sp->entries : 0;
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

int md_spool_put(struct md_spool *sp, const struct md_spool_entry *e)
{
	char tmp[NAME_PATH_MAX], path[NAME_PATH_MAX];
	struct wbuf w = { 0 };
	int fd, rc;

	if (sp->entries >= MD_SPOOL_MAX_ENTRIES)
		return -ENOSPC;
	encode(&w, e);
	if (w.err) {
		free(w.p);
		return w.err;
	}
	if (sp->bytes + w.n > MD_SPOOL_MAX_BYTES) {
		free(w.p);
		return -ENOSPC;
	}
	snprintf(tmp, sizeof(tmp), "%s/.tmp-%0*" PRIu64, sp->dir, NAME_DIGITS, sp->next_seq);
	snprintf(path, sizeof(path), "%s/%0*" PRIu64 ".rec", sp->dir, NAME_DIGITS, sp->next_seq);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		rc = -errno;
		free(w.p);
		return rc;
	}
	rc = write_all(fd, w.p, w.n);
	if (close(fd) != 0 && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path) != 0)
		rc = -errno;
	if (rc)
		unlink(tmp);
	else {
		sp->next_seq++;
		sp->entries++;
		sp->bytes += w.n;
	}
	free(w.p);
	return rc;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Read one entry file (a regular file of a sane size, not a link). */
static int read_entry(const char *path, unsigned char **buf, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	int rc = 0;

	*buf = NULL;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    st.st_size > MD_SPOOL_MAX_ENTRY) {
		close(fd);
		return -EINVAL;
	}
	*buf = malloc((size_t)st.st_size);
	if (!*buf) {
		close(fd);
		return -ENOMEM;
	}
	*len = 0;
	while (*len < (size_t)st.st_size) {
		ssize_t k = read(fd, *buf + *len, (size_t)st.st_size - *len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			rc = k < 0 ? -errno : -EINVAL;
			break;
		}
		*len += (size_t)k;
	}
	close(fd);
	if (rc) {
		free(*buf);
		*buf = NULL;
	}
	return rc;
}

static void forget(struct md_spool *sp, const char *path)
{
	struct stat st;

	if (lstat(path, &st) == 0 && sp->bytes >= (uint64_t)st.st_size)
		sp->bytes -= (uint64_t)st.st_size;
	if (unlink(path) == 0 && sp->entries)
		sp->entries--;
}

int md_spool_replay(struct md_spool *sp, int (*fn)(struct md_spool_entry *e, void *arg),
		    void *arg, size_t *done)
{
	char **names = NULL;
	size_t n = 0;
	struct dirent *de;
	DIR *dh;
	int rc = 0;

	*done = 0;
	if (!sp->entries)
		return 0;
	dh = opendir(sp->dir);
	if (!dh)
		return -errno;
	/* At most the entries we keep (and the folder is ours alone). */
	while ((de = readdir(dh)) && n < MD_SPOOL_MAX_ENTRIES) {
		uint64_t seq;
		char **v;

		if (!entry_name(de->d_name, &seq))
			continue;
		v = realloc(names, (n + 1) * sizeof(*v));
		if (!v || !(v[n] = strdup(de->d_name))) {
			names = v ? v : names;
			rc = -ENOMEM;
			break;
		}
		names = v;
		n++;
	}
	closedir(dh);
	if (names)
		qsort(names, n, sizeof(*names), cmp_name);
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct md_spool_entry *e = calloc(1, sizeof(*e));
		char path[NAME_PATH_MAX];
		unsigned char *buf;
		size_t len = 0;

		if (!e) {
			rc = -ENOMEM;
			break;
		}
		snprintf(path, sizeof(path), "%s/%s", sp->dir, names[i]);
		rc = read_entry(path, &buf, &len);
		if (rc == 0) {
			struct rbuf r = { .p = buf, .n = len };

			rc = decode(&r, e);
			free(buf);
		}
		if (rc == -ENOMEM) {
			free(e);
			break;
		}
		if (rc) {
			log_warn("spool: %s is not a report of this mapperd: removed", path);
			forget(sp, path);
			rc = 0;
			free(e);
			continue;
		}
		rc = fn(e, arg);
		if (rc == 0) {
			forget(sp, path);
			(*done)++;
		}
		md_spool_entry_free(e);
		free(e);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}
