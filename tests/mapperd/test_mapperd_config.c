// SPDX-License-Identifier: GPL-2.0-or-later
/* mapperd.conf: values, defaults, and errors that name FILE:LINE. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "config.h"
#include "map.h"
#include "log.h"

static char path[] = "/tmp/test_mapperd_config.XXXXXX";

static int load_text(const char *text, struct md_config *c, char *err, size_t len)
{
	FILE *f = fopen(path, "w");

	REQUIRE(f, "%s", path);
	fputs(text, f);
	fclose(f);
	return config_load(path, true, c, err, len);
}

/* Issue 14: "key = value  # comment" as documented; a '#' inside a word
 * or inside "..." is part of the value. */
static void test_inline_comments(void)
{
	struct md_config c;
	char err[512];

	CHECK_INT(load_text("rate_limit = 100M   # about a disk's worth\n"
			    "io_size = 1M\t# tab before it\n"
			    "   # an indented comment line\n"
			    "database = /srv/db#2/m.db # a '#' inside the path stays\n"
			    "filesystems = \"/mnt/a #b\" /c  # two of them\n"
			    "control_group =   # nobody\n"
			    "log_level = debug#not a comment, so not a level\n",
			    &c, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, ":7: log_level") != NULL, "only line 7 is wrong: %s", err);
	config_free(&c);
	CHECK_INT(load_text("rate_limit = 100M   # about a disk's worth\n"
			    "io_size = 1M\t# tab before it\n"
			    "   # an indented comment line\n"
			    "database = /srv/db#2/m.db # a '#' inside the path stays\n"
			    "filesystems = \"/mnt/a #b\" /c  # two of them\n"
			    "control_group =   # nobody\n",
			    &c, err, sizeof(err)), 0);
	CHECK_INT(c.rate_limit, 100ULL << 20);
	CHECK_INT(c.io_size, 1 << 20);
	CHECK_STR(c.database, "/srv/db#2/m.db");
	CHECK(c.nfilesystems == 2, "filesystems: %zu", c.nfilesystems);
	if (c.nfilesystems == 2) {
		CHECK_STR(c.filesystems[0], "/mnt/a #b");
		CHECK_STR(c.filesystems[1], "/c");
	}
	CHECK_STR(c.control_group, "");
	config_free(&c);
}

/* Issue 14: sizes are map_parse_size()'s, as for mapctl scan --rate. */
static void test_sizes(void)
{
	struct md_config c;
	char err[512];

	CHECK_INT(load_text("rate_limit = 1.5G\nevent_read_limit = 0.5G\nio_size = 4K\n", &c, err,
			    sizeof(err)), 0);
	CHECK_INT(c.rate_limit, 3ULL << 29);
	CHECK_INT(c.event_read_limit, 512ULL << 20);
	CHECK_INT(c.io_size, 4096);
	config_free(&c);
	CHECK_INT(load_text("rate_limit = 0\nevent_read_limit = 0\nio_size = 0\n", &c, err,
			    sizeof(err)), 0);
	CHECK(c.rate_limit == 0 && c.event_read_limit == 0 && c.io_size == 0, "zeros");
	config_free(&c);
	CHECK_INT(load_text("rate_limit = -1M\n", &c, err, sizeof(err)), -EINVAL);
	config_free(&c);
	CHECK_INT(load_text("rate_limit = 16777216T\n", &c, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "rate_limit") != NULL, "%s", err);
	config_free(&c);
	CHECK_INT(load_text("io_size = 1.5G\n", &c, err, sizeof(err)), -EINVAL);
	config_free(&c);
}

/* Issue 14: --check-config prints the values in effect, defaults too: the
 * database that would be opened, not "database =". */
static void test_check_config(void)
{
	struct md_config c;
	char err[512], *text = NULL;
	size_t len = 0;
	FILE *out;

	setenv("MAPPER_DB", "/var/tmp/from-env.db", 1);
	CHECK_INT(config_load("/nonexistent/mapperd.conf", false, &c, err, sizeof(err)), 0);
	out = open_memstream(&text, &len);
	REQUIRE(out, "open_memstream");
	config_print(&c, out);
	fclose(out);
	config_free(&c);
	CHECK(strstr(text, "\ndatabase = /var/tmp/from-env.db") != NULL, "%s", text);
	CHECK(strstr(text, "\nio_size = 0  # the default, 4M\n") != NULL, "%s", text);
	CHECK(strstr(text, "\nevent_read_limit = 256M\n") != NULL, "%s", text);
	CHECK(strstr(text, "\nrate_limit = 0") != NULL, "%s", text);
	free(text);

	/* and what it prints reads back to the same values */
	unsetenv("MAPPER_DB");
	CHECK_INT(config_load("/nonexistent/mapperd.conf", false, &c, err, sizeof(err)), 0);
	out = fopen(path, "w");
	REQUIRE(out, "%s", path);
	config_print(&c, out);
	fclose(out);
	config_free(&c);
	CHECK_INT(config_load(path, true, &c, err, sizeof(err)), 0);
	CHECK_STR(c.database, map_store_default_path());
	CHECK_STR(c.control_group, "");
	CHECK(c.rate_limit == 0 && c.io_size == 0 && c.event_read_limit == 256ULL << 20,
	      "sizes read back");
	config_free(&c);
}

/* Issue 14: metrics_file (default off) and metrics_interval (1s..1h,
 * default 15s), and --check-config prints both so that they read back. */
static void test_metrics_keys(void)
{
	struct md_config c;
	char err[512], *text = NULL;
	size_t len = 0;
	FILE *out;

	CHECK_INT(config_load("/nonexistent/mapperd.conf", false, &c, err, sizeof(err)), 0);
	CHECK_STR(c.metrics_file, "");
	CHECK_INT(c.metrics_interval, 15000);
	config_free(&c);

	CHECK_INT(load_text("metrics_file = /var/lib/prometheus/node-exporter/mapper.prom\n"
			    "metrics_interval = 1m\n", &c, err, sizeof(err)), 0);
	CHECK_STR(c.metrics_file, "/var/lib/prometheus/node-exporter/mapper.prom");
	CHECK_INT(c.metrics_interval, 60000);
	out = open_memstream(&text, &len);
	REQUIRE(out, "open_memstream");
	config_print(&c, out);
	fclose(out);
	config_free(&c);
	CHECK(strstr(text, "\nmetrics_file = /var/lib/prometheus/node-exporter/mapper.prom\n"),
	      "%s", text);
	CHECK(strstr(text, "\nmetrics_interval = 1m\n"), "%s", text);
	/* what --check-config printed reads back to the same values */
	out = fopen(path, "w");
	REQUIRE(out && fputs(text, out) >= 0 && fclose(out) == 0, "%s", path);
	free(text);
	CHECK_INT(config_load(path, true, &c, err, sizeof(err)), 0);
	CHECK_STR(c.metrics_file, "/var/lib/prometheus/node-exporter/mapper.prom");
	CHECK_INT(c.metrics_interval, 60000);
	config_free(&c);

	/* an empty value turns it off, and off prints as a comment that reads back */
	CHECK_INT(load_text("metrics_file = /x.prom\nmetrics_file =\n", &c, err, sizeof(err)), 0);
	CHECK_STR(c.metrics_file, "");
	config_free(&c);

	static const char *const bad[] = {
		"metrics_file = relative/mapper.prom\n",	/* not absolute */
		"metrics_interval = 0\n",			/* "never": not an interval */
		"metrics_interval = off\n",
		"metrics_interval = 500ms\n",			/* under a second */
		"metrics_interval = 2h\n",			/* over an hour */
		"metrics_interval = 15 s\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_INT(load_text(bad[i], &c, err, sizeof(err)), -EINVAL);
		CHECK(strstr(err, ":1: metrics_") != NULL, "%s: %s", bad[i], err);
		config_free(&c);
	}
	/* a path that leaves no room for its ".tmp" */
	char *line = malloc(PATH_MAX + 32);
	REQUIRE(line, "malloc");
	int n = snprintf(line, PATH_MAX + 32, "metrics_file = /");
	memset(line + n, 'a', PATH_MAX - 4);
	snprintf(line + n + PATH_MAX - 4, 8, "\n");
	CHECK_INT(load_text(line, &c, err, sizeof(err)), -EINVAL);
	config_free(&c);
	free(line);
}

int main(void)
{
	struct md_config c;
	char err[512], want[600];
	int64_t ms;
	bool b;

	int fd = mkstemp(path);
	REQUIRE(fd >= 0, "mkstemp");
	close(fd);

	/* durations, sizes, booleans */
	CHECK(map_parse_duration("90s", &ms) == 0 && ms == 90000, "90s");
	CHECK(map_parse_duration("15m", &ms) == 0 && ms == 900000, "15m");
	CHECK(map_parse_duration("7d", &ms) == 0 && ms == 7 * 86400000LL, "7d");
	CHECK(map_parse_duration("2w", &ms) == 0 && ms == 14 * 86400000LL, "2w");
	CHECK(map_parse_duration("500ms", &ms) == 0 && ms == 500, "500ms");
	CHECK(map_parse_duration("30", &ms) == 0 && ms == 30000, "bare seconds");
	CHECK(map_parse_duration("off", &ms) == 0 && ms == 0, "off");
	CHECK(map_parse_duration("7 days", &ms) == -EINVAL, "7 days");
	CHECK(map_parse_duration("-1s", &ms) == -EINVAL, "-1s");
	CHECK(map_parse_duration("99999999999999999999w", &ms) == -EINVAL, "overflow");
	CHECK(config_parse_bool("yes", &b) == 0 && b, "yes");
	CHECK(config_parse_bool("off", &b) == 0 && !b, "off");
	CHECK(config_parse_bool("maybe", &b) == -EINVAL, "maybe");
	char d[32];
	CHECK_STR(map_duration_str(7 * 86400000LL, d, sizeof(d)), "1w");
	CHECK_STR(map_duration_str(36 * 3600000LL, d, sizeof(d)), "36h");
	CHECK_STR(map_duration_str(1500, d, sizeof(d)), "1500ms");
	CHECK_STR(map_duration_str(0, d, sizeof(d)), "off");
	CHECK(map_parse_duration("8d", &ms) == 0 && ms == 8 * 86400000LL, "8d");
	CHECK(map_parse_duration("12h", &ms) == 0 && ms == 12 * 3600000LL, "12h");
	CHECK(map_parse_duration("90m", &ms) == 0 && ms == 90 * 60000LL, "90m");
	CHECK(map_parse_duration("", &ms) == -EINVAL, "empty");
	CHECK(map_parse_duration("8d ", &ms) == -EINVAL, "trailing blank");
	CHECK(map_parse_duration("1.5h", &ms) == -EINVAL, "fraction");
	CHECK(map_parse_duration("9223372036854776s", &ms) == -EINVAL, "over INT64_MAX ms");
	CHECK_STR(map_duration_str(90 * 60000LL, d, sizeof(d)), "90m");

	/* defaults: no file is not an error unless asked for */
	CHECK_INT(config_load("/nonexistent/mapperd.conf", false, &c, err, sizeof(err)), 0);
	CHECK(c.all_filesystems && c.fanotify && c.kmsg && c.event_scans, "defaults");
	CHECK_INT(c.metadata_interval, 7 * 86400000LL);
	CHECK_INT(c.media_interval, 30 * 86400000LL);
	CHECK_INT(c.ioprio_class, 3);
	CHECK_STR(c.control_socket, "/run/mapper/mapperd.sock");
	CHECK_STR(c.database, "");
	config_free(&c);
	CHECK_INT(config_load("/nonexistent/mapperd.conf", true, &c, err, sizeof(err)), -ENOENT);
	CHECK(strstr(err, "/nonexistent/mapperd.conf") != NULL, "error: %s", err);

	/* a full file */
	CHECK_INT(load_text("# comment\n\n"
			    "filesystems = /srv, \"/mnt/with space\" 0b1c2d3e-0000-4000-8000-000000000001\n"
			    "exclude = /boot\n"
			    "metadata_interval = 1d\n"
			    "media_interval = off\n"
			    "  random_delay=0\n"
			    "ioprio = be:2\n"
			    "rate_limit = 50M\n"
			    "io_size = 1M\n"
			    "database = /var/tmp/m.db\n"
			    "control_group = root\n"
			    "fanotify = no\n"
			    "dedup_window = 250ms\n"
			    "log_level = debug\n", &c, err, sizeof(err)), 0);
	CHECK(!c.all_filesystems && c.nfilesystems == 3, "filesystems: %zu", c.nfilesystems);
	if (c.nfilesystems == 3) {
		CHECK_STR(c.filesystems[0], "/srv");
		CHECK_STR(c.filesystems[1], "/mnt/with space");
		CHECK_STR(c.filesystems[2], "0b1c2d3e-0000-4000-8000-000000000001");
	}
	CHECK(c.nexclude == 1 && !strcmp(c.exclude[0], "/boot"), "exclude");
	CHECK_INT(c.metadata_interval, 86400000LL);
	CHECK_INT(c.media_interval, 0);
	CHECK_INT(c.random_delay, 0);
	CHECK(c.ioprio_class == 2 && c.ioprio_level == 2, "ioprio be:2");
	CHECK_INT(c.rate_limit, 50ULL << 20);
	CHECK_INT(c.io_size, 1 << 20);
	CHECK_STR(c.database, "/var/tmp/m.db");
	CHECK(!strcmp(c.control_group, "root") && c.control_gid == 0, "control_group root");
	CHECK(!c.fanotify && c.kmsg, "sources");
	CHECK_INT(c.dedup_window, 250);
	CHECK_INT(c.log_level, LOG_DEBUG);
	config_free(&c);

	/* errors name the file and line, and leave the defaults */
	static const struct {
		const char *text;
		int line;
		const char *says;
	} bad[] = {
		{ "metadata_interval = 1d\nbogus = 1\n", 2, "unknown key 'bogus'" },
		{ "media_interval = monthly\n", 1, "wants a duration" },
		{ "\n\nioprio = realtime\n", 3, "wants idle, be or be:0..7" },
		{ "database = relative/path\n", 1, "wants an absolute path" },
		{ "control_group = no-such-group-here\n", 1, "names no group" },
		{ "kmsg = perhaps\n", 1, "wants yes or no" },
		{ "just some words\n", 1, "expected 'key = value'" },
		{ "io_size = 1K\n", 1, "wants 4K..1G" },
		{ "filesystems = \"/unterminated\n", 1, "wants 'all' or mount points" },
		{ "filesystems = /srv/a\"b\n", 1, "wants 'all' or mount points" },
		{ "exclude = \"/x\"/y\"\n", 1, "" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = load_text(bad[i].text, &c, err, sizeof(err));

		snprintf(want, sizeof(want), "%s:%d: ", path, bad[i].line);
		CHECK(rc == -EINVAL, "case %zu: rc %d", i, rc);
		CHECK(strncmp(err, want, strlen(want)) == 0 && strstr(err, bad[i].says),
		      "case %zu: '%s'", i, err);
		CHECK(c.all_filesystems && c.metadata_interval == 7 * 86400000LL,
		      "case %zu: defaults not restored", i);
		config_free(&c);
	}

	/* what --check-config prints reads back the same */
	CHECK_INT(load_text("filesystems = /a \"/b c\"\nmedia_interval = 36h\nrate_limit = 1G\n",
			    &c, err, sizeof(err)), 0);
	FILE *f = fopen(path, "w");
	config_print(&c, f);
	fclose(f);
	config_free(&c);
	CHECK_INT(config_load(path, true, &c, err, sizeof(err)), 0);
	CHECK(c.nfilesystems == 2 && !strcmp(c.filesystems[1], "/b c"), "round trip lists");
	CHECK_INT(c.media_interval, 36 * 3600000LL);
	CHECK_INT(c.rate_limit, 1ULL << 30);
	config_free(&c);

	test_inline_comments();
	test_sizes();
	test_check_config();
	test_metrics_keys();
	unlink(path);
	return check_done();
}
