#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Build the kernel module (W=1, any warning fails; for a series other than
# 6.1 also sparse's, see scripts/config.sh) and/or the user-space
# part (provider, test programs, host unit tests) into build/.
#   build.sh [module] [provider] [module-debug] [provider-d13]
#   (default: module provider)
# With SOFTHCA_KSERIES=d13 the module is built inside the Debian 13 root
# (scripts/debian13-root.sh, which it makes or reuses) for Debian 13's
# kernel, with Debian 13's compiler. provider-d13 builds the provider and
# the test programs there too, against rdma-core 56, into
# build/userspace-d13 (no host unit tests: they run on the host, against
# rdma-core 44).
# module-debug builds softhca.ko for the debug kernel (scripts/debug-kernel.sh,
# which it builds or reuses) in a mirror of the checkout under
# .cache/dbgkernel/mod, so no object lands next to kernel/softhca.ko's.
set -euo pipefail
. "$(dirname "$0")/config.sh"
. "$(dirname "$0")/progress.sh"

# A series other than 6.1 builds in a copy of kernel/ and include/ (and
# VERSION, which kernel/Kbuild reads) under build/kernel-<kver>: the
# sources keep their times, so only what changed is compiled again.
copy_module_source() {
	local dst=${SOFTHCA_MODSRC%/kernel}
	mkdir -p "$dst"
	tar -C "$SOFTHCA_TOP" -c --exclude='*.o' --exclude='*.ko' \
		--exclude='.*.cmd' --exclude='*.mod' --exclude='*.mod.c' \
		--exclude=Module.symvers --exclude=modules.order \
		kernel include VERSION | tar -C "$dst" -x
}

# the Debian 13 root, made or reused, and the settings that follow from it
need_d13_root() {
	"$SOFTHCA_TOP/scripts/debian13-root.sh"
	. "$SOFTHCA_TOP/scripts/config.sh"
	[ -n "$SOFTHCA_KVER" ] || softhca_die "the Debian 13 root has no kernel"
}

build_module() {
	local in_root=()
	if [ "$SOFTHCA_KSERIES" = d13 ]; then
		need_d13_root
		in_root=(softhca_in_root)
	else
		"$SOFTHCA_TOP/scripts/fetch-kernel.sh"
	fi
	local log=$SOFTHCA_TOP/build/module${SOFTHCA_VM_TAG}.log
	local start=$SOFTHCA_TOP/build/module${SOFTHCA_VM_TAG}.start
	mkdir -p "$SOFTHCA_TOP/build"
	[ "$SOFTHCA_MODSRC" = "$SOFTHCA_TOP/kernel" ] || copy_module_source
	softhca_heavy_lock
	softhca_log "building ${SOFTHCA_KO#"$SOFTHCA_TOP"/} for $SOFTHCA_KVER (W=1)"
	# progress: objects compiled in this run, out of the last full build's
	touch "$start"
	softhca_progress_start "progress/module-build$SOFTHCA_VM_TAG" "module: compiling" objects "" \
		"find '$SOFTHCA_MODSRC' -name '*.o' -newer '$start' | wc -l"
	# lint.sh runs sparse on the 6.1 build; another series' build runs it
	# on each file it compiles (C=1), its warnings failing the build too.
	local check=()
	[ "$SOFTHCA_MODSRC" = "$SOFTHCA_TOP/kernel" ] || check=(C=1 CHECK=sparse)
	if ! "${in_root[@]}" make -C "$SOFTHCA_KDIR" M="$SOFTHCA_MODSRC" W=1 \
		"${check[@]}" -j"${SOFTHCA_JOBS:-$(nproc)}" modules >"$log" 2>&1; then
		softhca_progress_stop
		cat "$log" >&2
		softhca_die "module build failed"
	fi
	# a full build's time and count are the next run's estimate
	local all new
	all=$(find "$SOFTHCA_MODSRC" -name '*.o' | wc -l)
	new=$(find "$SOFTHCA_MODSRC" -name '*.o' -newer "$start" | wc -l)
	if [ "$new" -ge "$all" ]; then
		softhca_progress_stop ok "$all"
	else
		softhca_progress_stop
	fi
	if grep -E 'warning:|error:' "$log" >&2; then
		softhca_die "module build has warnings (see $log)"
	fi
	return 0
}

build_module_debug() {
	local build mod log=$SOFTHCA_TOP/build/module-debug.log f
	mkdir -p "$SOFTHCA_TOP/build"
	build=$("$SOFTHCA_TOP/scripts/debug-kernel.sh") ||
		softhca_die "the debug kernel did not build"
	mod=$SOFTHCA_DBG_DIR/mod
	# a new kernel (its stamp changed) gets a module built from scratch
	if [ "$(cat "$mod/.kernel-stamp" 2>/dev/null)" != \
		"$(cat "$build/.softhca-debug-stamp")" ]; then
		rm -rf "$mod"
	fi
	mkdir -p "$mod"
	cp "$build/.softhca-debug-stamp" "$mod/.kernel-stamp"
	# sources as symlinks (make follows them for timestamps)
	find "$mod" -type l -delete
	(cd "$SOFTHCA_TOP" && find include kernel -type f \( -name '*.[ch]' -o \
		-name Kbuild \) ! -name '*.mod.c') | while read -r f; do
		mkdir -p "$mod/$(dirname "$f")"
		ln -s "$SOFTHCA_TOP/$f" "$mod/$f"
	done
	cp "$SOFTHCA_TOP/VERSION" "$mod/VERSION"
	softhca_heavy_lock
	softhca_log "building softhca.ko for the debug kernel (W=1)"
	if ! make -C "$build" M="$mod/kernel" "CC=ccache gcc" W=1 -j"$(nproc)" \
		modules >"$log" 2>&1; then
		cat "$log" >&2
		softhca_die "module build for the debug kernel failed"
	fi
	if grep -E 'warning:|error:' "$log" >&2; then
		softhca_die "module build for the debug kernel has warnings (see $log)"
	fi
	f=$SOFTHCA_DBG_KO
	[ -f "$f" ] || softhca_die "no $f after the build"
}

build_userspace() {
	local b=$SOFTHCA_TOP/build/userspace
	softhca_log "building the provider and user-space tests"
	cmake -S "$SOFTHCA_TOP/userspace" -B "$b" -DCMAKE_INSTALL_PREFIX=/usr >/dev/null
	cmake --build "$b" -j "$(nproc)" -- --no-print-directory >/dev/null ||
		cmake --build "$b" -- --no-print-directory
}

# The provider and the test programs for the Debian 13 guest, built inside
# its root against rdma-core 56.
build_userspace_d13() {
	local b=$SOFTHCA_TOP/build/userspace-d13 log=$SOFTHCA_TOP/build/userspace-d13.log
	need_d13_root
	mkdir -p "$b"
	softhca_log "building the provider and user-space tests for Debian 13 (rdma-core 56) in its root"
	if ! { softhca_in_root cmake -S "$SOFTHCA_TOP/userspace" -B "$b" \
		-DCMAKE_INSTALL_PREFIX=/usr -DSOFTHCA_TESTS=OFF &&
		softhca_in_root cmake --build "$b" -j "$(nproc)" -- \
			--no-print-directory; } >"$log" 2>&1; then
		cat "$log" >&2
		softhca_die "the provider's build for Debian 13 failed"
	fi
	grep -q 'provider for rdma-core 56$' "$log" ||
		softhca_die "the Debian 13 build is not for rdma-core 56 (see $log)"
}

[ $# -gt 0 ] || set -- module provider
for what in "$@"; do
	case $what in
	module) build_module ;;
	module-debug) build_module_debug ;;
	provider) build_userspace ;;
	provider-d13) (SOFTHCA_KSERIES=d13 && build_userspace_d13) ;;
	*) softhca_die "build.sh: unknown target $what" ;;
	esac
done
