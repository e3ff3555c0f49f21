#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Fill the compiler cache that the DKMS build inside the test VM reads
# (tests/vm/t90-packages.sh): compile softhca.ko on the host exactly as
# DKMS will compile it in the guest, so that the guest's gcc, which runs
# under TCG at a tenth of the host's speed, finds every object in ccache.
#
# "Exactly" is what ccache needs for a hit: the same compiler, the same
# command lines, the same source paths and working directory. So the
# source is the softhca-dkms package's /usr/src tree (build/deb, from
# scripts/deb.sh), copied where DKMS copies it, /var/lib/dkms/softhca/
# <version>/build (under a tmpfs in a mount namespace of this script's
# own: the host's DKMS state is not touched); make runs as DKMS runs it
# ("make -j<n> KERNELRELEASE=<kver>" and dkms.conf's MAKE line, -C the
# kernel headers that the guest's /lib/modules/<kver>/build leads to),
# with CC from the headers' .kernelvariables and DEBIAN_KERNEL_USE_CCACHE
# set, which makes it "ccache gcc-12". The cache is
# $SOFTHCA_CACHE/ccache-dkms; t90 sets the same variables for apt.
#
# The guest's DKMS still builds: it runs make, Kbuild, the compiler driver
# for every object (ccache's hits), objtool, modpost and the link.
#
# With SOFTHCA_KSERIES=d13 the same runs inside the Debian 13 root
# (softhca_in_root), which is the Debian 13 guest's: its gcc-14 and
# kernel headers, the Debian 13 package (build/deb-d13), the cache
# $SOFTHCA_CACHE/ccache-dkms-d13.
set -euo pipefail
. "$(dirname "$0")/config.sh"

if [ "$SOFTHCA_KSERIES" = d13 ] && [ -z "${SOFTHCA_DKMS_IN_ROOT:-}" ]; then
	softhca_in_root env SOFTHCA_DKMS_IN_ROOT=1 SOFTHCA_KSERIES=d13 \
		"$SOFTHCA_TOP/scripts/dkms-ccache.sh"
	exit 0
fi
# build/deb and .cache/ccache-dkms; -d13 for Debian 13's
sfx=
[ "$SOFTHCA_KSERIES" != d13 ] || sfx=-d13
version=$(cat "$SOFTHCA_TOP/VERSION")
deb=$(ls "$SOFTHCA_TOP"/build/deb"$sfx"/softhca-dkms_*_all.deb 2>/dev/null | tail -n 1)
[ -f "$deb" ] || softhca_die "dkms-ccache: no softhca-dkms package in build/deb$sfx (scripts/deb.sh)"
[ -d /var/lib/dkms ] || softhca_die "dkms-ccache: no /var/lib/dkms (apt install dkms, or make deps)"
command -v ccache >/dev/null || softhca_die "dkms-ccache: no ccache"
export CCACHE_DIR=$SOFTHCA_CACHE/ccache-dkms$sfx DEBIAN_KERNEL_USE_CCACHE=1
# ccache hashes the locale variables: the same here and in t90
export LC_ALL=C
unset LANG LC_CTYPE LC_MESSAGES
mkdir -p "$CCACHE_DIR"
log=$SOFTHCA_TOP/build/logs/dkms-ccache$sfx.make.log
mkdir -p "$(dirname "$log")"
unpacked=$(mktemp -d)
trap 'rm -rf "$unpacked"' EXIT
dpkg-deb -x "$deb" "$unpacked"
[ -f "$unpacked/usr/src/softhca-$version/dkms.conf" ] ||
	softhca_die "dkms-ccache: $deb holds no usr/src/softhca-$version"

# In the Debian 13 root, softhca_in_root's namespace is private already
# (and the chroot's / no mount point whose propagation unshare could set).
prop=private
[ -z "${SOFTHCA_DKMS_IN_ROOT:-}" ] || prop=unchanged
t0=$SECONDS
ccache -z >/dev/null
unshare -m --propagation $prop bash -euc '
	mount -t tmpfs -o size=512m softhca-dkms /var/lib/dkms
	b=/var/lib/dkms/softhca/$1/build
	mkdir -p "$b"
	cp -a "$2/usr/src/softhca-$1/." "$b/"
	cd "$b"
	make -j"$(nproc)" KERNELRELEASE="$3" -C "$4" M="$b/kernel" modules
	test -f "$b/kernel/softhca.ko"
	# the files outside the tree that the build read (the deps in
	# Kbuild'"'"'s .cmd files, relative ones to the headers; its tools)
	cd "$4"
	{
		sed -n "s/^  *\([^ $][^ ]*\)\( \\\\\)\{0,1\}$/\1/p" $(find "$b/kernel" -name ".*.cmd")
		echo scripts/basic/fixdep scripts/mod/modpost scripts/genksyms/genksyms \
			tools/objtool/objtool | tr " " "\n"
	} | sort -u | xargs -r -d "\n" realpath -e -q -- 2>/dev/null |
		grep -v "^/var/lib/dkms/" | sort -u > "$5" || true
	test -s "$5"
' dkms-ccache "$version" "$unpacked" "$SOFTHCA_KVER" "$SOFTHCA_KDIR" "$CCACHE_DIR/softhca-build-reads.list" >"$log" 2>&1 ||
	softhca_die "dkms-ccache: the build failed (see $log)"
softhca_log "dkms-ccache$sfx: softhca.ko compiled as DKMS will in the guest, $((SECONDS - t0)) s ($(ccache -s | sed -n 's/^ *Misses: *\([0-9]*\).*/\1/p' | head -n 1) objects cached in $CCACHE_DIR)"
