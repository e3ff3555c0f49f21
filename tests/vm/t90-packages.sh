#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-kernels: debian debian13
# The Debian packages of "make deb" (build/deb; in the Debian 13 guest
# build/deb-d13, built there), installed as a user would: the kernel
# headers, then "apt install ./softhca-dkms_*.deb ./libsofthca_*.deb"
# (DKMS builds softhca.ko in the postinst), modprobe, rdma link add,
# ibv_devinfo and ibv_rc_pingpong on the installed provider; then "apt
# remove" leaves nothing behind. Nothing is downloaded: the packages'
# dependencies are on the root the guest runs on (the host's; the Debian
# 13 root), the headers unpacked in .cache/kernel (scripts/fetch-kernel.sh;
# the Debian 13 root has its kernel's installed).
. "$SOFTHCA_TOP/tests/vm/lib.sh"

unset RDMAV_DRIVERS
export DEBIAN_FRONTEND=noninteractive
kver=$(uname -r)
version=$(cat "$SOFTHCA_TOP/VERSION")
d13=
[ "${SOFTHCA_VM_TAG:-}" != -d13 ] || d13=-d13
debs=$SOFTHCA_TOP/build/deb$d13
provdir=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)/libibverbs
provider=$provdir/libsofthca-rdmav34.so	# the file name carries the private ABI
driver=/etc/libibverbs.d/softhca.driver
dkms_deb=$(ls "$debs"/softhca-dkms_*_all.deb 2>/dev/null | tail -n 1)
lib_deb=$(ls "$debs"/libsofthca_*_"$(dpkg --print-architecture)".deb 2>/dev/null | tail -n 1)
check debs-built test -f "$dkms_deb" -a -f "$lib_deb"
[ -f "$dkms_deb" ] && [ -f "$lib_deb" ] || exit 1

# A system without softhca: no module loaded (lib.sh loads the build
# tree's), nothing from an earlier group's "make install".
rdma link show 2>/dev/null | awk '/softhca/ {print $2}' | cut -d/ -f1 |
	sort -u | while read -r d; do rdma link delete "$d"; done
rmmod softhca 2>/dev/null
rm -f "$provdir"/libsofthca-rdmav*.so "$driver"
if ls "/lib/modules/$kver/extra"/softhca.ko* >/dev/null 2>&1; then
	rm -f "/lib/modules/$kver/extra"/softhca.ko*
	depmod "$kver"	# about 30 s under TCG
fi
check clean-start sh -c "! grep -q '^softhca ' /proc/modules && ! modinfo softhca"

# The kernel headers where "apt install linux-headers-$kver" puts them: the
# tree scripts/fetch-kernel.sh unpacked from the same .debs (installing
# those with dpkg takes about 4.5 minutes under TCG); the Debian 13 root
# has them installed.
. "$SOFTHCA_TOP/scripts/config.sh"
[ -n "$d13" ] || ln -sfn "$SOFTHCA_KDIR" "/usr/src/linux-headers-$kver"
check headers-present test -f "/lib/modules/$kver/build/Makefile" -a \
	-f "/lib/modules/$kver/build/Module.symvers"

# The packages; softhca-dkms's postinst has DKMS build softhca.ko. Its
# compiler runs through ccache (Debian's kernel headers' own switch,
# DEBIAN_KERNEL_USE_CCACHE), in a copy of the cache that
# scripts/dkms-ccache.sh filled on the host (Debian 13: in its root) by
# compiling the same tree at the same paths: gcc under TCG takes 5 to 7
# minutes for what the host compiles in one (with every object from the
# cache, make, Kbuild and objtool still take about 3 minutes here). The
# copy is this guest's own: the checkout is read-only in the Debian 13
# guest, and nothing here writes to the host's cache.
# Without that cache DKMS compiles every object here, as on a user's
# machine.
export DEBIAN_KERNEL_USE_CCACHE=1 CCACHE_DIR=/tmp/ccache-dkms
rm -rf "$CCACHE_DIR"
if [ -d "$SOFTHCA_CACHE/ccache-dkms$d13" ]; then
	cp -a "$SOFTHCA_CACHE/ccache-dkms$d13" "$CCACHE_DIR"
fi
export CCACHE_TEMPDIR=/tmp LC_ALL=C
# The files the build reads outside its own tree (the kernel headers and
# Kbuild's tools: the list scripts/dkms-ccache.sh kept with the cache),
# copied up into this guest's tmpfs first: each opened for appending, with
# nothing written (content, size and mtime stay), which makes the overlay
# copy it up. Read through 9p, every open costs ccache and fixdep a round
# trip to QEMU for each of about 800 headers, for each of 85 objects.
reads=$CCACHE_DIR/softhca-build-reads.list
if [ -f "$reads" ]; then
	t0=$SECONDS
	xargs -r -d '\n' sh -c 'for f; do [ ! -f "$f" ] || : >> "$f"; done' sh < "$reads"
	echo "$(wc -l < "$reads") files the build reads copied up in $((SECONDS - t0)) s" |
		tee "$LOGS/$GROUP.copy-up.txt"
fi
unset LANG LC_CTYPE LC_MESSAGES
ccache -z >/dev/null 2>&1
t0=$SECONDS
check apt-install apt-get install -y -q "$dkms_deb" "$lib_deb"
dkms_s=$((SECONDS - t0))
{
	echo "apt install (DKMS build included) took $dkms_s s"
	echo "ccache during it ($CCACHE_DIR):"
	ccache -s 2>&1
} | tee "$LOGS/$GROUP.dkms-time.txt"
mlog=$(ls /var/lib/dkms/softhca/"$version"/"$kver"/*/log/make.log 2>/dev/null | head -n 1)
if [ -f "$mlog" ]; then
	cp "$mlog" "$LOGS/$GROUP.dkms-make.log"
	echo "DKMS make: $(($(stat -c %Y "$mlog") - $(date -d "$(sed -n 2p "$mlog")" +%s))) s" |
		tee -a "$LOGS/$GROUP.dkms-time.txt"
fi
expect_eq dpkg-status "$(dpkg-query -W -f='${Status};' softhca-dkms libsofthca 2>&1)" \
	"install ok installed;install ok installed;"
check dkms-status-installed sh -c "dkms status softhca | grep -q '^softhca/$version, $kver, [^:]*: installed'"
# compressed as the kernel's own modules are (Debian 13's: .ko.xz)
ko=$(ls "/lib/modules/$kver/updates/dkms"/softhca.ko* 2>/dev/null | head -n 1)
check module-in-updates-dkms test -f "$ko"
expect_eq modinfo-path "$(modinfo -n softhca 2>&1)" "${ko:-/lib/modules/$kver/updates/dkms/softhca.ko}"
expect_eq modinfo-version "$(modinfo -F version softhca 2>&1)" "$version"
expect_eq modinfo-vermagic-kernel "$(modinfo -F vermagic softhca 2>&1 | cut -d' ' -f1)" "$kver"
check dkms-autoinstall grep -qx 'AUTOINSTALL="yes"' "/usr/src/softhca-$version/dkms.conf"
# the provider of the flavour built (rdma-core 44: private ABI 34)
provider=$(dpkg -L libsofthca 2>/dev/null | grep "^$provdir/libsofthca-rdmav[0-9]*\.so\$" || echo "$provider")
check provider-installed test -f "$provider"
expect_eq driver-file "$(cat "$driver" 2>&1)" "driver softhca"

# The installed module and provider at work.
check modprobe modprobe softhca
expect_eq loaded-is-dkms-build "$(cat /sys/module/softhca/srcversion 2>&1)" \
	"$(modinfo -F srcversion "$ko" 2>&1)"
expect_eq loaded-version "$(cat /sys/module/softhca/version 2>&1)" "$version"
make_veth veth90 veth91 10.9.0.1/24
check link-add rdma link add softhca0 type softhca netdev veth90
check devinfo-port-active sh -c "ibv_devinfo -d softhca0 | grep -q 'state:.*PORT_ACTIVE'"
check provider-from-package sh -c "LD_DEBUG=libs ibv_devinfo -d softhca0 2>&1 >/dev/null | grep -q 'calling init: $provider'"
gid=$(ibv_devinfo -v -d softhca0 | sed -n 's/.*GID\[ *\([0-9]*\)\].*::ffff:10.9.0.1, RoCE v2.*/\1/p')
slog=$LOGS/$GROUP.pingpong.server.log
clog=$LOGS/$GROUP.pingpong.client.log
timeout 120 ibv_rc_pingpong -d softhca0 -g "$gid" -n 1000 >"$slog" 2>&1 &
srv=$!
wait_listen $srv 18515
timeout 120 ibv_rc_pingpong -d softhca0 -g "$gid" -n 1000 127.0.0.1 >"$clog" 2>&1
crc=$?
wait $srv
src=$?
expect_eq rc-pingpong "$crc $src $(grep -c '1000 iters in' "$clog" "$slog" | cut -d: -f2 | tr '\n' ' ')" "0 0 1 1 "

# Removal: device, module, then the packages.
check link-delete rdma link delete softhca0
check rmmod rmmod softhca
check apt-remove apt-get remove -y -q softhca-dkms libsofthca
# gone from dpkg's database, or known as not installed (no conffiles left)
dpkg_left() {
	local p s
	for p in softhca-dkms libsofthca; do
		s=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null)
		[ -z "$s" ] || [ "$s" = "un " ] || echo "$p: $s"
	done
}
expect_eq dpkg-status-removed "$(dpkg_left)" ""
expect_eq dkms-status-empty "$(dkms status 2>&1)" ""
check no-dkms-tree sh -c "! ls -d /var/lib/dkms/softhca /usr/src/softhca-* 2>/dev/null | grep -q ."
check no-module-file sh -c "! find /lib/modules/$kver -name 'softhca.ko*' | grep -q ."
check no-module-known sh -c "! modinfo softhca"
check no-module-loaded sh -c "! lsmod | grep -q '^softhca '"
check no-provider sh -c "! ls $provdir/libsofthca* 2>/dev/null | grep -q ."
check no-driver-file sh -c "! test -e $driver && ! test -L $driver && ! test -e /usr/share/libsofthca"
