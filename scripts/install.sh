#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Install what "make" built: the module for the kernel it was built against
# (/lib/modules/<kver>/extra, then depmod) and the provider (libibverbs'
# provider directory plus /etc/libibverbs.d/softhca.driver). With DESTDIR
# set, stage exactly that tree under $DESTDIR instead (no depmod).
# SOFTHCA_INSTALL_KO and SOFTHCA_INSTALL_LIB name another module and
# provider (the Debian 13 guest's builds, tests/vm/t10-device.sh); the
# module goes to the kernel its vermagic names.
set -euo pipefail
. "$(dirname "$0")/config.sh"

dest=${DESTDIR:-}
ko=${SOFTHCA_INSTALL_KO:-$SOFTHCA_TOP/kernel/softhca.ko}
lib=${SOFTHCA_INSTALL_LIB:-$SOFTHCA_TOP/build/userspace/libsofthca-rdmav34.so}
[ -f "$ko" ] && [ -f "$lib" ] || softhca_die "nothing built yet; run make"
kver=$(modinfo -F vermagic "$ko" | cut -d' ' -f1)
[ -n "$kver" ] || softhca_die "$ko has no vermagic"
multiarch=$(gcc -print-multiarch)

install -D -m 0644 "$ko" "$dest/lib/modules/$kver/extra/softhca.ko"
install -D -m 0644 "$lib" \
	"$dest/usr/lib/$multiarch/libibverbs/libsofthca-rdmav34.so"
install -d "$dest/etc/libibverbs.d"
echo "driver softhca" > "$dest/etc/libibverbs.d/softhca.driver"
chmod 0644 "$dest/etc/libibverbs.d/softhca.driver"
if [ -z "$dest" ]; then
	depmod "$kver"
fi
softhca_log "installed softhca for $kver${dest:+ under $dest}"
