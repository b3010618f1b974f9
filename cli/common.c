// SPDX-License-Identifier: GPL-2.0-or-later
/* mapctl: helpers shared by the sub-commands. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mapctl.h"

int fail(const struct ctl *ctl, int err, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", ctl->prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	/* An errno from the database says which of its files and keeps
	 * SQLite's words (map_store_error): the errno alone misleads ("No
	 * space left" of the database's disk, not the scanned one).  Our own
	 * codes say what they mean already. */
	if (err && -err < MAP_EBASE && map_store_error(err))
		fprintf(stderr, ": %s", map_store_error(err));
	else if (err)
		fprintf(stderr, ": %s", map_strerror(err));
	fputc('\n', stderr);
	return EXIT_ERROR;
}

void warn_msg(const struct ctl *ctl, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: warning: ", ctl->prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int option_error(const struct ctl *ctl, char *const *argv, const char *shortopts,
		 const struct option *longopts)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";

	if (arg[0] == '-' && arg[1] == '-') {
		size_t n = strcspn(arg + 2, "=");
		const struct option *hit = NULL;
		int prefixes = 0;

		/* getopt_long takes a unique abbreviation too. */
		for (const struct option *o = longopts; o && o->name; o++) {
			if (strncmp(o->name, arg + 2, n) != 0 || strlen(o->name) < n)
				continue;
			if (strlen(o->name) == n) {
				hit = o;
				prefixes = 1;
				break;
			}
			hit = o;
			prefixes++;
		}
		const char *given = arg[2 + n] == '=' ? strndupa(arg, 2 + n) : arg;
		if (prefixes > 1)
			return fail(ctl, 0, "option '%s' is ambiguous (see '%s --help')", shown(given),
				    ctl->prog);
		if (hit)
			return fail(ctl, 0, "option '--%s' %s (see '%s --help')", hit->name,
				    hit->has_arg == no_argument ? "takes no value" : "needs a value",
				    ctl->prog);
		return fail(ctl, 0, "unknown option '%s' (see '%s --help')", shown(given), ctl->prog);
	}
	if (optopt > 0 && optopt < 128 && optopt != ':' && strchr(shortopts, optopt))
		return fail(ctl, 0, "option '-%c' needs a value (see '%s --help')", optopt,
			    ctl->prog);
	if (optopt > 32 && optopt < 127)
		return fail(ctl, 0, "unknown option '-%c' (see '%s --help')", optopt, ctl->prog);
	return fail(ctl, 0, "unknown option '%s' (see '%s --help')", shown(arg), ctl->prog);
}

bool want_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return false;
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return true;
	}
	return false;
}

int print_usage(const struct command *cmd)
{
	fputs(cmd->usage, stdout);
	return EXIT_CLEAN;
}

int need_root(const struct ctl *ctl, const char *why)
{
	if (geteuid() == 0)
		return 0;
	return fail(ctl, 0, "%s needs root (the kernel's scrub, GETFSMAP owners and raw "
		    "device reads are privileged)", why);
}

int open_store(const struct ctl *ctl, bool write, struct map_store **st)
{
	int rc = map_store_open(ctl->db_path, write ? 0 : MAP_STORE_READONLY, st);

	return rc ? store_open_failed(ctl, write, rc) : 0;
}

int store_open_failed(const struct ctl *ctl, bool write, int rc)
{
	const char *why = map_store_error(rc);

	if (rc == -MAP_EDBCORRUPT || rc == -MAP_EDBSCHEMA)
		return fail(ctl, rc, "%s (left untouched)", ctl->db_path);
	/* SQLite failed on one of the database's files: which, and why. */
	if (why)
		return fail(ctl, 0, "cannot %s the database: %s", write ? "write" : "read", why);
	if (rc == -ENOENT && !write)
		return fail(ctl, 0, "no database at %s yet: run 'mapctl scan' as root first "
			    "(or give --db)", ctl->db_path);
	if (rc == -EPERM && write)
		return fail(ctl, 0, "refusing to write the database %s: it or its folder belongs to "
			    "another user, or others may write to its folder", shown(ctl->db_path));
	if (rc == -EACCES || rc == -EPERM)
		return fail(ctl, 0, "cannot %s the database %s: permission denied (it is readable "
			    "by root and its group)", write ? "write" : "read", ctl->db_path);
	return fail(ctl, rc, "cannot open the database %s", ctl->db_path);
}

int open_fs(const struct ctl *ctl, const char *path, struct map_fs **fs)
{
	int rc = map_fs_open(path, fs);

	if (rc == 0)
		return 0;
	if (rc == -ENOENT)
		return fail(ctl, 0, "%s: no such file or folder", path);
	return fail(ctl, rc, "%s", path);
}

int fs_id_for_path(const struct ctl *ctl, struct map_store *st, const char *path,
		   int64_t *fs_id, struct map_store_fs *out)
{
	struct map_fs *fs;
	int rc;

	*fs_id = 0;
	if (!path)
		return 0;
	rc = open_fs(ctl, path, &fs);
	if (rc)
		return rc;
	rc = map_store_fs_by_uuid(st, map_fs_info(fs)->uuid, out);
	if (rc == -ENOENT) {
		rc = fail(ctl, 0, "%s (uuid %s) has never been scanned",
			  shown(map_fs_info(fs)->mountpoint), map_fs_info(fs)->uuid);
	} else if (rc) {
		rc = fail(ctl, rc, "reading the database");
	} else {
		*fs_id = out->id;
		/* Show it where it is mounted now. */
		snprintf(out->mountpoint, sizeof(out->mountpoint), "%s", map_fs_info(fs)->mountpoint);
	}
	map_fs_close(fs);
	return rc;
}

const char *human_bytes(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)bytes;
	int u = 0;

	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
	else
		snprintf(buf, len, "%.1f %s", v, units[u]);
	return buf;
}

/*
 * Labels, device models and serials, and mount points are chosen by whoever
 * made the filesystem, plugged in the disk or mounted it: escaped like paths
 * before they reach a terminal.  The result lives in one of SHOWN_SLOTS
 * buffers, so a printf may take that many; each fits a mount point
 * (PATH_MAX bytes, 4 output bytes per input byte at most).
 */
#define SHOWN_SLOTS 4
#define SHOWN_MAX (4 * 4096 + 1)

const char *shown(const char *s)
{
	static char buf[SHOWN_SLOTS][SHOWN_MAX];
	static unsigned int next;
	char *slot = buf[next++ % SHOWN_SLOTS];
	char *esc = map_escape_text(s);

	snprintf(slot, SHOWN_MAX, "%s", esc ? esc : "?");
	free(esc);
	return slot;
}

/* The same slots for a word of a command line to paste (map_escape_shell). */
const char *shell_word(const char *s)
{
	static char buf[SHOWN_SLOTS][SHOWN_MAX + 8];
	static unsigned int next;
	char *slot = buf[next++ % SHOWN_SLOTS];
	char *esc = map_escape_shell(s);

	snprintf(slot, sizeof(buf[0]), "%s", esc ? esc : "?");
	free(esc);
	return slot;
}

void print_path_text(FILE *out, const char *mountpoint, const char *rel)
{
	char *full = map_join_path(mountpoint, rel);
	char *esc = full ? map_escape_text(full) : NULL;

	fputs(esc ? esc : "?", out);
	free(esc);
	free(full);
}
