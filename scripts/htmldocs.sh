#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# "make htmldocs": build Documentation/ as HTML into build/htmldocs with
# Debian's Sphinx (python3-sphinx, installed with apt when missing). The
# build starts from an empty build/htmldocs every time and runs with
# -W --keep-going: every warning is reported and any warning fails it.
#
# With SOFTHCA_RESULTS=<file>, appends "PASS docs.html-build-clean" or
# "FAIL docs.html-build-clean" to that file (for "make test").
set -uo pipefail
. "$(dirname "$0")/config.sh"

results=${SOFTHCA_RESULTS:-}
src=$SOFTHCA_TOP/Documentation
out=$SOFTHCA_TOP/build/htmldocs
doctrees=$SOFTHCA_TOP/build/htmldocs.doctrees
log=$SOFTHCA_TOP/build/htmldocs.log
sphinx=/usr/bin/sphinx-build

record() { [ -z "$results" ] || echo "$1 docs.html-build-clean" >> "$results"; }
fail() {
	record FAIL
	softhca_die "$*"
}

# Debian's Sphinx, not one a Python environment earlier in PATH may have.
if ! dpkg-query -W -f='${Status}' python3-sphinx 2>/dev/null |
	grep -q 'install ok installed'; then
	[ "$(id -u)" -eq 0 ] || fail "need root to install python3-sphinx"
	softhca_log "installing: python3-sphinx"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -q --no-install-recommends python3-sphinx ||
		{ apt-get update -q && apt-get install -y -q \
			--no-install-recommends python3-sphinx; } ||
		fail "could not install python3-sphinx"
fi
[ -x "$sphinx" ] || fail "$sphinx is missing (python3-sphinx)"

mkdir -p "$SOFTHCA_TOP/build"
rm -rf "$out" "$doctrees"
softhca_log "htmldocs: $("$sphinx" --version) -> ${out#"$SOFTHCA_TOP"/}"
# -W: warnings are errors; --keep-going: report them all first.
PYTHONDONTWRITEBYTECODE=1 "$sphinx" -b html -W --keep-going -q \
	-d "$doctrees" "$src" "$out" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
if [ "$rc" -ne 0 ] || grep -qE 'WARNING|ERROR|SEVERE' "$log"; then
	fail "htmldocs: Sphinx reported problems (exit $rc); see $log"
fi
[ -f "$out/index.html" ] || fail "htmldocs: no $out/index.html"
record PASS
softhca_log "htmldocs: clean build, open $out/index.html"
