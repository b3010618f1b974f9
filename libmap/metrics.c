// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The store's figures in the Prometheus text exposition format (version
 * 0.0.4), for node_exporter's textfile collector or any scraper: written by
 * mapctl metrics and by mapperd (metrics_file).  Read from the database
 * alone, in one read transaction; nothing touches a filesystem, so it runs
 * unprivileged on a readable database.
 *
 * Label values: a mount point, label or device name is whatever bytes
 * someone chose.  The format wants UTF-8 and has only three escapes, so a
 * value is first written as mapctl writes names for people (map_escape_text:
 * control characters and invalid UTF-8 as \xNN, a backslash doubled, so the
 * bytes can be read back exactly), then escaped for the format (backslash,
 * double quote, newline).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "map.h"

/* The filesystems of the store, to label each figure with. */
struct fs_table {
	struct map_store_fs *v;
	size_t n, cap;
};

struct metrics {
	FILE *out;
	struct map_store *st;
	struct fs_table fs;
	const char *family;	/* the family being written */
	const char *label;	/* its one label besides uuid and mountpoint */
};

static int add_fs(const struct map_store_fs *fs, void *arg)
{
	struct fs_table *t = arg;

	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 8;
		struct map_store_fs *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n++] = *fs;
	return 0;
}

/* map_store_fs_each gives them ordered by id. */
static const struct map_store_fs *fs_find(const struct fs_table *t, int64_t id)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].id == id)
			return &t->v[mid];
		if (t->v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void header(struct metrics *m, const char *name, const char *type, const char *help)
{
	fprintf(m->out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
	m->family = name;
}

/* One label: name="value", the value escaped as the file's header says. */
static int label(FILE *out, bool first, const char *name, const char *value)
{
	char *text = map_escape_text(value);

	if (!text)
		return -ENOMEM;
	fprintf(out, "%s%s=\"", first ? "" : ",", name);
	for (const char *p = text; *p; p++) {
		if (*p == '\\')
			fputs("\\\\", out);
		else if (*p == '"')
			fputs("\\\"", out);
		else if (*p == '\n')
			fputs("\\n", out);	/* the format's third escape (map_escape_text
						 * has made newlines text already) */
		else
			fputc(*p, out);
	}
	fputc('"', out);
	free(text);
	return 0;
}

/* The start of a sample of the current family: name{uuid=..,mountpoint=.. */
static int sample_start(struct metrics *m, const struct map_store_fs *fs)
{
	fprintf(m->out, "%s{", m->family);
	int rc = label(m->out, true, "uuid", fs ? fs->uuid : "");

	return rc ? rc : label(m->out, false, "mountpoint", fs ? fs->mountpoint : "");
}

static int sample_int(struct metrics *m, const struct map_store_fs *fs, const char *key,
		      int64_t value)
{
	int rc = sample_start(m, fs);

	if (rc == 0 && m->label)
		rc = label(m->out, false, m->label, key);
	fprintf(m->out, "} %lld\n", (long long)value);
	return rc;
}

static int tally_sample(const struct map_tally *t, void *arg)
{
	struct metrics *m = arg;

	/* fs_id 0: events that came for no filesystem the store knows. */
	return sample_int(m, fs_find(&m->fs, t->fs_id), t->key, t->n);
}

static int tally_family(struct metrics *m, enum map_tally_what what, const char *name,
			const char *type, const char *labelname, const char *help)
{
	header(m, name, type, help);
	m->label = labelname;
	return m->st ? map_store_tally(m->st, what, tally_sample, m) : 0;
}

static int info_family(struct metrics *m)
{
	int rc = 0;

	header(m, "mapper_filesystem_info", "gauge",
	       "A filesystem the store knows (always 1), with its label and device.");
	for (size_t i = 0; rc == 0 && i < m->fs.n; i++) {
		rc = sample_start(m, &m->fs.v[i]);
		if (rc == 0)
			rc = label(m->out, false, "label", m->fs.v[i].label);
		if (rc == 0)
			rc = label(m->out, false, "device", m->fs.v[i].device);
		fputs("} 1\n", m->out);
	}
	return rc;
}

/* What to say of the last complete scan of each type. */
enum scan_figure { SCAN_FINISHED, SCAN_SECONDS, SCAN_VERIFIED };

static int scan_family(struct metrics *m, enum scan_figure what, const char *name,
		       const char *help)
{
	static const struct { const char *name; unsigned int covered; } types[] = {
		{ "metadata", MAP_COVER_METADATA },
		{ "media", MAP_COVER_MEDIA },
	};
	struct map_scan_row row;
	int rc = 0;

	header(m, name, "gauge", help);
	for (size_t i = 0; rc == 0 && i < m->fs.n; i++) {
		for (size_t k = 0; rc == 0 && k < sizeof(types) / sizeof(types[0]); k++) {
			if (what == SCAN_VERIFIED && types[k].covered != MAP_COVER_MEDIA)
				continue;
			rc = map_store_scan_last_covering(m->st, m->fs.v[i].id, types[k].covered,
							  &row);
			if (rc == -ENOENT) {
				rc = 0;		/* never: no sample, MapperNeverScanned */
				continue;
			}
			if (rc == 0)
				rc = sample_start(m, &m->fs.v[i]);
			if (rc == 0 && what != SCAN_VERIFIED)
				rc = label(m->out, false, "type", types[k].name);
			if (what == SCAN_FINISHED)
				fprintf(m->out, "} %lld\n", (long long)row.finished);
			else if (what == SCAN_SECONDS)
				fprintf(m->out, "} %.9g\n", row.seconds);
			else
				fprintf(m->out, "} %llu\n", (unsigned long long)row.media_done);
		}
	}
	return rc;
}

static int write_families(struct metrics *m)
{
	int rc = info_family(m);

	if (rc == 0)
		rc = tally_family(m, MAP_TALLY_OPEN_BY_KIND, "mapper_open_findings", "gauge", "kind",
				  "Open findings (damaged objects not yet repaired, refetched, "
				  "resolved or ignored) by kind.");
	if (rc == 0)
		rc = tally_family(m, MAP_TALLY_DAMAGED_INODES, "mapper_damaged_files", "gauge", NULL,
				  "Distinct inodes (files, directories, links) with open findings.");
	if (rc == 0)
		rc = scan_family(m, SCAN_FINISHED, "mapper_last_complete_scan_timestamp_seconds",
				 "When the last complete scan of each type (metadata scrub, media "
				 "verification) finished, unix time.");
	if (rc == 0)
		rc = scan_family(m, SCAN_SECONDS, "mapper_last_complete_scan_duration_seconds",
				 "Time the last complete scan of each type took, over all its runs.");
	if (rc == 0)
		rc = scan_family(m, SCAN_VERIFIED, "mapper_last_media_scan_verified_bytes",
				 "Bytes the last complete media verification read.");
	if (rc == 0)
		rc = tally_family(m, MAP_TALLY_EVENTS, "mapper_events_total", "counter", "source",
				  "Error reports received from the kernel (mapperd), by source.");
	if (rc == 0)
		rc = tally_family(m, MAP_TALLY_REPAIRS, "mapper_repairs_total", "counter", "outcome",
				  "Repairs of a finding or of summary counters, by outcome.");
	if (rc == 0)
		rc = tally_family(m, MAP_TALLY_REFETCHES, "mapper_refetches_total", "counter",
				  "outcome", "Files restored from a mirror (mapctl refetch), by outcome.");
	return rc;
}

/* Path components walked at most: a bound for a name of PATH_MAX bytes. */
#define MAX_COMPONENTS 2048

/*
 * The folder that will hold @path, opened (O_PATH) without following a
 * symbolic link anywhere on the way: a folder on the path that belongs to
 * another user could be swapped for a link to one of root's between two
 * runs, and the file would be written there.  *@base: the file's own name
 * in @path.  A descriptor, or -ELOOP (a link on the path), -ENOTDIR,
 * -EISDIR (@path names a folder), another negative errno.
 */
static int open_folder(const char *path, const char **base)
{
	char *copy = strdup(path), *save = NULL, *name;
	const char *slash = strrchr(path, '/');
	unsigned int walked = 0;
	int fd, rc = 0;

	if (!copy)
		return -ENOMEM;
	*base = slash ? slash + 1 : path;
	if (!**base || !strcmp(*base, ".") || !strcmp(*base, "..")) {
		free(copy);
		return -EISDIR;
	}
	copy[*base - path] = '\0';	/* the folder's part, "" for the working folder */
	fd = open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		rc = -errno;
	for (name = strtok_r(copy, "/", &save); rc == 0 && name; name = strtok_r(NULL, "/", &save)) {
		struct stat sb;
		int next;

		if (++walked > MAX_COMPONENTS) {
			rc = -ENAMETOOLONG;
			break;
		}
		next = openat(fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			rc = -errno;
			break;
		}
		if (fstat(next, &sb) < 0)
			rc = -errno;
		else if (S_ISLNK(sb.st_mode))
			rc = -ELOOP;
		else if (!S_ISDIR(sb.st_mode))
			rc = -ENOTDIR;
		close(fd);
		fd = next;
	}
	free(copy);
	if (rc) {
		if (fd >= 0)
			close(fd);
		return rc;
	}
	return fd;
}

/*
 * FILE.tmp in FILE's folder (@dirfd), then rename(): a reader (node_exporter
 * reads *.prom) sees the old file or the new one, never half of one.  The
 * temporary name is removed first and made with O_EXCL|O_NOFOLLOW so that
 * a link left there is never written through.
 */
static FILE *open_tmp(int dirfd, const char *tmp)
{
	int fd;

	if (unlinkat(dirfd, tmp, 0) < 0 && errno != ENOENT)
		return NULL;
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return NULL;
	/* 0644 whatever the umask: the collector may run as another user. */
	if (fchmod(fd, 0644) < 0) {
		int err = errno;

		close(fd);
		unlinkat(dirfd, tmp, 0);
		errno = err;
		return NULL;
	}
	FILE *f = fdopen(fd, "w");
	if (!f) {
		int err = errno;

		close(fd);
		unlinkat(dirfd, tmp, 0);
		errno = err;
	}
	return f;
}

/* Flush, sync and close @f; 0 or -errno. */
static int close_synced(FILE *f)
{
	int rc = 0;

	if (fflush(f) != 0 || fsync(fileno(f)) < 0)
		rc = -errno;
	else if (ferror(f))
		rc = -EIO;
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	return rc;
}

int map_metrics_write(struct map_store *st, FILE *out)
{
	struct metrics m = { .out = out, .st = st };
	int rc = st ? map_store_read_begin(st) : 0;

	if (rc)
		return rc;
	if (st)
		rc = map_store_fs_each(st, add_fs, &m.fs);
	if (rc == 0)
		rc = write_families(&m);
	if (st)
		map_store_read_end(st);
	free(m.fs.v);
	if (rc == 0 && ferror(out))
		rc = -EIO;
	return rc;
}

int map_metrics_write_file(struct map_store *st, const char *path,
			   void (*extra)(FILE *out, void *arg), void *arg)
{
	const char *base;
	char *tmp;
	FILE *f;
	int dirfd, rc;

	if (!path || !*path)
		return -EINVAL;
	dirfd = open_folder(path, &base);
	if (dirfd < 0)
		return dirfd;
	if (asprintf(&tmp, "%s.tmp", base) < 0) {
		close(dirfd);
		return -ENOMEM;
	}
	f = open_tmp(dirfd, tmp);
	if (!f) {
		rc = -errno;
		goto out;
	}
	rc = map_metrics_write(st, f);
	if (rc == 0 && extra) {
		extra(f, arg);
		if (ferror(f))
			rc = -EIO;
	}
	if (rc) {
		fclose(f);
	} else {
		rc = close_synced(f);
		if (rc == 0 && renameat(dirfd, tmp, dirfd, base) < 0)
			rc = -errno;
	}
	if (rc)
		unlinkat(dirfd, tmp, 0);
out:
	free(tmp);
	close(dirfd);
	return rc;
}
