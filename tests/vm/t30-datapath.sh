#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-kernels: debian debian13 debug
# QPs and the data path: the C++ verbs checks, ibv_rc_pingpong and
# ibv_uc_pingpong in their modes, perftest, syscall-free posting while the
# engine is busy, and a clean teardown. Server and client run in this VM
# over 127.0.0.1, on softhca0's RoCEv2 GID.
. "$SOFTHCA_TOP/tests/vm/lib.sh"

# veth peer in its own namespace: a reachable neighbour that is not us
ip netns add peer30
ip link add veth30 type veth peer name veth31 netns peer30
ip link set veth30 up
ip -n peer30 link set veth31 up
ip addr add 10.3.0.1/24 dev veth30
ip -n peer30 addr add 10.3.0.2/24 dev veth31
check link-add rdma link add softhca0 type softhca netdev veth30
# what the card holds from the start: the MAD layer's GSI QP, its CQ and
# its PD's DMA MR
D=/sys/kernel/debug/softhca/softhca0
for t in qps cqs mrs; do debugfs_baseline $D/$t; done
gid=$(ibv_devinfo -v -d softhca0 | sed -n 's/.*GID\[ *\([0-9]*\)\].*::ffff:10.3.0.1, RoCE v2.*/\1/p')
check rocev2-gid-found test -n "$gid"

check_tool env SOFTHCA_ABSENT_GID=::ffff:10.3.0.2 timeout 900 \
	"$BIN/softhca-verbstest" softhca0 "$gid"

# A server is ready when its TCP port (18515, the default of the pingpong
# and perftest tools) listens; the client starts then, never after a
# fixed time.
PORT=18515

# pingpong <case> <tool> <args...>: server and client both succeed, report
# their iterations and, validating the received buffers (-c), find no
# invalid data.
pingpong() {
	local name=$1 tool=$2 slog=$LOGS/$GROUP.$1.server.log
	local clog=$LOGS/$GROUP.$1.client.log srv rc src
	shift 2
	logmap "$name" "$clog"
	timeout 300 "$tool" -d softhca0 -g "$gid" -c "$@" >"$slog" 2>&1 &
	srv=$!
	if ! wait_listen $srv $PORT 2>>"$clog"; then
		kill $srv 2>/dev/null
		wait $srv
		fail "$name" "the server never listened: $(tail -n 1 "$slog")"
		return
	fi
	[ -n "${PINGPONG_SERVER_HOOK:-}" ] && $PINGPONG_SERVER_HOOK
	timeout 300 "$tool" -d softhca0 -g "$gid" -c "$@" 127.0.0.1 >>"$clog" 2>&1
	rc=$?
	wait $srv
	src=$?
	if [ $rc -eq 0 ] && [ $src -eq 0 ] && grep -q 'iters in' "$clog" &&
	   grep -q 'iters in' "$slog" && ! grep -q 'invalid data' "$clog" "$slog"; then
		pass "$name"
	else
		fail "$name" "client exit $rc, server exit $src: $(grep -h 'invalid data' "$clog" "$slog" | head -n 1)$(tail -n 1 "$clog")"
	fi
}

# While the first server waits for its client, the card and ib_core both
# list its QP, CQ and MR: the listings the leak checks read at the end do
# show live objects (a query of the card that failed would hide one).
lists_live_objects() {
	local t n c b ok=0
	for t in qp cq mr; do
		n=$(restrack_count $t softhca0) || { echo "rdma resource show $t failed"; return 1; }
		c=$(cat $D/${t}s) || return 1
		c=$(printf '%s' "$c" | grep -c .)
		b=$(grep -c . "$SOFTHCA_OUT/baseline.$GROUP.${t}s")
		echo "$t: ib_core $n (users'), card $c ($b of them the MAD layer's)"
		[ "$n" -ge 1 ] && [ "$c" -eq $((n + b)) ] || ok=1
	done
	return $ok
}
live_objects_hook() {
	check debugfs-lists-live-objects lists_live_objects
	PINGPONG_SERVER_HOOK=
}
PINGPONG_SERVER_HOOK=live_objects_hook

pingpong rc-pingpong ibv_rc_pingpong
pingpong rc-pingpong-events ibv_rc_pingpong -e
pingpong rc-pingpong-1b ibv_rc_pingpong -s 1 -n 1000
pingpong rc-pingpong-4k ibv_rc_pingpong -s 4096 -n 1000
pingpong rc-pingpong-64k ibv_rc_pingpong -s 65536 -n 1000
# 1 MiB: 200 round trips (200 MiB each way, every buffer checked); 1000
# took 11 s of the group on Debian's kernel
pingpong rc-pingpong-1m ibv_rc_pingpong -s 1048576 -n 200
pingpong rc-pingpong-rx1 ibv_rc_pingpong -r 1 -n 10000
pingpong uc-pingpong ibv_uc_pingpong
pingpong uc-pingpong-events ibv_uc_pingpong -e

# perftest <name> <iterations> <tool> <args...>: both sides succeed and
# the client prints a result row with the iterations asked for (a bw test
# with -q multiplies them) and a positive figure (bw: average; lat: max).
# perftest calibrates the CPU clock and, when the emulated clock looks too
# noisy ("Correlation coefficient r^2 ... < 0.9"), reports nothing (bw) or
# infinite latencies (lat); that says nothing about the device, so such a
# run is repeated once. So is a run whose two sides lost their TCP
# connection at the end ("Unable to read from socket", seen once under
# TCG after the client had its figures): perftest's own exchange.
perftest() {
	local name=$1 iters=$2 tool=$3 slog=$LOGS/$GROUP.$1.server.log
	local clog=$LOGS/$GROUP.$1.client.log srv rc src try
	shift 3
	logmap "perftest-$name" "$clog"
	for try in 1 2; do
		timeout 300 "$tool" -d softhca0 -x "$gid" "$@" >"$slog" 2>&1 &
		srv=$!
		: > "$clog"
		if wait_listen $srv $PORT 2>>"$clog"; then
			timeout 300 "$tool" -d softhca0 -x "$gid" "$@" 127.0.0.1 \
				>>"$clog" 2>&1
			rc=$?
		else
			rc=125
			kill $srv 2>/dev/null
		fi
		wait $srv
		src=$?
		if grep -q "Correlation coefficient" "$clog"; then
			echo "perftest-$name: perftest's clock calibration failed; again"
			cp "$clog" "$clog.calibration-failed"
		elif grep -q "Unable to read from socket" "$clog" "$slog"; then
			echo "perftest-$name: perftest's TCP exchange failed; again"
			cp "$clog" "$clog.exchange-failed"
			cp "$slog" "$slog.exchange-failed"
		else
			break
		fi
	done
	if [ $rc -eq 0 ] && [ $src -eq 0 ] &&
	   awk -v n="$iters" '/^ *[0-9]+ +[0-9]+ +[0-9.]+/ && $2 == n && $4 > 0 {ok=1}
		END {exit !ok}' "$clog"; then
		pass "perftest-$name"
	else
		fail "perftest-$name" "client exit $rc, server exit $src: $(tail -n 2 "$clog" | head -n 1)"
	fi
}

perftest ib_write_bw 5000 ib_write_bw
perftest ib_read_bw 1000 ib_read_bw
perftest ib_send_bw 1000 ib_send_bw
perftest ib_atomic_bw 1000 ib_atomic_bw
perftest ib_write_lat 1000 ib_write_lat
perftest ib_send_lat 1000 ib_send_lat
perftest ib_read_lat 1000 ib_read_lat
# long runs: every queue counter and the WQE index wrap past 65536. On
# the debug kernel debug_trim keeps the send (its SQ, RQ and both CQs
# wrap) and leaves out the other four (about 150 s there): the wraps are
# the rings', not the opcodes'.
perftest ib_send_bw-200k 200000 ib_send_bw -s 64 -n 200000
if ! debug_trim; then
	perftest ib_write_bw-200k 200000 ib_write_bw -s 64 -n 200000
	perftest ib_read_bw-150k 150000 ib_read_bw -s 64 -n 150000
	perftest ib_atomic_bw-150k 150000 ib_atomic_bw -n 150000
	perftest ib_read_lat-100k 100000 ib_read_lat -n 100000
fi

# No system call per post while the engine is busy: the application runs
# on CPU 0 (the server waits for completion events, the client busy-polls)
# and leaves CPU 1 to the card's engine, which polls the doorbell records,
# so the client's posts go out without wake-up calls. The engine thread is
# put on CPU 1 for it: the server's completion interrupts are steered to
# CPU 0 (its CQ's vector), and the scheduler would otherwise be free to
# move the engine next to the pingpongs, where it gives way to them.
# strace_calls <strace -c file> <row>: the "calls" column of that row
# (a syscall or "total"), read at the header's position: the "errors"
# column is blank where there were none, so fields cannot be counted.
strace_calls() {
	awk -v row="$2" '
	/^ *% time / && / calls / {
		e = index($0, " calls") + length(" calls") - 1
		rest = substr($0, 1, e - length(" calls"))
		s = length(rest) + 1
		while (s > 1 && substr(rest, s - 1, 1) != " ") s--
		while (s > 1 && substr(rest, s - 1, 1) == " ") s--
		hdr = 1
		next
	}
	hdr && $NF == row {
		v = substr($0, s, e - s + 1)
		gsub(/ /, "", v)
		if (v ~ /^[0-9]+$/) { print v; found = 1; exit }
	}
	END { exit !found }' "$1"
}

# The count is that of a 10000-iteration run less a 10-iteration one, so
# what a run costs before its first iteration (opening the device, the TCP
# exchange, the setup: about 450 calls with rdma-core 44 or 56) is not
# counted: 9990 iterations must make fewer than 2000 system calls (a
# fifth of the iterations), on every kernel. Each turn another thread
# takes on the engine's CPU sets the engine aside: it says IDLE, as it
# must (a poster never waits on a preempted engine), and the post that
# meets it rings. So the count follows the load, in the guest and on the
# host: 100 to 300 on Debian's kernel with the host idle, 889 in a cold
# "make test" (the debug kernel building beside the VM, at nice 19); on
# the debug kernel (its threads paying KASAN and lockdep) 530 to 1060.
# The bound is far below the 8103 calls of a run whose every post rang
# (below), and above every working run seen but one: 3674 on Debian's
# kernel, its VM alone on a host doing nothing else that we ran (the
# host is itself a VM; its CPUs come and go). So a count over the bound
# is measured once more, and the check fails when both are over: a run
# whose posts ring fails twice, a host that took the CPUs away for a
# while does not fail it.
# On the debug kernel debug_trim leaves it out: the check is the
# provider's (user space), and there it cost about 120 s of the boot.
if ! debug_trim; then
	clog=$LOGS/$GROUP.strace.client.log
	logmap syscalls-far-fewer-than-iterations "$clog"
	: > "$clog"
	engine=$(pgrep -f 'softhca\..*-engine')
	taskset -pc 1 "$engine" >>"$clog" 2>&1
	# strace_run <iterations>: a pingpong of that many with the client under
	# strace -c; its count on stdout, or nothing when a side failed
	strace_run() {
		local n=$1 st=$LOGS/$GROUP.strace-$1.txt srv rc src
		taskset -c 0 timeout 300 ibv_rc_pingpong -d softhca0 -g "$gid" -e -n "$n" \
			>"$LOGS/$GROUP.strace-$n.server.log" 2>&1 &
		srv=$!
		if wait_listen $srv $PORT 2>>"$clog"; then
			taskset -c 0 timeout 300 strace -c -f -o "$st" \
				ibv_rc_pingpong -d softhca0 -g "$gid" -n "$n" 127.0.0.1 \
				>>"$clog" 2>&1
			rc=$?
		else
			rc=125
			kill $srv 2>/dev/null
		fi
		wait $srv
		src=$?
		echo "$n iterations: client exit $rc (strace's: the client's), server exit $src, client system calls $(strace_calls "$st" total || echo none)" >> "$clog"
		[ $rc -eq 0 ] && [ $src -eq 0 ] && strace_calls "$st" total
	}
	# Under strace each doorbell costs the client about 80 us, which spaces
	# them wider than engine_poll_gap_us: the engine would take the pingpong
	# for a latency-bound exchange and leave each post to its doorbell. The
	# gap is widened for these runs, so the engine polls as it does for this
	# pingpong without strace (a round trip of a few microseconds). On
	# Debian's kernel the engine's own poll window and back-off are left as
	# they are: the check also says they keep it polling through a busy
	# pingpong. On the debug kernel they are widened too: a round trip takes
	# about 3.5 ms there, longer than the 1 ms the engine polls after its
	# last work, and the debug kernel's own threads (kmemleak's scan, its
	# workers) take turns on CPU 1, where each turn would leave the engine
	# asleep for engine_backoff_us; either way each post rang for itself
	# (8103 calls). What is checked there is the provider: while the engine
	# polls, a post is no call.
	engine_params="engine_poll_gap_us=1000000"
	on_debug_kernel && engine_params+=" engine_spin_us=1000000 engine_backoff_us=0"
	saved=
	for p in $engine_params; do
		f=/sys/module/softhca/parameters/${p%%=*}
		saved+=" ${p%%=*}=$(cat "$f")"
		echo "${p#*=}" > "$f"
	done
	limit=2000
	echo "limit: $limit" >> "$clog"
	counts= ok=0
	for try in 1 2; do
		calls=$(strace_run 10000)
		base=$(strace_run 10)
		echo "system calls of 9990 iterations: ${calls:-none} - ${base:-none}" >> "$clog"
		counts+="${counts:+, then }${calls:-none} - ${base:-none}"
		# both runs went to the end (a run that failed is not measured
		# again) and strace counted
		[ -n "$calls" ] && [ -n "$base" ] &&
			[ "$(grep -c 'iters in' "$clog")" -eq $((2 * try)) ] || break
		[ $((calls - base)) -lt $limit ] && { ok=1; break; }
		[ $try -eq 1 ] && echo "over the limit: measured once more" >> "$clog"
	done
	for p in $saved; do
		echo "${p#*=}" > "/sys/module/softhca/parameters/${p%%=*}"
	done
	taskset -pc "0-$(($(nproc) - 1))" "$engine" >>"$clog" 2>&1
	if [ $ok -eq 1 ]; then
		pass syscalls-far-fewer-than-iterations
	else
		fail syscalls-far-fewer-than-iterations "calls $counts (limit $limit)"
	fi
fi

# The wake-up calls do wake the card: with engine_spin_us=0 the engine
# thread never polls, so each post to it is served only by the poster's own
# wake-up call, and a call that did nothing would hang the run (most posts
# find it idle: at least 1000 calls in 2000 iterations). The client
# makes its calls through the wake-up file (ioctl) by default, and through
# zero-WR post_sends (write) with SOFTHCA_WAKE_CALL=post_send.
# wake_pingpong <case> <syscall the calls use> <other syscall> [env...]
wake_pingpong() {
	local name=$1 sys=$2 other=$3 slog=$LOGS/$GROUP.$1.server.log
	local clog=$LOGS/$GROUP.$1.client.log st=$LOGS/$GROUP.$1.strace.txt
	local rc src n m srv
	shift 3
	logmap "$name" "$clog"
	env "$@" timeout 300 ibv_rc_pingpong -d softhca0 -g "$gid" -n 2000 \
		>"$slog" 2>&1 &
	srv=$!
	: > "$clog"
	if wait_listen $srv $PORT 2>>"$clog"; then
		env "$@" timeout 300 strace -c -f -o "$st" ibv_rc_pingpong \
			-d softhca0 -g "$gid" -n 2000 127.0.0.1 >>"$clog" 2>&1
		rc=$?
	else
		rc=125
		kill $srv 2>/dev/null
	fi
	wait $srv
	src=$?
	# a syscall strace did not list was not made: 0 only then
	n=$(strace_calls "$st" total >/dev/null && { strace_calls "$st" "$sys" || echo 0; })
	m=$(strace_calls "$st" total >/dev/null && { strace_calls "$st" "$other" || echo 0; })
	if [ $rc -eq 0 ] && [ $src -eq 0 ] && grep -q 'iters in' "$clog" &&
	   [ -n "$n" ] && [ -n "$m" ] && [ "$n" -ge 1000 ] && [ "$m" -lt 200 ]; then
		pass "$name"
	else
		fail "$name" "client exit $rc, server exit $src, $sys ${n:-0}, $other ${m:-0}"
	fi
}
P=/sys/module/softhca/parameters
echo 0 > $P/engine_spin_us
wake_pingpong wake-file ioctl write
wake_pingpong wake-post-send write ioctl SOFTHCA_WAKE_CALL=post_send
# a wake-up that finds another pass running hands the work to the engine
# thread at once instead of waiting for that pass
echo 0 > $P/engine_kick_wait_us
wake_pingpong wake-file-no-wait ioctl write
echo 20 > $P/engine_kick_wait_us
echo 1000 > $P/engine_spin_us

# Nothing is left behind, and everything comes apart.
check no-qps-left debugfs_as_baseline $D/qps
check no-cqs-left debugfs_as_baseline $D/cqs
check no-mrs-left debugfs_as_baseline $D/mrs
no_restrack_qps() {
	local n
	n=$(restrack_count qp softhca0) || { echo "rdma resource show qp failed"; return 1; }
	echo "QPs of softhca0 in ib_core: $n"
	[ "$n" -eq 0 ]
}
check no-restrack-qps no_restrack_qps
# an idle card costs no CPU: its engine thread (exactly one) sleeps
engine_idle() {
	local pids t0 t1
	pids=$(pgrep -f 'softhca\..*-engine')
	echo "engine threads: ${pids:-none}"
	[ -n "$pids" ] && [ "$(echo "$pids" | wc -l)" -eq 1 ] || return 1
	t0=$(awk '{print $14 + $15}' "/proc/$pids/stat") || return 1
	sleep 2
	t1=$(awk '{print $14 + $15}' "/proc/$pids/stat") || return 1
	echo "CPU ticks over 2 s: $((t1 - t0))"
	[ -n "$t0" ] && [ -n "$t1" ] && [ $((t1 - t0)) -le 1 ]
}
check idle-engine-costs-no-cpu engine_idle
check link-delete rdma link delete softhca0
check rmmod rmmod softhca
ip link del veth30
ip netns del peer30
