// SPDX-License-Identifier: GPL-2.0-or-later
/* Names for terminals (escaped) and JSON (lossless). */
#include "check.h"
#include "map_output.h"

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

static void shell(const char *in, const char *want)
{
	char *got = map_escape_shell(in);

	CHECK_STR(got, want);
	free(got);
}

int main(void)
{
	/* Issue 36: a mount point in a hint is one word a shell reads back. */
	shell("/srv/data-1", "/srv/data-1");
	shell("/srv/my data", "'/srv/my data'");
	shell("/srv/it's", "'/srv/it'\\''s'");
	shell("", "''");
	shell("/srv/$HOME;rm", "'/srv/$HOME;rm'");
	shell("/srv/caf\xc3\xa9", "'/srv/caf\xc3\xa9'");
	shell("/srv/new\nline's", "$'/srv/new\\x0aline\\'s'");
	shell("/srv/bad\xff\\x", "$'/srv/bad\\xff\\\\x'");
	shell("/srv/a\xc2\x9b" "31m", "$'/srv/a\\xc2\\x9b31m'");
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
	/* C1 controls: U+009B is CSI, which starts a terminal escape sequence. */
	text("a\xc2\x9b" "31mred", "a\\xc2\\x9b31mred");
	text("\xc2\x80\xc2\x9f", "\\xc2\\x80\\xc2\\x9f");	/* first and last C1 */
	text("\xc2\xa0nbsp", "\xc2\xa0nbsp");			/* U+00A0 is printable */
	/* Bidirectional overrides and isolates reorder what is shown. */
	text("evil\xe2\x80\xaetxt.exe", "evil\\xe2\\x80\\xaetxt.exe");	/* RLO */
	text("\xe2\x80\xaa\xe2\x80\xac", "\\xe2\\x80\\xaa\\xe2\\x80\\xac");	/* LRE PDF */
	text("\xe2\x81\xa6x\xe2\x81\xa9", "\\xe2\\x81\\xa6x\\xe2\\x81\\xa9");	/* LRI PDI */
	text("\xe2\x80\xa9\xe2\x80\xaf", "\xe2\x80\xa9\xe2\x80\xaf");	/* neighbours stay */
	text("\xe2\x81\xa5\xe2\x81\xaa", "\xe2\x81\xa5\xe2\x81\xaa");

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
	json("a\xc2\x9b" "b", "a\\u009bb");
	json("evil\xe2\x80\xaetxt", "evil\\u202etxt");
	json("\xe2\x81\xa9", "\\u2069");
	json("\xc2\xa0", "\xc2\xa0");
	return check_done();
}
