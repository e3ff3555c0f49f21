#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# rdma-core's own test suite (pyverbs, python3-pyverbs 44) on softhca0,
# and on rxe in the same boot for comparison (issue 10). softhca0 and
# rxe0 each have a veth pair of their own, with an IPv4 address (the
# suite's rdma_cm tests use the netdev's first address). On softhca0 the
# suite must end with no failure and no error; rxe's result is recorded
# next to it. The counts, and the skipped tests by reason, are in
# logs/t85-pyverbs.summary.log and on the console.
. "$SOFTHCA_TOP/tests/vm/lib.sh"

modprobe rdma_rxe
ip link add vpv0 type veth peer name vpv1
ip link add vrx0 type veth peer name vrx1
for n in vpv0 vpv1 vrx0 vrx1; do ip link set $n up; done
ip addr add 10.80.0.1/24 dev vpv0
ip addr add 10.82.0.1/24 dev vrx0
check link-add rdma link add softhca0 type softhca netdev vpv0
check link-add-rxe rdma link add rxe0 type rxe netdev vrx0
check gids-found wait_for 60 sh -c \
	"ibv_devinfo -v -d softhca0 | grep -q '::ffff:10.80.0.1, RoCE v2' &&
	 ibv_devinfo -v -d rxe0 | grep -q '::ffff:10.82.0.1, RoCE v2'"

# A copy of the installed suite. v44 finds a device's netdev (for its IP
# address and MAC) under /sys/class/infiniband/<dev>/device/net/, which
# only a device whose parent is its network function has: softhca's
# parent is its card's platform device, and rxe's is none, so every
# rdma_cm test would be skipped "doesn't have net interface". The copy
# reads the netdev of GID 0 from ib_core's GID attributes instead
# (ports/1/gid_attrs/ndevs/0): the same netdev, found the way later
# rdma-core versions do. Only these two lines of base.py change, here, at
# run time; nothing of rdma-core is kept in this repository.
PYV=/tmp/softhca-pyverbs
rm -rf $PYV
mkdir -p $PYV
cp -r /usr/share/doc/rdma-core/tests $PYV/
gunzip $PYV/tests/*.py.gz
sed -i -e "s|\['ls',|['cat',|" \
	-e "s|'/sys/class/infiniband/{}/device/net/'|'/sys/class/infiniband/{}/ports/1/gid_attrs/ndevs/0'|" \
	$PYV/tests/base.py
patched() {
	[ "$(grep -c "gid_attrs/ndevs/0" $PYV/tests/base.py)" -eq 2 ] &&
		grep -q "check_output(\['cat'," $PYV/tests/base.py &&
		! grep -q 'device/net' $PYV/tests/base.py
}
check suite-copied-and-patched patched

# summary <log> <dev>: the counts of a run, and its skips by reason.
summary() {
	python3 - "$1" "$2" <<'EOF'
import collections, re, sys
log, dev = sys.argv[1], sys.argv[2]
text = open(log, errors="replace").read()
ran = re.findall(r"^Ran (\d+) tests? in", text, re.M)
end = re.findall(r"^(OK|FAILED)(?: \((.*)\))?$", text, re.M)
if not ran or not end:
    print(f"{dev}: no unittest summary in {log}")
    sys.exit(1)
n = int(ran[-1])
c = collections.Counter()
for kv in (end[-1][1] or "").split(", "):
    if "=" in kv:
        k, v = kv.split("=")
        c[k.strip()] = int(v)
bad = c["failures"] + c["errors"] + c["unexpected successes"]
passed = n - bad - c["skipped"] - c["expected failures"]
print(f"{dev}: ran {n}, passed {passed}, skipped {c['skipped']}, "
      f"failures {c['failures']}, errors {c['errors']}")
reasons = collections.Counter(m[2] for m in re.finditer(
    r"\.\.\. skipped (['\"])(.*)\1$", text, re.M))
for r, k in sorted(reasons.items(), key=lambda x: (-x[1], x[0])):
    print(f"  skipped {k:3d}: {r}")
for m in re.finditer(r"^(ERROR|FAIL): (.*)$", text, re.M):
    print(f"  {m[1]}: {m[2]}")
print(f"RESULT {dev} {n} {passed} {c['skipped']} {c['failures']} {c['errors']}")
EOF
}

SUM=$LOGS/$GROUP.summary.log
: > "$SUM"
# run_suite <dev>: the whole suite on <dev>; its log; its summary line.
run_suite() {
	local log=$LOGS/$GROUP.$1.log
	(cd $PYV && timeout 540 python3 tests/run_tests.py --dev "$1" -v) \
		> "$log" 2>&1
	echo "exit $?" >> "$log"
	summary "$log" "$1" | tee -a "$SUM"
}

t0=$SECONDS
run_suite softhca0 > /dev/null
echo "  (softhca0: $((SECONDS - t0)) s)" >> "$SUM"
t0=$SECONDS
run_suite rxe0 > /dev/null
echo "  (rxe0: $((SECONDS - t0)) s)" >> "$SUM"
# outcomes <log softhca0> <log rxe0>: the tests whose outcome differs
# between the two devices, each with what each device gave (a test's
# status may follow output of its own on later lines).
outcomes() {
	python3 - "$1" "$2" <<'EOF'
import re, sys
def parse(path):
    out, cur = {}, None
    head = re.compile(r"^(test_\S+) \((\S+)\)(?: \.\.\.)? ?(.*)$")
    status = re.compile(r"(?:^|\.\.\. )(ok|FAIL|ERROR|expected failure|skipped .*)$")
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        m = head.match(line)
        if m:
            cur = m[2]
            line = m[3]
        if cur is None:
            continue
        m = status.search(line)
        if m and cur not in out:
            out[cur] = m[1]
    return out
a, b = parse(sys.argv[1]), parse(sys.argv[2])
for t in sorted(set(a) | set(b)):
    x, y = a.get(t, "not run"), b.get(t, "not run")
    if x.split()[0] != y.split()[0]:
        print(f"  differs: {t}: softhca0 {x}; rxe0 {y}")
EOF
}
outcomes "$LOGS/$GROUP.softhca0.log" "$LOGS/$GROUP.rxe0.log" >> "$SUM"
sed 's/^/    /' "$SUM"
res() { sed -n "s/^RESULT $1 //p" "$SUM"; }

# softhca0: the suite ran to its end, with no failure and no error
softhca_clean() {
	local r
	r=$(res softhca0)
	grep -q '^exit 0$' "$LOGS/$GROUP.softhca0.log" && [ -n "$r" ] &&
		set -- $r && [ "$1" -gt 0 ] && [ "$4" -eq 0 ] && [ "$5" -eq 0 ]
}
logmap softhca0-no-failures-no-errors "$LOGS/$GROUP.softhca0.log"
if softhca_clean; then
	pass softhca0-no-failures-no-errors
else
	fail softhca0-no-failures-no-errors "$(res softhca0 || true) (see $SUM)"
fi
# rxe0: the same suite ran to its end there too (its failures are rxe's;
# they are in the summary)
rxe_counted() {
	local a b
	a=$(res softhca0)
	b=$(res rxe0)
	[ -n "$a" ] && [ -n "$b" ] && [ "${a%% *}" = "${b%% *}" ]
}
logmap rxe0-same-suite-ran "$LOGS/$GROUP.rxe0.log"
if rxe_counted; then
	pass rxe0-same-suite-ran
else
	fail rxe0-same-suite-ran "softhca0: $(res softhca0), rxe0: $(res rxe0)"
fi

check link-delete rdma link delete softhca0
check link-delete-rxe rdma link delete rxe0
ip link del vpv0
ip link del vrx0
rm -rf $PYV
