#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-kernels: debian debug
# Memory, CQs and interrupts: PDs, MRs (block size and PAS size checked
# against the physical layout), CQ create/destroy churn on every completion
# vector, dbrec page sharing, malformed input, UAR mmap, the async EQ's
# interrupt, and a clean teardown.
. "$SOFTHCA_TOP/tests/vm/lib.sh"

T=$BIN/softhca-memtest
make_veth veth20 veth21 10.2.0.1/24
check link-add rdma link add softhca0 type softhca netdev veth20
# what the card holds from the start: the MAD layer's GSI QP, its CQ and
# its PD's DMA MR (ib_core's own client of every RDMA device)
D=/sys/kernel/debug/softhca/softhca0
debugfs_baseline $D/cqs
debugfs_baseline $D/mrs
check irqs-named sh -c "grep -q 'softhca0-async' /proc/interrupts && grep -q 'softhca0-cmd' /proc/interrupts && grep -q 'softhca0-ceq0' /proc/interrupts"
ncpu=$(nproc)
check one-ceq-per-cpu sh -c "[ \$(grep -c 'softhca0-ceq' /proc/interrupts) -eq $((ncpu < 32 ? ncpu : 32)) ]"
# each completion EQ's line is steered to its own CPU (the i-th CEQ to the
# i-th CPU, one NUMA node here): the affinity the driver sets is the one
# the card raises the line on (effective_affinity), not left pending
ceqs_on_their_cpus() {
	local irq name n=0
	while read -r irq name; do
		echo "$name (irq $irq): hint $(cat /proc/irq/$irq/affinity_hint)," \
			"effective $(cat /proc/irq/$irq/effective_affinity_list)"
		[ "$(cat /proc/irq/$irq/effective_affinity_list)" = "${name#softhca0-ceq}" ] || return 1
		n=$((n + 1))
	done < <(awk '$NF ~ /^softhca0-ceq[0-9]+$/ {sub(":", "", $1); print $1, $NF}' /proc/interrupts)
	[ $n -eq $((ncpu < 32 ? ncpu : 32)) ]
}
check ceqs-steered-to-their-cpus ceqs_on_their_cpus

check_tool "$T" softhca0 cq-churn 5
check_tool "$T" softhca0 cq-overmax
check_tool "$T" softhca0 dbrec-share 100
check_tool "$T" softhca0 mr 1byte
check_tool "$T" softhca0 mr unaligned
check_tool "$T" softhca0 mr huge64m
check_tool "$T" softhca0 mr 1g
check_tool "$T" softhca0 malformed
# pinning is charged to RLIMIT_MEMLOCK for a process without CAP_IPC_LOCK
chmod 0666 /dev/infiniband/uverbs*
check_tool sh -c "ulimit -l 1024 && exec setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all $T softhca0 mr-memlock"
check_tool "$T" softhca0 mmap
check_tool "$T" softhca0 restrack
check_tool "$T" softhca0 cmd-irq 50
# the card's own PD limit, reported as max_pd, holds exactly (65534 PDs:
# 18 s on Debian's kernel, about 200 s on the debug kernel, where
# debug_trim leaves it out: the card's table end is reached on Debian's
# kernels only; on the debug kernel t40 runs a PD count into the rdma
# cgroup's limit, ib_core's charge)
if ! debug_trim; then
	gid=$(ibv_devinfo -v -d softhca0 |
		sed -n 's/.*GID\[ *\([0-9]*\)\].*::ffff:10.2.0.1, RoCE v2.*/\1/p')
	check_tool timeout 600 "$BIN/softhca-verbstest" softhca0 "${gid:-0}" pd-max
fi

# Nothing is left behind: no objects in the card or in ib_core.
# (the card's listings: present, readable, holding only what the MAD layer
# made at link add; ib_core's count of user objects: zero)
check no-cqs-left debugfs_as_baseline $D/cqs
check no-mrs-left debugfs_as_baseline $D/mrs
check no-contexts-left debugfs_empty $D/dbrec_pages
no_restrack_objects() {
	local t n
	for t in cq pd mr qp; do
		n=$(restrack_count $t softhca0) || { echo "rdma resource show $t failed"; return 1; }
		echo "$t: $n"
		[ "$n" -eq 0 ] || return 1
	done
}
check no-restrack-objects no_restrack_objects
# every EQ is listed (the command EQ, the async EQ and one per completion
# vector), none overran
eqs_not_overrun() {
	local out
	out=$(cat $D/eqs) || return 1
	echo "$out"
	[ "$(printf '%s\n' "$out" | grep -c '^eqn ')" -eq $((2 + (ncpu < 32 ? ncpu : 32))) ] &&
		! printf '%s\n' "$out" | grep -v 'overruns 0$'
}
check eqs-not-overrun eqs_not_overrun
check link-delete rdma link delete softhca0
check irqs-freed sh -c "! grep -q softhca0 /proc/interrupts"
check rmmod rmmod softhca
ip link del veth20
