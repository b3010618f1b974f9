// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The escapers take names, labels and mount points chosen by others.  The
 * text form must hold nothing a terminal acts on (C0/C1 controls, DEL,
 * bidirectional overrides) and must decode back to the input; the JSON form
 * must be valid JSON string content and decode back to the exact bytes; the
 * shell form must be one inert word that a shell reads back as the bytes.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "map_output.h"

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Undo map_escape_text: \\ \n \t \xNN. */
static size_t unescape_text(const char *s, char *out)
{
	size_t n = 0;

	while (*s) {
		if (*s != '\\') {
			out[n++] = *s++;
			continue;
		}
		s++;
		if (*s == '\\' || *s == 'n' || *s == 't') {
			out[n++] = *s == 'n' ? '\n' : *s == 't' ? '\t' : '\\';
			s++;
		} else if (*s == 'x' && hexval(s[1]) >= 0 && hexval(s[2]) >= 0) {
			out[n++] = (char)(hexval(s[1]) << 4 | hexval(s[2]));
			s += 3;
		} else {
			abort();	/* an escape the escaper never writes */
		}
	}
	return n;
}

static void put_utf8(unsigned int cp, char *out, size_t *n)
{
	if (cp < 0x80) {
		out[(*n)++] = (char)cp;
	} else if (cp < 0x800) {
		out[(*n)++] = (char)(0xc0 | cp >> 6);
		out[(*n)++] = (char)(0x80 | (cp & 0x3f));
	} else {
		out[(*n)++] = (char)(0xe0 | cp >> 12);
		out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[(*n)++] = (char)(0x80 | (cp & 0x3f));
	}
}

/* Undo map_escape_json, as a surrogateescape reader would. */
static size_t unescape_json(const char *s, char *out)
{
	size_t n = 0;

	while (*s) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == '"')
			abort();	/* not allowed raw inside a JSON string */
		if (c != '\\') {
			out[n++] = *s++;
			continue;
		}
		s++;
		switch (*s) {
		case '\\': case '"': out[n++] = *s++; break;
		case 'n': out[n++] = '\n'; s++; break;
		case 't': out[n++] = '\t'; s++; break;
		case 'u': {
			unsigned int cp = 0;

			for (int i = 1; i <= 4; i++) {
				int v = hexval(s[i]);

				if (v < 0)
					abort();
				cp = cp << 4 | (unsigned int)v;
			}
			s += 5;
			if (cp >= 0xdc80 && cp <= 0xdcff)
				out[n++] = (char)(cp & 0xff);	/* an invalid byte */
			else if (cp >= 0xd800 && cp <= 0xdfff)
				abort();
			else
				put_utf8(cp, out, &n);
			break;
		}
		default:
			abort();
		}
	}
	return n;
}

/* Nothing a terminal acts on is left in the text form. */
static void check_text_is_inert(const unsigned char *s)
{
	for (; *s; s++) {
		if (*s < 0x20 || *s == 0x7f)
			abort();
		if (s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f)
			abort();
		if (s[0] == 0xe2 && s[1] == 0x80 && s[2] >= 0xaa && s[2] <= 0xae)
			abort();
		if (s[0] == 0xe2 && s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9)
			abort();
	}
}

/* Raw bytes left in the JSON form are well-formed UTF-8 (what a JSON
 * reader accepts): no invalid byte gets through unescaped. */
static void check_utf8(const unsigned char *s)
{
	while (*s) {
		size_t n = *s < 0x80 ? 1 : (*s & 0xe0) == 0xc0 ? 2 : (*s & 0xf0) == 0xe0 ? 3 :
			   (*s & 0xf8) == 0xf0 ? 4 : 0;
		unsigned int cp;

		if (n == 0 || (n == 2 && *s < 0xc2))
			abort();
		cp = n == 1 ? *s : *s & (0x7fu >> n);
		for (size_t i = 1; i < n; i++) {
			if ((s[i] & 0xc0) != 0x80)
				abort();
			cp = cp << 6 | (s[i] & 0x3fu);
		}
		if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			abort();
		s += n;
	}
}

/* Read one shell word back as bash does: bare, '...' (a quote as '\''), or
 * $'...' with \\, \' and \xNN; anything else the escaper never writes. */
static size_t unescape_shell(const char *s, char *out)
{
	size_t n = 0;

	if (s[0] == '$' && s[1] == '\'') {
		for (s += 2; *s != '\''; s++) {
			if (!*s)
				abort();	/* unterminated */
			if (*s != '\\') {
				out[n++] = *s;
			} else if (s[1] == '\\' || s[1] == '\'') {
				out[n++] = *++s;
			} else if (s[1] == 'x' && hexval(s[2]) >= 0 && hexval(s[3]) >= 0) {
				out[n++] = (char)(hexval(s[2]) << 4 | hexval(s[3]));
				s += 3;
			} else {
				abort();
			}
		}
		if (s[1])
			abort();	/* one word */
		return n;
	}
	bool quoted = false;
	for (; *s; s++) {
		if (*s == '\'')
			quoted = !quoted;
		else if (!quoted && *s == '\\' && s[1] == '\'')
			out[n++] = *++s;
		else if (!quoted && !strchr("_@%+=:,./-", *s) && !isalnum((unsigned char)*s))
			abort();	/* a byte a shell would act on, unquoted */
		else
			out[n++] = *s;
	}
	if (quoted)
		abort();
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Names are C strings: stop at the first NUL. */
	char *in = malloc(size + 1);
	size_t len;

	if (!in)
		return 0;
	memcpy(in, data, size);
	in[size] = '\0';
	len = strlen(in);

	char *text = map_escape_text(in), *json = map_escape_json(in), *sh = map_escape_shell(in);
	char *back = malloc(len + 1);
	if (!text || !json || !sh || !back)
		abort();
	check_text_is_inert((const unsigned char *)sh);
	if (unescape_shell(sh, back) != len || memcmp(back, in, len) != 0)
		abort();
	free(sh);
	check_text_is_inert((const unsigned char *)text);
	check_utf8((const unsigned char *)text);
	check_utf8((const unsigned char *)json);
	if (unescape_text(text, back) != len || memcmp(back, in, len) != 0)
		abort();
	if (unescape_json(json, back) != len || memcmp(back, in, len) != 0)
		abort();
	free(back);
	free(text);
	free(json);
	free(in);
	return 0;
}
