#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# make bench's wire part, inside one of its two VMs (scripts/bench-wire.sh
# boots them): SOFTHCA_BENCH_WIRE_ROLE=server in VM A, client in VM B.
# Each VM has three virtio-net NICs, one per link, a QEMU dgram netdev
# joining it to the other VM's; SOFTHCA_BENCH_WIRE_MACS gives their MACs
# (the softhca, rxe and mixed link's, comma-separated):
#
#   link     VM A (server)           VM B (client)
#   softhca  10.8.0.1 softhca0  <->  10.8.0.2 softhca0
#   rxe      10.8.1.1 rxe0      <->  10.8.1.2 rxe0
#   mixed    10.8.2.1 softhca1  <->  10.8.2.2 rxe1
#
# A netdev is either softhca's (it takes the RoCE frames in an rx handler)
# or rxe's (UDP port 4791), never both: hence a link per device.
#
# The client drives. It connects to A's control port (18600 on the rxe
# link; busybox nc on A's side, bash's /dev/tcp on B's), retrying until A
# listens, which A does once its devices are up. For each run it sends
# "run <A's device> <tool> <args...>"; A starts that perftest server and
# answers "ready" once it listens on perftest's TCP port (or "fail"), and
# B runs the client against it; "end" ends A. Each test runs
# SOFTHCA_BENCH_RUNS times (3), the pairs taking turns; the client
# writes the medians to $SOFTHCA_OUT/bench-wire.txt, the figures of
# every run to $SOFTHCA_OUT/<test>-<pair>.lines. SOFTHCA_BENCH_WIRE_TESTS
# picks tests (link write_bw send_bw send_lat write_lat, the default).
#
# "link" measures each link itself, no RDMA device on the way: qperf's
# TCP bandwidth (64 KiB messages) and UDP latency (2 bytes, half the
# round trip, as perftest's latencies are), and half of ping's round trip
# (16-byte ICMP echoes, flooded: the peer's kernel answers each in its
# softirq, the nearest to the bare link's round trip a tool here
# measures). A's qperf server runs
# from the start. Under the table the client prints what the targets ask
# of the link: 3 times rxe's bandwidth against the link's TCP bandwidth,
# half rxe's latency against the link's.
export RDMAV_DRIVERS=$SOFTHCA_TOP/build/userspace/libsofthca
role=${SOFTHCA_BENCH_WIRE_ROLE:-}
runs=${SOFTHCA_BENCH_RUNS:-3}
tests=${SOFTHCA_BENCH_WIRE_TESTS:-link write_bw send_bw send_lat write_lat}
link_s=${SOFTHCA_BENCH_LINK_S:-5}	# each qperf run's seconds
res=$SOFTHCA_OUT/bench-wire.txt
ctl_port=18600
pairs=(softhca rxe mixed)
declare -A net=([softhca]=10.8.0 [rxe]=10.8.1 [mixed]=10.8.2)
declare -A dev_a=([softhca]=softhca0 [rxe]=rxe0 [mixed]=softhca1)
declare -A dev_b=([softhca]=softhca0 [rxe]=rxe0 [mixed]=rxe1)

log() { echo "bench-wire-guest ($role): $*" >&2; }
fail() {
	log "$*"
	exit 1
}

case $role in
server) me=1 ;;
client) me=2 ;;
*) fail "SOFTHCA_BENCH_WIRE_ROLE must be server or client" ;;
esac

# nic_of <mac>: the netdev with that address (no udev here: eth0, eth1...
# in probe order, which the MAC makes irrelevant)
nic_of() {
	local f
	for f in /sys/class/net/*/address; do
		[ "$(cat "$f")" = "$1" ] || continue
		f=${f%/address}
		echo "${f##*/}"
		return 0
	done
	return 1
}

# gid_of <ibdev> <ipv4>: its RoCE v2 GID index (as bench-guest.sh finds it)
gid_of() {
	ibv_devinfo -v -d "$1" | sed -n "s/.*GID\[ *\([0-9]*\)\].*::ffff:$2, RoCE v2.*/\1/p"
}

# softhca's module parameters for the runs (SOFTHCA_BENCH_MODPARAMS)
for kv in ${SOFTHCA_BENCH_MODPARAMS:-}; do
	echo "${kv#*=}" > "/sys/module/softhca/parameters/${kv%%=*}" ||
		fail "cannot set softhca parameter $kv"
done
modprobe virtio_net || fail "modprobe virtio_net failed"
modprobe rdma_rxe || fail "modprobe rdma_rxe failed"
IFS=, read -r -a macs <<< "${SOFTHCA_BENCH_WIRE_MACS:-}"
declare -A nic dev gid
for i in 0 1 2; do
	p=${pairs[i]}
	for ((t = 0; t < 100; t++)); do
		nic[$p]=$(nic_of "${macs[i]:-none}") && break
		sleep 0.1
	done
	[ -n "${nic[$p]}" ] || fail "no NIC with MAC ${macs[i]:-none} (SOFTHCA_BENCH_WIRE_MACS)"
	ip addr add "${net[$p]}.$me/24" dev "${nic[$p]}"
	ip link set "${nic[$p]}" up
	if [ "$role" = server ]; then dev[$p]=${dev_a[$p]}; else dev[$p]=${dev_b[$p]}; fi
	case ${dev[$p]} in
	softhca*) type=softhca ;;
	*) type=rxe ;;
	esac
	rdma link add "${dev[$p]}" type $type netdev "${nic[$p]}" ||
		fail "rdma link add ${dev[$p]} on ${nic[$p]} failed"
	for ((t = 0; t < 300; t++)); do
		gid[${dev[$p]}]=$(gid_of "${dev[$p]}" "${net[$p]}.$me")
		[ -n "${gid[${dev[$p]}]}" ] && break
		sleep 0.1
	done
	[ -n "${gid[${dev[$p]}]}" ] || fail "${dev[$p]} has no RoCE v2 GID of ${net[$p]}.$me"
	log "${dev[$p]} on ${nic[$p]} (${macs[i]}) ${net[$p]}.$me, GID index ${gid[${dev[$p]}]}"
done

# counters: this VM's softhca counters after the runs (retransmits,
# timeouts, NAKs, drops by cause), in its counters.txt
counters() {
	local d
	for d in "${dev[softhca]}" "${dev[mixed]}"; do
		case $d in softhca*) rdma statistic show link "$d/1" ;; esac
	done > "$SOFTHCA_OUT/counters.txt" 2>&1
}

# ---- VM A: perftest servers, on the client's demand -----------------------
if [ "$role" = server ]; then
	spid=
	# reap: the last server, given 10 s to end by itself after its client
	reap() {
		local i
		[ -n "$spid" ] || return 0
		for ((i = 0; i < 100; i++)); do
			kill -0 "$spid" 2>/dev/null || break
			sleep 0.1
		done
		kill "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
		spid=
	}
	# serve <device> <tool> <args...>: start a server; listening?
	serve() {
		local d=$1 tool=$2 i
		shift 2
		[ -n "${gid[$d]:-}" ] || return 1
		[[ $tool == ib_*_@(bw|lat) ]] || return 1
		echo "== $d $tool $*" >> "$SOFTHCA_OUT/server.log"
		timeout 300 "$tool" -d "$d" -x "${gid[$d]}" "$@" \
			>> "$SOFTHCA_OUT/server.log" 2>&1 &
		spid=$!
		for ((i = 0; i < 300; i++)); do
			ss -Hltn "sport = :18515" 2>/dev/null | grep -q . && return 0
			kill -0 "$spid" 2>/dev/null || return 1
			sleep 0.1
		done
		return 1
	}
	# the links' own figures (the client's "link" test): qperf's server
	# on its default port, 19765, every address, listening before the
	# control port is, so before the client can ask for anything
	qperf > "$SOFTHCA_OUT/qperf-server.log" 2>&1 &
	qpid=$!
	for ((i = 0; i < 300; i++)); do
		ss -Hltn "sport = :19765" 2>/dev/null | grep -q . && break
		kill -0 "$qpid" 2>/dev/null || break
		sleep 0.1
	done
	ss -Hltn "sport = :19765" 2>/dev/null | grep -q . ||
		log "qperf's server is not listening: the link figures will be missing"
	coproc CTL { exec busybox nc -l -p $ctl_port; }
	log "listening on port $ctl_port"
	# the first read waits for B to boot; the others for a run (at most
	# three tries of 300 s)
	while read -r -t 1000 -a w -u "${CTL[0]}"; do
		case ${w[0]:-} in
		run)
			reap
			if serve "${w[@]:1}"; then r=ready; else r=fail; fi
			echo $r >&"${CTL[1]}"
			;;
		end) break ;;
		*) log "unknown command: ${w[*]}" ;;
		esac
	done
	reap
	counters
	kill "$CTL_PID" "$qpid" 2>/dev/null
	log "done"
	exit 0
fi

# ---- VM B: the clients, the table -----------------------------------------
a=${net[rxe]}.1
end=$((SECONDS + 900))
until { exec 3<>"/dev/tcp/$a/$ctl_port"; } 2>/dev/null; do
	[ $SECONDS -lt $end ] || fail "no control connection to $a:$ctl_port"
	sleep 0.5
done
log "connected to $a:$ctl_port"
ctl_ok=1
trap '' PIPE	# a control connection gone fails a write, not the script

# one <pair> <tool> <args...>: the figures line of one client run (none
# if it failed). A run whose clock calibration failed ("Correlation
# coefficient") is repeated, up to three times, as in bench-guest.sh.
one() {
	local p=$1 tool=$2 out='' r
	shift 2
	[ $ctl_ok = 1 ] || return 0
	for _ in 1 2 3; do
		if ! { echo "run ${dev_a[$p]} $tool $*" >&3; } 2>/dev/null ||
			! read -r -t 120 r <&3; then
			log "control connection lost"
			ctl_ok=0
			return 0
		fi
		[ "$r" = ready ] || { log "server: $r ($p $tool $*)"; return 0; }
		out=$(timeout 300 "$tool" -d "${dev[$p]}" -x "${gid[${dev[$p]}]}" \
			"$@" "${net[$p]}.1" 2>&1)
		grep -q "Correlation coefficient" <<<"$out" || break
	done
	awk '/^ *[0-9]+ +[0-9]+ +[0-9.]+/ {l = $0} END {print l}' <<<"$out"
}

# measure <test> <tool> <args...>: every run of every pair, the pairs
# taking turns (a slow phase of the host is shared), into <test>-<pair>.lines
measure() {
	local t=$1 i p
	shift
	for p in "${pairs[@]}"; do
		: > "$SOFTHCA_OUT/$t-$p.lines"
	done
	for ((i = 0; i < runs; i++)); do
		for p in "${pairs[@]}"; do
			one "$p" "$@" >> "$SOFTHCA_OUT/$t-$p.lines"
		done
	done
}

# link_one <pair>: the figures of one run on that pair's link, no RDMA
# device on the way: "<TCP MB/s> <UDP latency us> <ICMP half round trip
# us>" (MB as perftest's, 2^20 bytes; "-" for a figure that failed)
link_one() {
	local a=${net[$1]}.1 bw lat rtt
	bw=$(timeout 120 qperf "$a" -uu -t "$link_s" -m 64K tcp_bw 2>&1 |
		awk '$1 == "bw" {printf "%.2f", $3 / 1048576}')
	lat=$(timeout 120 qperf "$a" -uu -t "$link_s" -m 2 udp_lat 2>&1 |
		awk '$1 == "latency" {printf "%.1f", $3 / 1000}')
	# flood: the next echo as soon as the last is answered, a link kept
	# busy as perftest's latency tests keep it (with pauses between
	# echoes, each finds the VMs idle and takes longer); "rtt
	# min/avg/max/mdev = 0.301/0.412/1.2/0.1 ms": the average, halved
	rtt=$(timeout 120 ping -q -f -c 2000 -s 16 "$a" 2>&1 |
		awk -F/ '/^rtt/ {printf "%.1f", $5 * 1000 / 2}')
	echo "${bw:--} ${lat:--} ${rtt:--}"
}

# measure_link: link_one on every pair, the pairs taking turns
measure_link() {
	local i p
	for p in "${pairs[@]}"; do
		: > "$SOFTHCA_OUT/link-$p.lines"
	done
	for ((i = 0; i < runs; i++)); do
		for p in "${pairs[@]}"; do
			link_one "$p" >> "$SOFTHCA_OUT/link-$p.lines"
		done
	done
}

median() {
	sort -g | awk '{a[NR] = $1} END {print (NR ? a[int((NR + 1) / 2)] : "-")}'
}

# fig <test> <pair> <column>: the median of that column over the runs
fig() {
	awk -v c="$3" '$c ~ /^[0-9.]+$/ {print $c}' "$SOFTHCA_OUT/$1-$2.lines" | median
}

# row <label> <test> <column> <unit> <better> <target>: one line of the
# table; the ratio is softhca<->softhca / rxe<->rxe, as in bench-guest.sh
row() {
	local s r m
	s=$(fig "$2" softhca "$3")
	r=$(fig "$2" rxe "$3")
	m=$(fig "$2" mixed "$3")
	printf '%-26s %10s %10s %10s %-6s %7s  (%s is better; target %s)\n' \
		"$1" "$s" "$r" "$m" "$4" \
		"$(awk -v a="$s" -v b="$r" 'BEGIN {if (a > 0 && b > 0) printf "%.2f", a / b; else print "-"}')" \
		"$5" "$6" | tee -a "$res"
}

for t in $tests; do
	case $t in
	link) measure_link ;;
	write_bw) measure "$t" ib_write_bw -s 65536 -n 2000 ;;
	send_bw) measure "$t" ib_send_bw -s 65536 -n 2000 ;;
	send_lat) measure "$t" ib_send_lat -s 2 -n 2000 ;;
	write_lat) measure "$t" ib_write_lat -s 2 -n 2000 ;;
	*) log "unknown test $t" ;;
	esac
done
{ echo end >&3; } 2>/dev/null
exec 3>&-
counters

{
	echo "softhca<->softhca vs rxe<->rxe between two VMs ($(nproc) vCPUs each, QEMU TCG, UDP links), median of $runs runs"
	echo "mixed: softhca1 in VM A (server) with rxe1 in VM B (client); ratio: softhca/rxe"
	printf '%-26s %10s %10s %10s %-6s %7s\n' test softhca rxe mixed unit ratio
} | tee "$res"
for t in $tests; do
	case $t in
	link)
		row "link: qperf tcp_bw 64KiB" "$t" 1 MB/s higher "none: no RDMA"
		row "link: qperf udp_lat 2B" "$t" 2 usec lower "none: no RDMA"
		row "link: ping, half the RTT" "$t" 3 usec lower "none: no RDMA"
		;;
	write_bw) row "ib_write_bw 64KiB average" "$t" 4 MB/s higher ">= 3" ;;
	send_bw) row "ib_send_bw 64KiB average" "$t" 4 MB/s higher ">= 3" ;;
	send_lat)
		row "ib_send_lat 2B typical" "$t" 5 usec lower "<= 0.5"
		row "ib_send_lat 2B average" "$t" 6 usec lower "<= 0.5"
		;;
	write_lat)
		row "ib_write_lat 2B typical" "$t" 5 usec lower "<= 0.5"
		row "ib_write_lat 2B average" "$t" 6 usec lower "<= 0.5"
		;;
	esac
done
# what the targets ask of the link: softhca<->softhca at 3 times
# rxe<->rxe's bandwidth, at half its latency, against what the link
# itself carries (rxe's link: the same kind as softhca's, measured too)
if [[ " $tests " == *" link "* ]]; then
	lbw=$(fig link rxe 1)
	llat=$(fig link rxe 2)
	lrtt=$(fig link rxe 3)
	asks=$(
		for t in write_bw send_bw; do
			[[ " $tests " == *" $t "* ]] || continue
			r=$(fig "$t" rxe 4)
			awk -v t="$t" -v r="$r" -v l="$lbw" 'BEGIN {
				if (r > 0 && l > 0)
					printf "  ib_%s: 3 x rxe = %.1f MB/s; the link carries %.1f MB/s over TCP (%.2f of the target)\n", t, 3 * r, l, l / (3 * r)
			}'
		done
		for t in send_lat write_lat; do
			[[ " $tests " == *" $t "* ]] || continue
			r=$(fig "$t" rxe 5)
			awk -v t="$t" -v r="$r" -v l="$llat" -v p="$lrtt" 'BEGIN {
				if (r > 0 && l > 0)
					printf "  ib_%s: rxe / 2 = %.1f us; the link: UDP %.1f us, ICMP half round trip %.1f us\n", t, r / 2, l, p
			}'
		done
	)
	if [ -n "$asks" ]; then
		echo "what the targets ask of the link (rxe's; softhca's is the same kind):"
		echo "$asks"
	fi | tee -a "$res"
fi
[ $ctl_ok = 1 ]
