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

# script_check <name> <function>: one host.scripts.<name> result, the
# function's output in the log.
script_check() {
	local r=PASS
	"$2" >>"$log" 2>&1 || { r=FAIL; rc=1; }
	[ -z "${SOFTHCA_RESULTS:-}" ] ||
		echo "$r host.scripts.$1" >> "$SOFTHCA_RESULTS"
	echo "$r host.scripts.$1"
}

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
script_check progress-survives-failing-samples check_progress

# The kernel log's allowances (softhca_drop_allowed_reports, used by
# scripts/vm-run.sh): of a log with t45's allowance, an allowed WARNING
# block (in dmesg and on the console: one report), the same warning from
# another caller, and an allowed one with a KASAN report inside, only the
# first is taken out and counted.
check_allowed_reports() {
	local dir out n
	dir=$(mktemp -d)
	sed -n 's/^echo "\(unregister_irq_proc .*\)\\\$" \\$/\1$/p' \
		"$SOFTHCA_TOP/tests/vm/t45-faults.sh" > "$dir/allow"
	cat "$dir/allow"
	[ "$(wc -l < "$dir/allow")" -eq 1 ] || { rm -rf "$dir"; return 1; }
	warn() {	# <time> <file> <caller> [<report inside>]
		printf '[ %s] %s\n' "$1" '------------[ cut here ]------------' \
			"$1" "name '$2'" \
			"$1" 'WARNING: CPU: 1 PID: 345 at fs/proc/generic.c:734 remove_proc_entry+0x1a3/0x1e0' \
			"$1" 'Modules linked in: softhca(O) ib_uverbs ib_core' \
			"$1" 'RIP: 0010:remove_proc_entry+0x1a3/0x1e0'
		[ -z "${4:-}" ] || printf '[ %s] %s\n' "$1" "$4"
		printf '[ %s] %s\n' "$1" 'Call Trace:' "$1" ' <TASK>' \
			"$1" ' ? __warn+0x7d/0x140' "$1" " $3+0x1e5/0x2a0" \
			"$1" ' free_desc+0x5b/0x120' "$1" ' </TASK>' \
			"$1" 'irq event stamp: 4242' \
			"$1" '---[ end trace 0000000000000000 ]---'
	}
	{
		echo '[    1.000000] Linux version 6.1'
		warn 12.345678 affinity_hint unregister_irq_proc
		warn 13.000000 smp_affinity softhca_remove_irqs
		warn 14.000000 spurious unregister_irq_proc \
			'BUG: KASAN: slab-use-after-free in remove_proc_entry+0x10/0x1e0'
		warn 12.345678 affinity_hint unregister_irq_proc | sed 's/$/\r/'
	} > "$dir/log"
	out=$(softhca_drop_allowed_reports "$dir/allow" "$dir/removed" \
		"$dir/count" < "$dir/log")
	n=$(cat "$dir/count")
	printf '%s\n' "$out"
	echo "allowed: $n"
	rm -rf "$dir"
	[ "$n" = 1 ] &&
		! grep -q "name 'affinity_hint'" <<< "$out" &&
		[ "$(grep -c 'WARNING:' <<< "$out")" -eq 2 ] &&
		grep -q "name 'smp_affinity'" <<< "$out" &&
		grep -q 'BUG: KASAN' <<< "$out" &&
		grep -q 'Linux version' <<< "$out" &&
		grep -Eq "$SOFTHCA_KERNEL_REPORT_RE" <<< "$out"
}
script_check kernel-log-allowance check_allowed_reports

# kmemleak's allowances (scripts/kmemleak-allowed.awk): an object is left
# out only when both the allocating task's name and a function of its
# backtrace match a line; the same task's other allocations, and the same
# backtrace under another name, still count.
check_allowed_leaks() {
	local dir out n
	dir=$(mktemp -d)
	printf '%s\n' 'softhca-ctxfork copy_process  # a comment' \
		'softhca-faultte uverbs_alloc_api' > "$dir/allow"
	leak() {
		printf '%s\n' "unreferenced object 0xffff8881$1 (size 136):" \
			"  comm \"$2\", pid 115, jiffies 4294905483" \
			'  hex dump (first 32 bytes):' \
			'    02 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  ................' \
			'  backtrace:' \
			"    [<00000000fd93c300>] $3+0x20/0x210" \
			'    [<00000000c3cb1c58>] do_syscall_64+0x3c/0x90'
	}
	{
		leak 10000000 softhca-ctxfork copy_process
		leak 20000000 softhca-ctxfork softhca_alloc_ucontext
		leak 30000000 bash copy_process
		leak 40000000 softhca-faultte uverbs_alloc_api
		leak 50000000 softhca-ctxfork copy_process_x
	} > "$dir/kmemleak"
	out=$(awk -v allowf="$dir/allow" -v keptf="$dir/kept" \
		-f "$SOFTHCA_TOP/scripts/kmemleak-allowed.awk" "$dir/kmemleak" \
		2> "$dir/count")
	n=$(cat "$dir/count")
	printf '%s\n' "$out" "$n" "kept:" "$(cat "$dir/kept")"
	[ "$n" = "allowed 2" ] &&
		[ "$(grep -c '^unreferenced object' <<< "$out")" -eq 3 ] &&
		grep -q '0xffff888120000000' <<< "$out" &&
		grep -q '0xffff888130000000' <<< "$out" &&
		grep -q '0xffff888150000000' <<< "$out" &&
		[ "$(grep -c '^unreferenced object' "$dir/kept")" -eq 2 ] &&
		grep -q '0xffff888110000000' "$dir/kept" &&
		grep -q '0xffff888140000000' "$dir/kept" &&
		[ "$(wc -l < "$dir/kept")" -eq 14 ]
	local rc=$?
	rm -rf "$dir"
	return $rc
}
script_check kmemleak-allowance check_allowed_leaks

# make test's summary (tests/summary.awk): a failed kernel-log check whose
# log is a kernel-report.txt shows the report's lines under it, and no
# other failed check does; the table counts each group.
check_summary() {
	local dir out
	dir=$(mktemp -d)
	printf '%s\n' '[   12.345678] BUG: KASAN: slab-use-after-free in softhca_cq_poll+0x10/0x80' \
		'[   12.345679] Read of size 8 at addr ffff888004a1c008 by task ibv_rc_pingpong/345' \
		> "$dir/kernel-report.txt"
	printf '%s\n' 'the case said so' > "$dir/case.log"
	printf '%s\n' 'PASS setup.deps' 'FAIL vm.kernel-log-clean-d13' \
		'PASS vm.t30-datapath.a' 'FAIL vm.t30-datapath.b' > "$dir/results"
	printf '%s\n' "vm.kernel-log-clean-d13 $dir/kernel-report.txt" \
		"vm.t30-datapath.b $dir/case.log" > "$dir/logs"
	printf '%s\n' 'setup 7' 'vm 300' 'vm.t30-datapath 95' > "$dir/times"
	out=$(awk -v logs="$dir/logs" -v times="$dir/times" \
		-f "$SOFTHCA_TOP/tests/summary.awk" "$dir/results")
	rm -rf "$dir"
	printf '%s\n' "$out"
	grep -Eq '^vm\.t30-datapath +1 +1 +0 +95s$' <<< "$out" &&
		grep -Eq '^total +2 +2 +0$' <<< "$out" &&
		grep -A 3 -x '  vm.kernel-log-clean-d13' <<< "$out" |
		grep -q '^        \[   12.345678\] BUG: KASAN: slab-use-after-free' &&
		grep -A 3 -x '  vm.kernel-log-clean-d13' <<< "$out" |
		grep -q '^        \[   12.345679\] Read of size 8' &&
		! grep -q 'the case said so' <<< "$out" &&
		grep -A 1 -x '  vm.t30-datapath.b' <<< "$out" | grep -q 'log: .*/case.log$'
}
script_check summary-report-excerpt check_summary
exit $rc
