// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The pure parts of mapperd's notification hooks: which files of a hook
 * directory run, the environment a hook gets, the bounded queue and its
 * merging, the findings JSON and its bound, and the two mapperd.conf keys.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "config.h"
#include "notify_queue.h"
#include "testlib.h"

static char dir[] = "/tmp/test_mapperd_notify.XXXXXX";

static void make_file(const char *name, mode_t mode)
{
	char p[512];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	REQUIRE(fd >= 0, "%s", p);
	REQUIRE(write(fd, "#!/bin/sh\n", 10) == 10, "write");
	close(fd);
	REQUIRE(chmod(p, mode) == 0, "chmod %s", p);
}

struct refusals {
	char text[1024];
};

static void on_refused(const char *name, const char *why, void *arg)
{
	struct refusals *r = arg;
	size_t len = strlen(r->text);

	snprintf(r->text + len, sizeof(r->text) - len, "%s: %s;", name, why);
}

static void test_list_hooks(void)
{
	struct md_hook_list l;
	struct refusals r = { "" };
	const char *why;
	char p[512];

	REQUIRE(mkdtemp(dir), "mkdtemp");
	REQUIRE(chmod(dir, 0755) == 0, "chmod");
	make_file("20-b", 0755);
	make_file("10-a", 0700);
	make_file(".hidden", 0755);
	make_file("30-c~", 0755);
	make_file("README", 0644);
	make_file("40-gw", 0775);
	make_file("50-ww", 0757);
	snprintf(p, sizeof(p), "%s/60-link", dir);
	REQUIRE(symlink("/bin/true", p) == 0, "symlink");
	snprintf(p, sizeof(p), "%s/70-dir", dir);
	REQUIRE(mkdir(p, 0755) == 0, "mkdir");

	CHECK_INT(md_notify_list_hooks(dir, getuid(), &l, &why, on_refused, &r), 0);
	CHECK_INT(l.n, 2);
	CHECK_STR(l.names[0], "10-a");
	CHECK_STR(l.names[1], "20-b");
	CHECK(strstr(r.text, "40-gw: is group or world writable;") != NULL, "refusals: %s", r.text);
	CHECK(strstr(r.text, "50-ww: is group or world writable;") != NULL, "refusals: %s", r.text);
	CHECK(strstr(r.text, "60-link: is a symbolic link;") != NULL, "refusals: %s", r.text);
	CHECK(strstr(r.text, "README") == NULL && strstr(r.text, "hidden") == NULL &&
	      strstr(r.text, "30-c") == NULL && strstr(r.text, "70-dir") == NULL,
	      "skipped silently: %s", r.text);

	/* Files of another owner: refused, each with its reason. */
	r.text[0] = '\0';
	snprintf(p, sizeof(p), "%s/70-dir", dir);
	CHECK_INT(md_notify_list_hooks(p, getuid(), &l, &why, on_refused, &r), 0);
	CHECK_INT(l.n, 0);

	/* The directory itself: another owner's, or writable by others. */
	CHECK_INT(md_notify_list_hooks(dir, getuid() + 1, &l, &why, on_refused, &r), -EPERM);
	CHECK_STR(why, "is not owned by root");
	REQUIRE(chmod(dir, 0775) == 0, "chmod");
	CHECK_INT(md_notify_list_hooks(dir, getuid(), &l, &why, on_refused, &r), -EPERM);
	CHECK_STR(why, "is group or world writable");
	CHECK_INT(l.n, 0);
	REQUIRE(chmod(dir, 0755) == 0, "chmod");
	snprintf(p, sizeof(p), "%s/none", dir);
	CHECK_INT(md_notify_list_hooks(p, getuid(), &l, &why, on_refused, &r), -ENOENT);

	/* At most MD_NOTIFY_MAX_HOOKS, the rest refused by name. */
	for (int i = 0; i < MD_NOTIFY_MAX_HOOKS + 3; i++) {
		char name[32];

		snprintf(name, sizeof(name), "many-%02d", i);
		make_file(name, 0755);
	}
	r.text[0] = '\0';
	CHECK_INT(md_notify_list_hooks(dir, getuid(), &l, &why, on_refused, &r), 0);
	CHECK_INT(l.n, MD_NOTIFY_MAX_HOOKS);
	CHECK(strstr(r.text, "one hook too many") != NULL, "refusals: %s", r.text);

	CHECK_INT(tl_rmtree(dir), 0);
}

static const char *env_get(char **envp, const char *key)
{
	size_t n = strlen(key);

	for (; *envp; envp++)
		if (strncmp(*envp, key, n) == 0 && (*envp)[n] == '=')
			return *envp + n + 1;
	return NULL;
}

static void test_env(void)
{
	struct md_notification *n = md_notification_new(MD_NOTIFY_DAMAGE, "1234-abcd", "/srv/data",
							3, 7, 1700000000);
	char buf[8192], *envp[MD_NOTIFY_ENV_MAX];
	int count;

	REQUIRE(n, "new");
	count = md_notify_build_env(n, "/run/mapper/notify/f.json", "1.2", buf, sizeof(buf), envp,
				    MD_NOTIFY_ENV_MAX);
	CHECK_INT(count, 11);
	CHECK(envp[count] == NULL, "terminated");
	CHECK_STR(env_get(envp, "MAPPER_EVENT"), "damage");
	CHECK_STR(env_get(envp, "MAPPER_FS_UUID"), "1234-abcd");
	CHECK_STR(env_get(envp, "MAPPER_MOUNTPOINT"), "/srv/data");
	CHECK_STR(env_get(envp, "MAPPER_NEW_FINDINGS"), "3");
	CHECK_STR(env_get(envp, "MAPPER_OPEN_FINDINGS"), "7");
	CHECK_STR(env_get(envp, "MAPPER_FINDINGS_JSON"), "/run/mapper/notify/f.json");
	CHECK_STR(env_get(envp, "MAPPER_TIME"), "1700000000");
	CHECK_STR(env_get(envp, "MAPPER_VERSION"), "1.2");
	CHECK(env_get(envp, "PATH") && env_get(envp, "PATH")[0] == '/', "a PATH");
	CHECK(env_get(envp, "LD_PRELOAD") == NULL && env_get(envp, "USER") == NULL,
	      "nothing else");
	/* An unknown open count says 0, never -1. */
	n->open_findings = -1;
	n->event = MD_NOTIFY_REPORTS_LOST;
	md_notify_build_env(n, "", "1.2", buf, sizeof(buf), envp, MD_NOTIFY_ENV_MAX);
	CHECK_STR(env_get(envp, "MAPPER_OPEN_FINDINGS"), "0");
	CHECK_STR(env_get(envp, "MAPPER_EVENT"), "reports-lost");
	/* Too small: refused, not cut. */
	CHECK_INT(md_notify_build_env(n, "", "1.2", buf, 100, envp, MD_NOTIFY_ENV_MAX), -ENOSPC);
	CHECK_INT(md_notify_build_env(n, "", "1.2", buf, sizeof(buf), envp, 5), -ENOSPC);
	md_notification_free(n);
}

static void finding(struct map_finding *f, const char *path)
{
	map_finding_init(f);
	f->source = MAP_SOURCE_EVENT;
	snprintf(f->kind, sizeof(f->kind), "data");
	f->ino = 131;
	f->has_range = true;
	f->physical = 8192;
	f->length = 4096;
	f->npaths = 1;
	f->paths = calloc(1, sizeof(char *));
	f->paths[0] = strdup(path);
}

static void test_queue(void)
{
	struct md_notify_queue q = { .max = 4 };
	struct md_notification *n;
	struct map_finding f;
	char uuid[40];

	for (int i = 0; i < 4; i++) {
		snprintf(uuid, sizeof(uuid), "fs-%d", i);
		CHECK_INT(md_notify_queue_push(&q, md_notification_new(MD_NOTIFY_DAMAGE, uuid, "/m",
								       1, 1, i)), 0);
	}
	/* Full: a fifth filesystem's notification is dropped and counted... */
	CHECK_INT(md_notify_queue_push(&q, md_notification_new(MD_NOTIFY_DAMAGE, "fs-9", "/m", 1,
							       1, 9)), -ENOSPC);
	CHECK_INT(q.dropped, 1);
	CHECK_INT(q.n, 4);
	/* ...but more of one already waiting merges into it. */
	n = md_notification_new(MD_NOTIFY_DAMAGE, "fs-2", "/m", 5, 9, 20);
	finding(&f, "dir/file");
	md_notification_add_finding(n, &f);
	map_finding_clear(&f);
	CHECK_INT(md_notify_queue_push(&q, n), 1);
	CHECK_INT(q.n, 4);
	/* Another kind for the same filesystem is another notification. */
	CHECK_INT(md_notify_queue_push(&q, md_notification_new(MD_NOTIFY_SHUTDOWN, "fs-2", "/m", 0,
							       -1, 21)), -ENOSPC);
	CHECK_INT(q.dropped, 2);

	for (int i = 0; i < 4; i++) {
		n = md_notify_queue_pop(&q);
		REQUIRE(n, "pop %d", i);
		snprintf(uuid, sizeof(uuid), "fs-%d", i);
		CHECK_STR(n->uuid, uuid);	/* in order */
		if (i == 2) {
			CHECK_INT(n->new_findings, 6);
			CHECK_INT(n->open_findings, 9);
			CHECK_INT(n->time, 20);
			CHECK_INT(n->merged, 1);
			CHECK_INT(n->json_findings, 1);
		}
		md_notification_free(n);
	}
	CHECK(md_notify_queue_pop(&q) == NULL, "empty");
	CHECK_INT(md_notify_queue_push(&q, md_notification_new(MD_NOTIFY_SCAN_DONE, "x", "/", 0, 1,
							       0)), 0);
	CHECK_INT(md_notify_queue_clear(&q), 1);
	CHECK_INT(q.n, 0);
	/* The default bound. */
	struct md_notify_queue d = { 0 };
	for (int i = 0; i < MD_NOTIFY_QUEUE_MAX + 10; i++) {
		snprintf(uuid, sizeof(uuid), "fs-%d", i);
		md_notify_queue_push(&d, md_notification_new(MD_NOTIFY_REPORTS_LOST, uuid, "/", 0, 0,
							     0));
	}
	CHECK_INT(d.n, MD_NOTIFY_QUEUE_MAX);
	CHECK_INT(d.dropped, 10);
	md_notify_queue_clear(&d);
}

static void test_json(void)
{
	struct md_notification *n = md_notification_new(MD_NOTIFY_DAMAGE, "u-1", "/srv/x", 1, 2, 5);
	struct map_finding f;
	char *text;
	size_t len;

	finding(&f, "a/b \"c\"");
	md_notification_add_finding(n, &f);
	CHECK_INT(md_notification_json(n, &text, &len), 0);
	CHECK_INT(len, strlen(text));
	CHECK(!strncmp(text, "{\"output_version\":{\"command\":\"mapperd notify\",\"major\":", 54) &&
	      strstr(text, "\"event\":\"damage\"") && strstr(text, "\"fs_uuid\":\"u-1\"") &&
	      strstr(text, "\"paths\":[\"/srv/x/a/b \\\"c\\\"\"]") &&
	      strstr(text, "\"findings\":[{\"finding_id\":") && strstr(text, "\"inode\":131") &&
	      text[len - 1] == '\n' && text[len - 2] == '}',
	      "json: %s", text);
	free(text);
	/* Bounded: beyond MD_NOTIFY_JSON_MAX the findings are counted only. */
	for (int i = 0; i < 5000; i++)
		md_notification_add_finding(n, &f);
	CHECK(n->json_len <= MD_NOTIFY_JSON_MAX, "json bounded: %zu", n->json_len);
	CHECK(n->json_omitted > 0 && n->json_findings + n->json_omitted == 5001, "%zu + %zu",
	      n->json_findings, n->json_omitted);
	CHECK_INT(md_notification_json(n, &text, &len), 0);
	CHECK(strstr(text, "\"findings_omitted\":") != NULL, "omitted said");
	CHECK(text[len - 3] == ']' && text[len - 2] == '}', "closed: %.20s", text + len - 5);
	free(text);
	map_finding_clear(&f);
	md_notification_free(n);

	/* No findings: an empty array, still valid. */
	n = md_notification_new(MD_NOTIFY_SHUTDOWN, "u-2", "/", 0, 0, 5);
	CHECK_INT(md_notification_json(n, &text, &len), 0);
	CHECK(strstr(text, "\"findings\":[]}") != NULL, "json: %s", text);
	free(text);
	md_notification_free(n);
}

static void test_config(void)
{
	char path[] = "/tmp/test_mapperd_notify_conf.XXXXXX", err[512];
	struct md_config c;
	int fd = mkstemp(path);
	FILE *f;

	REQUIRE(fd >= 0, "mkstemp");
	close(fd);
	config_defaults(&c);
	CHECK_STR(c.notify_directory, "/etc/mapper/notify.d");
	CHECK_INT(c.notify_timeout, 30000);

	const char *bad[] = { "notify_timeout = off\n", "notify_timeout = 0\n",
			      "notify_timeout = 500ms\n", "notify_timeout = 2d\n",
			      "notify_directory = relative/dir\n" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		f = fopen(path, "w");
		fputs(bad[i], f);
		fclose(f);
		CHECK_INT(config_load(path, true, &c, err, sizeof(err)), -EINVAL);
	}
	/* --check-config's output reads back as the same values. */
	f = fopen(path, "w");
	fputs("notify_directory =\nnotify_timeout = 2m\n", f);
	fclose(f);
	CHECK_INT(config_load(path, true, &c, err, sizeof(err)), 0);
	CHECK_STR(c.notify_directory, "");
	CHECK_INT(c.notify_timeout, 120000);
	f = fopen(path, "w");
	config_print(&c, f);
	fclose(f);
	config_free(&c);
	CHECK_INT(config_load(path, true, &c, err, sizeof(err)), 0);
	CHECK_STR(c.notify_directory, "");
	CHECK_INT(c.notify_timeout, 120000);
	config_free(&c);
	f = fopen(path, "w");
	fputs("notify_directory = /srv/hooks\nnotify_timeout = 1500ms\n", f);
	fclose(f);
	CHECK_INT(config_load(path, true, &c, err, sizeof(err)), 0);
	f = fopen(path, "w");
	config_print(&c, f);
	fclose(f);
	config_free(&c);
	CHECK_INT(config_load(path, true, &c, err, sizeof(err)), 0);
	CHECK_STR(c.notify_directory, "/srv/hooks");
	CHECK_INT(c.notify_timeout, 1500);
	config_free(&c);
	unlink(path);
}

int main(void)
{
	test_list_hooks();
	test_env();
	test_queue();
	test_json();
	test_config();
	return check_done();
}
