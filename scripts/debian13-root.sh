#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The Debian 13 (trixie) root file system of the test VM's Debian 13 guest
# (SOFTHCA_KSERIES=d13, scripts/config.sh): mmdebstrap's minbase with
# Debian 13's kernel (linux-image-amd64 there: 6.12) and its headers, the
# compilers and rdma-core 56 (libibverbs-dev, the tools) the module, the
# provider and the VM tests are built with and run. Made once under
# .cache/debian13/root and kept; a changed package list (the stamp) makes
# it again. The host's apt configuration is left as it is: mmdebstrap
# takes the mirror on its command line and the keyring from
# debian-archive-keyring. mmdebstrap rather than debootstrap: it has apt
# fetch and dpkg unpack and configure everything in one pass each, without
# fsync; on this machine's two CPUs it takes 170 CPU seconds against
# debootstrap's 250.
set -euo pipefail
. "$(dirname "$0")/config.sh"
. "$(dirname "$0")/progress.sh"

mirror=${SOFTHCA_D13_MIRROR:-http://deb.debian.org/debian}
# to build the module, the provider and the test programs; to boot and
# run the VM tests (the same tools the Debian 12 guest takes from the host);
# to build and check the Debian packages for Debian 13 (scripts/deb.sh;
# perl-openssl-defaults provides the virtual perl-openssl-abi-3 that
# lintian's libnet-ssleay-perl needs, which debootstrap did not resolve);
# ccache for the DKMS build in the guest (tests/vm/t90-packages.sh takes
# its objects from the cache scripts/dkms-ccache.sh fills in this root)
pkgs="linux-image-amd64 linux-headers-amd64 build-essential cmake sparse
libibverbs-dev kmod iproute2 procps file binutils strace
rdma-core ibverbs-utils ibverbs-providers rdmacm-utils perftest
debhelper dh-dkms dkms lintian perl-openssl-defaults ccache"
pkgs=$(echo $pkgs | tr ' ' ,)
root=$SOFTHCA_D13_ROOT
stamp="mmdebstrap trixie minbase $pkgs"
if [ "$(cat "$root/.softhca-stamp" 2>/dev/null)" = "$stamp" ]; then
	exit 0
fi
[ "$(id -u)" -eq 0 ] || softhca_die "need root for mmdebstrap"
command -v mmdebstrap >/dev/null || softhca_die "no mmdebstrap; run scripts/deps.sh"
dir=$(dirname "$root")
log=$dir/mmdebstrap.log
mkdir -p "$dir"
rm -rf "$root" "$root.tmp"
softhca_heavy_lock
softhca_log "making the Debian 13 guest's root file system with mmdebstrap (trixie, kernel 6.12, rdma-core 56; log: $log)"
# progress: packages unpacked and set up, out of the last run's
softhca_progress_start progress/debian13-root "Debian 13 root: mmdebstrap" \
	steps "" "grep -cE '^(Unpacking|Setting up) ' '$log' 2>/dev/null || echo 0"
if ! mmdebstrap --verbose --mode=root --variant=minbase --components=main \
	--include="$pkgs" trixie "$root.tmp" "$mirror" > "$log" 2>&1; then
	softhca_progress_stop
	tail -n 20 "$log" >&2
	softhca_die "mmdebstrap of Debian 13 failed (see $log)"
fi
softhca_progress_stop ok
# the kernel the guest boots (vm-run.sh builds its initramfs from the
# root's /lib/modules)
ls "$root.tmp"/boot/vmlinuz-*-amd64 >/dev/null 2>&1 ||
	softhca_die "the Debian 13 root has no kernel"
rm -rf "$root.tmp/var/cache/apt/archives"/*.deb
echo "$stamp" > "$root.tmp/.softhca-stamp"
mv "$root.tmp" "$root"
softhca_log "Debian 13 root: $root ($(du -sh "$root" | cut -f1), kernel $(softhca_d13_kver))"
