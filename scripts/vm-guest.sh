#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Runs inside the test VM (host userland, Debian's or the debug kernel).
# Prepares the system, loads the RDMA core modules and softhca.ko (the one
# softhcavm.ko= names, built for this kernel), runs the script named by
# softhcavm.script= with its output in /run/softhca-out, records its exit
# status and the kernel log, and ends the VM (a reboot, which QEMU makes
# an exit). On a kernel with kmemleak, what was suspect before the script
# is set aside and a scan at the end goes to kmemleak.txt.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb
out=/run/softhca-out
arg() { sed -n "s/.*softhcavm\.$1=\([^ ]*\).*/\1/p" /proc/cmdline; }

KMEMLEAK=/sys/kernel/debug/kmemleak
finish() {
	echo "$1" > "$out/status"
	if [ -w $KMEMLEAK ]; then
		# kmemleak reports only objects older than 5 s (its min_age)
		sleep 5
		echo scan > $KMEMLEAK
		cat $KMEMLEAK > "$out/kmemleak.txt"
	fi
	dmesg > "$out/dmesg.txt"
	# lockdep's use of its fixed tables (a "BUG: MAX_LOCKDEP_..." when one
	# runs out): kept to see how close a run came
	[ -r /proc/lockdep_stats ] && cat /proc/lockdep_stats > "$out/lockdep_stats.txt"
	sync
	# reboot, which QEMU's -no-reboot turns into an exit: it needs no
	# ACPI, which the debug kernel leaves out
	echo b > /proc/sysrq-trigger
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
ko=$(arg ko)
export SOFTHCA_TOP=$top SOFTHCA_OUT=$out SOFTHCA_KO=${ko:-$top/kernel/softhca.ko}
[ -f "$out/env" ] && . "$out/env"

for m in ib_core ib_uverbs rdma_ucm; do
	modprobe $m || { echo "vm-guest: modprobe $m failed"; finish 204; }
done
# what kmemleak suspects of the boot is not the tests' (and is not ours)
if [ -w $KMEMLEAK ]; then
	echo scan > $KMEMLEAK
	echo clear > $KMEMLEAK
fi
if [ "$(arg load)" != 0 ]; then
	insmod "$SOFTHCA_KO" || { echo "vm-guest: insmod $SOFTHCA_KO failed"; finish 203; }
fi

echo "vm-guest: running $script"
bash "$script"
finish $?
