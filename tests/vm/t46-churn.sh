#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-kernels: debug
# (about 2 minutes of the debug VM; alone: SOFTHCA_VM_TESTS=tests/vm/t46-churn.sh
# SOFTHCA_VM_KERNEL=debug tests/vm-tests.sh)
# Churn (issue 12): softhca-churn's worker threads create, modify, post to
# and destroy random objects with random, often invalid, parameters (also
# as raw uverbs commands with random driver data), children stream
# traffic and are SIGKILLed mid-transfer, unmap registered memory under a
# transfer, close their files in odd orders, forks use the parent's
# contexts; a sentinel pair's data is checked all along. Afterwards
# nothing is left in ib_core or the card, kmemleak finds nothing and the
# module unloads and loads again. SOFTHCA_CHURN_SECONDS (60) bounds it.
. "$SOFTHCA_TOP/tests/vm/lib.sh"

secs=${SOFTHCA_CHURN_SECONDS:-60}
make_veth veth46 veth47 10.46.0.1/24
check link-add rdma link add softhca0 type softhca netdev veth46
gid=$(ibv_devinfo -v -d softhca0 |
	sed -n 's/.*GID\[ *\([0-9]*\)\].*::ffff:10.46.0.1, RoCE v2.*/\1/p')
check rocev2-gid-found test -n "$gid"
# what the card holds from the start: the MAD layer's GSI QP, its CQ and
# its PD's DMA MR (ib_core's own client of every RDMA device)
for t in qps cqs mrs; do debugfs_baseline /sys/kernel/debug/softhca/softhca0/$t; done

check_tool timeout $((secs + 600)) "$BIN/softhca-churn" softhca0 "$gid" "$secs" 3

# Nothing is left: every process is gone, so is everything it held.
C=/sys/kernel/debug/softhca/softhca0
no_restrack_objects() {
	local t n
	for t in pd cq qp mr srq ctx; do
		n=$(restrack_count $t softhca0) || { echo "rdma resource show $t failed"; return 1; }
		echo "$t: $n"
		[ "$n" -eq 0 ] || return 1
	done
}
check no-restrack-objects wait_for 60 no_restrack_objects
check no-cqs-left debugfs_as_baseline $C/cqs
check no-mrs-left debugfs_as_baseline $C/mrs
check no-qps-left debugfs_as_baseline $C/qps
check no-contexts-left debugfs_empty $C/dbrec_pages
check link-delete rdma link delete softhca0
check rmmod rmmod softhca
check kmemleak-clean kmemleak_clean
check insmod-again insmod "$SOFTHCA_KO"
ip link del veth46
