#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# mapperd --check-config refuses (exit 2, one line naming the key and why)
# what would fail once the daemon starts (issue 36):
#  - a control_socket (or --socket) longer than a socket address holds;
#  - a metrics_file that names a folder;
#  - a notify_directory that others may write to (no hook would ever run);
# and a NUL byte in a line is called that, not "line too long".  A good
# configuration, and a notify_directory that does not exist (no hooks), pass.
# Usage: test_mapperd_check_config.sh MAPPERD
set -u
mapperd=$1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -m 0755 "$tmp/hooks" "$tmp/prom"
mkdir -m 0777 "$tmp/open-hooks"
chmod 0777 "$tmp/open-hooks"	# whatever the umask

# check NAME STATUS TEXT: the configuration in $tmp/conf; STATUS expected,
# TEXT (a fixed string) expected on stderr when STATUS is 2.
check() {
	"$mapperd" --check-config --config "$tmp/conf" "$@" > "$tmp/out" 2> "$tmp/err"
	echo $? > "$tmp/status"
}
expect() {
	name=$1 want=$2 text=$3
	got=$(cat "$tmp/status")
	if [ "$got" != "$want" ]; then
		fail "$name: exit status $got, want $want; stderr: $(cat "$tmp/err")"
	elif [ "$want" = 2 ] && ! grep -qF -- "$text" "$tmp/err"; then
		fail "$name: stderr does not say '$text': $(cat "$tmp/err")"
	elif [ "$want" = 2 ] && [ "$(wc -l < "$tmp/err")" != 1 ]; then
		fail "$name: more than one line: $(cat "$tmp/err")"
	else
		echo "ok: $name: $(head -c 300 "$tmp/err")"
	fi
}

long=/run/$(printf '%0120d' 0).sock
good="notify_directory = $tmp/hooks
metrics_file = $tmp/prom/mapper.prom
control_socket = /run/mapper/mapperd.sock
"

printf '%s' "$good" > "$tmp/conf"
check
expect "a good configuration" 0 ""

printf '%s' "$good" | sed "s|^notify_directory = .*|notify_directory = $tmp/none|" > "$tmp/conf"
check
expect "a notify_directory that does not exist" 0 ""

printf '%s' "$good" | sed "s|^control_socket = .*|control_socket = $long|" > "$tmp/conf"
check
expect "a control_socket too long for a socket address" 2 "control_socket"

printf '%s' "$good" > "$tmp/conf"
check --socket "$long"
expect "--socket too long for a socket address" 2 "socket"

printf '%s' "$good" | sed "s|^metrics_file = .*|metrics_file = $tmp/prom|" > "$tmp/conf"
check
expect "a metrics_file that names a folder" 2 "metrics_file"

printf '%s' "$good" | sed "s|^notify_directory = .*|notify_directory = $tmp/open-hooks|" > "$tmp/conf"
check
expect "a world-writable notify_directory" 2 "notify_directory"

printf 'log_level = info\nrate_limit = 1\000M\n' > "$tmp/conf"
check
expect "a NUL byte" 2 ":2: a NUL byte"

[ "$fails" = 0 ] && echo PASS && exit 0
echo "$fails failure(s)"
exit 1
