// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapperd.conf's keys: one table (config_keys.h) of each key's parser,
 * field, printer, check and words, and the value parsers it uses
 * (durations and sizes are libmap's, the same as mapctl's options).
 */
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "config_keys.h"
#include "log.h"
#include "map.h"

void config_free_list(char ***v, size_t *n)
{
	for (size_t i = 0; i < *n; i++)
		free((*v)[i]);
	free(*v);
	*v = NULL;
	*n = 0;
}

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
	config_free_list(out, n);
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

/* ---- the keys: one table drives parsing, the dump and --check-config ---- */

#define FIELD(c, k, type) ((type *)((char *)(c) + (k)->field))

/* A duration; within [lo, hi] when hi is set. */
static int parse_duration(struct md_config *c, const struct config_key *k, const char *v)
{
	if (k->hi)
		return set_duration_between(FIELD(c, k, int64_t), v, k->lo, k->hi);
	return map_parse_duration(v, FIELD(c, k, int64_t));
}

static int parse_size(struct md_config *c, const struct config_key *k, const char *v)
{
	return map_parse_size(v, FIELD(c, k, uint64_t));
}

static int parse_bool(struct md_config *c, const struct config_key *k, const char *v)
{
	return config_parse_bool(v, FIELD(c, k, bool));
}

static int parse_path(struct md_config *c, const struct config_key *k, const char *v)
{
	return set_path(FIELD(c, k, char), k->size, v);
}

/* A path, or "" for none: what none means is k->none. */
static int parse_optional_path(struct md_config *c, const struct config_key *k, const char *v)
{
	return set_optional_path(FIELD(c, k, char), k->size, v);
}

static int parse_filesystems(struct md_config *c, const struct config_key *k, const char *v)
{
	(void)k;
	if (!strcmp(v, "all")) {
		c->all_filesystems = true;
		config_free_list(&c->filesystems, &c->nfilesystems);
		return 0;
	}
	c->all_filesystems = false;
	int rc = parse_list(v, &c->filesystems, &c->nfilesystems);
	/* "all" however written (",all", "\"all\"") means all; in a list
	 * of names it is a mistake (found by fuzz_config). */
	for (size_t i = 0; rc == 0 && i < c->nfilesystems; i++)
		if (!strcmp(c->filesystems[i], "all"))
			rc = c->nfilesystems == 1 ? 1 : -EINVAL;
	if (rc == 1) {
		c->all_filesystems = true;
		config_free_list(&c->filesystems, &c->nfilesystems);
		rc = 0;
	}
	return rc;
}

static int parse_exclude(struct md_config *c, const struct config_key *k, const char *v)
{
	(void)k;
	return parse_list(v, &c->exclude, &c->nexclude);
}

static int parse_ioprio_key(struct md_config *c, const struct config_key *k, const char *v)
{
	(void)k;
	return parse_ioprio(v, &c->ioprio_class, &c->ioprio_level);
}

static int parse_io_size(struct md_config *c, const struct config_key *k, const char *v)
{
	uint64_t size;

	(void)k;
	if (map_parse_size(v, &size) ||
	    (size && (size < MAP_VERIFY_IO_SIZE_MIN || size > MAP_VERIFY_IO_SIZE_MAX)))
		return -EINVAL;
	c->io_size = (uint32_t)size;
	return 0;
}

static int parse_socket(struct md_config *c, const struct config_key *k, const char *v)
{
	if (strlen(v) > MD_SOCKET_PATH_MAX)
		return -EINVAL;
	return parse_path(c, k, v);
}

static int parse_metrics_file(struct md_config *c, const struct config_key *k, const char *v)
{
	/* room for the ".tmp" it is written through */
	if (strlen(v) + 4 >= k->size)
		return -EINVAL;
	return parse_optional_path(c, k, v);
}

static int parse_group(struct md_config *c, const struct config_key *k, const char *v)
{
	(void)k;
	if (!v[0]) {
		c->control_group[0] = '\0';
		return 0;
	}
	struct group *g = getgrnam(v);
	if (!g || strlen(v) >= sizeof(c->control_group))
		return -EINVAL;
	snprintf(c->control_group, sizeof(c->control_group), "%s", v);
	c->control_gid = g->gr_gid;
	return 0;
}

static int parse_log_level(struct md_config *c, const struct config_key *k, const char *v)
{
	int l = log_level_from_name(v);

	(void)k;
	if (l < 0)
		return -EINVAL;
	c->log_level = l;
	return 0;
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

static void print_duration(const struct md_config *c, const struct config_key *k, FILE *out)
{
	char b[32];

	fprintf(out, "%s = %s\n", k->name, map_duration_str(*FIELD(c, k, int64_t), b, sizeof(b)));
}

/* A size; 0 with what it means (k->none). */
static void print_size(const struct md_config *c, const struct config_key *k, FILE *out)
{
	uint64_t v = *FIELD(c, k, uint64_t);
	char b[32];

	fprintf(out, "%s = %s%s%s\n", k->name, size_str(v, b, sizeof(b)), v ? "" : "  # ",
		v ? "" : k->none);
}

static void print_bool(const struct md_config *c, const struct config_key *k, FILE *out)
{
	fprintf(out, "%s = %s\n", k->name, *FIELD(c, k, bool) ? "yes" : "no");
}

/* A string; "" printed as a comment that reads back as "". */
static void print_string(const struct md_config *c, const struct config_key *k, FILE *out)
{
	const char *v = FIELD(c, k, char);

	if (v[0] || !k->none)
		fprintf(out, "%s = %s\n", k->name, v);
	else
		fprintf(out, "%s =  # none: %s\n", k->name, k->none);
}

static void print_filesystems(const struct md_config *c, const struct config_key *k, FILE *out)
{
	if (c->all_filesystems)
		fprintf(out, "%s = all\n", k->name);
	else
		print_list(out, k->name, c->filesystems, c->nfilesystems);
}

static void print_exclude(const struct md_config *c, const struct config_key *k, FILE *out)
{
	print_list(out, k->name, c->exclude, c->nexclude);
}

static void print_ioprio(const struct md_config *c, const struct config_key *k, FILE *out)
{
	if (c->ioprio_class == 3)
		fprintf(out, "%s = idle\n", k->name);
	else
		fprintf(out, "%s = be:%d\n", k->name, c->ioprio_level);
}

static void print_io_size(const struct md_config *c, const struct config_key *k, FILE *out)
{
	char b[32];

	if (c->io_size)
		fprintf(out, "%s = %s\n", k->name, size_str(c->io_size, b, sizeof(b)));
	else
		fprintf(out, "%s = 0  # the default, %s\n", k->name,
			size_str(MAP_VERIFY_IO_SIZE_DEFAULT, b, sizeof(b)));
}

/* The database actually used, however it was chosen. */
static void print_database(const struct md_config *c, const struct config_key *k, FILE *out)
{
	const char *env = getenv("MAPPER_DB");

	if (c->database[0])
		fprintf(out, "%s = %s\n", k->name, c->database);
	else
		fprintf(out, "%s = %s  # %s\n", k->name, map_store_default_path(),
			env && *env ? "from $MAPPER_DB" : "the default");
}

static void print_log_level(const struct md_config *c, const struct config_key *k, FILE *out)
{
	fprintf(out, "%s = %s\n", k->name, log_level_name(c->log_level));
}

#define OFF(f) offsetof(struct md_config, f)
#define STR(f) .field = OFF(f), .size = sizeof(((struct md_config *)0)->f)
#define DURATION "wants a duration such as 90s, 15m, 6h, 7d, 4w or off"
#define PATH "wants an absolute path"
#define YESNO "wants yes or no"
#define DUR(k) { #k, parse_duration, print_duration, .field = OFF(k), .why = DURATION }
#define BOOL(k) { #k, parse_bool, print_bool, .field = OFF(k), .why = YESNO }

/* Every key, in the order the dump prints them (mapperd.conf's order). */
static const struct config_key keys[] = {
	{ "filesystems", parse_filesystems, print_filesystems,
	  .why = "wants 'all' or mount points and UUIDs" },
	{ "exclude", parse_exclude, print_exclude, .why = "wants mount points and UUIDs" },
	DUR(metadata_interval),
	DUR(media_interval),
	DUR(random_delay),
	DUR(resume_delay),
	DUR(retry_delay),
	{ "ioprio", parse_ioprio_key, print_ioprio, .why = "wants idle, be or be:0..7" },
	{ "rate_limit", parse_size, print_size, .field = OFF(rate_limit), .none = "no limit",
	  .why = "wants bytes per second such as 100M or 1.5G, or 0 for no limit" },
	{ "io_size", parse_io_size, print_io_size,
	  .why = "wants 4K..1G, or 0 for the default (4M)" },
	/* "": $MAPPER_DB or the library default */
	{ "database", parse_optional_path, print_database, STR(database), .why = PATH },
	{ "control_socket", parse_socket, print_string, STR(control_socket),
	  .check = config_check_socket,
	  .why = "wants an absolute path of at most " MD_SOCKET_PATH_MAX_TEXT " bytes (a "
		 "socket address holds no more)" },
	{ "state_directory", parse_path, print_string, STR(state_directory), .why = PATH },
	{ "control_group", parse_group, print_string, STR(control_group),
	  .none = "only root may start scans", .why = "names no group of this system" },
	BOOL(fanotify),
	BOOL(health_monitor),
	BOOL(kmsg),
	BOOL(event_scans),
	BOOL(directory_index),
	DUR(dedup_window),
	{ "event_read_limit", parse_size, print_size, .field = OFF(event_read_limit),
	  .none = "whole files",
	  .why = "wants bytes such as 256M or 1.5G, or 0 to read whole files" },
	DUR(event_scan_interval),
	{ "log_level", parse_log_level, print_log_level,
	  .why = "wants err, warning, notice, info or debug" },
	{ "metrics_file", parse_metrics_file, print_string, STR(metrics_file),
	  .none = "no textfile written", .check = config_check_metrics_file, .why = PATH },
	/* At least a second: each write reads the whole store's figures.  At
	 * most an hour: an older file says less than no file. */
	{ "metrics_interval", parse_duration, print_duration, .field = OFF(metrics_interval),
	  .lo = MS_PER_S, .hi = 3600 * MS_PER_S,
	  .why = "wants a duration from 1s to 1h, such as 15s or 1m" },
	{ "notify_directory", parse_optional_path, print_string, STR(notify_directory),
	  .none = "no hooks run", .check = config_check_notify_directory, .why = PATH },
	/* A hook must end: no "off".  A day at most, which is already no
	 * timeout for a notification. */
	{ "notify_timeout", parse_duration, print_duration, .field = OFF(notify_timeout),
	  .lo = MS_PER_S, .hi = 86400 * MS_PER_S,
	  .why = "wants a duration from 1s to 1d, such as 30s or 2m" },
};

const struct config_key *config_keys(size_t *n)
{
	*n = sizeof(keys) / sizeof(keys[0]);
	return keys;
}
