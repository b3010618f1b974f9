#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# promtool for the unit tests: fails, never skips, when it is missing.
#   promtool.sh metrics FILE     promtool check metrics < FILE
#   promtool.sh ARGS...          promtool ARGS...
if ! command -v promtool >/dev/null 2>&1; then
	echo "promtool not found: install Debian's prometheus package (scripts/packages lists it)" >&2
	exit 1
fi
if [ "$1" = metrics ]; then
	[ -s "$2" ] || { echo "$2: no metrics to check (did unit.test_metrics run?)" >&2; exit 1; }
	exec promtool check metrics < "$2"
fi
exec promtool "$@"
