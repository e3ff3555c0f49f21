#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# /init of the test VM's initramfs (busybox). Mounts the host's root file
# system (the Debian 13 guest: that root, and this checkout on its own; see
# vm-run.sh) read-only over 9p under a tmpfs overlay, the Debian kernel's
# modules and the run's output folder, then switches to that userland and
# runs scripts/vm-guest.sh there.
PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev

fail() {
	echo "vm-init: $*"
	echo b > /proc/sysrq-trigger	# QEMU's -no-reboot: the VM ends
	sleep 10
}

for m in $(cat /modules/order); do
	insmod /modules/$m.ko || fail "insmod $m failed"
done

opts=trans=virtio,version=9p2000.L,msize=512000
mkdir -p /lower /rw /newroot
mount -t 9p -o ro,cache=loose,$opts hostroot /lower || fail "cannot mount the host root"
mount -t tmpfs -o size=2g,mode=0755 tmpfs /rw
mkdir -p /rw/upper /rw/work
mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work \
	overlay /newroot || fail "cannot mount the overlay"
# the Debian kernel's modules, writable (so "make install" works in the VM)
mkdir -p /kmods /rw/kupper /rw/kwork /newroot/lib/modules
mount -t 9p -o ro,cache=loose,$opts kmods /kmods
mount -t overlay -o lowerdir=/kmods,upperdir=/rw/kupper,workdir=/rw/kwork \
	overlay /newroot/lib/modules || fail "cannot mount the modules"
# a guest root other than the host's (the Debian 13 one): the checkout,
# read-only, at its path on the host (vm-run.sh)
top=$(sed -n 's/.*softhcavm\.top=\([^ ]*\).*/\1/p' /proc/cmdline)
if [ "$(sed -n 's/.*softhcavm\.topshare=\([^ ]*\).*/\1/p' /proc/cmdline)" = 1 ]; then
	mkdir -p "/newroot$top"
	mount -t 9p -o ro,cache=loose,$opts top "/newroot$top" ||
		fail "cannot mount the checkout"
fi
mkdir -p /newroot/run/softhca-out
mount -t 9p -o $opts,cache=none out /newroot/run/softhca-out
mount --move /dev /newroot/dev
mount --move /proc /newroot/proc
mount --move /sys /newroot/sys
guest=$(sed -n 's/.*softhcavm\.guest=\([^ ]*\).*/\1/p' /newroot/proc/cmdline)
exec switch_root /newroot /bin/bash "$guest"
