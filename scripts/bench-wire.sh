#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# make bench's wire part (SOFTHCA_BENCH_PARTS=wire; scripts/bench.sh
# builds the module and provider first): perftest over a wire between two
# VMs, softhca<->softhca against rxe<->rxe, and softhca in VM A with rxe
# in VM B. rxe in 6.1 binds its UDP port 4791 in the initial network
# namespace only, so two rxe devices talking over a wire need two
# kernels; softhca's pair uses the same two VMs, so both are measured in
# the same conditions. The VMs run at once (2 vCPUs each under TCG: 4 on
# a 2-core machine, slow for both pairs alike) under one heavy lock taken
# here. Each has three virtio-net NICs, a link per pair (softhca, rxe,
# mixed): QEMU dgram netdevs, UDP on the host's loopback, each VM's end
# on a port of its own. (A TCP socket netdev would lose no frame, but
# QEMU leaves Nagle on for it: a 2-byte ib_send_lat took 24 ms typical
# there. A UDP link can drop a frame when a VM falls behind, which RoCE
# retransmits; each link end's drops, as its socket counts them, are
# printed under the table.)
# scripts/bench-wire-guest.sh runs in both: perftest's servers in A, its
# clients and the table in B.
#
# The table is .cache/bench-wire/bench-wire.txt; each VM's files are in
# .cache/bench-wire/server and client. SOFTHCA_BENCH_RUNS (3): runs of
# each figure; SOFTHCA_BENCH_WIRE_TESTS: the tests (default link
# write_bw send_bw send_lat write_lat; link: each link's own TCP bandwidth
# and UDP and ICMP latency, qperf and ping, SOFTHCA_BENCH_LINK_S seconds
# a qperf run); SOFTHCA_BENCH_WIRE_TIMEOUT (1800): each
# VM's timeout in seconds; SOFTHCA_BENCH_MODPARAMS: softhca module
# parameters both VMs set before the runs, for experiments (e.g.
# "engine_spin_us=0 engine_poll_gap_us=50"). Exit status: the client VM's (vm-run.sh), or
# the server VM's if that one failed.
set -euo pipefail
. "$(dirname "$0")/config.sh"

timeout_s=${SOFTHCA_BENCH_WIRE_TIMEOUT:-1800}
top=$SOFTHCA_CACHE/bench-wire
softhca_heavy_lock	# for both VMs: vm-run.sh sees SOFTHCA_HEAVY_LOCKED
mkdir -p "$top"
rm -f "$top/bench-wire.txt"

# a free UDP port on the host's loopback for each VM's end of each link:
# ports[0..2] A's, ports[3..5] B's
read -r -a ports < <(python3 -c '
import socket
s = [socket.socket(type=socket.SOCK_DGRAM) for _ in range(6)]
for x in s:
    x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')

# nics <a|b>: that VM's NICs, as QEMU arguments; macs <a|b>: their MACs
mac() { printf '52:54:00:5b:0%s:0%d' "$1" "$2"; }
macs() { echo "$(mac "$1" 0),$(mac "$1" 1),$(mac "$1" 2)"; }
nics() {
	local i me=0 peer=3
	[ "$1" = a ] || { me=3; peer=0; }
	for i in 0 1 2; do
		printf -- '-netdev dgram,id=wire%d,local.type=inet,local.host=127.0.0.1,local.port=%d,remote.type=inet,remote.host=127.0.0.1,remote.port=%d ' \
			$i "${ports[me + i]}" "${ports[peer + i]}"
		printf -- '-device virtio-net-pci,netdev=wire%d,mac=%s ' $i "$(mac "$1" $i)"
	done
}

# Each VM in a session of its own (setsid keeps the pid: it is the
# group's), so one that outlives the other can be stopped with its QEMU.
pid_a=
pid_b=
stop() {
	local p
	for p in $pid_a $pid_b; do
		kill -0 "$p" 2>/dev/null && kill -- -"$p" 2>/dev/null
	done
	return 0
}
trap stop EXIT
trap 'exit 130' INT TERM

# vm <a|b> <server|client>: vm-run.sh's options for that VM
vm() {
	args=(-t "$timeout_s" -o "$top/$2" -e "SOFTHCA_BENCH_WIRE_ROLE=$2"
		-e "SOFTHCA_BENCH_WIRE_MACS=$(macs "$1")"
		-e "SOFTHCA_BENCH_MODPARAMS=${SOFTHCA_BENCH_MODPARAMS:-}" -e "SOFTHCA_BENCH_RUNS=${SOFTHCA_BENCH_RUNS:-3}"
		-e "SOFTHCA_BENCH_WIRE_TESTS=${SOFTHCA_BENCH_WIRE_TESTS:-link write_bw send_bw send_lat write_lat}"
		-e "SOFTHCA_BENCH_LINK_S=${SOFTHCA_BENCH_LINK_S:-5}"
		"$SOFTHCA_TOP/scripts/bench-wire-guest.sh")
}

# udp_drops: the host's UDP datagrams dropped for a full receive buffer
# (every socket's, not the links' alone)
udp_drops() {
	awk '$1 == "Udp:" {if (!n) {for (i = 2; i <= NF; i++) if ($i == "RcvbufErrors") n = i}
		else print $n}' /proc/net/snmp
}
drops0=$(udp_drops)

softhca_log "bench-wire: booting VM A (server) and VM B (client), UDP ports ${ports[*]}"
vm a server
SOFTHCA_VM_QEMU_EXTRA=$(nics a) setsid "$SOFTHCA_TOP/scripts/vm-run.sh" "${args[@]}" &
pid_a=$!
# B starts once A's QEMU has bound its ports: vm-run.sh has built the
# initramfs both use by then.
end=$((SECONDS + 600))
for p in "${ports[@]:0:3}"; do
	until [ -n "$(ss -Huna "sport = :$p")" ]; do
		kill -0 $pid_a 2>/dev/null || softhca_die "VM A ended before its QEMU started (see $top/server)"
		[ $SECONDS -lt $end ] || softhca_die "VM A's QEMU has not bound UDP port $p"
		sleep 0.2
	done
done
vm b client
SOFTHCA_VM_QEMU_EXTRA=$(nics b) setsid "$SOFTHCA_TOP/scripts/vm-run.sh" "${args[@]}" &
pid_b=$!
# While B runs, each link end's drops (ss's skmem d<N>, the socket's own
# count of datagrams dropped for a full receive buffer), every 5 s.
declare -A sdrops
while kill -0 $pid_b 2>/dev/null; do
	for p in "${ports[@]}"; do
		d=$(ss -Huam "sport = :$p" | sed -n 's/.*skmem:(.*,d\([0-9]*\)).*/\1/p')
		[ -n "$d" ] && sdrops[$p]=$d
	done
	sleep 5
done
rc_b=0
wait $pid_b || rc_b=$?
pid_b=
# A ends when B says "end"; if B went without, A is stopped
end=$((SECONDS + 120))
while kill -0 $pid_a 2>/dev/null && [ $SECONDS -lt $end ]; do
	sleep 1
done
if kill -0 $pid_a 2>/dev/null; then
	softhca_log "bench-wire: VM A still runs 120 s after VM B ended; stopping it"
	kill -- -$pid_a
fi
rc_a=0
wait $pid_a || rc_a=$?
pid_a=

if [ -f "$top/client/bench-wire.txt" ]; then
	cp "$top/client/bench-wire.txt" "$top/bench-wire.txt"
	{
		printf 'frames dropped at the host (UDP receive buffer full), into A / into B:'
		for i in 0 1 2; do
			printf ' %s %s/%s' "$(echo softhca rxe mixed | cut -d' ' -f$((i + 1)))" \
				"${sdrops[${ports[i]}]:-?}" "${sdrops[${ports[i + 3]}]:-?}"
		done
		echo
		echo "host UDP receive-buffer drops during the run, every socket's: $(($(udp_drops) - drops0))"
	} >> "$top/bench-wire.txt"
	cat "$top/bench-wire.txt"
fi
[ $rc_a -eq 0 ] || softhca_log "bench-wire: VM A (server) exited $rc_a (see $top/server)"
[ $rc_b -eq 0 ] || softhca_log "bench-wire: VM B (client) exited $rc_b (see $top/client)"
[ $rc_b -ne 0 ] && exit $rc_b
exit $rc_a
