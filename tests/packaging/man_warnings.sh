#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Each manual page formats without a warning, as lintian formats it
# (man --warnings; groff -ww), so that the package stays lintian clean.
#   man_warnings.sh PAGE...
fail=0
for page in "$@"; do
	out=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 \
		man --warnings -E UTF-8 -l -Tutf8 -Z "$page" 2>&1 >/dev/null;
		groff -man -ww -z "$page" 2>&1)
	if [ -n "$out" ] || [ ! -s "$page" ]; then
		echo "FAIL: $page:" >&2
		echo "$out" >&2
		fail=1
	fi
done
[ $fail = 0 ] && echo "ok: $# pages without warnings"
exit $fail
