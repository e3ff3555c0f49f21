#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage softhca's DKMS source tree in DEST: kernel/ and include/ (every C
# source, header and Kbuild file in them, whatever kernel/Kbuild lists),
# VERSION and, unless -n, dkms.conf with its version filled in.
#
#   dkms-tree.sh [-n] DEST
#
# Without the Debian package (see README.md):
#   scripts/dkms-tree.sh /usr/src/softhca-$(cat VERSION)
#   dkms install softhca/$(cat VERSION)
set -euo pipefail
# (config.sh is not sourced: this also runs inside the Debian package build)
SOFTHCA_TOP=$(cd "$(dirname "$0")/.." && pwd)
softhca_die() { printf '[softhca] error: %s\n' "$*" >&2; exit 1; }

conf=1
if [ "${1:-}" = -n ]; then
	conf=0
	shift
fi
[ $# -eq 1 ] || softhca_die "usage: dkms-tree.sh [-n] DEST"
dest=$1
version=$(cat "$SOFTHCA_TOP/VERSION")

mkdir -p "$dest"
(
	cd "$SOFTHCA_TOP"
	find kernel include -type f \( -name '*.[ch]' -o -name Kbuild \) \
		! -name '*.mod.c' | sort
) | while read -r f; do
	install -D -m 0644 "$SOFTHCA_TOP/$f" "$dest/$f"
done
install -m 0644 "$SOFTHCA_TOP/VERSION" "$dest/VERSION"
if [ $conf -eq 1 ]; then
	sed "s/#MODULE_VERSION#/$version/g" "$SOFTHCA_TOP/dkms.conf" > "$dest/dkms.conf"
	chmod 0644 "$dest/dkms.conf"
fi
