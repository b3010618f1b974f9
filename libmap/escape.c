// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * File names are bytes.  For people, control characters and invalid UTF-8
 * are shown as escapes; for JSON, invalid bytes travel as lone surrogates
 * (\udcNN) so a reader can restore the exact name.
 *
 * "Control characters" include more than the C0 range: a name, label or
 * mount point is chosen by whoever made it, and a terminal acts on C1
 * controls (U+0080..U+009F; U+009B is CSI) and shows text reordered by the
 * bidirectional overrides and isolates (U+202A..U+202E, U+2066..U+2069), so
 * "evil\u202eexe.txt" would read as "eviltxt.exe".  Both are escaped.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map_output.h"

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

/* A valid UTF-8 sequence of @len bytes at @s that a terminal would act on
 * rather than show: a C1 control or a bidirectional override/isolate. */
static bool utf8_is_control(const unsigned char *s, size_t len)
{
	if (len == 2)
		return s[0] == 0xc2 && s[1] <= 0x9f;		/* U+0080..U+009F */
	if (len == 3 && s[0] == 0xe2 && s[1] == 0x80)
		return s[2] >= 0xaa && s[2] <= 0xae;		/* U+202A..U+202E */
	if (len == 3 && s[0] == 0xe2 && s[1] == 0x81)
		return s[2] >= 0xa6 && s[2] <= 0xa9;		/* U+2066..U+2069 */
	return false;
}

/* Code point of a valid 2- or 3-byte sequence (only used for the above). */
static unsigned int utf8_code_point(const unsigned char *s, size_t len)
{
	if (len == 2)
		return (s[0] & 0x1fu) << 6 | (s[1] & 0x3fu);
	return (s[0] & 0x0fu) << 12 | (s[1] & 0x3fu) << 6 | (s[2] & 0x3fu);
}

/* Worst case is 6 output bytes per input byte (\udcNN). */
static char *alloc_out(const char *s)
{
	return malloc(strlen(s) * 6 + 1);
}

/* Copy the character at *@pp (@len bytes, 0 when invalid UTF-8) to @o, as
 * it is, or as \xNN per byte when it is invalid or a control character (a
 * C0/C1 control, DEL, or a code point a terminal acts on): exact and plain
 * ASCII.  Advances *@pp; returns the new end of @o. */
static char *put_char_or_hex(char *o, const unsigned char **pp, size_t len)
{
	const unsigned char *p = *pp;

	if (len == 0 || *p < 0x20 || *p == 0x7f) {
		o += sprintf(o, "\\x%02x", *p);
		*pp = p + 1;
	} else if (utf8_is_control(p, len)) {
		for (size_t i = 0; i < len; i++)
			o += sprintf(o, "\\x%02x", p[i]);
		*pp = p + len;
	} else {
		memcpy(o, p, len);
		*pp = p + len;
		o += len;
	}
	return o;
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
		} else {
			o = put_char_or_hex(o, &p, len);
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
		} else if (utf8_is_control(p, len)) {
			/* Same character, but not acted on by a terminal showing
			 * the JSON text. */
			o += sprintf(o, "\\u%04x", utf8_code_point(p, len));
			p += len;
		} else {
			memcpy(o, p, len);
			o += len;
			p += len;
		}
	}
	*o = '\0';
	return out;
}

/* Bytes a POSIX shell takes as part of a word, unquoted. */
static bool shell_plain(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("_@%+=:,./-", c) != NULL;
}

char *map_escape_shell(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	bool plain = *p != '\0', printable = true;
	char *out = malloc(strlen(s) * 4 + 4), *o = out;

	if (!out)
		return NULL;
	for (const unsigned char *q = p; *q;) {
		size_t len = utf8_len(q);

		if (!shell_plain(*q))
			plain = false;
		if (len == 0 || *q < 0x20 || *q == 0x7f || utf8_is_control(q, len)) {
			printable = false;
			break;
		}
		q += len;
	}
	if (plain) {
		strcpy(out, s);
		return out;
	}
	if (printable) {
		/* '...': every byte as it is, a quote as '\'' */
		*o++ = '\'';
		for (; *p; p++) {
			if (*p == '\'') {
				memcpy(o, "'\\''", 4);
				o += 4;
			} else {
				*o++ = (char)*p;
			}
		}
		*o++ = '\'';
		*o = '\0';
		return out;
	}
	/* $'...' (bash, zsh, ksh; POSIX from 2024): what a terminal would act
	 * on, and invalid UTF-8, as \xNN; a backslash or quote escaped. */
	*o++ = '$';
	*o++ = '\'';
	while (*p) {
		size_t len = utf8_len(p);

		if (*p == '\\' || *p == '\'') {
			*o++ = '\\';
			*o++ = (char)*p++;
		} else {
			o = put_char_or_hex(o, &p, len);
		}
	}
	*o++ = '\'';
	*o = '\0';
	return out;
}
