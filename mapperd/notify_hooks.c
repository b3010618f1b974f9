// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Which files of the hook directory run, and with what environment.  A hook
 * runs as root, so only root may have put it there: the directory and each
 * hook must belong to root and be writable by no one else.  Symbolic links
 * are not followed (their target's directory could be anyone's).
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

#include "notify_queue.h"

static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

int md_notify_list_hooks(const char *dir, uid_t owner, struct md_hook_list *out,
			 const char **why,
			 void (*refused)(const char *name, const char *why, void *arg),
			 void *arg)
{
	struct stat st;
	struct dirent *de;
	DIR *dp;
	int fd;

	out->n = 0;
	*why = NULL;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		*why = "cannot be opened";
		return -errno;
	}
	if (fstat(fd, &st) != 0) {
		int rc = -errno;

		close(fd);
		*why = "cannot be examined";
		return rc;
	}
	if (st.st_uid != owner || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		*why = st.st_uid != owner ? "is not owned by root" : "is group or world writable";
		return -EPERM;
	}
	dp = fdopendir(fd);
	if (!dp) {
		int rc = -errno;

		close(fd);
		*why = "cannot be read";
		return rc;
	}
	while ((de = readdir(dp)) != NULL) {
		const char *name = de->d_name;
		size_t len = strlen(name);

		if (name[0] == '.' || name[len - 1] == '~')
			continue;	/* hidden, or an editor's backup */
		if (fstatat(dirfd(dp), name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;	/* gone meanwhile */
		if (!S_ISREG(st.st_mode) || !(st.st_mode & (S_IXUSR | S_IXGRP | S_IXOTH))) {
			if (S_ISLNK(st.st_mode) && refused)
				refused(name, "is a symbolic link", arg);
			continue;	/* not a program: a README, a disabled hook */
		}
		if (st.st_uid != owner) {
			if (refused)
				refused(name, "is not owned by root", arg);
			continue;
		}
		if (st.st_mode & (S_IWGRP | S_IWOTH)) {
			if (refused)
				refused(name, "is group or world writable", arg);
			continue;
		}
		if (out->n >= MD_NOTIFY_MAX_HOOKS) {
			if (refused)
				refused(name, "is one hook too many (at most "
					"32 run)", arg);
			continue;
		}
		snprintf(out->names[out->n++], sizeof(out->names[0]), "%s", name);
	}
	closedir(dp);
	qsort(out->names, out->n, sizeof(out->names[0]), by_name);
	return 0;
}

int md_notify_build_env(const struct md_notification *n, const char *json_path,
			const char *version, char *buf, size_t len, char **envp, size_t max)
{
	char newf[16], openf[16], tm[24];
	const char *vars[][2] = {
		{ "PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" },
		{ "HOME", "/" },
		{ "LANG", "C" },
		{ "MAPPER_EVENT", md_notify_event_name(n->event) },
		{ "MAPPER_FS_UUID", n->uuid },
		{ "MAPPER_MOUNTPOINT", n->mountpoint },
		{ "MAPPER_NEW_FINDINGS", newf },
		{ "MAPPER_OPEN_FINDINGS", openf },
		{ "MAPPER_FINDINGS_JSON", json_path },
		{ "MAPPER_TIME", tm },
		{ "MAPPER_VERSION", version },
	};
	size_t nvars = sizeof(vars) / sizeof(vars[0]), used = 0;

	snprintf(newf, sizeof(newf), "%d", n->new_findings);
	snprintf(openf, sizeof(openf), "%d", n->open_findings < 0 ? 0 : n->open_findings);
	snprintf(tm, sizeof(tm), "%" PRId64, n->time);
	if (max < nvars + 1)
		return -ENOSPC;
	for (size_t i = 0; i < nvars; i++) {
		int w = snprintf(buf + used, len - used, "%s=%s", vars[i][0],
				 vars[i][1] ? vars[i][1] : "");

		if (w < 0 || (size_t)w >= len - used)
			return -ENOSPC;
		envp[i] = buf + used;
		used += (size_t)w + 1;
	}
	envp[nvars] = NULL;
	return (int)nvars;
}
