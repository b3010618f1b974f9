#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The bash completion of mapctl, called as bash calls it (COMP_WORDS,
# COMP_CWORD): commands, each command's options, option values, paths.
# The commands and options it offers are exactly those 'mapctl --help' and
# 'mapctl COMMAND --help' print, so neither can change without the other.
#   completion.sh MAPCTL COMPLETION_FILE
set -uo pipefail
mapctl=$1 file=$2
bc=/usr/share/bash-completion/bash_completion
[[ -r $bc ]] || { echo "FAIL: $bc missing: install bash-completion (scripts/packages)" >&2; exit 1; }
# shellcheck disable=SC1090
if ! { source "$bc" && source "$file"; }; then
	echo "FAIL: cannot source $file" >&2
	exit 1
fi
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

# complete WORD...: the candidates for the last word, sorted, one a line.
complete_words() {
	COMP_WORDS=(mapctl "$@")
	COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
	COMP_LINE="${COMP_WORDS[*]}"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_mapctl mapctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
	printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort -u
}
expect() {	# expect "WANTED CANDIDATES" WORD...
	local want=$1 got
	shift
	got=$(complete_words "$@" | tr '\n' ' ' | sed 's/ $//')
	[[ $got == "$want" ]] || bad "mapctl $* <TAB>: got '$got', want '$want'"
}
contains() {	# contains CANDIDATE WORD...
	local c=$1
	shift
	complete_words "$@" | grep -qxF -- "$c" || bad "mapctl $* <TAB> does not offer $c"
}
# The options a --help text names in its Usage: lines and lists in its
# Options: section (there, the first column: up to two blanks).
help_options() {
	local text
	text=$(cat)
	{
		sed -n '1,/^$/p' <<< "$text" | grep -oE '[[ |]--?[A-Za-z0-9][A-Za-z0-9-]*'
		sed -n '/^Options:/,/^$/p' <<< "$text" | grep -E '^ +-' | sed -E 's/^ +//; s/  .*//' |
			grep -oE '(^|[ ,])--?[A-Za-z0-9][A-Za-z0-9-]*'
	} | tr -d ' ,[|' | sort -u
}

# Commands, both ways.
commands=$("$mapctl" --help | sed -n '/^Commands:/,/^$/p' | sed -n 's/^  \([a-z]*\) .*/\1/p' | sort)
[[ $(wc -l <<< "$commands") -ge 10 ]] || bad "no commands read from mapctl --help"
diff <(printf '%s\nhelp\n' "$commands" | sort) <(complete_words "") ||
	bad "mapctl <TAB> differs from the commands of mapctl --help (above)"
diff <(printf '%s\n' --db -h --help -V --version | sort) <(complete_words -) ||
	bad "mapctl -<TAB>: not the global options"
diff <("$mapctl" --help | help_options) <(complete_words - | sort -u) ||
	bad "mapctl -<TAB> differs from the options of mapctl --help (above)"

# Each command's options, both ways (plus the global --db and --version).
for c in $commands; do
	want=$( { "$mapctl" "$c" --help | help_options; printf '%s\n' --db --version; } | sort -u)
	[[ $(wc -l <<< "$want") -ge 4 ]] || bad "$c: no options read from mapctl $c --help"
	diff <(printf '%s\n' "$want") <(complete_words "$c" -) ||
		bad "mapctl $c -<TAB> differs from mapctl $c --help (above: < help, > completion)"
done

# A few lines as typed.
expect "scan" sc
expect "refetch repair resolve" re
expect "--media --metadata" scan --me
expect "be idle" scan --ioprio ""
expect "be" scan --ioprio b
expect "status" help sta
expect "progress" daemon pro
expect "scan" daemon --json sc
expect "--offline --offline-plan" repair /srv --offl
expect "" resolve --note ""
contains --media scan --
contains --dry-run refetch /srv --from /mirror --
contains --db files --

# Paths: folders after a command, files after --db and --output.
dir=$(mktemp -d "${TMPDIR:-/tmp}/mapper-compl.XXXXXX")
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/srv" "$dir/srv two"
touch "$dir/store.db"
expect "$dir/srv $dir/srv two" scan "$dir/sr"
expect "$dir/srv $dir/srv two" --db "$dir/store.db" files "$dir/s"
expect "$dir/srv $dir/srv two $dir/store.db" --db "$dir/s"
expect "$dir/srv $dir/srv two $dir/store.db" metrics --output "$dir/s"
expect "$dir/srv $dir/srv two $dir/store.db" metrics -o "$dir/s"
# a DEVICE for repair --offline: block devices (and folders), no files
devs=$(complete_words repair --offline /dev/ | head -n 1)
[[ -z $devs || -b $devs || -d $devs ]] || bad "repair --offline /dev/<TAB> offers $devs"
expect "" repair --offline "$dir/store"

[[ $fail == 0 ]] && echo "ok: mapctl's completion offers exactly the commands and options of its --help texts"
exit $fail
