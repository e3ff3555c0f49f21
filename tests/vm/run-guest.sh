#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Runs inside the VM: every test group tests/vm/t*.sh (or those named in
# $SOFTHCA_VM_TESTS), each in its own shell; $SOFTHCA_VM_TAG ends each
# group's name (-k612 on the 6.12 kernel, see scripts/config.sh). A group that exits non-zero
# without recording a failure gets one. "<group> <exit> <seconds>" per
# group goes to $SOFTHCA_OUT/groups. Exits 0 when no group failed, 1 when
# one did (other statuses belong to vm-guest.sh and vm-run.sh).
cd "$SOFTHCA_TOP" || exit 3
: > "$SOFTHCA_OUT/results"
: > "$SOFTHCA_OUT/groups"
groups=${SOFTHCA_VM_TESTS:-$(ls tests/vm/t*.sh)}
status=0
for g in $groups; do
	name=$(basename "$g" .sh)${SOFTHCA_VM_TAG:-}
	echo "== $name"
	before=$(grep -c '^FAIL' "$SOFTHCA_OUT/results")
	t0=$SECONDS
	GROUP=$name timeout 1200 bash "$g"
	rc=$?
	echo "$name $rc $((SECONDS - t0))" >> "$SOFTHCA_OUT/groups"
	after=$(grep -c '^FAIL' "$SOFTHCA_OUT/results")
	if [ $rc -ne 0 ] && [ "$after" -eq "$before" ]; then
		echo "FAIL ${SOFTHCA_PREFIX:-vm}.$name.group-exit-$rc" >> "$SOFTHCA_OUT/results"
		echo "  FAIL  $name exited $rc"
	fi
	[ "$after" -eq "$before" ] && [ $rc -eq 0 ] || status=1
done
exit $status
