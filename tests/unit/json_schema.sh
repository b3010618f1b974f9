#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Hold one JSON output of mapctl to its schema in mapper-json(7): the
# members the page lists for COMMAND (its ".SS COMMAND" section, with the
# shared "... object" sections it names expanded) against the members the
# output has (jq paths, array indexes written "[]").
#
# Fails when the output has a member the page does not list, when a value's
# JSON type is not the listed one (null only where the page says "or null"),
# when output_version is not {"command":COMMAND,"major":1,...}, and with
# --strict also when a listed member is missing (for fixtures made to have
# every member).
#
# Usage: json_schema.sh [--strict] MANPAGE COMMAND FILE.json
set -eu

strict=0
if [ "${1:-}" = --strict ]; then strict=1; shift; fi
[ $# -eq 3 ] || { echo "usage: $0 [--strict] MANPAGE COMMAND FILE" >&2; exit 2; }
man=$1 command=$2 json=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -n "${JSON_SCHEMA_DEBUG:-}" ] && trap 'cp "$tmp"/* "$JSON_SCHEMA_DEBUG"/; rm -rf "$tmp"' EXIT

# The page's members of COMMAND: "path<TAB>type" per line.
awk -v want="$command" '
function title(s) {
	sub(/^\.S[SH] +/, "", s); gsub(/"/, "", s); gsub(/\\-/, "-", s)
	return s
}
function expand(sec, prefix, depth,    i, f, p, t, name, full) {
	if (depth > 8)
		return
	for (i = 1; i <= n[sec]; i++) {
		split(field[sec, i], f, "\t")
		full = prefix f[1]
		print full "\t" f[2]
		t = f[2]
		sub(/ or null$/, "", t)
		if (t ~ /^array of .+ objects$/) {
			name = t; sub(/^array of /, "", name); sub(/ objects$/, " object", name)
			if (name in n)
				expand(name, full "[].", depth + 1)
		} else if (t ~ /. object$/) {
			if (t in n)
				expand(t, full ".", depth + 1)
		}
	}
}
/^\.S[SH] / { sec = title($0); if (!(sec in n)) n[sec] = 0; tp = 0; next }
/^\.TP/ { tp = 1; next }
tp && /^\.BR / {
	line = $0
	path = $2
	type = line; sub(/^[^(]*\(/, "", type); sub(/\)[^)]*$/, "", type)
	field[sec, ++n[sec]] = path "\t" type
}
{ tp = 0 }
END {
	if (!(want in n) || n[want] == 0) {
		print "mapper-json(7) has no section \"" want "\"" > "/dev/stderr"
		exit 1
	}
	expand(want, "", 0)
}' "$man" > "$tmp/doc"

# What may appear: every member and what leads to it ("a", "a[]", "a[].b").
awk -F '\t' '
{
	p = $1; t = $2; out = ""
	while (match(p, /^[^.[]+|^\[\]|^\./)) {
		tok = substr(p, 1, RLENGTH); p = substr(p, RLENGTH + 1)
		if (tok == ".") { out = out tok; continue }
		out = out tok
		if (p == "" ) break
		if (!(out in seen)) { seen[out] = 1; print out "\tobject or array" }
	}
	print $1 "\t" t
	if (t ~ /^array of/) print $1 "[]\tany"
}' "$tmp/doc" | sort -t "$(printf '\t')" -k1,1 -u > "$tmp/allowed"

# The output's members with their JSON types.
jq -r 'paths as $p
	| [($p | reduce .[] as $k (""; if ($k | type) == "number" then . + "[]"
					elif . == "" then $k else . + "." + $k end)),
	   (getpath($p) | if type == "number" and . != floor then "float" else type end)]
	| @tsv' "$json" | sort -u > "$tmp/have"

fail=0
cmd=$(jq -r '.output_version.command' "$json")
major=$(jq -r '.output_version.major' "$json")
first=$(jq -r 'keys_unsorted[0]' "$json")
if [ "$cmd" != "$command" ] || [ "$major" != 1 ] || [ "$first" != output_version ]; then
	echo "$command: output_version is $(jq -c .output_version "$json") (first member $first)"
	fail=1
fi

# Each member of the output: listed, and of the listed type.
while IFS="$(printf '\t')" read -r path type; do
	doc=$(awk -F '\t' -v p="$path" '$1 == p { print $2; exit }' "$tmp/allowed")
	if [ -z "$doc" ]; then
		echo "$command: $path is not in mapper-json(7)"
		fail=1
		continue
	fi
	case "$type:$doc" in
	null:*"or null"*|*:any|object:"object or array"|array:"object or array") ;;
	string:string*|boolean:boolean*|object:*object*|array:array*) ;;
	number:integer*|number:number*|float:number*) ;;
	*)	echo "$command: $path is $type, mapper-json(7) says $doc"; fail=1 ;;
	esac
done < "$tmp/have"

if [ $strict = 1 ]; then
	cut -f1 "$tmp/have" | sort -u > "$tmp/have.paths"
	cut -f1 "$tmp/doc" | sort -u > "$tmp/doc.paths"
	for p in $(comm -23 "$tmp/doc.paths" "$tmp/have.paths"); do
		echo "$command: $p is in mapper-json(7) but not in the output"
		fail=1
	done
fi
exit $fail
