#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Boot the test VM once and run the VM integration tests: the groups
# tests/vm/t*.sh whose "# vm-kernels:" line names the kernel booted, or
# those named in $SOFTHCA_VM_TESTS. The kernel is Debian's, or with
# SOFTHCA_VM_KERNEL=debug the debug kernel (scripts/debug-kernel.sh;
# softhca.ko built for it by "scripts/build.sh module-debug"); its checks
# are named vmdbg.* instead of vm.*. Results go to .cache/vm/tests.results
# (.cache/vm/dbgtests.results), and are appended to $SOFTHCA_RESULTS when
# set; the run's files stay in .cache/vm/tests (.cache/vm/dbgtests).
# SOFTHCA_KSERIES=6.12 boots Debian 12's 6.12 kernel with the module built
# for it: its files go to .cache/vm/tests-k612(.results), and every name
# below and every group's ends in -k612 (vm.kernel-log-clean-k612,
# vm.t10-device-k612.*); it runs the groups whose "# vm-kernels:" line
# names k612. SOFTHCA_KSERIES=d13 boots the Debian 13 guest (its kernel
# and root, scripts/debian13-root.sh) and runs the groups whose
# "# vm-kernels:" line names debian13; its names end in -d13.
#
# Besides the groups' own checks (vm. here is vmdbg. on the debug kernel):
#   vm.kernel-log-clean      the guest kernel log was read and has no report
#   vmdbg.kmemleak-clean     kmemleak's scan at the end found no leak but
#                            those of the kernel's own a group allowed
#                            (scripts/vm-run.sh; the debug kernel has
#                            kmemleak, Debian's has not)
#   vm.timeout               the VM did not end in time
#   vm.guest-no-status       the guest script's status was never recorded
#   vm.guest-exit-<N>        the guest ended with a status of its own (not
#                            0 or 1: vm-guest.sh's 203 insmod, 204 modprobe..)
#   vm.guest-exit-1-without-failure   the guest said "failed", no check did
#   vm.run-failed-exit-<N>   vm-run.sh failed before the VM ran
#   vm.<group>.group-not-found        a selected group does not exist
# and every check of the selected groups that tests/expected-checks.txt
# lists and that did not report is "FAIL <name> (missing)" (see
# tests/manifest.sh). Exits non-zero on any failure.
set -uo pipefail
. "$(dirname "$0")/../scripts/config.sh"

kernel=${SOFTHCA_VM_KERNEL:-debian}
kname=$kernel
case $SOFTHCA_KSERIES in
d13) kname=debian13 ;;
6.12) kname=k612 ;;
esac
tag=$SOFTHCA_VM_TAG
case $kernel in
debian) prefix=vm out=$SOFTHCA_CACHE/vm/tests$tag ;;
debug) prefix=vmdbg out=$SOFTHCA_CACHE/vm/dbgtests ;;
*) softhca_die "SOFTHCA_VM_KERNEL must be debian or debug" ;;
esac
export SOFTHCA_VM_KERNEL=$kernel
res=$out.results
mkdir -p "$SOFTHCA_CACHE/vm"
: > "$res"
: > "$out.logs"
rm -f "$out/verdict" "$out/results" "$out/groups" "$out/logs.map"
fail() { echo "FAIL $1" >> "$res"; }

# The groups: every tests/vm/t*.sh, or those named.
if [ -n "${SOFTHCA_VM_TESTS:-}" ]; then
	sel=()
	for g in $SOFTHCA_VM_TESTS; do
		if [ -f "$g" ] || [ -f "$SOFTHCA_TOP/$g" ]; then
			sel+=("$g")
		else
			fail "$prefix.$(basename "$g" .sh)$tag.group-not-found"
		fi
	done
	softhca_log "VM tests: only ${sel[*]:-(none)} (SOFTHCA_VM_TESTS)"
else
	# every group whose "# vm-kernels: debian debug" line names this
	# kernel (debian13: the Debian 13 guest; k612: Debian 12's 6.12
	# kernel); a group without one runs
	# on Debian 12's only, one with "none" only when named in
	# SOFTHCA_VM_TESTS
	sel=()
	for g in "$SOFTHCA_TOP"/tests/vm/t*.sh; do
		k=$(sed -n 's/^# vm-kernels://p' "$g" | head -n 1)
		[[ " ${k:-debian} " == *" $kname "* ]] &&
			sel+=("tests/vm/$(basename "$g")")
	done
fi
names=()
for g in "${sel[@]}"; do names+=("$(basename "$g" .sh)$tag"); done

rc=none
if [ ${#sel[@]} -gt 0 ]; then
	. "$SOFTHCA_TOP/scripts/progress.sh"
	# progress: checks recorded so far, out of the last run's (same groups)
	key=progress/$prefix-tests$tag${SOFTHCA_VM_TESTS:+-$(echo "$SOFTHCA_VM_TESTS" | cksum | cut -d' ' -f1)}
	softhca_heavy_lock	# vm-run.sh's, taken here: waiting is not timed
	softhca_progress_start "$key" "VM tests ($kname kernel)" checks "" \
		"grep -c '^[PF]' '$out/results'"
	"$SOFTHCA_TOP/scripts/vm-run.sh" -t "${SOFTHCA_VM_TIMEOUT:-2400}" -o "$out" \
		-e "SOFTHCA_VM_TESTS=${sel[*]}" -e "SOFTHCA_PREFIX=$prefix" \
		-e "SOFTHCA_VM_TAG=$tag" \
		-e "SOFTHCA_VM_DEBUG_ALL=${SOFTHCA_VM_DEBUG_ALL:-}" \
		"$SOFTHCA_TOP/tests/vm/run-guest.sh"
	rc=$?
	softhca_progress_stop ok
fi
[ -f "$out/results" ] && cat "$out/results" >> "$res"
# the case logs, as paths on this side
[ -f "$out/logs.map" ] &&
	sed "s|/run/softhca-out/|$out/|" "$out/logs.map" > "$out.logs"

# The VM's verdict (scripts/vm-run.sh): what the guest, the kernel log and
# the clock said, each on its own.
v() { sed -n "s/^$1 //p" "$out/verdict" 2>/dev/null; }
if [ "$rc" = none ]; then
	:
elif [ ! -f "$out/verdict" ]; then
	fail "$prefix.run-failed-exit-$rc$tag"
else
	st=$(v guest-status)
	[ "$(v timeout)" = yes ] && fail "$prefix.timeout$tag"
	case $st in
	none) fail "$prefix.guest-no-status$tag" ;;
	0) ;;
	1) grep -q '^FAIL' "$out/results" 2>/dev/null ||
		fail "$prefix.guest-exit-1-without-failure$tag" ;;
	*) fail "$prefix.guest-exit-$st$tag" ;;
	esac
	if [ "$(v kernel-log)" = clean ]; then
		echo "PASS $prefix.kernel-log-clean$tag" >> "$res"
	else
		fail "$prefix.kernel-log-clean$tag"
		if [ -s "$out/kernel-report.txt" ]; then
			echo "$prefix.kernel-log-clean$tag $out/kernel-report.txt" >> "$out.logs"
		else
			echo "$prefix.kernel-log-clean$tag $out/dmesg.txt" >> "$out.logs"
		fi
	fi
	case $(v kmemleak) in
	clean) echo "PASS $prefix.kmemleak-clean" >> "$res" ;;
	leaks)
		fail $prefix.kmemleak-clean
		echo "$prefix.kmemleak-clean $out/leaks.txt" >> "$out.logs"
		;;
	esac
fi

# Every expected check of the selected groups reported, and only those.
scope="^$prefix\\.kernel-log-clean${tag}\$|^$prefix\\.kmemleak-clean\$"
for n in "${names[@]}"; do scope+="|^$prefix\\.${n//./\\.}\\."; done
"$SOFTHCA_TOP/tests/manifest.sh" check "$res" "$scope"

[ -n "${SOFTHCA_RESULTS:-}" ] && [ "$SOFTHCA_RESULTS" != "$res" ] &&
	cat "$res" >> "$SOFTHCA_RESULTS"
awk '{print $1}' "$res" | sort | uniq -c
softhca_log "VM test logs: $out (console.log, dmesg.txt, logs/); results $res"
! grep -q '^FAIL' "$res"
