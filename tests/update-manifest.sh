#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Write tests/expected-checks.txt from a green run's results:
#
#   tests/update-manifest.sh [-f] [results]
#
# results defaults to build/test-results.txt (what "make test" wrote); a
# "make vm-test" run leaves .cache/vm/tests.results ("make vm-test-debug":
# .cache/vm/dbgtests.results). A check that reported
# PASS or SKIP but was not listed ("FAIL <name> (not in
# tests/expected-checks.txt)") is taken as the new name it is. Only the
# scopes the results cover are replaced: each of setup, build, lint, host
# and kunit as a whole, each VM group (vm.<group>.*, vmdbg.<group>.* on
# the debug kernel) and the VM runner's own checks (vm.<name>,
# vmdbg.<name>); the names of the other scopes stay as they are.
# A run with another FAIL is refused (its names may be missing or wrong);
# -f takes it anyway, with the names of its failed checks but not those
# the manifest check marked "(missing)". Review the diff (git diff
# tests/expected-checks.txt) and commit it with the checks it adds or
# removes.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
manifest=${SOFTHCA_MANIFEST:-$top/tests/expected-checks.txt}
force=0
if [ "${1:-}" = -f ]; then
	force=1
	shift
fi
results=${1:-$top/build/test-results.txt}
[ -s "$results" ] || { echo "update-manifest: no results in $results" >&2; exit 1; }
# a check the manifest did not list reported PASS or SKIP: take its name
if [ $force -eq 0 ] && grep '^FAIL' "$results" | grep -vq ' (not in tests/expected-checks.txt)$'; then
	echo "update-manifest: $results has failures (-f to take its names anyway):" >&2
	grep '^FAIL' "$results" | head -n 20 >&2
	exit 1
fi
scope_of() {
	awk '{
		n = split($0, p, ".")
		if (p[1] == "vm" || p[1] == "vmdbg")
			print (n >= 3 ? p[1] "." p[2] "." : p[1] "." p[2])
		else
			print p[1] "."
	}'
}
new=$(mktemp)
# names the results report: PASS/SKIP, and with -f plain FAILs
awk -v force=$force '
	($1 == "PASS" || $1 == "SKIP") && NF == 2 { print $2 }
	$1 == "FAIL" && $3 == "(not" && $4 == "in" { print $2 }
	force && $1 == "FAIL" && NF == 2 { print $2 }
' "$results" | LC_ALL=C sort -u > "$new"
scopes=$(scope_of < "$new" | LC_ALL=C sort -u)
touch "$manifest"
{
	# keep the names of scopes the results do not cover
	while read -r name; do
		[ -n "$name" ] || continue
		s=$(printf '%s\n' "$name" | scope_of)
		grep -qxF -- "$s" <<< "$scopes" || printf '%s\n' "$name"
	done < "$manifest"
	cat "$new"
} | LC_ALL=C sort -u > "$manifest.tmp"
mv "$manifest.tmp" "$manifest"
rm -f "$new"
echo "update-manifest: $(wc -l < "$manifest") names in $manifest; scopes replaced: $(echo $scopes)"
