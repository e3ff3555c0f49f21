#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The manifest of checks: tests/expected-checks.txt lists, one a line and
# sorted, the name of every check "make test" runs (setup.*, build.*,
# lint.*, host.*, kunit.*, vm.*). A run's results ("PASS|FAIL|SKIP <name>"
# lines) are held against it:
#
#   manifest.sh check <results> <scope ERE>
#
# For the expected names matching <scope ERE> (e.g. '^vm\.t10-device\.'),
# every one that did not report gets "FAIL <name> (missing)"; a name in
# scope that reported PASS or SKIP but is not in the manifest (a renamed
# or new check) becomes "FAIL <name> (not in tests/expected-checks.txt)";
# a name in scope reported more than once gets "FAIL <name> (reported N
# times)". The results file is rewritten in place; exits 1 if it added or
# changed a line. SOFTHCA_MANIFEST names another manifest file.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
manifest=${SOFTHCA_MANIFEST:-$top/tests/expected-checks.txt}

[ $# -eq 3 ] && [ "$1" = check ] || {
	echo "usage: manifest.sh check <results> <scope ERE>" >&2
	exit 2
}
results=$2 scope=$3
[ -f "$results" ] || : > "$results"
if [ ! -f "$manifest" ]; then
	echo "FAIL manifest.missing ($manifest)" >> "$results"
	exit 1
fi
tmp=$(mktemp)
awk -v scope="$scope" -v mfile="$manifest" -v mname="tests/expected-checks.txt" '
BEGIN {
	while ((getline line < mfile) > 0) {
		sub(/[ \t\r]+$/, "", line)
		if (line == "" || line ~ /^#/ || line !~ scope)
			continue
		expected[line] = 1
	}
}
{
	lines[NR] = $0
	if ($1 ~ /^(PASS|FAIL|SKIP)$/ && $2 ~ scope) {
		seen[$2] = 1
		if (NF == 2)
			count[$2]++
		if ($3 == "(reported")
			dupnoted[$2] = 1
		if ($1 != "FAIL" && NF == 2 && !($2 in expected))
			lines[NR] = "FAIL " $2 " (not in " mname ")"
	}
}
END {
	for (i = 1; i <= NR; i++)
		print lines[i]
	for (n in count)
		if (count[n] > 1 && !(n in dupnoted))
			print "FAIL " n " (reported " count[n] " times)"
	for (n in expected)
		if (!(n in seen))
			print "FAIL " n " (missing)"
}' "$results" > "$tmp"
if cmp -s "$tmp" "$results"; then
	rm -f "$tmp"
	exit 0
fi
# keep the first lines in their order, the additions sorted after them
n=$(wc -l < "$results")
{ head -n "$n" "$tmp"; tail -n +"$((n + 1))" "$tmp" | LC_ALL=C sort; } > "$tmp.2"
cat "$tmp.2" > "$results"
rm -f "$tmp" "$tmp.2"
exit 1
