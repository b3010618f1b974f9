#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every key of mapperd/config.c's table is documented in mapperd.conf(5) and set
# in the shipped mapperd.conf, with the same default in both; neither names
# a key config.c does not know; and the shipped file's values are the
# defaults (mapperd --check-config prints the same for it as for no file).
#   config_keys.sh MAPPERD SRCDIR
set -euo pipefail
mapperd=$1 src=$2
man5=$src/mapperd/mapperd.conf.5 conf=$src/mapperd/mapperd.conf
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

# The keys of config.c's table: the dump (--check-config) prints every one.
mapfile -t keys < <("$mapperd" --check-config --config /dev/null |
	sed -n 's/^\([a-z_0-9]*\) =.*/\1/p' | sort -u)
(( ${#keys[@]} >= 20 )) || { echo "FAIL: only ${#keys[@]} keys printed by $mapperd" >&2; exit 1; }

# The man page's entries: .BR key " = " [default], and the shipped "key = value".
man_default() { sed -n -e "s/^\.BR $1 \" = \" \(.*\)\$/\1/p" -e "s/^\.BR $1 \" =\"\$//p" "$man5" |
	sed 's/\\-/-/g'; }
conf_value() { sed -n "s/^$1 =[ ]*\(.*\)\$/\1/p" "$conf"; }
for k in "${keys[@]}"; do
	n=$(grep -c "^\.BR $k \" =\( \"\|\"\$\)" "$man5" || true)
	[[ $n == 1 ]] || { bad "$k: $n entries in mapperd.conf.5 (want 1)"; continue; }
	n=$(grep -c "^$k =" "$conf" || true)
	[[ $n == 1 ]] || { bad "$k: $n lines in mapperd.conf (want 1)"; continue; }
	[[ "$(man_default "$k")" == "$(conf_value "$k")" ]] ||
		bad "$k: mapperd.conf.5 says '$(man_default "$k")', mapperd.conf '$(conf_value "$k")'"
done

# No entry for a key that does not exist.
is_key() { local k; for k in "${keys[@]}"; do [[ $k == "$1" ]] && return 0; done; return 1; }
while read -r k; do
	is_key "$k" || bad "mapperd.conf.5 documents '$k', which mapperd does not know"
done < <(sed -n 's/^\.BR \([a-z_0-9]*\) " =.*/\1/p' "$man5")
while read -r k; do
	is_key "$k" || bad "mapperd.conf sets '$k', which mapperd does not know"
done < <(sed -n 's/^\([a-z_0-9]*\) =.*/\1/p' "$conf")

# The shipped file is valid and changes no default.
if ! diff <("$mapperd" --check-config --config /dev/null | tail -n +2) \
	  <("$mapperd" --check-config --config "$conf" | tail -n +2); then
	bad "the shipped mapperd.conf is invalid or differs from the defaults (above)"
fi
[[ $fail == 0 ]] && echo "ok: ${#keys[@]} keys documented and shipped with their defaults"
exit $fail
