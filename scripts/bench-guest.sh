#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The benchmark, inside the VM: softhca0 on one veth, rxe0 on another.
export RDMAV_DRIVERS=$SOFTHCA_TOP/build/userspace/libsofthca
runs=${SOFTHCA_BENCH_RUNS:-3}
res=$SOFTHCA_OUT/bench.txt

ip link add vethb0 type veth peer name vethb1
ip link add vethb2 type veth peer name vethb3
for l in vethb0 vethb1 vethb2 vethb3; do ip link set $l up; done
ip addr add 10.7.0.1/24 dev vethb0
ip addr add 10.7.1.1/24 dev vethb2
modprobe rdma_rxe
rdma link add softhca0 type softhca netdev vethb0
rdma link add rxe0 type rxe netdev vethb2
sleep 2

gid_of() {
	ibv_devinfo -v -d "$1" | sed -n "s/.*GID\[ *\([0-9]*\)\].*::ffff:$2, RoCE v2.*/\1/p"
}
declare -A gid=([softhca0]=$(gid_of softhca0 10.7.0.1) [rxe0]=$(gid_of rxe0 10.7.1.1))

# one <dev> <tool> <column> <args...>: one client figure. A run whose
# clock calibration failed ("Correlation coefficient", no or infinite
# figures) is repeated, up to three times.
one() {
	local dev=$1 tool=$2 col=$3 out try
	shift 3
	for try in 1 2 3; do
		timeout 300 "$tool" -d "$dev" -x "${gid[$dev]}" "$@" >/dev/null 2>&1 &
		sleep 1
		out=$(timeout 300 "$tool" -d "$dev" -x "${gid[$dev]}" "$@" 127.0.0.1 2>&1)
		wait
		grep -q "Correlation coefficient" <<<"$out" || break
	done
	awk -v c="$col" '/^ *[0-9]+ +[0-9]+ +[0-9.]+/ {v=$c} END {print v}' <<<"$out"
}

median() {
	sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

# bench <label> <column> <unit> <better: lower|higher> <tool> <args...>
bench() {
	local label=$1 col=$2 unit=$3 better=$4 tool=$5 s r i
	shift 5
	s=$(for ((i = 0; i < runs; i++)); do one softhca0 "$tool" "$col" "$@"; done | median)
	r=$(for ((i = 0; i < runs; i++)); do one rxe0 "$tool" "$col" "$@"; done | median)
	printf '%-34s %10s %10s %-6s %8s  (%s is better)\n' "$label" "$s" "$r" \
		"$unit" "$(awk -v a="$s" -v b="$r" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "-"}')" \
		"$better" | tee -a "$res"
}

{
	echo "softhca vs rxe, same VM boot ($(nproc) vCPUs, QEMU TCG), median of $runs runs"
	printf '%-34s %10s %10s %-6s %8s\n' test softhca rxe unit ratio
} | tee "$res"
bench "ib_send_lat 2B typical" 5 usec lower ib_send_lat -n 5000
bench "ib_send_lat 2B average" 6 usec lower ib_send_lat -n 5000
bench "ib_write_lat 2B typical" 5 usec lower ib_write_lat -n 5000
bench "ib_write_lat 2B average" 6 usec lower ib_write_lat -n 5000
bench "ib_read_lat 2B typical" 5 usec lower ib_read_lat -n 5000
bench "ib_write_bw 64KiB average" 4 MB/s higher ib_write_bw -s 65536 -n 5000
bench "ib_read_bw 64KiB average" 4 MB/s higher ib_read_bw -s 65536 -n 5000
bench "ib_send_bw 64KiB average" 4 MB/s higher ib_send_bw -s 65536 -n 5000
