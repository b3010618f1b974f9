// SPDX-License-Identifier: GPL-2.0-or-later
/* Names for terminals (escaped) and JSON (lossless). */
#include "check.h"
#include "map.h"

static void text(const char *in, const char *want)
{
	char *got = map_escape_text(in);

	CHECK_STR(got, want);
	free(got);
}

static void json(const char *in, const char *want)
{
	char *got = map_escape_json(in);

	CHECK_STR(got, want);
	free(got);
}

int main(void)
{
	text("plain name.txt", "plain name.txt");
	text("new\nline", "new\\nline");
	text("tab\there", "tab\\there");
	text("back\\slash", "back\\\\slash");
	text("bell\x07", "bell\\x07");
	text("del\x7f", "del\\x7f");
	text("caf\xc3\xa9", "caf\xc3\xa9");		/* valid UTF-8 stays */
	text("bad\xff\xfe", "bad\\xff\\xfe");
	text("\xc0\xaf", "\\xc0\\xaf");			/* overlong '/' */
	text("\xed\xa0\x80", "\\xed\\xa0\\x80");	/* encoded surrogate */
	text("\xe2\x82", "\\xe2\\x82");			/* truncated sequence */
	text("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80");	/* 4-byte emoji */

	json("plain", "plain");
	json("\"quoted\"", "\\\"quoted\\\"");
	json("back\\slash", "back\\\\slash");
	json("new\nline", "new\\nline");
	json("\x01", "\\u0001");
	json("caf\xc3\xa9", "caf\xc3\xa9");
	json("bad\xff", "bad\\udcff");
	json("\xc0\xaf", "\\udcc0\\udcaf");
	json("\xed\xa0\x80", "\\udced\\udca0\\udc80");
	json("", "");
	return check_done();
}
