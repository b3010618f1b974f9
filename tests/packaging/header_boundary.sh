#!/bin/sh
# libmap's boundary as a program sees it: with the include path of mapctl
# (or mapperd), every public header of include/ compiles on its own, and no
# header of libmap/ (its internals, the XFS ABI, the tests' internals) is
# found at all.
#
# Usage: header_boundary.sh CC SOURCE_DIR INCLUDE_DIR...
set -eu
cc=$1
src=$2
shift 2
[ $# -gt 0 ] || { echo "header_boundary.sh: no include folders given" >&2; exit 2; }

flags="-fsyntax-only -Wall -Wextra -Werror -Wstrict-prototypes -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64"
for d in "$@"; do
	flags="$flags -I$d"
done
# Compiled from an empty folder: "..." includes must come from the path.
work=$(mktemp -d)
trap 'rm -r "$work"' EXIT
cd "$work"

fail=0
try() {
	# shellcheck disable=SC2086 # $flags is a list of options
	printf '#include "%s"\n' "$1" | "$cc" $flags -x c - >"$work/out" 2>&1
}
public=0
for h in "$src"/include/*.h; do
	name=$(basename "$h")
	public=$((public + 1))
	if ! try "$name"; then
		echo "FAIL: public $name does not compile on its own:" >&2
		sed 's/^/  /' "$work/out" >&2
		fail=1
	fi
done
for h in $(find "$src/libmap" -name '*.h' | sort); do
	name=$(basename "$h")
	if try "$name"; then
		echo "FAIL: private ${h#"$src"/} is on a program's include path" >&2
		fail=1
	fi
done
[ $fail = 0 ] && echo "ok: $public public headers, none of libmap/ reachable"
exit $fail
