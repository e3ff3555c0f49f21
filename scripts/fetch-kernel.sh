#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Download Debian's kernel image and headers for SOFTHCA_KABI with apt and
# unpack them into the cache (never installed on the host). Afterwards:
#   $SOFTHCA_KDIR     the headers tree to build the module against
#   $SOFTHCA_VMLINUZ  the kernel the test VM boots
#   $SOFTHCA_MODDIR   its modules, with modules.dep, shared into the VM
set -euo pipefail
. "$(dirname "$0")/config.sh"

[ -n "$SOFTHCA_KABI" ] || softhca_die "cannot tell the kernel ABI; set SOFTHCA_KABI"
stamp=$SOFTHCA_KROOT/.unpacked
[ -f "$stamp" ] && exit 0

softhca_log "fetching Debian's kernel $SOFTHCA_KVER (image and headers, with apt-get download into $SOFTHCA_CACHE/debs): the test VM boots it and the module is built against it; nothing is installed on this machine"
debs=$SOFTHCA_CACHE/debs
mkdir -p "$debs"
# 6.1's kbuild package is one for the series, 6.12's one per ABI.
kbuild=linux-kbuild-6.1
[ "$SOFTHCA_KSERIES" = 6.1 ] || kbuild=linux-kbuild-$SOFTHCA_KABI
want=(linux-image-$SOFTHCA_KVER linux-headers-$SOFTHCA_KVER
	linux-headers-$SOFTHCA_KABI-common "$kbuild")
for p in "${want[@]}"; do
	ls "$debs/${p}"_*.deb >/dev/null 2>&1 && continue
	(cd "$debs" && apt-get download -qq "$p" 2>&1 | grep -v '^W: Download is performed unsandboxed' || true)
	ls "$debs/${p}"_*.deb >/dev/null 2>&1 || softhca_die "apt-get download $p failed"
done

rm -rf "$SOFTHCA_KROOT"
mkdir -p "$SOFTHCA_KROOT"
for p in "${want[@]}"; do
	dpkg-deb -x "$(ls "$debs/${p}"_*.deb | tail -n 1)" "$SOFTHCA_KROOT"
done

# The headers' top Makefile includes the -common tree by absolute path.
sed -i "s|^include /usr/src/|include $SOFTHCA_KROOT/usr/src/|" "$SOFTHCA_KDIR/Makefile"
# modules.dep is made by the package's postinst; make it here.
depmod -b "$SOFTHCA_KROOT" "$SOFTHCA_KVER"
echo "$SOFTHCA_KABI" > "$softhca_kabi_file"
touch "$stamp"
softhca_log "kernel $SOFTHCA_KVER unpacked in $SOFTHCA_KROOT"
