#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-kernels: debian debian13 k612 debug
# The device: rdma link add/delete, ibv_devinfo field by field, port state
# following the carrier, a second device, error cases, netdev removal,
# installed provider, rmmod.
. "$SOFTHCA_TOP/tests/vm/lib.sh"

# The module running is this build's softhca.ko ($SOFTHCA_KO: the one built
# for the kernel booted, kernel/softhca.ko on Debian's 6.1): the GNU build ID in
# its ELF notes is the one the kernel keeps for the loaded module.
loaded_build_id() {
	# the raw note: namesz, descsz, type (4 bytes each), "GNU\0", the ID
	od -An -tx1 -v -j16 /sys/module/softhca/notes/.note.gnu.build-id | tr -d ' \n'
}
file_build_id() {
	readelf -n "$1" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p' | head -n 1
}
module_is_this_build() {
	local want got
	want=$(file_build_id "$SOFTHCA_KO")
	got=$(loaded_build_id)
	echo "state $(cat /sys/module/softhca/initstate), loaded build ID '$got', $SOFTHCA_KO '$want'"
	[ "$(cat /sys/module/softhca/initstate)" = live ] && [ -n "$want" ] &&
		[ "$got" = "$want" ]
}
check module-loaded module_is_this_build
# Loading it took no parameter it does not know (the VM's own settings on
# the kernel command line are softhcavm.*, which kmod does not hand it).
check module-no-unknown-parameter sh -c "dmesg | grep 'softhca: unknown parameter'; test \$? = 1"
make_veth veth0 veth1 10.0.0.1/24
make_veth veth2 veth3 10.0.1.1/24
mac0=$(cat /sys/class/net/veth0/address)
mac2=$(cat /sys/class/net/veth2/address)

check link-add rdma link add softhca0 type softhca netdev veth0
check ibv-devices-lists sh -c "ibv_devices | grep -q \"softhca0.*$(mac_to_guid "$mac0" | tr -d :)\""
check parent-modalias grep -qx platform:softhca /sys/class/infiniband/softhca0/device/modalias

# Device attributes: every value is what the card's QUERY_CAPS reports,
# all from one query (ibv_devinfo -v takes a second on the debug kernel).
info=$(ibv_devinfo -v -d softhca0)
echo "$info" > "$LOGS/$GROUP.devinfo.txt"
field() { devinfo_pick "$1" <<< "$info"; }
expect_eq devinfo-transport "$(field transport)" "InfiniBand (0)"
expect_eq devinfo-fw-ver "$(field fw_ver)" "1.0.0"
expect_eq devinfo-node-guid "$(field node_guid)" "$(mac_to_guid "$mac0")"
expect_eq devinfo-sys-image-guid "$(field sys_image_guid)" "$(mac_to_guid "$mac0")"
expect_eq devinfo-vendor-id "$(field vendor_id)" "0x5348"
expect_eq devinfo-vendor-part "$(field vendor_part_id)" "23713"
expect_eq devinfo-hw-ver "$(field hw_ver)" "0x1"
expect_eq devinfo-ports "$(field phys_port_cnt)" "1"
expect_eq devinfo-max-mr-size "$(field max_mr_size)" "0x10000000000"
expect_eq devinfo-page-size-cap "$(field page_size_cap)" "0x40201000"
expect_eq devinfo-max-qp "$(field max_qp)" "65534"
expect_eq devinfo-max-qp-wr "$(field max_qp_wr)" "32768"
expect_eq devinfo-max-sge "$(field max_sge)" "16"
expect_eq devinfo-max-cq "$(field max_cq)" "65535"
expect_eq devinfo-max-cqe "$(field max_cqe)" "4194303"
expect_eq devinfo-max-mr "$(field max_mr)" "1048574"
expect_eq devinfo-max-pd "$(field max_pd)" "65534"
expect_eq devinfo-max-qp-rd-atom "$(field max_qp_rd_atom)" "128"
expect_eq devinfo-max-pkeys "$(field max_pkeys)" "1"
expect_eq devinfo-ack-delay "$(field local_ca_ack_delay)" "15"
ncpu=$(nproc)
expect_eq devinfo-comp-vectors "$(field num_comp_vectors)" "$((ncpu < 32 ? ncpu : 32))"

# The port follows its netdev (the same query).
expect_eq port-active "$(field state)" "PORT_ACTIVE (4)"
expect_eq port-phys-state "$(field phys_state)" "LINK_UP (5)"
expect_eq port-link-layer "$(field link_layer)" "Ethernet"
expect_eq port-max-mtu "$(field max_mtu)" "4096 (5)"
expect_eq port-active-mtu-1500 "$(field active_mtu)" "1024 (3)"
ip link set veth0 mtu 9000
expect_eq port-active-mtu-9000 "$(devinfo_field softhca0 active_mtu)" "4096 (5)"
ip link set veth0 mtu 1500
expect_eq port-gid-table-len "$(field gid_tbl_len)" "64"

gids() { ibv_devinfo -v -d softhca0 | grep 'GID\['; }
check gid-ipv4-rocev2 sh -c "ibv_devinfo -v -d softhca0 | grep -q 'GID\[.*::ffff:10.0.0.1, RoCE v2'"
lladdr=$(ip -6 addr show dev veth0 scope link | sed -n 's/.*inet6 \(fe80::[0-9a-f:]*\)\/64.*/\1/p')
check gid-linklocal-rocev2 sh -c "ibv_devinfo -v -d softhca0 | grep -q 'GID\[.*$lladdr, RoCE v2'"
check gid-no-rocev1 lacks 'RoCE v1' ibv_devinfo -v -d softhca0
ip addr add 10.0.9.9/24 dev veth0
check gid-follows-address wait_for 30 sh -c "ibv_devinfo -v -d softhca0 | grep -q '::ffff:10.0.9.9, RoCE v2'"
ip addr del 10.0.9.9/24 dev veth0
check gid-removed-with-address wait_for 30 lacks '10\.0\.9\.9' ibv_devinfo -v -d softhca0
gids > "$LOGS/$GROUP.gids.txt"

# Carrier loss and return: port state and the async events. The watcher
# is ready once it says it opened the async event FD ("softhca0: async
# event FD <n>"): from then on every event reaches it.
aw=$LOGS/$GROUP.asyncwatch.txt
ibv_asyncwatch -d softhca0 > "$aw" 2>&1 &
watch=$!
check asyncwatch-ready wait_line $watch "$aw" '^softhca0: async event FD [0-9]+'
ip link set veth1 down
check carrier-down-port-down wait_for 30 sh -c "ibv_devinfo -d softhca0 | grep -q PORT_DOWN"
check event-port-err wait_line $watch "$aw" 'event_type IBV_EVENT_PORT_ERR'
ip link set veth1 up
check carrier-up-port-active wait_for 30 sh -c "ibv_devinfo -d softhca0 | grep -q PORT_ACTIVE"
# (after the PORT_ERR: the watcher opened on an active port)
port_active_after_err() {
	awk '/event_type IBV_EVENT_PORT_ERR/ {e = 1}
	     e && /event_type IBV_EVENT_PORT_ACTIVE/ {a = 1}
	     END {exit !a}' "$aw"
}
check event-port-active wait_for 60 port_active_after_err
kill $watch 2>/dev/null
wait $watch 2>/dev/null
cat "$aw" >> "$LOGS/$GROUP.event-port-active.log"

# A second device on another netdev.
check second-device rdma link add softhca1 type softhca netdev veth2
expect_eq second-device-guid "$(devinfo_field softhca1 node_guid)" "$(mac_to_guid "$mac2")"
check second-device-gid sh -c "ibv_devinfo -v -d softhca1 | grep -q '::ffff:10.0.1.1, RoCE v2'"
check two-platform-devices sh -c "[ \$(ls -d /sys/bus/platform/devices/softhca.* | wc -l) -eq 2 ]"

# Errors say why.
check_fails dup-netdev-eexist "File exists" rdma link add softhca9 type softhca netdev veth0
check_fails dup-name-eexist "File exists" rdma link add softhca0 type softhca netdev veth3
check_fails missing-netdev-enodev "No such device" rdma link add softhca9 type softhca netdev nosuch0
check_fails loopback-netdev-einval "Invalid argument" rdma link add softhca9 type softhca netdev lo
check no-stray-device lacks softhca9 rdma dev

# Removal: rdma link delete, and the netdev going away.
check link-delete rdma link delete softhca1
check link-delete-gone lacks softhca1 rdma dev
check link-delete-pdev-gone sh -c "[ \$(ls -d /sys/bus/platform/devices/softhca.* | wc -l) -eq 1 ]"
check relink rdma link add softhca1 type softhca netdev veth2
ip link del veth2
check netdev-delete-removes wait_for 30 lacks softhca1 rdma dev

# The Debian 13 guest (rdma-core 56): the provider built for rdma-core 44
# (the host's build) is refused, saying so, and gives no device; the one
# built for 56 is the one every other check here runs. (libibverbs names
# the device it could not allocate; ibv_devinfo -l must not list it.)
refused_44() {
	local said
	said=$(RDMAV_DRIVERS=$SOFTHCA_TOP/build/userspace/libsofthca ibv_devinfo -l 2>&1)
	echo "$said"
	grep -q 'built for rdma-core 44 .*not 56' <<< "$said" &&
		! grep -qx '[[:space:]]*softhca0' <<< "$said"
}
if [ "${SOFTHCA_VM_TAG:-}" = -d13 ]; then
	check provider-for-44-refused refused_44
fi

# The provider loads installed as well as from the build tree. The
# module index as it was (the modules.* files depmod writes) is kept to be
# put back once the installed module has been tried.
kmods=/lib/modules/$(uname -r)
index=$(mktemp -d)
cp -a "$kmods"/modules.* "$index/"
check make-install env SOFTHCA_INSTALL_KO="$SOFTHCA_KO" \
	SOFTHCA_INSTALL_LIB="$SOFTHCA_PROVIDER_DIR/libsofthca-rdmav34.so" \
	"$SOFTHCA_TOP/scripts/install.sh"
check installed-provider-file test -f /etc/libibverbs.d/softhca.driver
check installed-provider-loads env -u RDMAV_DRIVERS sh -c "ibv_devinfo -d softhca0 | grep -q PORT_ACTIVE"

# Unload with a device still present, then load the installed module.
check rmmod-with-device rmmod softhca
check rmmod-no-device lacks softhca rdma dev
check rmmod-no-pdev lacks softhca ls /sys/bus/platform/devices/
check modprobe-installed modprobe softhca
check modprobe-link-add rdma link add softhca0 type softhca netdev veth0
check modprobe-devinfo sh -c "env -u RDMAV_DRIVERS ibv_devinfo -d softhca0 | grep -q PORT_ACTIVE"
check modprobe-rmmod rmmod softhca
# The module uninstalled again, its index back as before the install
# (what depmod would write without it, without depmod's 25 s under TCG):
# t90 installs the packages on a system without softhca.ko.
uninstall_module() {
	rm -f "$kmods/extra/softhca.ko" && cp -a "$index"/modules.* "$kmods/" &&
		! modinfo softhca
}
check module-uninstalled uninstall_module
rm -rf "$index"
