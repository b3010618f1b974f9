// SPDX-License-Identifier: GPL-2.0-or-later
/* The one place where libmap's error codes become words. */
#include <string.h>

#include "map.h"

static const char *const map_messages[] = {
	[MAP_ENOTXFS - MAP_EBASE] = "not on an XFS filesystem",
	[MAP_ENOTMOUNTED - MAP_EBASE] = "no mounted filesystem found for this path",
	[MAP_ENOSCRUB - MAP_EBASE] = "the kernel has no XFS online scrub (CONFIG_XFS_ONLINE_SCRUB)",
	[MAP_ENOREPAIR - MAP_EBASE] = "the kernel has no XFS online repair (CONFIG_XFS_ONLINE_REPAIR)",
	[MAP_EDBSCHEMA - MAP_EBASE] = "database was written by a newer version of this program",
	[MAP_EDBCORRUPT - MAP_EBASE] = "database file is damaged or is not a mapper database",
	[MAP_ECANCELED - MAP_EBASE] = "stopped on request",
	[MAP_EUNMOUNTED - MAP_EBASE] = "the filesystem was unmounted during the operation",
};

const char *map_strerror(int err)
{
	int code = err < 0 ? -err : err;

	if (code > MAP_EBASE && code < MAP_ELAST && map_messages[code - MAP_EBASE])
		return map_messages[code - MAP_EBASE];
	if (code == 0)
		return "success";
	return strerror(code);
}
