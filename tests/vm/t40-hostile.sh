#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-kernels: debug
# Hostile users and a wedged card (issue 12): the rdma cgroup bounds what
# one user takes and max_pd is what the card really holds; the device
# going away (rdma link delete, rmmod) under processes with QPs
# mid-transfer zaps their UAR mappings, tells them and stops their
# traffic, an rmmod while a wake-up file holds the module is refused and
# changes nothing, and the device comes back; a command
# the card never finishes makes the device dead (fail fast, fatal event),
# and the device can still be removed and added again. (Cross-QP RDMA,
# inline atomics, event floods and wrapping registrations are verbstest
# cases in t30.)
. "$SOFTHCA_TOP/tests/vm/lib.sh"

V=$BIN/softhca-verbstest
P=/sys/module/softhca/parameters
ip netns add peer40
ip link add veth40 type veth peer name veth41 netns peer40
ip link set veth40 up
ip -n peer40 link set veth41 up
ip addr add 10.4.0.1/24 dev veth40
check link-add rdma link add softhca0 type softhca netdev veth40
gid_of() {
	ibv_devinfo -v -d softhca0 |
		sed -n 's/.*GID\[ *\([0-9]*\)\].*::ffff:10.4.0.1, RoCE v2.*/\1/p'
}
gid=$(gid_of)
check rocev2-gid-found test -n "$gid"

# tool_results <log> <exit status> <name>: the PASS/FAIL lines of a test
# program that ran in the background, as check_tool records them.
tool_results() {
	local line c
	while read -r line; do
		case $line in
		PASS\ *) pass "${line#PASS }" ;;
		FAIL\ *) c=${line#FAIL }; fail "${c%%:*}" "${c#*: }" ;;
		esac
	done < "$1"
	if [ "$2" -gt 1 ] || ! grep -qE '^(PASS|FAIL) ' "$1"; then
		fail "$3-exit-$2" "$(tail -n 1 "$1")"
	fi
}

# The rdma cgroup limits the objects one group of processes creates.
mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup
echo +rdma > /sys/fs/cgroup/cgroup.subtree_control
mkdir -p /sys/fs/cgroup/softhca40
echo "softhca0 hca_handle=4 hca_object=10" > /sys/fs/cgroup/softhca40/rdma.max
check_tool sh -c "echo \$\$ > /sys/fs/cgroup/softhca40/cgroup.procs && exec $V softhca0 $gid pd-cgroup=10"
# Limits back to max first: the cgroup's pool for the device then goes
# with it. (6.1 frees a cgroup that still has a limited pool on the
# device's list, and unregistering the device walks freed memory.)
echo "softhca0 hca_handle=max hca_object=max" > /sys/fs/cgroup/softhca40/rdma.max
rmdir /sys/fs/cgroup/softhca40
# (without one, the card's own limit holds exactly: t20, on Debian's
# kernel, where 65535 PDs take seconds instead of minutes)

# Processes holding a context, a mapped UAR and a pair mid-transfer
# (softhca-verbstest uar-zap/hold): each waits for a line on a FIFO after
# saying READY. holder_start <name> <test> [VAR=value...];
# holder_go <name>: the line, then its results.
declare -A holder_pid holder_fd holder_log
holder_start() {
	local name=$1 test=$2 fifo fd
	shift 2
	fifo=$(mktemp -u /tmp/softhca-$name.XXXXXX)	# not on the 9p share
	holder_log[$name]=$LOGS/$GROUP.$name.log
	mkfifo "$fifo"
	env "$@" "$V" softhca0 "$gid" "$test" <"$fifo" >"${holder_log[$name]}" 2>&1 &
	holder_pid[$name]=$!
	exec {fd}>"$fifo"
	holder_fd[$name]=$fd
	rm -f "$fifo"
	check "$name-ready" wait_line ${holder_pid[$name]} "${holder_log[$name]}" '^READY'
}
holder_go() {
	local fd=${holder_fd[$1]} rc
	echo go >&"$fd"
	exec {fd}>&-
	wait "${holder_pid[$1]}"
	rc=$?
	tool_results "${holder_log[$1]}" $rc "$1"
}

# The device goes away under two of them.
holder_start zap uar-zap
holder_start zap2 uar-zap=zap2
check zap-link-delete timeout 60 rdma link delete softhca0
holder_go zap
holder_go zap2

# rmmod under a holder: its wake-up file holds the module, so the unload
# is refused and the holder goes on; once it is gone the module unloads.
check relink-for-rmmod rdma link add softhca0 type softhca netdev veth40
gid=$(gid_of)
holder_start hold hold=hold
check_fails rmmod-refused-while-held "in use" rmmod softhca
holder_go hold
# a provider without the wake-up file (SOFTHCA_WAKE_CALL=post_send) does
# not hold the module: rmmod removes the device under it
holder_start zap-rmmod uar-zap=zap-rmmod SOFTHCA_WAKE_CALL=post_send
check rmmod-under-holder timeout 120 rmmod softhca
holder_go zap-rmmod
check rmmod-no-device lacks softhca rdma dev
check insmod-after-rmmod insmod "$SOFTHCA_KO"

# A wedged card: CREATE_MKEY (0x500) never finishes.
check relink rdma link add softhca0 type softhca netdev veth40
gid=$(gid_of)
echo 300 > $P/cmd_timeout_ms
echo $((0x500)) > $P/hw_fault_cmd_stall
check_tool timeout 120 "$V" softhca0 "$gid" cmd-timeout
check timeout-logged-with-name sh -c "dmesg | grep -q 'command CREATE_MKEY (0x500) in slot [0-9]* timed out after 300 ms'"
echo 0 > $P/hw_fault_cmd_stall
echo 10000 > $P/cmd_timeout_ms
check dead-device-link-delete timeout 60 rdma link delete softhca0
check relink-after-dead rdma link add softhca0 type softhca netdev veth40
gid=$(gid_of)
check_tool "$V" softhca0 "$gid" iova-wrap cross
check link-delete rdma link delete softhca0
check rmmod rmmod softhca
# on a kernel with kmemleak: nothing of the above leaked
if [ -e /sys/kernel/debug/kmemleak ]; then
	check kmemleak-clean kmemleak_clean
fi
ip link del veth40
ip netns del peer40
