#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# "make test": install what is missing, build, lint, and run the host unit
# tests, the KUnit suites (in a QEMU-booted KUnit kernel) and the VM
# integration tests. Every check is one line "PASS name", "FAIL name" or
# "SKIP name" in build/test-results.txt, and every check named in
# tests/expected-checks.txt that did not report is a failure
# ("FAIL name (missing)"). It ends with a table of the groups (checks
# passed, failed and skipped, time), the failed checks with their logs,
# and as its last line "N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/../scripts/config.sh"
cd "$SOFTHCA_TOP" || exit 1
# the whole suite, whatever the environment selected for "make vm-test"
unset SOFTHCA_VM_TESTS SOFTHCA_VM_KERNEL

mkdir -p build/logs
export SOFTHCA_RESULTS=$SOFTHCA_TOP/build/test-results.txt
times=$SOFTHCA_TOP/build/test-times.txt
logs=$SOFTHCA_TOP/build/test-logs.txt
: > "$SOFTHCA_RESULTS"
: > "$times"
: > "$logs"
start=$SECONDS

result() { echo "$1 $2" >> "$SOFTHCA_RESULTS"; }

# stage <name> <command...>: run a stage, its output also in
# build/logs/<name>.log, note its time; a stage that fails without
# recording any failure of its own records "FAIL <name>".
stage() {
	local name=$1 t0=$SECONDS before rc log=build/logs/$1.log
	shift
	softhca_log "=== $name"
	before=$(grep -c '^FAIL' "$SOFTHCA_RESULTS")
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	if [ $rc -ne 0 ] && [ "$(grep -c '^FAIL' "$SOFTHCA_RESULTS")" -eq "$before" ]; then
		result FAIL "$name"
		echo "$name $SOFTHCA_TOP/$log" >> "$logs"
	fi
	echo "${name%%.*} $((SECONDS - t0))" >> "$times"
	softhca_log "=== $name: $((SECONDS - t0))s (exit $rc)"
	return $rc
}

# Background stages. On two CPUs the VM stages leave about a third of the
# machine idle (the guests wait on timers, on each other, on QEMU's I/O),
# and the debug kernel's build (about 1800 CPU seconds) needs nothing the
# VM stages make; so it runs beside them at nice 19, in the CPU time they
# leave, and is raised to the foreground's priority once the foreground
# needs it (bg_wait). Not SCHED_IDLE: on this kernel's scheduler a
# SCHED_IDLE task still took a quarter of a CPU from a nice-0 one sharing
# it, a nice 19 one under 2 %. And never a session of its own: with
# sched_autogroup a new session is a group of its own and nice values only
# count within a group.
#
# bg_start <name> <command...>: run "stage <name> <command...>" in the
# background, in a process group of its own (set -m), at nice 19, its
# output only in build/logs/<name>.log and its results in a file of its
# own until bg_wait adds them; it takes no heavy lock (this run is the
# machine's one user, and its foreground holds the lock for its VMs).
declare -A bg_pid
bg_start() {
	local name=$1
	shift
	set -m
	(
		renice -n 19 -p $BASHPID >/dev/null
		export SOFTHCA_RESULTS=$SOFTHCA_TOP/build/bg-$name.results
		export SOFTHCA_HEAVY_LOCKED=1
		: > "$SOFTHCA_RESULTS"
		stage "$name" "$@" >/dev/null 2>&1
	) &
	bg_pid[$name]=$!
	set +m
	softhca_log "=== $name: started in the background (nice 19; log build/logs/$name.log)"
}
# bg_wait <name>: raise the stage to the foreground's priority (every
# process of its group: what they start inherits it), wait for it, add its
# results; its status is returned.
bg_wait() {
	local name=$1 pid=${bg_pid[$1]} rc t0=$SECONDS
	renice -n 0 -g "$pid" >/dev/null 2>&1 ||
		softhca_log "$name: could not raise its priority (not root?)"
	softhca_log "=== $name: waiting for it (now at nice 0)"
	wait "$pid"
	rc=$?
	cat "$SOFTHCA_TOP/build/bg-$name.results" >> "$SOFTHCA_RESULTS"
	rm -f "$SOFTHCA_TOP/build/bg-$name.results"
	softhca_log "=== $name: ended (exit $rc) $((SECONDS - t0)) s after the foreground came for it; its log:"
	cat "$SOFTHCA_TOP/build/logs/$name.log"
	unset "bg_pid[$name]"
	return $rc
}
# make test interrupted or ended early: no background stage outlives it
bg_kill() {
	local n
	for n in "${!bg_pid[@]}"; do
		kill -TERM -- "-${bg_pid[$n]}" 2>/dev/null
	done
}
trap bg_kill EXIT

# The groups' table, the failed checks with their logs, the last line.
summary() {
	local p f
	# the manifest: every expected check reported, and only those
	tests/manifest.sh check "$SOFTHCA_RESULTS" '.'
	# the logs of checks: the VM's own, then the stages'
	cat "$SOFTHCA_CACHE"/vm/{tests,tests-k612,tests-d13,dbgtests}.logs >> "$logs" 2>/dev/null
	{
		echo "lint.checkpatch $SOFTHCA_TOP/build/lint/checkpatch.log"
		echo "lint.sparse $SOFTHCA_TOP/build/lint/sparse.log"
		echo "lint.clang-format $SOFTHCA_TOP/build/lint/clang-format.log"
		echo "lint.clang-tidy $SOFTHCA_TOP/build/lint/clang-tidy.log"
		echo "build.module-w1-clean $SOFTHCA_TOP/build/module.log"
		echo "build.module-debug-w1-clean $SOFTHCA_TOP/build/module-debug.log"
		echo "debug-kernel $SOFTHCA_TOP/build/logs/debug-kernel.log"
		echo "build.module-k612-w1-clean $SOFTHCA_TOP/build/module-k612.log"
		echo "build.module-d13-w1-clean $SOFTHCA_TOP/build/module-d13.log"
		echo "build.provider-d13 $SOFTHCA_TOP/build/userspace-d13.log"
		echo "build.debian13-root $SOFTHCA_D13_ROOT/../mmdebstrap.log"
		echo "deb-d13.build $SOFTHCA_TOP/build/deb-d13/build.log"
		echo "deb-d13 $SOFTHCA_TOP/build/deb-d13/lintian.log"
		echo "host $SOFTHCA_TOP/build/host-tests.log"
		echo "docs $SOFTHCA_TOP/build/htmldocs.log"
		echo "kunit $SOFTHCA_DBG_DIR/kunit/console.log"
		for s in setup.deps setup.kernel setup.linux-source build.userspace; do
			echo "$s $SOFTHCA_TOP/build/logs/$s.log"
		done
		echo "vm $SOFTHCA_CACHE/vm/tests/console.log"
		echo "vmdbg $SOFTHCA_CACHE/vm/dbgtests/console.log"
		echo "vm-k612 $SOFTHCA_CACHE/vm/tests-k612/console.log"
		echo "vm-d13 $SOFTHCA_CACHE/vm/tests-d13/console.log"
	} >> "$logs"
	for t in tests tests-k612 tests-d13; do
		[ -f "$SOFTHCA_CACHE/vm/$t/groups" ] &&
			awk '{print "vm." $1, $3}' "$SOFTHCA_CACHE/vm/$t/groups" >> "$times"
	done
	[ -f "$SOFTHCA_CACHE/vm/dbgtests/groups" ] &&
		awk '{print "vmdbg." $1, $3}' "$SOFTHCA_CACHE/vm/dbgtests/groups" >> "$times"
	echo
	awk -v logs="$logs" -v times="$times" -f "$SOFTHCA_TOP/tests/summary.awk" \
		"$SOFTHCA_RESULTS"
	p=$(grep -c '^PASS' "$SOFTHCA_RESULTS")
	f=$(grep -c '^FAIL' "$SOFTHCA_RESULTS")
	softhca_log "total time $((SECONDS - start))s; results in $SOFTHCA_RESULTS"
	echo "$p passed, $f failed"
	[ "$f" -eq 0 ]
}

setup_ok=1
for s in "setup.deps scripts/deps.sh" "setup.kernel scripts/fetch-kernel.sh" \
	 "setup.linux-source scripts/fetch-linux-source.sh"; do
	set -- $s
	if stage "$@"; then
		result PASS "$1"
	else
		setup_ok=0
		break
	fi
done
if [ $setup_ok -eq 0 ]; then
	summary
	exit 1
fi

# The debug kernel and softhca.ko for it (scripts/build.sh module-debug
# builds the kernel first), in the background from here on: KUnit and the
# debug VM groups wait for it at the end (bg_wait).
bg_start debug-kernel scripts/build.sh module-debug

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

stage deb scripts/deb.sh	# the packages tests/vm/t90-packages.sh installs
# and the ccache t90's DKMS build in the guest takes its objects from
[ -f build/deb/softhca-dkms_*_all.deb ] && stage dkms-ccache scripts/dkms-ccache.sh
rm -f "$SOFTHCA_CACHE"/vm/{tests,tests-k612,tests-d13,dbgtests}/groups "$SOFTHCA_CACHE"/vm/{tests,tests-k612,tests-d13,dbgtests}.logs
if [ $built -eq 1 ]; then
	stage vm tests/vm-tests.sh
else
	result FAIL vm.not-run-build-failed
fi

# Debian 12's 6.12 kernel, the series Debian 13 ships (SOFTHCA_KSERIES,
# scripts/config.sh): its image and headers are fetched, the module builds
# W=1- and sparse-clean for it in build/kernel-<kver>, and the device tests
# (the groups whose "# vm-kernels:" line names k612: t10) run on it.
if stage build.module-k612 env SOFTHCA_KSERIES=6.12 scripts/build.sh module; then
	result PASS build.module-k612-w1-clean
	[ $built -eq 1 ] && stage vm-k612 env SOFTHCA_KSERIES=6.12 tests/vm-tests.sh
else
	result FAIL vm.not-run-k612-build-failed
fi

# The Debian 13 guest (SOFTHCA_KSERIES=d13, scripts/config.sh): its root
# file system (mmdebstrap, kept in .cache/debian13), the module built in
# it for Debian 13's kernel (W=1- and sparse-clean), the provider and the
# test programs built there against rdma-core 56, then the VM groups whose
# "# vm-kernels:" line names debian13, booted with that kernel and root.
d13=$built
if [ $d13 -eq 1 ] && stage build.debian13-root scripts/debian13-root.sh; then
	result PASS build.debian13-root
else
	d13=0
fi
if [ $d13 -eq 1 ] && stage build.module-d13 env SOFTHCA_KSERIES=d13 scripts/build.sh module; then
	result PASS build.module-d13-w1-clean
else
	d13=0
fi
if [ $d13 -eq 1 ] && stage build.provider-d13 scripts/build.sh provider-d13; then
	result PASS build.provider-d13
else
	d13=0
fi
# First the Debian packages for Debian 13, built and checked with lintian
# there, which t90 installs in the Debian 13 guest, and the ccache its DKMS
# build takes its objects from, filled in the root with Debian 13's compiler.
if [ $d13 -eq 1 ]; then
	stage deb-d13 env SOFTHCA_KSERIES=d13 scripts/deb.sh
	[ -f build/deb-d13/softhca-dkms_*_all.deb ] &&
		stage dkms-ccache-d13 env SOFTHCA_KSERIES=d13 scripts/dkms-ccache.sh
	stage vm-d13 env SOFTHCA_KSERIES=d13 tests/vm-tests.sh
else
	result FAIL vm.not-run-debian13-build-failed
fi

# The debug kernel: KUnit in it, then the VM groups whose "# vm-kernels:"
# line names it, with softhca.ko built for it. The static checks, the
# documentation and the host unit tests need nothing of the VMs': they
# take what the debug VM leaves of the CPUs, in the background.
dbg=0
bg_wait debug-kernel && dbg=1
stage kunit scripts/kunit.sh	# reuses the debug kernel (builds it if it failed)
bg_start lint scripts/lint.sh
bg_start docs scripts/htmldocs.sh
[ $built -eq 1 ] && bg_start host tests/host-tests.sh
if [ $built -eq 1 ] && [ $dbg -eq 1 ]; then
	result PASS build.module-debug-w1-clean
	# an hour at most: on a day when the host ran at half its usual speed
	# the debug boot took more than the 2400 s every other VM gets
	stage vmdbg env SOFTHCA_VM_KERNEL=debug SOFTHCA_VM_TIMEOUT=3600 tests/vm-tests.sh
else
	result FAIL vmdbg.not-run-build-failed
fi
for b in lint docs host; do
	[ -n "${bg_pid[$b]:-}" ] && bg_wait $b
done

summary
