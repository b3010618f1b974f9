// SPDX-License-Identifier: GPL-2.0-or-later
/* mapperd.conf: a "key = value" parser with errors that name FILE:LINE. */
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "log.h"
#include "map.h"

#define MS_PER_S 1000LL

void config_defaults(struct md_config *c)
{
	memset(c, 0, sizeof(*c));
	c->all_filesystems = true;
	c->metadata_interval = 7 * 24 * 3600 * MS_PER_S;	/* like xfs_scrub_all: weekly */
	c->media_interval = 30 * 24 * 3600 * MS_PER_S;		/* and a monthly media pass */
	c->random_delay = 6 * 3600 * MS_PER_S;
	c->resume_delay = 5 * 60 * MS_PER_S;
	c->retry_delay = 10 * 60 * MS_PER_S;
	c->ioprio_class = 3;
	snprintf(c->control_socket, sizeof(c->control_socket), "%s", MAPPERD_SOCKET_PATH);
	snprintf(c->state_directory, sizeof(c->state_directory), "%s", MAPPERD_STATE_DIR);
	c->fanotify = true;
	c->health_monitor = true;
	c->kmsg = true;
	c->event_scans = true;
	c->directory_index = true;
	c->dedup_window = 2 * MS_PER_S;
	/* About a second of one disk's sequential reads: the latency asked of a
	 * report.  A larger file is read piece by piece, report by report. */
	c->event_read_limit = 256ULL << 20;
	/* A user who can read a damaged file can cause reports at will; each
	 * may ask for a scan.  At most four of each kind a day per filesystem. */
	c->event_scan_interval = 6 * 3600 * MS_PER_S;
	c->log_level = LOG_INFO;
	/* Prometheus scrapes every 15 s by default: a fresher file is not read. */
	c->metrics_interval = 15 * MS_PER_S;
	snprintf(c->notify_directory, sizeof(c->notify_directory), "%s", MAPPERD_NOTIFY_DIR);
	/* Long enough for a mail to be handed to the local MTA, short enough
	 * that a hung hook does not hold the next notification for long. */
	c->notify_timeout = 30 * MS_PER_S;
}

static void free_list(char ***v, size_t *n)
{
	for (size_t i = 0; i < *n; i++)
		free((*v)[i]);
	free(*v);
	*v = NULL;
	*n = 0;
}

void config_free(struct md_config *c)
{
	free_list(&c->filesystems, &c->nfilesystems);
	free_list(&c->exclude, &c->nexclude);
}

/* ---- value parsers (durations and sizes are libmap's) ---- */

int config_parse_bool(const char *s, bool *v)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < 4; i++) {
		if (strcmp(s, yes[i]) == 0) {
			*v = true;
			return 0;
		}
		if (strcmp(s, no[i]) == 0) {
			*v = false;
			return 0;
		}
	}
	return -EINVAL;
}

/* Split a list value: items separated by blanks or commas, "..." quotes. */
static int parse_list(const char *s, char ***out, size_t *n)
{
	free_list(out, n);
	while (*s) {
		char item[PATH_MAX];
		size_t len = 0;

		while (*s == ' ' || *s == '\t' || *s == ',')
			s++;
		if (!*s)
			break;
		if (*s == '"') {
			s++;
			while (*s && *s != '"' && len < sizeof(item) - 1)
				item[len++] = *s++;
			if (*s != '"')
				return -EINVAL;
			s++;
		} else {
			while (*s && *s != ' ' && *s != '\t' && *s != ',' && *s != '"' &&
			       len < sizeof(item) - 1)
				item[len++] = *s++;
			/* longer than any path: not cut in two; a quote inside a
			 * name could not be written back (found by fuzz_config) */
			if (*s && *s != ' ' && *s != '\t' && *s != ',')
				return -EINVAL;
		}
		if (len == 0)
			return -EINVAL;		/* "": names nothing (found by fuzz_config) */
		item[len] = '\0';
		char **v = realloc(*out, (*n + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		*out = v;
		v[*n] = strdup(item);
		if (!v[*n])
			return -ENOMEM;
		(*n)++;
	}
	return 0;
}

static int parse_ioprio(const char *s, int *class, int *level)
{
	if (strcmp(s, "idle") == 0) {
		*class = 3;
		*level = 0;
		return 0;
	}
	if (strcmp(s, "be") == 0) {
		*class = 2;
		*level = 4;
		return 0;
	}
	if (strncmp(s, "be:", 3) == 0 && s[3] >= '0' && s[3] <= '7' && s[4] == '\0') {
		*class = 2;
		*level = s[3] - '0';
		return 0;
	}
	return -EINVAL;
}

static int set_path(char *dst, size_t len, const char *v)
{
	if (v[0] != '/' || strlen(v) >= len)
		return -EINVAL;
	snprintf(dst, len, "%s", v);
	return 0;
}

/* A path, or "" for none (the feature is off). */
static int set_optional_path(char *dst, size_t len, const char *v)
{
	if (!v[0]) {
		dst[0] = '\0';
		return 0;
	}
	return set_path(dst, len, v);
}

/* A duration from @lo_ms to @hi_ms. */
static int set_duration_between(int64_t *dst, const char *v, int64_t lo_ms, int64_t hi_ms)
{
	int64_t ms;

	if (map_parse_duration(v, &ms) || ms < lo_ms || ms > hi_ms)
		return -EINVAL;
	*dst = ms;
	return 0;
}

/* Apply one key; a message for the user in @why on failure. */
static int apply(struct md_config *c, const char *key, const char *val, const char **why)
{
	uint64_t size;

	*why = NULL;
	if (!strcmp(key, "filesystems")) {
		if (!strcmp(val, "all")) {
			c->all_filesystems = true;
			free_list(&c->filesystems, &c->nfilesystems);
			return 0;
		}
		c->all_filesystems = false;
		*why = "wants 'all' or mount points and UUIDs";
		int rc = parse_list(val, &c->filesystems, &c->nfilesystems);
		/* "all" however written (",all", "\"all\"") means all; in a list
		 * of names it is a mistake (found by fuzz_config). */
		for (size_t i = 0; rc == 0 && i < c->nfilesystems; i++)
			if (!strcmp(c->filesystems[i], "all"))
				rc = c->nfilesystems == 1 ? 1 : -EINVAL;
		if (rc == 1) {
			c->all_filesystems = true;
			free_list(&c->filesystems, &c->nfilesystems);
			rc = 0;
		}
		return rc;
	}
	if (!strcmp(key, "exclude")) {
		*why = "wants mount points and UUIDs";
		return parse_list(val, &c->exclude, &c->nexclude);
	}
	*why = "wants a duration such as 90s, 15m, 6h, 7d, 4w or off";
	if (!strcmp(key, "metadata_interval"))
		return map_parse_duration(val, &c->metadata_interval);
	if (!strcmp(key, "media_interval"))
		return map_parse_duration(val, &c->media_interval);
	if (!strcmp(key, "random_delay"))
		return map_parse_duration(val, &c->random_delay);
	if (!strcmp(key, "resume_delay"))
		return map_parse_duration(val, &c->resume_delay);
	if (!strcmp(key, "retry_delay"))
		return map_parse_duration(val, &c->retry_delay);
	if (!strcmp(key, "dedup_window"))
		return map_parse_duration(val, &c->dedup_window);
	if (!strcmp(key, "event_scan_interval"))
		return map_parse_duration(val, &c->event_scan_interval);
	if (!strcmp(key, "event_read_limit")) {
		*why = "wants bytes such as 256M or 1.5G, or 0 to read whole files";
		return map_parse_size(val, &c->event_read_limit);
	}
	if (!strcmp(key, "ioprio")) {
		*why = "wants idle, be or be:0..7";
		return parse_ioprio(val, &c->ioprio_class, &c->ioprio_level);
	}
	if (!strcmp(key, "rate_limit")) {
		*why = "wants bytes per second such as 100M or 1.5G, or 0 for no limit";
		return map_parse_size(val, &c->rate_limit);
	}
	if (!strcmp(key, "io_size")) {
		*why = "wants 4K..1G, or 0 for the default (4M)";
		if (map_parse_size(val, &size) ||
		    (size && (size < MAP_VERIFY_IO_SIZE_MIN || size > MAP_VERIFY_IO_SIZE_MAX)))
			return -EINVAL;
		c->io_size = (uint32_t)size;
		return 0;
	}
	*why = "wants an absolute path";
	if (!strcmp(key, "database")) {
		if (!val[0]) {
			c->database[0] = '\0';	/* $MAPPER_DB or the library default */
			return 0;
		}
		return set_path(c->database, sizeof(c->database), val);
	}
	if (!strcmp(key, "control_socket")) {
		*why = "wants an absolute path of at most " MD_SOCKET_PATH_MAX_TEXT " bytes (a "
		       "socket address holds no more)";
		if (strlen(val) > MD_SOCKET_PATH_MAX)
			return -EINVAL;
		return set_path(c->control_socket, sizeof(c->control_socket), val);
	}
	if (!strcmp(key, "state_directory"))
		return set_path(c->state_directory, sizeof(c->state_directory), val);
	if (!strcmp(key, "notify_directory"))	/* "": no hooks */
		return set_optional_path(c->notify_directory, sizeof(c->notify_directory), val);
	if (!strcmp(key, "notify_timeout")) {
		/* A hook must end: no "off".  A day at most, which is already
		 * no timeout for a notification. */
		*why = "wants a duration from 1s to 1d, such as 30s or 2m";
		return set_duration_between(&c->notify_timeout, val, MS_PER_S, 86400 * MS_PER_S);
	}
	if (!strcmp(key, "metrics_file")) {	/* "": no textfile written */
		/* room for the ".tmp" it is written through */
		if (strlen(val) + 4 >= sizeof(c->metrics_file))
			return -EINVAL;
		return set_optional_path(c->metrics_file, sizeof(c->metrics_file), val);
	}
	if (!strcmp(key, "metrics_interval")) {
		/* At least a second: each write reads the whole store's figures.
		 * At most an hour: an older file says less than no file. */
		*why = "wants a duration from 1s to 1h, such as 15s or 1m";
		return set_duration_between(&c->metrics_interval, val, MS_PER_S, 3600 * MS_PER_S);
	}
	if (!strcmp(key, "control_group")) {
		*why = "names no group of this system";
		if (!val[0]) {
			c->control_group[0] = '\0';
			return 0;
		}
		struct group *g = getgrnam(val);
		if (!g || strlen(val) >= sizeof(c->control_group))
			return -EINVAL;
		snprintf(c->control_group, sizeof(c->control_group), "%s", val);
		c->control_gid = g->gr_gid;
		return 0;
	}
	*why = "wants yes or no";
	if (!strcmp(key, "fanotify"))
		return config_parse_bool(val, &c->fanotify);
	if (!strcmp(key, "health_monitor"))
		return config_parse_bool(val, &c->health_monitor);
	if (!strcmp(key, "kmsg"))
		return config_parse_bool(val, &c->kmsg);
	if (!strcmp(key, "event_scans"))
		return config_parse_bool(val, &c->event_scans);
	if (!strcmp(key, "directory_index"))
		return config_parse_bool(val, &c->directory_index);
	if (!strcmp(key, "log_level")) {
		*why = "wants err, warning, notice, info or debug";
		int l = log_level_from_name(val);
		if (l < 0)
			return -EINVAL;
		c->log_level = l;
		return 0;
	}
	*why = "is not a mapperd key (see mapperd.conf(5))";
	return -ENOENT;
}

/*
 * Cut the comment off a line.  '#' starts one at the start of the line or
 * after a blank, outside "..." (list values quote names): "key = 4M  # why"
 * is "key = 4M", while a '#' inside a word is kept, as in
 * "database = /srv/db#2/mapper.db".
 */
static void strip_comment(char *line)
{
	bool quoted = false;

	for (char *p = line; *p; p++) {
		if (*p == '"') {
			quoted = !quoted;
		} else if (*p == '#' && !quoted && (p == line || p[-1] == ' ' || p[-1] == '\t')) {
			*p = '\0';
			return;
		}
	}
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/*
 * One line of @f into @buf (its newline dropped, NUL-terminated), at most
 * @cap - 1 bytes; *@len its length, NUL bytes included.  1 read, 0 at the
 * end, -E2BIG when longer (the rest of the file is not read).
 */
static int read_line(FILE *f, char *buf, size_t cap, size_t *len)
{
	int ch = EOF;

	*len = 0;
	while ((ch = getc(f)) != EOF && ch != '\n') {
		if (*len + 1 >= cap)
			return -E2BIG;
		buf[(*len)++] = (char)ch;
	}
	buf[*len] = '\0';
	return ch == EOF && *len == 0 ? 0 : 1;
}

int config_load(const char *path, bool must_exist, struct md_config *c, char *err, size_t errlen)
{
	char line[8192];
	size_t len;
	unsigned int lineno = 0;
	FILE *f;
	int rc = 0;

	config_defaults(c);
	err[0] = '\0';
	f = fopen(path, "re");
	if (!f) {
		rc = -errno;
		if (rc == -ENOENT && !must_exist)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	snprintf(c->path, sizeof(c->path), "%s", path);
	while ((rc = read_line(f, line, sizeof(line), &len)) != 0) {
		const char *why;
		char *key, *val, *eq;

		lineno++;
		if (rc < 0) {
			snprintf(err, errlen, "%s:%u: line too long (%zu bytes at most)", path, lineno,
				 sizeof(line) - 1);
			rc = -EINVAL;
			break;
		}
		rc = 0;
		/* Not text (a binary file, a bad copy): say so, not "too long". */
		if (memchr(line, '\0', len)) {
			snprintf(err, errlen, "%s:%u: a NUL byte in the line: not a text file?", path,
				 lineno);
			rc = -EINVAL;
			break;
		}
		strip_comment(line);
		key = trim(line);
		if (!*key)
			continue;
		eq = strchr(key, '=');
		if (!eq) {
			snprintf(err, errlen, "%s:%u: expected 'key = value'", path, lineno);
			rc = -EINVAL;
			break;
		}
		*eq = '\0';
		val = trim(eq + 1);
		key = trim(key);
		rc = apply(c, key, val, &why);
		if (rc == -ENOENT) {
			snprintf(err, errlen, "%s:%u: unknown key '%s' (see mapperd(8))", path, lineno,
				 key);
			rc = -EINVAL;
			break;
		}
		if (rc) {
			snprintf(err, errlen, "%s:%u: %s = '%s': %s", path, lineno, key, val,
				 rc == -ENOMEM ? strerror(ENOMEM) : why);
			if (rc != -ENOMEM)
				rc = -EINVAL;	/* -ERANGE too: a bad value */
			break;
		}
	}
	if (rc == 0 && ferror(f)) {
		rc = -EIO;
		snprintf(err, errlen, "%s: read error", path);
	}
	fclose(f);
	if (rc) {
		config_free(c);
		config_defaults(c);
	}
	return rc;
}

/* A size as map_parse_size() reads it back: "256M", "4097", "0". */
static const char *size_str(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "TGMK";

	for (int i = 0; i < 4; i++) {
		int shift = 10 * (4 - i);

		if (bytes && bytes % (1ULL << shift) == 0) {
			snprintf(buf, len, "%" PRIu64 "%c", bytes >> shift, units[i]);
			return buf;
		}
	}
	snprintf(buf, len, "%" PRIu64, bytes);
	return buf;
}

static void print_list(FILE *out, const char *key, char **v, size_t n)
{
	fprintf(out, "%s =", key);
	/* quoted: names with blanks or commas, and names that would start a
	 * comment */
	for (size_t i = 0; i < n; i++)
		fprintf(out, strpbrk(v[i], " \t,") || v[i][0] == '#' ? " \"%s\"" : " %s", v[i]);
	fputc('\n', out);
}

void config_print(const struct md_config *c, FILE *out)
{
	char b[32];

	fprintf(out, "# mapperd configuration from %s\n", c->path[0] ? c->path : "(defaults)");
	if (c->all_filesystems)
		fprintf(out, "filesystems = all\n");
	else
		print_list(out, "filesystems", c->filesystems, c->nfilesystems);
	print_list(out, "exclude", c->exclude, c->nexclude);
	fprintf(out, "metadata_interval = %s\n", map_duration_str(c->metadata_interval, b, sizeof(b)));
	fprintf(out, "media_interval = %s\n", map_duration_str(c->media_interval, b, sizeof(b)));
	fprintf(out, "random_delay = %s\n", map_duration_str(c->random_delay, b, sizeof(b)));
	fprintf(out, "resume_delay = %s\n", map_duration_str(c->resume_delay, b, sizeof(b)));
	fprintf(out, "retry_delay = %s\n", map_duration_str(c->retry_delay, b, sizeof(b)));
	if (c->ioprio_class == 3)
		fprintf(out, "ioprio = idle\n");
	else
		fprintf(out, "ioprio = be:%d\n", c->ioprio_level);
	fprintf(out, "rate_limit = %s%s\n", size_str(c->rate_limit, b, sizeof(b)),
		c->rate_limit ? "" : "  # no limit");
	if (c->io_size)
		fprintf(out, "io_size = %s\n", size_str(c->io_size, b, sizeof(b)));
	else
		fprintf(out, "io_size = 0  # the default, %s\n",
			size_str(MAP_VERIFY_IO_SIZE_DEFAULT, b, sizeof(b)));
	/* The database actually used, however it was chosen. */
	if (c->database[0])
		fprintf(out, "database = %s\n", c->database);
	else
		fprintf(out, "database = %s  # %s\n", map_store_default_path(),
			getenv("MAPPER_DB") && *getenv("MAPPER_DB") ? "from $MAPPER_DB" : "the default");
	fprintf(out, "control_socket = %s\n", c->control_socket);
	fprintf(out, "state_directory = %s\n", c->state_directory);
	if (c->control_group[0])
		fprintf(out, "control_group = %s\n", c->control_group);
	else
		fprintf(out, "control_group =  # none: only root may start scans\n");
	fprintf(out, "fanotify = %s\n", c->fanotify ? "yes" : "no");
	fprintf(out, "health_monitor = %s\n", c->health_monitor ? "yes" : "no");
	fprintf(out, "kmsg = %s\n", c->kmsg ? "yes" : "no");
	fprintf(out, "event_scans = %s\n", c->event_scans ? "yes" : "no");
	fprintf(out, "directory_index = %s\n", c->directory_index ? "yes" : "no");
	fprintf(out, "dedup_window = %s\n", map_duration_str(c->dedup_window, b, sizeof(b)));
	fprintf(out, "event_read_limit = %s%s\n", size_str(c->event_read_limit, b, sizeof(b)),
		c->event_read_limit ? "" : "  # whole files");
	fprintf(out, "event_scan_interval = %s\n",
		map_duration_str(c->event_scan_interval, b, sizeof(b)));
	fprintf(out, "log_level = %s\n", log_level_name(c->log_level));
	if (c->metrics_file[0])
		fprintf(out, "metrics_file = %s\n", c->metrics_file);
	else
		fprintf(out, "metrics_file =  # none: no textfile written\n");
	fprintf(out, "metrics_interval = %s\n", map_duration_str(c->metrics_interval, b, sizeof(b)));
	if (c->notify_directory[0])
		fprintf(out, "notify_directory = %s\n", c->notify_directory);
	else
		fprintf(out, "notify_directory =  # none: no hooks run\n");
	fprintf(out, "notify_timeout = %s\n", map_duration_str(c->notify_timeout, b, sizeof(b)));
}
