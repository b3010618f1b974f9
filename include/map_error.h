/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libmap's errors: negative errnos, and the MAP_E* codes beyond them. */
#ifndef MAP_ERROR_H
#define MAP_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

/* ---- errors ------------------------------------------------------------- */

/* Codes beyond the errno range, returned negated like errnos. */
enum map_error {
	MAP_EBASE = 4096,
	MAP_ENOTXFS,		/* path is not on an XFS filesystem */
	MAP_ENOTMOUNTED,	/* no mount found for the path */
	MAP_ENOSCRUB,		/* kernel has no online scrub */
	MAP_ENOREPAIR,		/* kernel has no online repair */
	MAP_EDBSCHEMA,		/* database schema is newer than this program */
	MAP_EDBCORRUPT,		/* database file is not a usable mapper database */
	MAP_ECANCELED,		/* stopped by the caller */
	MAP_EUNMOUNTED,		/* filesystem went away during the operation */
	MAP_ELAST
};

/* Message for a negative errno or MAP_E* code; never NULL. */
const char *map_strerror(int err);

#ifdef __cplusplus
}
#endif
#endif /* MAP_ERROR_H */
