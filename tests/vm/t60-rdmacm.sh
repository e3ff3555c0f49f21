#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-kernels: debian debug
# rdma_cm, the MAD layer and UD (issue 10). softhca0 is bound to one end
# of a veth pair with an IPv4 and an IPv6 (ULA) address; servers and
# clients run in this VM and meet at those addresses (127.0.0.1 never
# resolves to a RoCE device: it routes through lo). First the GSI QP and
# ib_cm's attachment; then the UD and SRQ checks of softhca-verbstest;
# ibv_ud_pingpong, ibv_srq_pingpong, ibv_rc_pingpong with the new post
# API; perftest over UD and over rdma_cm (-R); the rdma_cm tools (rping
# with data verification over IPv4 and IPv6, ucmatose, udaddy, cmtime,
# rdma_server/rdma_client, rdma_xserver/rdma_xclient); the CM's own
# counters; and a clean teardown.
. "$SOFTHCA_TOP/tests/vm/lib.sh"

# dmesg_here: the kernel log since this group started (a marker line in
# it), and a failure when the marker is gone. On the debug kernel t45 ran
# before, and its faults injected into "rdma link add" left ib_mad's own
# errors in the log.
mark="softhca-vm: $GROUP starts $$"
echo "$mark" > /dev/kmsg
dmesg_here() {
	dmesg | awk -v m="$mark" 'index($0, m) { on = 1; next } on
		END { if (!on) { print "no marker \"" m "\" in dmesg"; exit 1 } }'
}

IP=10.60.0.1
IP6=fd00:60::1
ip link add vcm0 type veth peer name vcm1
ip link set vcm0 up
ip link set vcm1 up
ip addr add $IP/24 dev vcm0
ip -6 addr add $IP6/64 dev vcm0 nodad
# The kernel names tasks blocked for 30 s (the VM's kernel log check
# fails on that), and link_add below gives up on a hung "rdma link add".
echo 30 > /proc/sys/kernel/hung_task_timeout_secs

# dump_blocked: the kernel stacks of every task in D state.
dump_blocked() {
	local t
	for t in /proc/[0-9]*; do
		grep -q '^State:.*D' "$t/status" 2>/dev/null || continue
		echo "== ${t#/proc/} $(cat "$t/comm" 2>/dev/null)"
		cat "$t/stack" 2>/dev/null
	done
}
# link_add: "rdma link add" ends within 120 s (it attaches every ib_core
# client, the MAD layer's QP1 included); when it does not, the blocked
# tasks' stacks go to the log and the group stops.
link_add() {
	local pid
	rdma link add softhca0 type softhca netdev vcm0 &
	pid=$!
	if ! wait_for 120 sh -c "! kill -0 $pid"; then
		echo "rdma link add still running after 120 s"
		dump_blocked
		return 124
	fi
	wait $pid
}
check link-add link_add
grep -q "^PASS $PREFIX.$GROUP.link-add\$" "$SOFTHCA_OUT/results" || exit 1

# gid_of <address as ibv_devinfo prints it>: its RoCE v2 GID index.
gid_of() {
	ibv_devinfo -v -d softhca0 |
		sed -n "s/.*GID\[ *\([0-9]*\)\]:[[:space:]]*$1, RoCE v2\$/\1/p"
}
gids_found() {
	[ -n "$(gid_of "::ffff:$IP")" ] && [ -n "$(gid_of "$IP6")" ]
}
# GIDs come from the addresses, asynchronously
check gids-found wait_for 60 gids_found
gid=$(gid_of "::ffff:$IP")
gid6=$(gid_of "$IP6")

# The MAD layer made its GSI QP (QP 1) and brought it to RTS, and ib_cm
# attached to the port (it adds its counters there only then).
check mad-no-qp1-error lacks "Couldn't create ib_mad QP1|Couldn't open port|ib_mad.*failed" dmesg_here
check gsi-qp1-rts sh -c "rdma resource show qp | grep -E '^link softhca0/1 lqpn 1 type GSI state RTS'"
CM=/sys/class/infiniband/softhca0/ports/1
check cm-attached test -r $CM/cm_rx_msgs/req

# The C++ checks of UD (GRH contents over IPv4 and IPv6 GIDs, Q_Key
# mismatch, unknown QPN) and of SRQs (limit event, a QP in error).
check_tool env SOFTHCA_GID6=$IP6 timeout 300 "$BIN/softhca-verbstest" \
	softhca0 "$gid" ud srq

# The pingpong and perftest servers are ready when their TCP port listens
# (18515); the rdma_cm servers when rdma_cm lists their listener.
PORT=18515

# run_two <case> <ok-test> <server command> -- <client command>: the
# server starts, the client once the server is ready ($READY: tcp, its
# TCP port listens, or cm, rdma_cm lists its listener; on $READY_PORT),
# both succeed, and <ok-test> (a function of the client's and the
# server's logs) says the run did what it should. A server that runs
# until stopped ($PERSIST=1) must still be alive when the client is done;
# it is stopped then. Returns 0 when all holds; $WHY says what did not.
run_two() {
	local name=$1 ok=$2 slog=$LOGS/$GROUP.$1.server.log
	local clog=$LOGS/$GROUP.$1.client.log srv=() rc src ready spid
	shift 2
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	: > "$clog"
	timeout 150 "${srv[@]}" > "$slog" 2>&1 &
	spid=$!
	if [ "$READY" = cm ]; then
		wait_cm_listen $spid "$READY_PORT" 2>>"$clog"
	else
		wait_listen $spid "$READY_PORT" 2>>"$clog"
	fi
	ready=$?
	if [ $ready -eq 0 ]; then
		timeout 120 "$@" >> "$clog" 2>&1
		rc=$?
	else
		rc=125
		kill $spid 2>/dev/null
	fi
	if [ "${PERSIST:-0}" = 1 ] && [ $ready -eq 0 ]; then
		if kill -0 $spid 2>/dev/null; then
			kill $spid
			wait $spid
			src=0
		else
			wait $spid
			src=$?
			echo "the server ended early (exit $src)" >> "$clog"
			[ $src -eq 0 ] && src=1
		fi
	else
		# A client that failed may leave its server waiting for a peer
		# that is gone (rdma_cm's perftest server after the client's
		# clock calibration failed): the run has failed whatever the
		# server does, so it is stopped now, not left to its timeout.
		[ $rc -ne 0 ] && kill $spid 2>/dev/null
		wait $spid
		src=$?
	fi
	echo "client exit $rc, server exit $src" >> "$clog"
	WHY="client exit $rc, server exit $src"
	[ $rc -eq 0 ] && [ $src -eq 0 ] && $ok "$clog" "$slog" >> "$clog" 2>&1
}

# two <case> <ok-test> <server command> -- <client command>: run_two, one
# result.
two() {
	logmap "$1" "$LOGS/$GROUP.$1.client.log"
	if run_two "$@"; then
		pass "$1"
	else
		fail "$1" "$WHY: $(tail -n 2 "$LOGS/$GROUP.$1.client.log" | head -n 1 | cut -c1-120)"
	fi
}

# pingpong: both sides report their iterations and no invalid data (-c)
pingpong_ok() {
	grep -q 'iters in' "$1" && grep -q 'iters in' "$2" &&
		! grep -q 'invalid data' "$1" "$2"
}
pp() {
	local name=$1 tool=$2
	shift 2
	READY=tcp READY_PORT=$PORT two "$name" pingpong_ok \
		"$tool" -d softhca0 -g "$gid" -c "$@" -- \
		"$tool" -d softhca0 -g "$gid" -c "$@" $IP
}
pp ud-pingpong ibv_ud_pingpong -n 500
READY=tcp READY_PORT=$PORT two ud-pingpong-ipv6 pingpong_ok \
	ibv_ud_pingpong -d softhca0 -g "$gid6" -c -n 500 -- \
	ibv_ud_pingpong -d softhca0 -g "$gid6" -c -n 500 $IP
pp srq-pingpong ibv_srq_pingpong -n 200
pp srq-pingpong-events ibv_srq_pingpong -n 200 -e
pp rc-pingpong-new-post-api ibv_rc_pingpong -N -n 500
pp rc-pingpong-new-post-api-events ibv_rc_pingpong -N -e -n 500

# perftest: the client prints a result row with the iterations asked for
# and a positive figure (bw: average; lat: maximum). A run whose clock
# calibration failed or whose TCP exchange broke says nothing about the
# device (see t30) and is repeated once.
perf_ok() {
	awk -v n="$ITERS" '/^ *[0-9]+ +[0-9]+ +[0-9.]+/ && $2 == n && $4 > 0 {ok=1}
		END {exit !ok}' "$1"
}
perftest() {
	local name=perftest-$1 ready=$2 tool=$3 try ok
	shift 3
	logmap "$name" "$LOGS/$GROUP.$name.client.log"
	for try in 1 2; do
		READY=$ready READY_PORT=$PORT run_two "$name" perf_ok \
			"$tool" -d softhca0 -x "$gid" "$@" -- \
			"$tool" -d softhca0 -x "$gid" "$@" $IP
		ok=$?
		grep -q "Correlation coefficient" "$LOGS/$GROUP.$name.client.log" ||
			grep -q "Unable to read from socket" "$LOGS/$GROUP.$name".*.log ||
			break
		echo "$name: perftest's clock calibration or TCP exchange failed; again"
		cp "$LOGS/$GROUP.$name.client.log" "$LOGS/$GROUP.$name.client.log.try$try"
	done
	if [ $ok -eq 0 ]; then
		pass "$name"
	else
		# a calibration that failed twice is most likely the guest's
		# clock (scripts/vm-run.sh): the failure names it
		grep -q "Correlation coefficient" "$LOGS/$GROUP.$name.client.log" &&
			WHY+=", clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
		fail "$name" "$WHY: $(tail -n 2 "$LOGS/$GROUP.$name.client.log" | head -n 1 | cut -c1-120)"
	fi
}
ITERS=1000
perftest ib_send_lat-ud tcp ib_send_lat -c UD -n $ITERS
perftest ib_send_bw-ud tcp ib_send_bw -c UD -n $ITERS
perftest ib_send_lat-rdma-cm cm ib_send_lat -R -n $ITERS
# the same connection over rdma_cm for each opcode: on the debug kernel
# debug_trim leaves these five out (about 50 s there); t30 runs each
# opcode there, and the connection is send_lat's
if ! debug_trim; then
	perftest ib_send_bw-rdma-cm cm ib_send_bw -R -n $ITERS
	perftest ib_write_lat-rdma-cm cm ib_write_lat -R -n $ITERS
	perftest ib_write_bw-rdma-cm cm ib_write_bw -R -n $ITERS
	perftest ib_read_lat-rdma-cm cm ib_read_lat -R -n $ITERS
	perftest ib_read_bw-rdma-cm cm ib_read_bw -R -n $ITERS
fi
# UD over rdma_cm: the address exchange is SIDR through the GSI QP
perftest ib_send_lat-ud-rdma-cm cm ib_send_lat -R -c UD -n $ITERS

# cm_counter <group> <msg>: ib_cm's count of that message on the port
cm_counter() {
	cat "$CM/$1/$2"
}

# rping: <count> pings of <size> bytes (the server RDMA-READs the
# client's buffer, then RDMA-WRITEs it back), every one verified (-V)
# and shown (-v) on both sides: the client prints each ping it sent, the
# server each it read, and a mismatch ends either side with an error.
# Sizes: rping's default (64), several RoCE MTUs (4000), nearly its
# largest (65000).
rping_ok() {
	[ "$(grep -c '^ping data: rdma-ping-' "$1")" -eq "$PINGS" ] &&
		[ "$(grep -c '^server ping data: rdma-ping-' "$2")" -eq "$PINGS" ] &&
		! grep -qi 'mismatch' "$1" "$2"
}
# rping_case <case> <address> <count> [<size>]
rping_case() {
	local size=()
	[ -n "$4" ] && size=(-S "$4")
	PINGS=$3 READY=cm READY_PORT=7174 two "$1" rping_ok \
		rping -s -a "$2" -C "$3" "${size[@]}" -V -v -- \
		rping -c -a "$2" -C "$3" "${size[@]}" -V -v
}
rping_case rping $IP 50
rping_case rping-ipv6 $IP6 50
rping_case rping-4000b $IP 20 4000
rping_case rping-65000b $IP 10 65000
rping_case rping-ipv6-65000b $IP6 10 65000

status_ok() {
	grep -q 'return status 0' "$1" && grep -q 'return status 0' "$2"
}
READY=cm READY_PORT=7471 two ucmatose status_ok \
	ucmatose -b $IP -c 4 -C 20 -- ucmatose -s $IP -c 4 -C 20
READY=cm READY_PORT=7174 two udaddy status_ok \
	udaddy -b $IP -c 4 -C 20 -- udaddy -s $IP -c 4 -C 20

# cmtime: the client times every step of 20 connections; the server (it
# runs until stopped) accepted them all: ib_cm counted 20 more REQs, REPs
# and RTUs received on the port.
req0=$(cm_counter cm_rx_msgs req)
rep0=$(cm_counter cm_rx_msgs rep)
rtu0=$(cm_counter cm_rx_msgs rtu)
cmtime_ok() {
	local req rep rtu
	req=$(($(cm_counter cm_rx_msgs req) - req0))
	rep=$(($(cm_counter cm_rx_msgs rep) - rep0))
	rtu=$(($(cm_counter cm_rx_msgs rtu) - rtu0))
	echo "ib_cm received: $req REQ, $rep REP, $rtu RTU"
	grep -Eq '^connect +:' "$1" && grep -Eq '^disconnect +:' "$1" &&
		[ $req -ge 20 ] && [ $rep -ge 20 ] && [ $rtu -ge 20 ]
}
PERSIST=1 READY=cm READY_PORT=7471 two cmtime cmtime_ok \
	cmtime -b $IP -- cmtime -s $IP -c 20

end_ok() {
	grep -q "$3: end 0" "$1" && grep -q "$4: end 0" "$2"
}
rdma_ok() { end_ok "$1" "$2" rdma_client rdma_server; }
xrdma_ok() { end_ok "$1" "$2" rdma_xclient rdma_xserver; }
READY=cm READY_PORT=7471 two rdma-server-client rdma_ok \
	rdma_server -s $IP -- rdma_client -s $IP
READY=cm READY_PORT=7471 two rdma-xserver-xclient xrdma_ok \
	rdma_xserver -- rdma_xclient -s $IP
# rdma_xserver -c x takes XRC QPs, which only a device offering XRC has
if ibv_devinfo -v -d softhca0 | grep -qw XRC; then
	READY=cm READY_PORT=7471 two rdma-xserver-xclient-xrc xrdma_ok \
		rdma_xserver -c x -- rdma_xclient -s $IP -c x
else
	skip rdma-xserver-xclient-xrc "softhca0 does not offer XRC (no XRC in device_cap_flags)"
fi

# Nothing of rdma_cm is left on the device, and it comes apart: the MAD
# layer and ib_cm let go of their QP and agents with it.
no_cm_ids() {
	lacks '^link softhca0/' rdma resource show cm_id
}
check no-cm-ids-left no_cm_ids
only_qp1_left() {
	local out
	out=$(rdma resource show qp) || return 1
	printf '%s\n' "$out"
	[ "$(printf '%s\n' "$out" | grep -c '^link softhca0/')" -eq 1 ] &&
		printf '%s\n' "$out" | grep -q '^link softhca0/1 lqpn 1 type GSI'
}
check only-qp1-left only_qp1_left
check link-delete rdma link delete softhca0
check rmmod rmmod softhca
ip link del vcm0
