#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-kernels: debian
# rdma-core's own test suite (pyverbs, python3-pyverbs 44) on softhca0
# (issue 10), on a veth of its own with an IPv4 address (the suite's
# rdma_cm tests use the netdev's first address): it must end with no
# failure and no error. The counts, and the skipped tests by reason, are
# in logs/t85-pyverbs.summary.log and on the console. The same suite on
# rxe, side by side, is the benchmark's pyverbs part ("make bench";
# SOFTHCA_BENCH_PARTS=pyverbs for it alone): a comparison, which checks
# nothing of softhca's.
. "$SOFTHCA_TOP/tests/vm/lib.sh"
. "$SOFTHCA_TOP/tests/vm/pyverbs-lib.sh"

ip link add vpv0 type veth peer name vpv1
for n in vpv0 vpv1; do ip link set $n up; done
ip addr add 10.80.0.1/24 dev vpv0
check link-add rdma link add softhca0 type softhca netdev vpv0
check gids-found wait_for 60 sh -c \
	"ibv_devinfo -v -d softhca0 | grep -q '::ffff:10.80.0.1, RoCE v2'"

# a copy of the installed suite, patched to find the netdev through the
# GID attributes (tests/vm/pyverbs-lib.sh says why)
pyverbs_copy
check suite-copied-and-patched pyverbs_patched

SUM=$LOGS/$GROUP.summary.log
: > "$SUM"
log=$LOGS/$GROUP.softhca0.log
t0=$SECONDS
pyverbs_run softhca0 "$log"
pyverbs_summary "$log" softhca0 >> "$SUM"
echo "  (softhca0: $((SECONDS - t0)) s)" >> "$SUM"
sed 's/^/    /' "$SUM"
res() { sed -n "s/^RESULT $1 //p" "$SUM"; }

# softhca0: the suite ran to its end, with no failure and no error
softhca_clean() {
	local r
	r=$(res softhca0)
	grep -q '^exit 0$' "$log" && [ -n "$r" ] &&
		set -- $r && [ "$1" -gt 0 ] && [ "$4" -eq 0 ] && [ "$5" -eq 0 ]
}
logmap softhca0-no-failures-no-errors "$log"
if softhca_clean; then
	pass softhca0-no-failures-no-errors
else
	fail softhca0-no-failures-no-errors "$(res softhca0 || true) (see $SUM)"
fi

check link-delete rdma link delete softhca0
ip link del vpv0
