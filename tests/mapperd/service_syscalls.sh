#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Print the system calls a unit's SystemCallFilter= lines allow, one a line,
# applying the lines in order as systemd does: the first (an allow list)
# sets the list, a later "~" line removes its calls, a later plain line adds
# them.  Groups (@name) are expanded with systemd-analyze syscall-filter.
# Usage: service_syscalls.sh UNIT
set -eu
unit=$1

# The calls of one group, nested groups expanded.
expand() {
	systemd-analyze syscall-filter "$1" | sed 1d | while read -r name _; do
		case $name in
		''|'#'*) ;;
		@*) expand "$name" ;;
		*) echo "$name" ;;
		esac
	done
}

names() {
	for n in "$@"; do
		case $n in
		@*) expand "$n" ;;
		*) echo "$n" ;;
		esac
	done
}

if ! grep -q '^SystemCallFilter=' "$unit"; then
	echo "service_syscalls.sh: $unit has no SystemCallFilter= (every call is allowed)" >&2
	exit 2
fi
allowed=$(mktemp)
trap 'rm -f "$allowed" "$allowed.new" "$allowed.tmp"' EXIT
first=1
grep '^SystemCallFilter=' "$unit" | sed 's/^SystemCallFilter=//' | while read -r line; do
	case $line in
	'~'*)
		[ "$first" = 1 ] && { echo "service_syscalls.sh: a deny list first is not handled" >&2; exit 1; }
		# shellcheck disable=SC2086
		names ${line#\~} | sort -u > "$allowed.new"
		sort -u "$allowed" | comm -23 - "$allowed.new" > "$allowed.tmp"
		mv "$allowed.tmp" "$allowed"
		;;
	*)
		# shellcheck disable=SC2086
		names $line >> "$allowed"
		;;
	esac
	first=0
done
sort -u "$allowed"
