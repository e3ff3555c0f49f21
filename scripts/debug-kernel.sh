#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Build (or reuse) the debug kernel: Debian's linux-source-6.1 configured
# from tests/debug-kernel.config (KASAN, lockdep, kmemleak, debugobjects,
# UBSAN, fault injection, and the modules the VM tests load), x86_64,
# configured and built by the kernel's own tools/testing/kunit/kunit.py.
# One build serves the KUnit suites (scripts/kunit.sh) and the debug VM
# runs (SOFTHCA_VM_KERNEL=debug tests/vm-tests.sh).
#
#   source tree  $SOFTHCA_CACHE/dbgkernel/linux  (a copy of the pristine
#                unpacked source with tests/debug-kernel-patches/ applied;
#                kunit.py wants a clean tree, builds O=)
#   build dir    $SOFTHCA_CACHE/dbgkernel/build  (bzImage, Module.symvers;
#                out-of-tree modules build against it)
#   modules      $SOFTHCA_CACHE/dbgkernel/root/lib/modules/<release>
#                (modules_install, stripped; its "build" links the build dir)
#   ccache       $SOFTHCA_CACHE/ccache
#
# The build is skipped when a stamp in the build dir says that the config
# fragment, the source, the compiler and the make options are those of the
# last successful build. Prints the build dir on stdout.
set -euo pipefail
. "$(dirname "$0")/config.sh"
. "$(dirname "$0")/progress.sh"

fragment=$SOFTHCA_TOP/tests/debug-kernel.config
kdir=$SOFTHCA_DBG_DIR
src=$kdir/linux
build=$SOFTHCA_DBG_BUILD
root=$kdir/root
pristine=$SOFTHCA_CACHE/linux-source-6.1
tarball=/usr/src/linux-source-6.1.tar.xz
jobs=${SOFTHCA_JOBS:-$(nproc)}
# Always the same make options: kbuild records every object's command line,
# so any change (CC in particular) rebuilds everything.
make_opts=("CC=ccache gcc")

# Run from a top-level "make kunit X=Y", make's variables must not leak into
# the kernel build (any change of its command lines rebuilds everything).
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL KCFLAGS KAFLAGS KCPPFLAGS
unset KBUILD_OUTPUT KBUILD_EXTRA_WARN ARCH CROSS_COMPILE LLVM
export PYTHONDONTWRITEBYTECODE=1	# no __pycache__ in the kernel tree
export CCACHE_DIR=$SOFTHCA_CACHE/ccache
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
# Fixed build identity: init/version.c and friends hit ccache too.
export KBUILD_BUILD_USER=softhca KBUILD_BUILD_HOST=debug

now() { date +%s.%N; }
since() { printf '%.1f' "$(echo "$(now) - $1" | bc)"; }

mkdir -p "$kdir"
# One debug kernel build at a time (and never on top of a half-copied tree).
exec 8>"$kdir/kernel.lock"
if ! flock -n 8; then
	softhca_log "debug-kernel: waiting for another build of the debug kernel"
	flock 8
fi

[ -f "$tarball" ] || softhca_die "linux-source-6.1 is not installed (scripts/deps.sh)"
"$SOFTHCA_TOP/scripts/fetch-linux-source.sh"
[ -f "$fragment" ] || softhca_die "missing $fragment"

# Fixes of the kernel's own bugs that the VM tests hit (not softhca's
# code; each patch says what it fixes and why the debug kernel carries it),
# applied to the copy in this order: with a KASAN or lockdep report left
# in, the first report of a boot would be its only one (KASAN reports
# once, lockdep turns itself off), hiding any later one.
patches=("$SOFTHCA_TOP"/tests/debug-kernel-patches/*.patch)
[ -e "${patches[0]}" ] || patches=()

# Identity of the kernel source: the Debian package version, the tarball
# and the patches.
src_id="$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || true)"
src_id+=" $(stat -c '%s %Y' "$tarball")"
[ ${#patches[@]} -eq 0 ] || src_id+=" $(cat "${patches[@]}" | sha256sum | cut -d' ' -f1)"

# 1. The tree copy kunit.py builds from (cp -a keeps the tarball's mtimes,
# so a build dir of the same source rebuilds only what a patch touched).
if [ ! -f "$kdir/linux.id" ] || [ "$(cat "$kdir/linux.id")" != "$src_id" ] ||
	[ ! -f "$src/Makefile" ]; then
	t0=$(now)
	softhca_log "debug-kernel: copying $pristine to $src"
	rm -rf "$src" "$src.tmp" "$kdir/linux.id"
	cp -a "$(realpath "$pristine")" "$src.tmp"	# the tree, not a symlink to it
	rm -f "$src.tmp/.unpacked"
	for p in "${patches[@]}"; do
		softhca_log "debug-kernel: applying $(basename "$p")"
		patch -s -p1 -N -d "$src.tmp" < "$p" ||
			softhca_die "debug-kernel: $p does not apply to linux-source-6.1"
	done
	mv "$src.tmp" "$src"
	echo "$src_id" > "$kdir/linux.id"
	softhca_log "debug-kernel: copied in $(since "$t0") s"
fi
if [ -e "$src/.config" ] || [ -d "$src/include/config" ]; then
	softhca_die "$src is not clean (a .config); remove it and rerun"
fi

# 2. The stamp: everything that decides what the build produces.
stamp_of() {
	{
		echo "stamp v1"
		echo "source: $src_id"
		echo "make: ${make_opts[*]}"
		gcc --version | head -n 1
		ccache --version | head -n 1
		cat "$src/tools/testing/kunit/qemu_configs/x86_64.py"
		grep -v '^#  *[^C]' "$fragment" | grep -v '^$'
	} | sha256sum | cut -d' ' -f1
}
stamp=$(stamp_of)
stampfile=$build/.softhca-debug-stamp
release() { cat "$build/include/config/kernel.release" 2>/dev/null; }
if [ -f "$stampfile" ] && [ "$(cat "$stampfile")" = "$stamp" ] &&
	[ -f "$build/arch/x86/boot/bzImage" ] && [ -f "$build/Module.symvers" ] &&
	[ -x "$build/usr/gen_init_cpio" ] &&
	[ -f "$root/lib/modules/$(release)/modules.dep" ]; then
	softhca_log "debug-kernel: up to date ($build)"
	echo "$build"
	exit 0
fi

# 3. Configure and build with kunit.py (one kernel build or VM at a time).
softhca_heavy_lock
rm -f "$stampfile"
mkdir -p "$build" "$CCACHE_DIR"
log=$kdir/kernel-build.log
t0=$(now)
softhca_log "debug-kernel: building the debug kernel (KUnit and the debug VM runs; about 25 min on 2 cores when ccache is cold; log $log)"
ccache -z >/dev/null
# Progress: objects compiled in this run, out of the last build's count or,
# before any, an estimate from the .config kunit.py writes first.
touch "$kdir/build-start"
objs() { find "$build" -name '*.o' "$@" 2>/dev/null | wc -l; }
softhca_progress_start dbgkernel/kernel-build "debug-kernel: compiling" objects \
	"[ -f '$build/.config' ] && echo \$((\$(grep -c '=[ym]\$' '$build/.config') * 2))" \
	"find '$build' -name '*.o' -newer '$kdir/build-start' 2>/dev/null | wc -l"
set +e
(
	cd "$src"
	python3 tools/testing/kunit/kunit.py build --arch=x86_64 \
		--build_dir="$build" --kunitconfig="$fragment" \
		--make_options "${make_opts[@]}" --jobs="$jobs" &&
	# the modules, for the VM's /lib/modules (depmod runs here)
	rm -rf "$root" &&
	make -C "$src" O="$build" ARCH=x86_64 "${make_opts[@]}" \
		INSTALL_MOD_PATH="$root" INSTALL_MOD_STRIP=1 modules_install
) </dev/null >"$log" 2>&1
rc=$?
set -e
if [ $rc -eq 0 ]; then
	softhca_progress_stop ok "$(objs)"
else
	softhca_progress_stop
fi
elapsed=$(since "$t0")
if [ $rc -ne 0 ]; then
	tail -n 40 "$log" >&2
	softhca_die "debug-kernel: build failed after $elapsed s (see $log)"
fi
for f in arch/x86/boot/bzImage Module.symvers usr/gen_init_cpio; do
	[ -e "$build/$f" ] || softhca_die "debug-kernel: build made no $f (see $log)"
done
[ -f "$root/lib/modules/$(release)/modules.dep" ] ||
	softhca_die "debug-kernel: no modules.dep for $(release) (see $log)"
hits=$(ccache -s 2>/dev/null | sed -n 's/^ *Hits: *\([0-9]*\) \/ *\([0-9]*\).*/\1\/\2/p' | head -n 1)
softhca_log "debug-kernel: $(release) built in $elapsed s (ccache hits ${hits:-?})"
echo "$stamp" > "$stampfile"
echo "$build"
