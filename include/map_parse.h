/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Sizes, rates and durations as mapctl's options and mapperd.conf take them. */
#ifndef MAP_PARSE_H
#define MAP_PARSE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- sizes people write ------------------------------------------------------------ */

/*
 * A size or rate as mapctl's options and mapperd.conf take it: digits, an
 * optional decimal fraction, and an optional binary suffix K, M, G or T
 * (1024-based, any case, "i" and "B" allowed after it: 4k, 64KiB, 1.5G),
 * or a plain "B".  A fraction needs a suffix and is rounded down to whole
 * bytes.  No sign, no blanks, no exponent.  0, -EINVAL for anything else,
 * -ERANGE above UINT64_MAX.  What 0 means is the caller's (for rates and
 * read limits: no limit; for read sizes: the default).
 */
int map_parse_size(const char *s, uint64_t *bytes);

/*
 * A duration as mapperd.conf and mapctl's options take it: digits and one
 * unit, ms, s, m, h, d or w (a bare number is seconds: 90s, 15m, 12h, 8d,
 * 4w), or "off"/"never" for 0.  0 or -EINVAL (also when it does not fit in
 * 64 bits of milliseconds).  What 0 means is the caller's.
 */
int map_parse_duration(const char *s, int64_t *ms);
/* @ms in the largest unit that divides it, as map_parse_duration reads it
 * back ("1w", "36h", "1500ms", "off" for 0). */
const char *map_duration_str(int64_t ms, char *buf, size_t len);

/* The read size of verify and scans when map_verify_opts.io_size is 0 (public
 * so that mapperd --check-config can say what io_size = 0 means). */
#define MAP_VERIFY_IO_SIZE_DEFAULT (4u << 20)
/* The read sizes mapctl --io-size and mapperd's io_size accept besides 0: a
 * whole 4 KiB block at least; at most 1 GiB, as each read in flight holds a
 * buffer that large. */
#define MAP_VERIFY_IO_SIZE_MIN 4096u
#define MAP_VERIFY_IO_SIZE_MAX (1u << 30)

#ifdef __cplusplus
}
#endif
#endif /* MAP_PARSE_H */
