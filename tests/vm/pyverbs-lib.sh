# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# rdma-core's own test suite (pyverbs, python3-pyverbs 44) as the VM runs
# it: t85-pyverbs on softhca0, and "make bench" (its pyverbs part) on
# softhca0 and rxe0 side by side. Sourced; the functions:
#   pyverbs_copy                  a patched copy of the installed suite in
#                                 $PYV (see below)
#   pyverbs_patched               whether the copy carries the patch
#   pyverbs_run <dev> <log>       the whole suite on <dev>, its output and
#                                 "exit N" in <log>
#   pyverbs_summary <log> <dev>   its counts, skips by reason, failures, and
#                                 "RESULT <dev> ran passed skipped failures errors"
#   pyverbs_outcomes <log a> <log b> <dev a> <dev b>
#                                 the tests whose outcome differs
#
# The copy: v44 finds a device's netdev (for its IP address and MAC)
# under /sys/class/infiniband/<dev>/device/net/, which only a device whose
# parent is its network function has: softhca's parent is its card's
# platform device, and rxe's is none, so every rdma_cm test would be
# skipped "doesn't have net interface". The copy reads the netdev of GID 0
# from ib_core's GID attributes instead (ports/1/gid_attrs/ndevs/0): the
# same netdev, found the way later rdma-core versions do. Only these two
# lines of base.py change, here, at run time; nothing of rdma-core is kept
# in this repository.
PYV=/tmp/softhca-pyverbs

pyverbs_copy() {
	rm -rf $PYV
	mkdir -p $PYV
	cp -r /usr/share/doc/rdma-core/tests $PYV/
	gunzip $PYV/tests/*.py.gz
	sed -i -e "s|\['ls',|['cat',|" \
		-e "s|'/sys/class/infiniband/{}/device/net/'|'/sys/class/infiniband/{}/ports/1/gid_attrs/ndevs/0'|" \
		$PYV/tests/base.py
}

pyverbs_patched() {
	[ "$(grep -c "gid_attrs/ndevs/0" $PYV/tests/base.py)" -eq 2 ] &&
		grep -q "check_output(\['cat'," $PYV/tests/base.py &&
		! grep -q 'device/net' $PYV/tests/base.py
}

pyverbs_run() {
	(cd $PYV && timeout 540 python3 tests/run_tests.py --dev "$1" -v) \
		> "$2" 2>&1
	echo "exit $?" >> "$2"
}

# pyverbs_summary <log> <dev>: the counts of a run, and its skips by reason.
pyverbs_summary() {
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

# pyverbs_outcomes <log a> <log b> <dev a> <dev b>: the tests whose
# outcome differs between the runs on two devices, each with what each
# device gave (a test's status may follow output of its own on later
# lines).
pyverbs_outcomes() {
	python3 - "$1" "$2" "$3" "$4" <<'EOF'
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
        print(f"  differs: {t}: {sys.argv[3]} {x}; {sys.argv[4]} {y}")
EOF
}
