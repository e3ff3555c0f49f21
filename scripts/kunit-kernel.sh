#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Build (or reuse) the KUnit kernel the softhca KUnit suites run in: Debian's
# linux-source-6.1 with tests/kunit/softhca.kunitconfig, x86_64, configured
# and built by the kernel's own tools/testing/kunit/kunit.py.
#
#   source tree  $SOFTHCA_CACHE/kunit/linux  (a copy of the pristine unpacked
#                source; kunit.py wants a clean tree and builds with O=)
#   build dir    $SOFTHCA_CACHE/kunit/build  (bzImage, Module.symvers, ...)
#   ccache       $SOFTHCA_CACHE/ccache
#
# The build is skipped when a stamp in the build dir says that the kunitconfig,
# the source, the compiler and the make options are those of the last
# successful build. Prints the build dir on stdout.
set -euo pipefail
. "$(dirname "$0")/config.sh"
. "$(dirname "$0")/progress.sh"

kunitconfig=$SOFTHCA_TOP/tests/kunit/softhca.kunitconfig
kdir=$SOFTHCA_CACHE/kunit
src=$kdir/linux
build=$kdir/build
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
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-2G}
# Fixed build identity: init/version.c and friends hit ccache too.
export KBUILD_BUILD_USER=softhca KBUILD_BUILD_HOST=kunit

now() { date +%s.%N; }
since() { printf '%.1f' "$(echo "$(now) - $1" | bc)"; }

mkdir -p "$kdir"
# One KUnit kernel build at a time (and never on top of a half-copied tree).
exec 8>"$kdir/kernel.lock"
if ! flock -n 8; then
	softhca_log "kunit-kernel: waiting for another KUnit kernel build"
	flock 8
fi

[ -f "$tarball" ] || softhca_die "linux-source-6.1 is not installed (scripts/deps.sh)"
"$SOFTHCA_TOP/scripts/fetch-linux-source.sh"
[ -f "$kunitconfig" ] || softhca_die "missing $kunitconfig"

# Identity of the kernel source: the Debian package version and the tarball.
src_id="$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || true)"
src_id+=" $(stat -c '%s %Y' "$tarball")"

# 1. The tree copy kunit.py builds from (cp -a keeps the tarball's mtimes).
if [ ! -f "$kdir/linux.id" ] || [ "$(cat "$kdir/linux.id")" != "$src_id" ] ||
	[ ! -f "$src/Makefile" ]; then
	t0=$(now)
	softhca_log "kunit-kernel: copying $pristine to $src"
	rm -rf "$src" "$kdir/linux.id"
	cp -a "$(realpath "$pristine")" "$src.tmp"	# the tree, not a symlink to it
	rm -f "$src.tmp/.unpacked"
	mv "$src.tmp" "$src"
	echo "$src_id" > "$kdir/linux.id"
	softhca_log "kunit-kernel: copied in $(since "$t0") s"
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
		grep -v '^#' "$kunitconfig"
	} | sha256sum | cut -d' ' -f1
}
stamp=$(stamp_of)
stampfile=$build/.softhca-kunit-stamp
if [ -f "$stampfile" ] && [ "$(cat "$stampfile")" = "$stamp" ] &&
	[ -f "$build/arch/x86/boot/bzImage" ] && [ -f "$build/Module.symvers" ] &&
	[ -x "$build/usr/gen_init_cpio" ]; then
	softhca_log "kunit-kernel: up to date ($build)"
	echo "$build"
	exit 0
fi

# 3. Configure and build with kunit.py (one kernel build or VM at a time).
softhca_heavy_lock
rm -f "$stampfile"
mkdir -p "$build" "$CCACHE_DIR"
log=$kdir/kernel-build.log
t0=$(now)
softhca_log "kunit-kernel: building the Linux kernel the KUnit suites boot (about 11 min on 2 cores when ccache is cold; log $log)"
ccache -z >/dev/null
# Progress: objects compiled in this run, out of the last build's count or,
# before any, an estimate from the .config kunit.py writes first.
touch "$kdir/build-start"
objs() { find "$build" -name '*.o' "$@" 2>/dev/null | wc -l; }
softhca_progress_start kunit/kernel-build "kunit-kernel: compiling" objects \
	"[ -f '$build/.config' ] && echo \$((\$(grep -c '=y\$' '$build/.config') * 2))" \
	"find '$build' -name '*.o' -newer '$kdir/build-start' 2>/dev/null | wc -l"
set +e
(
	cd "$src"
	python3 tools/testing/kunit/kunit.py build --arch=x86_64 \
		--build_dir="$build" --kunitconfig="$kunitconfig" \
		--make_options "${make_opts[@]}" --jobs="$jobs"
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
	softhca_die "kunit-kernel: build failed after $elapsed s (see $log)"
fi
for f in arch/x86/boot/bzImage Module.symvers usr/gen_init_cpio; do
	[ -e "$build/$f" ] || softhca_die "kunit-kernel: build made no $f (see $log)"
done
hits=$(ccache -s 2>/dev/null | sed -n 's/^ *Hits: *\([0-9]*\) \/ *\([0-9]*\).*/\1\/\2/p' | head -n 1)
softhca_log "kunit-kernel: built in $elapsed s (ccache hits ${hits:-?})"
echo "$stamp" > "$stampfile"
echo "$build"
