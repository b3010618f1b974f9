// SPDX-License-Identifier: GPL-2.0-or-later
/* Small helpers shared by the stages. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "map_internal.h"

int map_cancelled(const volatile int *cancel)
{
	return cancel && *cancel;
}

int map_word_index(const char *const *words, int n, const char *word)
{
	for (int i = 0; i < n; i++)
		if (words[i] && strcmp(words[i], word) == 0)
			return i;
	return -ENOENT;
}

void map_fs_release_state(struct map_fs *fs)
{
	map_bmap_index_free(fs->bmap_index);
	fs->bmap_index = NULL;
}

int map_strv_add(char ***v, size_t *n, const char *path)
{
	char **grown = realloc(*v, (*n + 1) * sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	*v = grown;
	grown[*n] = strdup(path);
	if (!grown[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

/*
 * A folder we keep files in must be ours: whoever else can write to it can
 * replace the database, plant a symbolic link where the lock file goes, or
 * swap the folder itself.  So it must be owned by root or by us, and nobody
 * else may write to it, except in a sticky folder like /tmp where others
 * cannot rename or remove what we create.
 */
static int dir_is_safe(const struct stat *sb)
{
	if (!S_ISDIR(sb->st_mode))
		return -ENOTDIR;
	if (sb->st_uid != 0 && sb->st_uid != geteuid())
		return -EPERM;
	if ((sb->st_mode & (S_IWGRP | S_IWOTH)) && !(sb->st_mode & S_ISVTX))
		return -EPERM;
	return 0;
}

int map_dir_ensure(const char *dir, unsigned int mode)
{
	struct stat sb;

	if (mkdir(dir, (mode_t)mode) != 0 && errno != EEXIST)
		return -errno;
	/* Check what is there now, whether it was there or just made:
	 * someone may have made the name first. */
	if (stat(dir, &sb) != 0)
		return -errno;
	return dir_is_safe(&sb);
}

char *map_join_path(const char *mountpoint, const char *rel)
{
	size_t m = strlen(mountpoint);
	char *p;

	if (m == 1 && mountpoint[0] == '/')
		m = 0;
	p = malloc(m + 1 + strlen(rel) + 1);
	if (!p)
		return NULL;
	memcpy(p, mountpoint, m);
	p[m] = '/';
	strcpy(p + m + 1, rel);
	if (!rel[0])
		p[m ? m : 1] = '\0';	/* the root itself */
	return p;
}

void map_textf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

const char *map_human_time(int64_t t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (t == 0) {
		snprintf(buf, len, "never");
		return buf;
	}
	localtime_r(&tt, &tm);
	strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
	return buf;
}
