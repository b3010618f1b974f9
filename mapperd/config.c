// SPDX-License-Identifier: GPL-2.0-or-later
/* mapperd.conf: a "key = value" parser with errors that name FILE:LINE; the
 * keys themselves are config_keys.c's table. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config_keys.h"
#include "log.h"
#include "map_error.h"

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

void config_free(struct md_config *c)
{
	config_free_list(&c->filesystems, &c->nfilesystems);
	config_free_list(&c->exclude, &c->nexclude);
}

/* Apply one key; a message for the user in @why on failure, -ENOENT for
 * a key that is not one. */
static int apply(struct md_config *c, const char *key, const char *val, const char **why)
{
	size_t n;
	const struct config_key *k = config_keys(&n);

	for (size_t i = 0; i < n; i++) {
		if (strcmp(key, k[i].name) != 0)
			continue;
		*why = k[i].why;
		return k[i].parse(c, &k[i], val);
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
		snprintf(err, errlen, "%s: %s", path, map_strerror(rc));
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
				 rc == -ENOMEM ? map_strerror(ENOMEM) : why);
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

void config_print(const struct md_config *c, FILE *out)
{
	size_t n;
	const struct config_key *k = config_keys(&n);

	fprintf(out, "# mapperd configuration from %s\n", c->path[0] ? c->path : "(defaults)");
	for (size_t i = 0; i < n; i++)
		k[i].print(c, &k[i], out);
}
