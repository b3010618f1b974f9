/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Output helpers: names escaped for terminals, shells and JSON, times for
 * people, and the streaming JSON writer of mapctl and mapperd. */
#ifndef MAP_OUTPUT_H
#define MAP_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct map_finding;

#ifdef __cplusplus
extern "C" {
#endif

/* ---- output helpers ---------------------------------------------------------------- */

/* Path text for humans: control characters and invalid UTF-8 as \xNN, backslash
 * as \\.  Caller frees. */
char *map_escape_text(const char *s);
/* @s as one word for a shell, for a command line someone may paste: as it is
 * when only [A-Za-z0-9_@%+=:,./-]; else in '...'; with control characters
 * (those map_escape_text escapes) or invalid UTF-8, $'...' with \xNN.
 * Caller frees. */
char *map_escape_shell(const char *s);
/* Whole path of @rel (stored relative to the mount root; "" is the root)
 * under @mountpoint; caller frees, NULL without memory. */
char *map_join_path(const char *mountpoint, const char *rel);
/* Unix time @t as local "YYYY-MM-DD HH:MM:SS" for people ("never" for 0),
 * in @buf, which is returned. */
const char *map_human_time(int64_t t, char *buf, size_t len);
/* JSON string body without the quotes: each byte of invalid UTF-8 becomes
 * \udcNN (a lone low surrogate, as Python's surrogateescape reads it back),
 * controls become \u00NN.  Lossless.  Caller frees. */
char *map_escape_json(const char *s);

/* JSON on one line, written as it goes through @sink (fwrite to a FILE, an
 * append to a buffer).  Objects and arrays nest; keys are NULL inside
 * arrays; strings are escaped with map_escape_json. */
typedef void (*map_json_sink)(void *ctx, const char *text, size_t len);
struct map_json {
	map_json_sink sink;
	void *ctx;
	int depth;
	bool first[32];
};
void map_json_start(struct map_json *j, map_json_sink sink, void *ctx);
void map_json_obj(struct map_json *j, const char *key);
void map_json_arr(struct map_json *j, const char *key);
void map_json_end_obj(struct map_json *j);
void map_json_end_arr(struct map_json *j);
void map_json_str(struct map_json *j, const char *key, const char *value);
void map_json_int(struct map_json *j, const char *key, int64_t value);
void map_json_uint(struct map_json *j, const char *key, uint64_t value);
void map_json_double(struct map_json *j, const char *key, double value);
void map_json_bool(struct map_json *j, const char *key, bool value);
void map_json_null(struct map_json *j, const char *key);
/* @value, or null when it is NULL or "": absent text is null, never "". */
void map_json_str_or_null(struct map_json *j, const char *key, const char *value);

/*
 * The version of every JSON output of mapctl and mapperd, written first in
 * each top-level object as "output_version":{"command":..,"major":..,
 * "minor":..} (mapper-json(7)).  A minor step only adds fields or values;
 * a major step renames, removes or changes the meaning of one.
 */
#define MAP_JSON_MAJOR 1
#define MAP_JSON_MINOR 0
void map_json_output_version(struct map_json *j, const char *command);
/* @value when @has, else null. */
void map_json_uint_or_null(struct map_json *j, const char *key, bool has, uint64_t value);
/* Unix seconds, or null for 0 (never). */
void map_json_time(struct map_json *j, const char *key, int64_t t);
/* The members of a finding object of mapper-json(7), without its braces;
 * every member is there, what does not apply is null.  Paths are joined to
 * @mountpoint (may be NULL: paths as stored). */
void map_json_finding_members(struct map_json *j, const struct map_finding *f, const char *uuid,
			      const char *mountpoint);

#ifdef __cplusplus
}
#endif
#endif /* MAP_OUTPUT_H */
