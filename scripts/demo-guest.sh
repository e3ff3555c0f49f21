#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The demo, inside the VM (softhca.ko is already loaded by vm-guest.sh).
export RDMAV_DRIVERS=$SOFTHCA_TOP/build/userspace/libsofthca
set -x
ip link add veth0 type veth peer name veth1
ip link set veth0 up
ip link set veth1 up
ip addr add 10.0.0.1/24 dev veth0
rdma link add softhca0 type softhca netdev veth0
rdma link show
sleep 1
ibv_devices
ibv_devinfo -v -d softhca0
{ set +x; } 2>/dev/null

gid=$(ibv_devinfo -v -d softhca0 | sed -n 's/.*GID\[ *\([0-9]*\)\].*::ffff:10.0.0.1, RoCE v2.*/\1/p')
echo
echo "### ibv_rc_pingpong on softhca0, GID index $gid (RoCEv2 10.0.0.1)"
ibv_rc_pingpong -d softhca0 -g "$gid" -n 1000 > /tmp/server.log 2>&1 &
server=$!
sleep 1
if ibv_rc_pingpong -d softhca0 -g "$gid" -n 1000 127.0.0.1 > /tmp/client.log 2>&1; then
	wait $server
	cat /tmp/server.log /tmp/client.log
else
	kill $server 2>/dev/null
	wait $server 2>/dev/null
	cat /tmp/client.log
	echo
	echo "### softhca does not support QPs yet, so ibv_rc_pingpong cannot run."
	echo "### (Queue pairs and the data path are issue #4.)"
fi
