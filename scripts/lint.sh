#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Static checks: checkpatch.pl --strict (Debian's linux-source-6.1) on the
# kernel C files, sparse over the module build, clang-format and clang-tidy
# on the C++ user space. Each check is one result (PASS/FAIL lint.<name>)
# in $SOFTHCA_RESULTS when set; exits non-zero if any check fails.
set -uo pipefail
. "$(dirname "$0")/config.sh"
. "$(dirname "$0")/progress.sh"
cd "$SOFTHCA_TOP" || exit 1

"$SOFTHCA_TOP/scripts/fetch-linux-source.sh" || exit 1
"$SOFTHCA_TOP/scripts/fetch-kernel.sh" || exit 1
status=0
record() {
	local name=$1 rc=$2 log=$3
	echo "$name" >> "$logdir/done"
	if [ "$rc" -eq 0 ]; then
		softhca_log "lint $name: clean"
		[ -n "${SOFTHCA_RESULTS:-}" ] && echo "PASS lint.$name" >> "$SOFTHCA_RESULTS"
	else
		softhca_log "lint $name: FAILED"
		cat "$log" >&2
		[ -n "${SOFTHCA_RESULTS:-}" ] && echo "FAIL lint.$name" >> "$SOFTHCA_RESULTS"
		status=1
	fi
}
logdir=$SOFTHCA_TOP/build/lint
mkdir -p "$logdir"
: > "$logdir/done"
softhca_log "lint: checkpatch --strict, sparse (a C=2 module build), clang-format, clang-tidy (logs in $logdir)"
softhca_progress_start progress/lint lint checks 4 "wc -l < '$logdir/done'"

# checkpatch: every kernel-side C source and header the project owns.
mapfile -t kfiles < <(git ls-files -co --exclude-standard kernel include tests/kunit |
	grep -E '\.[ch]$' | grep -v '\.mod\.c$')
# It counts by its exit status (non-zero on any ERROR, WARNING or CHECK,
# and when it could not run) as well as by its report.
if [ ${#kfiles[@]} -eq 0 ]; then
	echo "checkpatch: no kernel C file found" >"$logdir/checkpatch.log"
	rc=1
else
	perl "$SOFTHCA_CACHE/linux-source-6.1/scripts/checkpatch.pl" --no-tree \
		--strict --terse --show-types -f "${kfiles[@]}" \
		>"$logdir/checkpatch.log" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && grep -qE '(ERROR|WARNING|CHECK):' "$logdir/checkpatch.log"; then
		rc=1
	fi
	[ $rc -eq 0 ] || echo "checkpatch.pl exit status $rc" >>"$logdir/checkpatch.log"
fi
record checkpatch $rc "$logdir/checkpatch.log"

# sparse: check every object of the module (C=2 also checks up-to-date ones).
# W=1 as scripts/build.sh builds it: the same command lines, so objects
# that build made are checked, not compiled again.
make -C "$SOFTHCA_KDIR" M="$SOFTHCA_TOP/kernel" W=1 C=2 CHECK=sparse \
	-j"${SOFTHCA_JOBS:-$(nproc)}" modules \
	>"$logdir/sparse.log" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -E '^/.*: (warning|error):' "$logdir/sparse.log" >/dev/null; then
	rc=1
fi
record sparse $rc "$logdir/sparse.log"

# clang-format and clang-tidy on the C++ user space.
mapfile -t ufiles < <(git ls-files -co --exclude-standard userspace |
	grep -E '\.(cpp|h)$')
clang-format --style=file:userspace/.clang-format --dry-run --Werror \
	"${ufiles[@]}" >"$logdir/clang-format.log" 2>&1
record clang-format $? "$logdir/clang-format.log"

if [ ! -f build/userspace/compile_commands.json ]; then
	"$SOFTHCA_TOP/scripts/build.sh" provider >/dev/null || exit 1
fi
mapfile -t cfiles < <(printf '%s\n' "${ufiles[@]}" | grep '\.cpp$')
# two at a time (the machine's two CPUs): xargs fails if any one does
printf '%s\0' "${cfiles[@]}" |
	xargs -0 -P 2 -n 4 clang-tidy -p build/userspace --quiet \
	>"$logdir/clang-tidy.log" 2>&1
record clang-tidy $? "$logdir/clang-tidy.log"

softhca_progress_stop ok
exit $status
