#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Runs inside the test VM (host userland, Debian kernel). Prepares the
# system, loads the RDMA core modules and softhca.ko, runs the script named
# by softhca.script= with its output in /run/softhca-out, records its exit
# status and the kernel log, and powers off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb
out=/run/softhca-out
arg() { sed -n "s/.*softhca\.$1=\([^ ]*\).*/\1/p" /proc/cmdline; }

finish() {
	echo "$1" > "$out/status"
	dmesg > "$out/dmesg.txt"
	sync
	echo o > /proc/sysrq-trigger
	sleep 10
}

# /tmp stays the overlay's (writable, on tmpfs): a tmpfs mounted over it
# would hide a checkout that lives under the host's /tmp.
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mkdir -p /dev/pts /dev/shm /dev/hugepages
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t hugetlbfs hugetlbfs /dev/hugepages
# what udev would add to devtmpfs (bash's <(...) needs /dev/fd: dkms uses it)
ln -sfn /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
ip link set lo up
ulimit -l unlimited
ulimit -c 0

top=$(arg top)
script=$(arg script)
cd "$top" || finish 205
export SOFTHCA_TOP=$top SOFTHCA_OUT=$out
[ -f "$out/env" ] && . "$out/env"

for m in ib_core ib_uverbs rdma_ucm; do
	modprobe $m || { echo "vm-guest: modprobe $m failed"; finish 204; }
done
if [ "$(arg load)" != 0 ]; then
	insmod "${SOFTHCA_KO:-$top/kernel/softhca.ko}" || { echo "vm-guest: insmod softhca.ko failed"; finish 203; }
fi

echo "vm-guest: running $script"
bash "$script"
finish $?
