#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Inside the VM for "make shell" (softhca.ko is loaded by vm-guest.sh):
# softhca0 on a veth, tracefs mounted, the provider found, then an
# interactive root shell on the console with a controlling terminal.
export RDMAV_DRIVERS=${SOFTHCA_PROVIDER_DIR:-$SOFTHCA_TOP/build/userspace}/libsofthca
export PATH=${SOFTHCA_PROVIDER_DIR:-$SOFTHCA_TOP/build/userspace}:$PATH
export TERM=${SHELL_TERM:-vt100}
cd "$SOFTHCA_TOP" || exit 1
dmesg -n 1	# kernel messages to the log, not over the shell

ip link add veth0 type veth peer name veth1
ip link set veth0 up
ip link set veth1 up
ip addr add 10.9.0.1/24 dev veth0
rdma link add softhca0 type softhca netdev veth0
[ -d /sys/kernel/tracing/events ] ||
	mount -t tracefs tracefs /sys/kernel/tracing
gid=
for _ in $(seq 50); do
	gid=$(ibv_devinfo -v -d softhca0 2>/dev/null |
		sed -n 's/.*GID\[ *\([0-9]*\)\].*::ffff:10.9.0.1, RoCE v2.*/\1/p')
	[ -n "$gid" ] && break
	sleep 0.1
done
export GID=$gid

cat <<MSG

softhca shell: softhca0 is up on veth0 (10.9.0.1), RoCEv2 GID index $GID.
  ibv_devinfo -v -d softhca0
  ibv_rc_pingpong -d softhca0 -g \$GID -e -n 10 &  ibv_rc_pingpong -d softhca0 -g \$GID -e -n 10 127.0.0.1
  rdma -dd resource show cq          the card's view (Documentation/observing.rst)
  cat /sys/kernel/debug/softhca/softhca0/eqs
  echo 1 > /sys/kernel/tracing/events/softhca/enable    (and softhca_hw)
  cat /sys/kernel/tracing/trace                          (Documentation/watching.rst)
The checkout is $SOFTHCA_TOP (read-only; /tmp is writable). exit leaves the VM.

MSG
PS1='softhca-vm:\w# ' setsid -c bash --norc -i <>/dev/ttyS0 >&0 2>&0
exit 0
