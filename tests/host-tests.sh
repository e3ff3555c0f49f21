#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Run the provider's host unit tests (GoogleTest); one result per case
# (PASS/FAIL/SKIP host.<Suite>.<Case>) in $SOFTHCA_RESULTS when set.
set -uo pipefail
. "$(dirname "$0")/../scripts/config.sh"

bin=$SOFTHCA_TOP/build/userspace/softhca-host-tests
[ -x "$bin" ] || softhca_die "host tests not built (make provider)"
log=$SOFTHCA_TOP/build/host-tests.log
"$bin" --gtest_color=no >"$log" 2>&1
rc=$?
cat "$log"
if [ -n "${SOFTHCA_RESULTS:-}" ]; then
	sed -n 's/^\[       OK \] \([^ ]*\).*/PASS host.\1/p; s/^\[  FAILED  \] \([^ ]*\) (.*/FAIL host.\1/p; s/^\[  SKIPPED \] \([^ ]*\) (.*/SKIP host.\1/p' \
		"$log" >> "$SOFTHCA_RESULTS"
	if [ $rc -ne 0 ] && ! grep -q '^\[  FAILED  \]' "$log"; then
		echo "FAIL host.run-exit-$rc" >> "$SOFTHCA_RESULTS"
	fi
fi
exit $rc
