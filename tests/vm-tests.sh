#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Boot the test VM once and run the VM integration tests (tests/vm/t*.sh,
# or the groups named in $SOFTHCA_VM_TESTS). Results go to
# $SOFTHCA_RESULTS when set; the run's files stay in .cache/vm/tests.
set -uo pipefail
. "$(dirname "$0")/../scripts/config.sh"

out=$SOFTHCA_CACHE/vm/tests
results=${SOFTHCA_RESULTS:-$out.results}
args=()
[ -n "${SOFTHCA_VM_TESTS:-}" ] && args+=(-e "SOFTHCA_VM_TESTS=$SOFTHCA_VM_TESTS")

. "$SOFTHCA_TOP/scripts/progress.sh"
# progress: checks recorded so far, out of the last run's (same groups)
key=progress/vm-tests${SOFTHCA_VM_TESTS:+-$(echo "$SOFTHCA_VM_TESTS" | cksum | cut -d' ' -f1)}
softhca_log "VM tests: booting the test VM and running ${SOFTHCA_VM_TESTS:-every group in tests/vm}"
softhca_heavy_lock	# vm-run.sh's, taken here so that waiting for it is not timed
rm -f "$out/results"	# not the last run's
softhca_progress_start "$key" "VM tests" checks "" "grep -c '^[PF]' '$out/results'"
"$SOFTHCA_TOP/scripts/vm-run.sh" -t 2400 -o "$out" "${args[@]}" \
	"$SOFTHCA_TOP/tests/vm/run-guest.sh"
rc=$?
softhca_progress_stop ok
[ "$results" = "$out.results" ] && : > "$results"
[ -f "$out/results" ] && cat "$out/results" >> "$results"
case $rc in
0 | 1) echo "PASS vm.kernel-log-clean" >> "$results" ;;
126) echo "FAIL vm.kernel-log-clean" >> "$results" ;;
*) echo "FAIL vm.run-exit-$rc" >> "$results" ;;
esac
grep -E '^(PASS|FAIL) vm\.' "$results" | awk '{print $1}' | sort | uniq -c
softhca_log "VM test logs: $out (console.log, dmesg.txt, logs/)"
! grep -q '^FAIL vm\.' "$results"
