#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Runs inside the VM: every test group tests/vm/t*.sh (or those named in
# $SOFTHCA_VM_TESTS), each in its own shell. A group that exits non-zero
# without recording a failure gets one.
cd "$SOFTHCA_TOP" || exit 1
: > "$SOFTHCA_OUT/results"
groups=${SOFTHCA_VM_TESTS:-$(ls tests/vm/t*.sh)}
status=0
for g in $groups; do
	name=$(basename "$g" .sh)
	echo "== $name"
	before=$(grep -c '^FAIL' "$SOFTHCA_OUT/results")
	GROUP=$name timeout 1200 bash "$g"
	rc=$?
	after=$(grep -c '^FAIL' "$SOFTHCA_OUT/results")
	if [ $rc -ne 0 ] && [ "$after" -eq "$before" ]; then
		echo "FAIL vm.$name.group-exit-$rc" >> "$SOFTHCA_OUT/results"
		echo "  FAIL  $name exited $rc"
	fi
	[ "$after" -eq "$before" ] && [ $rc -eq 0 ] || status=1
done
exit $status
