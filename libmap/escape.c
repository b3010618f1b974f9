// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * File names are bytes.  For people, control characters and invalid UTF-8
 * are shown as escapes; for JSON, invalid bytes travel as lone surrogates
 * (\udcNN) so a reader can restore the exact name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map.h"

/* Length of the valid UTF-8 sequence at @s (1-4), or 0 if it is not valid. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if (c == 0xe0 && s[1] < 0xa0)
			return 0;	/* overlong */
		if (c == 0xed && s[1] >= 0xa0)
			return 0;	/* UTF-16 surrogate */
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
			return 0;
		if (c == 0xf0 && s[1] < 0x90)
			return 0;	/* overlong */
		if (c == 0xf4 && s[1] >= 0x90)
			return 0;	/* beyond U+10FFFF */
		return 4;
	}
	return 0;
}

/* Worst case is 6 output bytes per input byte (\udcNN). */
static char *alloc_out(const char *s)
{
	return malloc(strlen(s) * 6 + 1);
}

char *map_escape_text(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = alloc_out(s), *o = out;

	if (!out)
		return NULL;
	while (*p) {
		size_t len = utf8_len(p);

		if (*p == '\\') {
			*o++ = '\\';
			*o++ = '\\';
			p++;
		} else if (*p == '\n') {
			*o++ = '\\';
			*o++ = 'n';
			p++;
		} else if (*p == '\t') {
			*o++ = '\\';
			*o++ = 't';
			p++;
		} else if (len == 0 || *p < 0x20 || *p == 0x7f) {
			o += sprintf(o, "\\x%02x", *p);
			p++;
		} else {
			memcpy(o, p, len);
			o += len;
			p += len;
		}
	}
	*o = '\0';
	return out;
}

char *map_escape_json(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = alloc_out(s), *o = out;

	if (!out)
		return NULL;
	while (*p) {
		size_t len = utf8_len(p);

		if (*p == '"' || *p == '\\') {
			*o++ = '\\';
			*o++ = (char)*p++;
		} else if (*p == '\n') {
			*o++ = '\\';
			*o++ = 'n';
			p++;
		} else if (*p == '\t') {
			*o++ = '\\';
			*o++ = 't';
			p++;
		} else if (*p < 0x20) {
			o += sprintf(o, "\\u%04x", *p);
			p++;
		} else if (len == 0) {
			o += sprintf(o, "\\udc%02x", *p);
			p++;
		} else {
			memcpy(o, p, len);
			o += len;
			p += len;
		}
	}
	*o = '\0';
	return out;
}
