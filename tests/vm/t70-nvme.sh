#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-kernels: debian debug
# NVMe over RDMA in one VM, through softhca0 (issue 10): an nvmet target
# (configfs, nvmet-rdma) exporting a memory-backed null_blk namespace on
# the address of softhca0's netdev, and the nvme-rdma host connected to
# it with nvme-cli. fio writes at random and reads everything back
# verified (4 KiB blocks, then mixed sizes up to 256 KiB, which take
# fast-registration page lists of many pages), the host disconnects, and
# softhca is unloaded with the target's port still listening on it (the
# device's removal reaches nvmet-rdma's listener). The kernel log then
# holds no NVMe or RDMA error.
. "$SOFTHCA_TOP/tests/vm/lib.sh"

IP=10.70.0.1
NQN=nqn.2024-01.io.softhca:t70
CFS=/sys/kernel/config/nvmet
SUB=$CFS/subsystems/$NQN
NVPORT=$CFS/ports/1

ip link add vnv0 type veth peer name vnv1
ip link set vnv0 up
ip link set vnv1 up
ip addr add $IP/24 dev vnv0
check link-add rdma link add softhca0 type softhca netdev vnv0
check modules-load modprobe -a nvmet nvmet-rdma nvme-rdma
# a 1 GiB RAM disk whose pages exist only once written
check null-blk-load modprobe null_blk nr_devices=1 gb=1 memory_backed=1
check rocev2-gid-found wait_for 60 sh -c \
	"ibv_devinfo -v -d softhca0 | grep -q '::ffff:$IP, RoCE v2'"

# The target, by configfs (Debian 12 has no nvmetcli).
target_up() {
	mountpoint -q /sys/kernel/config ||
		mount -t configfs none /sys/kernel/config || return 1
	mkdir "$SUB" &&
		echo 1 > "$SUB/attr_allow_any_host" &&
		mkdir "$SUB/namespaces/1" &&
		echo -n /dev/nullb0 > "$SUB/namespaces/1/device_path" &&
		echo 1 > "$SUB/namespaces/1/enable" &&
		mkdir "$NVPORT" &&
		echo rdma > "$NVPORT/addr_trtype" &&
		echo ipv4 > "$NVPORT/addr_adrfam" &&
		echo $IP > "$NVPORT/addr_traddr" &&
		echo 4420 > "$NVPORT/addr_trsvcid" &&
		ln -s "$SUB" "$NVPORT/subsystems/$NQN"
}
check target-configured target_up
# nvmet-rdma listens through rdma_cm on softhca0
target_listens() {
	rdma resource show cm_id | tee /dev/stderr |
		grep -Eq "^link softhca0/1 .*state LISTEN .*comm \[nvmet_rdma\] src-addr $IP:4420"
}
check target-listens-on-softhca0 target_listens

check discover sh -c "nvme discover -t rdma -a $IP -s 4420 | tee /dev/stderr | grep -q 'subnqn: *$NQN'"
check connect nvme connect -t rdma -n $NQN -a $IP -s 4420 -i 1

# The namespace of the controller of our subsystem, once it is there.
ns_dev() {
	local c n
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = $NQN ] || continue
		[ "$(cat "$c/transport" 2>/dev/null)" = rdma ] || continue
		for n in "$c"/nvme*n1 /sys/block/"${c##*/}"n1; do
			[ -e "$n" ] && [ -b "/dev/${n##*/}" ] && { echo "/dev/${n##*/}"; return 0; }
		done
	done
	return 1
}
check namespace-appears wait_for 60 ns_dev
dev=$(ns_dev)
# the admin and I/O queues are RC QPs of softhca0 in RTS, host and target
rdma_cm_qps() {
	local out n
	out=$(rdma resource show qp) || return 1
	printf '%s\n' "$out"
	n=$(printf '%s\n' "$out" |
		grep -Ec '^link softhca0/1 .*type RC state RTS .*comm \[rdma_cm\]')
	echo "RC QPs of rdma_cm in RTS: $n"
	[ "$n" -ge 4 ]
}
check queues-are-softhca0-qps rdma_cm_qps

# fio_ok <log>: fio succeeded with no error, and read back and verified
# (the verify phase reads) all that it wrote.
fio_verify() {
	local name=$1 log=$LOGS/$GROUP.$1.log
	shift
	logmap "$name" "$log"
	if timeout 600 fio --name="$name" --filename="$dev" --direct=1 \
		--ioengine=libaio --size=32M --verify_fatal=1 \
		--do_verify=1 "$@" > "$log" 2>&1 &&
	   grep -q 'err= 0' "$log" &&
	   grep -Eq '^ +READ: .*io=32\.0MiB' "$log" &&
	   grep -Eq '^ +WRITE: .*io=32\.0MiB' "$log" &&
	   ! grep -qi 'verify.*fail\|bad magic\|crc.*mismatch' "$log"; then
		pass "$name"
	else
		fail "$name" "$(grep -m1 -i 'err=\|error\|verify' "$log" | cut -c1-140)"
	fi
}
# Who served the kernel posts (the card's port counters): the 4 KiB run
# has the posting context serve them (engine_kernel_inline=1: nvme-rdma
# posts from queue_rq, nvmet-rdma from its completion path, interrupts
# on), the mixed run the engine thread (the default).
P=/sys/module/softhca/parameters
C=/sys/class/infiniband/softhca0/ports/1/hw_counters
kwake() {
	echo "$(cat $C/kernel_wakeups_served_inline) $(cat $C/kernel_wakeups_to_engine)"
}
read -r i0 e0 < <(kwake)
i1=$i0 e1=$e0 i2=$i0 e2=$e0
if [ -n "$dev" ]; then
	echo 1 > $P/engine_kernel_inline
	fio_verify fio-randwrite-4k-crc32c --rw=randwrite --bs=4k \
		--iodepth=16 --verify=crc32c
	echo 0 > $P/engine_kernel_inline
	read -r i1 e1 < <(kwake)
	fio_verify fio-randwrite-mixed-md5 --rw=randwrite \
		--bsrange=4k-256k --iodepth=8 --verify=md5
	read -r i2 e2 < <(kwake)
else
	fail fio-randwrite-4k-crc32c "no namespace device"
	fail fio-randwrite-mixed-md5 "no namespace device"
fi

# engine_kernel_inline=1: ENGINE_DB_ASYNC visited the QPs in the posting
# context (a few land on the engine thread: a QP it was visiting)
kwake_inline() {
	echo "4 KiB run: $((i1 - i0)) served inline, $((e1 - e0)) left to the engine thread"
	[ $((i1 - i0)) -gt 1000 ] && [ $((i1 - i0)) -ge $((4 * (e1 - e0))) ]
}
check kernel-posts-served-inline kwake_inline
# by default the engine thread takes them, none served inline
kwake_engine() {
	echo "mixed run: $((i2 - i1)) served inline, $((e2 - e1)) left to the engine thread"
	[ $((i2 - i1)) -eq 0 ] && [ $((e2 - e1)) -gt 0 ]
}
check kernel-posts-to-engine-by-default kwake_engine

# rdma_dim moderates the kernel CQs softhca0 has while NVMe runs on it
# (the card moderates, so softhca sets use_cq_dim, as mlx5 and erdma do):
# the CQs of the NVMe queues, host and target, and the MAD layer's (all
# ib_core's: the queues' come from its CQ pool) say adaptive-moderation
# on. The check goes by owner, not by poll-ctx: iproute2 6.1 names the
# kernel's poll contexts one off (IB_POLL_SOFTIRQ, 0, as "DIRECT"). Where
# rdma_dim has moved the card's moderation by now (drv_mod_count,
# drv_mod_period_us) is in the log.
kernel_cqs_adaptive() {
	local out cqs
	out=$(rdma -dd resource show cq dev softhca0) || return 1
	printf '%s\n' "$out"
	cqs=$(printf '%s\n' "$out" | grep -E ' comm \[')
	echo "kernel CQs: $(printf '%s\n' "$cqs" | grep -c .)," \
		"without adaptive moderation: $(printf '%s\n' "$cqs" | grep -vc 'adaptive-moderation on')," \
		"moderated by rdma_dim now: $(printf '%s\n' "$cqs" | grep -Evc 'drv_mod_count 0 |drv_mod_period_us 0 *$')"
	[ "$(printf '%s\n' "$cqs" | grep -c 'adaptive-moderation on')" -ge 3 ] &&
		! printf '%s\n' "$cqs" | grep -qv 'adaptive-moderation on'
}
check kernel-cqs-adaptive-moderation kernel_cqs_adaptive

check disconnect sh -c "nvme disconnect -n $NQN | tee /dev/stderr | grep -q 'disconnected 1 controller'"
check controller-gone wait_for 60 sh -c "! ls /sys/class/nvme/ 2>/dev/null | grep -q ."
# nothing of the host is left on softhca0 (the target's listener only)
host_gone() {
	local out
	out=$(rdma resource show qp) || return 1
	printf '%s\n' "$out"
	! printf '%s\n' "$out" | grep -q '^link softhca0/.*type RC'
}
check no-rc-qps-left wait_for 60 host_gone

# softhca goes while nvmet-rdma still listens on its device: the module's
# unload unregisters softhca0, rdma_cm tells the listener the device is
# being removed, nvmet-rdma lets go of it, and the unload completes.
check rmmod-with-target-listening rmmod softhca
target_down() {
	rm "$NVPORT/subsystems/$NQN" && rmdir "$NVPORT" &&
		echo 0 > "$SUB/namespaces/1/enable" &&
		rmdir "$SUB/namespaces/1" && rmdir "$SUB"
}
check target-removed target_down
check modules-unload modprobe -r nvme-rdma nvmet-rdma nvmet null_blk
check kernel-log-no-nvme-errors lacks \
	'nvme.*(error|timeout|timed out|reset|failed)|nvmet.*(error|failed)|I/O error|blk_update_request' \
	dmesg
ip link del vnv0
