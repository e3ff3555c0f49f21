#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Memory, CQs and interrupts: PDs, MRs (block size and PAS size checked
# against the physical layout), CQ create/destroy churn on every completion
# vector, dbrec page sharing, malformed input, UAR mmap, the async EQ's
# interrupt, and a clean teardown.
. "$SOFTHCA_TOP/tests/vm/lib.sh"

T=$BIN/softhca-memtest
make_veth veth20 veth21 10.2.0.1/24
check link-add rdma link add softhca0 type softhca netdev veth20
check irqs-named sh -c "grep -q 'softhca0-async' /proc/interrupts && grep -q 'softhca0-cmd' /proc/interrupts && grep -q 'softhca0-ceq0' /proc/interrupts"
ncpu=$(nproc)
check one-ceq-per-cpu sh -c "[ \$(grep -c 'softhca0-ceq' /proc/interrupts) -eq $((ncpu < 32 ? ncpu : 32)) ]"

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

# Nothing is left behind: no objects in the card or in ib_core.
check no-cqs-left sh -c "[ -z \"\$(cat /sys/kernel/debug/softhca/softhca0/cqs)\" ]"
check no-mrs-left sh -c "[ -z \"\$(cat /sys/kernel/debug/softhca/softhca0/mrs)\" ]"
check no-contexts-left sh -c "[ -z \"\$(cat /sys/kernel/debug/softhca/softhca0/dbrec_pages)\" ]"
check no-restrack-objects sh -c "! rdma resource show cq dev softhca0 | grep -q cqn && ! rdma resource show pd dev softhca0 | grep -q pdn && ! rdma resource show mr dev softhca0 | grep -q mrn"
check eqs-not-overrun sh -c "! grep -v 'overruns 0' /sys/kernel/debug/softhca/softhca0/eqs"
check link-delete rdma link delete softhca0
check irqs-freed sh -c "! grep -q softhca0 /proc/interrupts"
check rmmod rmmod softhca
ip link del veth20
