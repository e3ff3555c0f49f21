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

# The progress line's monitor (scripts/progress.sh) under a caller's
# "set -euo pipefail": a sample that fails (a find racing a build) must
# not end the monitor, nor the step that started it.
check_progress() {
	local out dir
	dir=$(mktemp -d)
	# the step waits until the monitor has sampled twice (each sample
	# fails), at most 60 s, then checks that the monitor still runs
	out=$(SOFTHCA_CACHE=$dir SOFTHCA_PROGRESS_EVERY=1 bash -c '
		set -euo pipefail
		. "$1"
		softhca_progress_start t/x "sampling" things 10 "false | cat" 2>"$2/err"
		for ((i = 0; i < 600; i++)); do
			[ "$(grep -c "sampling: 0/10 things" "$2/err")" -ge 2 ] && break
			sleep 0.1
		done
		cat "$2/err"
		kill -0 "$softhca_progress_pid"
		softhca_progress_stop ok 3
		echo "step ended well"' check "$SOFTHCA_TOP/scripts/progress.sh" "$dir" 2>&1)
	rm -rf "$dir"
	printf '%s\n' "$out"
	[ "$(printf '%s\n' "$out" | grep -c '^\[softhca\] sampling: 0/10 things')" -ge 2 ] &&
		printf '%s\n' "$out" | grep -qx 'step ended well'
}
if check_progress >>"$log" 2>&1; then
	r=PASS
else
	r=FAIL
	rc=1
fi
[ -z "${SOFTHCA_RESULTS:-}" ] ||
	echo "$r host.scripts.progress-survives-failing-samples" >> "$SOFTHCA_RESULTS"
echo "$r host.scripts.progress-survives-failing-samples"
exit $rc
