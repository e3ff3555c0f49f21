#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# "make vm-test-debug-all": the whole VM suite in one boot of the debug
# kernel (KASAN, lockdep, kmemleak, UBSAN, fault injection), not only the
# groups whose "# vm-kernels:" line names it (those "make test" runs
# there; the others do not fit its cold budget, Documentation/testing.rst).
# Every group but t90-packages, which installs the Debian packages and
# builds the module with DKMS against the headers of the Debian kernel
# booted: the debug kernel is no Debian package and has none.
#
# Every group must report here the checks it reports on Debian's kernel
# (its vm.<group>.* names as vmdbg.<group>.*), those "make test"'s debug
# boot leaves out included (debug_trim in tests/vm/lib.sh; this run sets
# SOFTHCA_VM_DEBUG_ALL=1), through a manifest made from the committed one
# (SOFTHCA_MANIFEST, see tests/manifest.sh). About 40 minutes on 2
# cores; the VM's timeout is SOFTHCA_VM_TIMEOUT (default here 5400 s).
set -uo pipefail
. "$(dirname "$0")/../scripts/config.sh"
cd "$SOFTHCA_TOP" || exit 1

committed=tests/expected-checks.txt
groups=()
for g in tests/vm/t*.sh; do
	[ "$(basename "$g")" = t90-packages.sh ] && continue
	groups+=("$g")
done
manifest=$SOFTHCA_CACHE/vm/debug-all-checks.txt
mkdir -p "$(dirname "$manifest")"
{
	cat "$committed"
	for g in "${groups[@]}"; do
		n=$(basename "$g" .sh)
		grep "^vm\.$n\." "$committed" | sed 's/^vm\./vmdbg./'
	done
} | LC_ALL=C sort -u > "$manifest"
softhca_log "the whole VM suite on the debug kernel: ${#groups[@]} groups (manifest $manifest)"
SOFTHCA_MANIFEST=$manifest SOFTHCA_VM_KERNEL=debug SOFTHCA_VM_DEBUG_ALL=1 \
	SOFTHCA_VM_TIMEOUT=${SOFTHCA_VM_TIMEOUT:-5400} \
	SOFTHCA_VM_TESTS="${groups[*]}" exec tests/vm-tests.sh
