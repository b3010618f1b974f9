#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Grafana dashboard parses, every panel query and template query uses
# only metric families that 'mapctl metrics' prints (read from the output of
# unit.test_metrics on its fixture store) and PromQL's own functions and
# keywords, every family we export is shown somewhere, and every panel query
# is valid PromQL (promtool check rules).
#   grafana.sh DASHBOARD.json METRICS.prom
set -euo pipefail
dash=$1 prom=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null || fail "jq not found (scripts/packages lists it)"
jq -e 'type == "object" and (.panels | length) > 0' "$dash" >/dev/null || fail "$dash: not a dashboard"
[[ -s $prom ]] || fail "$prom: no metrics (did unit.test_metrics run?)"

# The families the fixture store's output declares.
families=$(sed -n 's/^# TYPE \([a-zA-Z_:][a-zA-Z0-9_:]*\) .*/\1/p' "$prom" | sort -u)
[[ $(wc -l <<< "$families") -ge 5 ]] || fail "$prom: too few families"

# Each query, then the names it uses: strings, label matchers, ranges,
# grouping label lists, Grafana variables and numbers (with units: 1h) are
# cut out; what is left is functions, keywords and metric names.
queries=$(jq -r '
	[(.. | objects | select(has("targets")) | .targets[] | .expr // empty),
	 (.templating.list[]? | select(.type == "query") |
	  (.query | if type == "object" then .query else . end), .definition)]
	| .[] | select(type == "string" and length > 0) | gsub("\n"; " ")' "$dash")
[[ $(wc -l <<< "$queries") -ge 10 ]] || fail "$dash: fewer than 10 queries"
names=$(jq -Rr '
	gsub("\"(\\\\.|[^\"\\\\])*\""; "")
	| gsub("\\{[^}]*\\}"; "") | gsub("\\[[^\\]]*\\]"; "")
	| gsub("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)"; "")
	| gsub("label_values\\s*\\((?<m>[^,()]*),[^)]*\\)"; "\(.m)")
	| gsub("\\$\\{?[A-Za-z_][A-Za-z0-9_]*\\}?"; "")
	| gsub("\\b[0-9][0-9A-Za-z.+-]*"; "")
	| [scan("[A-Za-z_:][A-Za-z0-9_:]*")] | .[]' <<< "$queries" | sort -u)

# PromQL's functions, aggregations and keywords this dashboard may use.
promql="abs absent and avg bool ceil changes clamp_min count delta deriv floor group
	histogram_quantile idelta increase irate label_values max min offset or rate
	resets round scalar sort sort_desc sum time timestamp topk bottomk unless vector"
bad=0
for n in $names; do
	grep -qxF -- "$n" <<< "$families" && continue
	grep -qw -- "$n" <<< "$promql" && continue
	echo "FAIL: the dashboard uses '$n', which mapctl metrics does not export" >&2
	bad=1
done
for f in $families; do
	grep -qxF -- "$f" <<< "$names" || { echo "FAIL: no panel shows $f" >&2; bad=1; }
done

# Panel ids are unique; each query panel has a data source and each target a refId.
jq -e '[.. | objects | select(has("gridPos")) | .id] | length == (unique | length)' "$dash" \
	>/dev/null || { echo "FAIL: panel ids are not unique" >&2; bad=1; }
jq -e '[.. | objects | select(has("targets"))] | all(has("datasource") and
	(.targets | all(has("refId") and (.expr | type == "string"))))' "$dash" >/dev/null ||
	{ echo "FAIL: a panel without datasource, or a target without refId or expr" >&2; bad=1; }
# Each panel query parses as PromQL: promtool checks them as recording rules
# (JSON is YAML), Grafana's variables replaced by values of their kind.
rules=$(mktemp "${TMPDIR:-/tmp}/mapper-dashboard-rules.XXXXXX")
trap 'rm -f "$rules"' EXIT
jq '{groups: [{name: "dashboard", rules: [.. | objects | select(has("targets")) | .targets[] | .expr]
	| to_entries | map({record: "dashboard:query_\(.key)",
	  expr: (.value | gsub("\\$__rate_interval"; "5m") | gsub("\\$\\{?instance\\}?"; ".*"))})}]}' \
	"$dash" > "$rules"
if ! out=$("$(dirname "$0")/../unit/promtool.sh" check rules "$rules" 2>&1); then
	echo "$out" >&2
	echo "FAIL: a panel query is not valid PromQL (above)" >&2
	bad=1
fi
[[ $bad == 0 ]] && echo "ok: $(wc -l <<< "$queries") queries use only the $(wc -l <<< "$families") exported families, and show them all"
exit $bad
