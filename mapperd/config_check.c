// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapperd --check-config: the settings a parse cannot judge, looked at on
 * this system, so that what would fail once the daemon runs fails the
 * check instead.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "config.h"
#include "config_keys.h"
#include "notify_queue.h"

_Static_assert(MD_SOCKET_PATH_MAX + 1 == sizeof(((struct sockaddr_un *)0)->sun_path),
	       "MD_SOCKET_PATH_MAX is sun_path's size less its NUL");

/* The file's value is refused when read; --socket comes here. */
int config_check_socket(const struct md_config *c, const char *file, char *err, size_t errlen)
{
	if (strlen(c->control_socket) <= MD_SOCKET_PATH_MAX)
		return 0;
	snprintf(err, errlen, "%s: control_socket (or --socket) = '%.120s%s': longer than a socket "
		 "address holds (%d bytes at most)", file, c->control_socket,
		 strlen(c->control_socket) > 120 ? "..." : "", MD_SOCKET_PATH_MAX);
	return -EINVAL;
}

int config_check_metrics_file(const struct md_config *c, const char *file, char *err,
			      size_t errlen)
{
	struct stat sb;

	if (!c->metrics_file[0] || stat(c->metrics_file, &sb) != 0 || !S_ISDIR(sb.st_mode))
		return 0;
	snprintf(err, errlen, "%s: metrics_file = '%s': names a folder; it wants the file to "
		 "write in one, such as %s/mapper.prom", file, c->metrics_file, c->metrics_file);
	return -EINVAL;
}

int config_check_notify_directory(const struct md_config *c, const char *file, char *err,
				  size_t errlen)
{
	struct md_hook_list *hooks;
	const char *why = NULL;
	int rc;

	if (!c->notify_directory[0])
		return 0;
	hooks = malloc(sizeof(*hooks));
	if (!hooks) {
		snprintf(err, errlen, "%s", map_strerror(ENOMEM));
		return -ENOMEM;
	}
	/* Hooks run as root: only a folder of root's that nobody else may
	 * write to is read (notify_hooks.c); a missing one means no hooks. */
	rc = md_notify_list_hooks(c->notify_directory, 0, hooks, &why, NULL, NULL);
	free(hooks);
	if (rc == -EPERM) {
		snprintf(err, errlen, "%s: notify_directory = '%s': %s: no hook in it would run", file,
			 c->notify_directory, why);
		return -EINVAL;
	}
	if (rc && rc != -ENOENT) {
		snprintf(err, errlen, "%s: notify_directory = '%s': %s: %s", file,
			 c->notify_directory, why ? why : "cannot be read", map_strerror(rc));
		return -EINVAL;
	}
	return 0;
}

/* Every key's check, in the table's order: the first that fails says why. */
int config_check(const struct md_config *c, char *err, size_t errlen)
{
	const char *file = c->path[0] ? c->path : "(defaults)";
	size_t n;
	const struct config_key *k = config_keys(&n);

	err[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		int rc = k[i].check ? k[i].check(c, file, err, errlen) : 0;

		if (rc)
			return rc;
	}
	return 0;
}
