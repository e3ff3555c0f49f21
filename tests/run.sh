#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# "make test": install what is missing, build, lint, and run the host unit
# tests, the KUnit suites (in a QEMU-booted KUnit kernel) and the VM
# integration tests. Every check is one line "PASS name" or "FAIL name" in
# build/test-results.txt; the last line printed is "N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/../scripts/config.sh"
cd "$SOFTHCA_TOP" || exit 1

mkdir -p build
export SOFTHCA_RESULTS=$SOFTHCA_TOP/build/test-results.txt
: > "$SOFTHCA_RESULTS"
start=$SECONDS

result() { echo "$1 $2" >> "$SOFTHCA_RESULTS"; }

# stage <name> <command...>: run a stage, note its time; a stage that fails
# without recording any failure of its own records "FAIL <name>".
stage() {
	local name=$1 t0=$SECONDS before rc
	shift
	softhca_log "=== $name"
	before=$(grep -c '^FAIL' "$SOFTHCA_RESULTS")
	"$@"
	rc=$?
	if [ $rc -ne 0 ] && [ "$(grep -c '^FAIL' "$SOFTHCA_RESULTS")" -eq "$before" ]; then
		result FAIL "$name"
	fi
	softhca_log "=== $name: $((SECONDS - t0))s (exit $rc)"
	return $rc
}

summary() {
	local p f
	p=$(grep -c '^PASS' "$SOFTHCA_RESULTS")
	f=$(grep -c '^FAIL' "$SOFTHCA_RESULTS")
	if [ "$f" -gt 0 ]; then
		echo "Failures:"
		grep '^FAIL' "$SOFTHCA_RESULTS" | sed 's/^/  /'
	fi
	softhca_log "total time $((SECONDS - start))s; results in $SOFTHCA_RESULTS"
	echo "$p passed, $f failed"
	[ "$f" -eq 0 ]
}

if ! stage setup.deps scripts/deps.sh || ! stage setup.kernel scripts/fetch-kernel.sh ||
   ! stage setup.linux-source scripts/fetch-linux-source.sh; then
	summary
	exit 1
fi

built=1
if stage build.module scripts/build.sh module; then
	result PASS build.module-w1-clean
else
	built=0
fi
if stage build.userspace scripts/build.sh provider; then
	result PASS build.userspace
else
	built=0
fi

stage lint scripts/lint.sh
[ $built -eq 1 ] && stage host tests/host-tests.sh
stage deb scripts/deb.sh	# the packages tests/vm/t90-packages.sh installs
stage kunit scripts/kunit.sh
if [ $built -eq 1 ]; then
	stage vm tests/vm-tests.sh
else
	result FAIL vm.not-run-build-failed
fi

summary
