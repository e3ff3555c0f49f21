#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Build the kernel module (W=1, any warning fails) and/or the user-space
# part (provider, test programs, host unit tests) into build/.
#   build.sh [module] [provider]     (default: both)
set -euo pipefail
. "$(dirname "$0")/config.sh"
. "$(dirname "$0")/progress.sh"

build_module() {
	"$SOFTHCA_TOP/scripts/fetch-kernel.sh"
	local log=$SOFTHCA_TOP/build/module.log
	mkdir -p "$SOFTHCA_TOP/build"
	softhca_heavy_lock
	softhca_log "building kernel/softhca.ko for $SOFTHCA_KVER (W=1)"
	# progress: objects compiled in this run, out of the last full build's
	touch "$SOFTHCA_TOP/build/module.start"
	softhca_progress_start progress/module-build "module: compiling" objects "" \
		"find '$SOFTHCA_TOP/kernel' -name '*.o' -newer '$SOFTHCA_TOP/build/module.start' | wc -l"
	if ! make -C "$SOFTHCA_KDIR" M="$SOFTHCA_TOP/kernel" W=1 modules \
		>"$log" 2>&1; then
		softhca_progress_stop
		cat "$log" >&2
		softhca_die "module build failed"
	fi
	# a full build's time and count are the next run's estimate
	local all new
	all=$(find "$SOFTHCA_TOP/kernel" -name '*.o' | wc -l)
	new=$(find "$SOFTHCA_TOP/kernel" -name '*.o' -newer "$SOFTHCA_TOP/build/module.start" | wc -l)
	if [ "$new" -ge "$all" ]; then
		softhca_progress_stop ok "$all"
	else
		softhca_progress_stop
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
