#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Build the kernel module (W=1, any warning fails) and/or the user-space
# part (provider, test programs, host unit tests) into build/.
#   build.sh [module] [provider]     (default: both)
set -euo pipefail
. "$(dirname "$0")/config.sh"

build_module() {
	"$SOFTHCA_TOP/scripts/fetch-kernel.sh"
	local log=$SOFTHCA_TOP/build/module.log
	mkdir -p "$SOFTHCA_TOP/build"
	softhca_heavy_lock
	softhca_log "building kernel/softhca.ko for $SOFTHCA_KVER (W=1)"
	if ! make -C "$SOFTHCA_KDIR" M="$SOFTHCA_TOP/kernel" W=1 modules \
		>"$log" 2>&1; then
		cat "$log" >&2
		softhca_die "module build failed"
	fi
	if grep -E 'warning:|error:' "$log" >&2; then
		softhca_die "module build has warnings (see $log)"
	fi
	echo "$SOFTHCA_KVER" > "$SOFTHCA_TOP/build/module.kver"
}

build_userspace() {
	local b=$SOFTHCA_TOP/build/userspace
	softhca_log "building the provider and user-space tests"
	cmake -S "$SOFTHCA_TOP/userspace" -B "$b" -DCMAKE_INSTALL_PREFIX=/usr >/dev/null
	cmake --build "$b" -j "$(nproc)" -- --no-print-directory >/dev/null ||
		cmake --build "$b" -- --no-print-directory
}

[ $# -gt 0 ] || set -- module provider
for what in "$@"; do
	case $what in
	module) build_module ;;
	provider) build_userspace ;;
	*) softhca_die "build.sh: unknown target $what" ;;
	esac
done
