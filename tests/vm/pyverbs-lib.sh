# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# rdma-core's own test suite (pyverbs, python3-pyverbs 44) as the VM runs
# it: t85-pyverbs on softhca0, and "make bench" (its pyverbs part) on
# softhca0 and rxe0 side by side. Sourced; the functions:
#   pyverbs_copy                  a patched copy of the installed suite in
#                                 $PYV (see below)
#   pyverbs_patched               whether the copy carries the patch
#   pyverbs_parts                 the suite's modules in $PYVERBS_PARTS
#                                 lists of about equal work, one a line
#   pyverbs_run <dev> <log>       the whole suite on <dev>, one process a
#                                 list, all at once, their outputs and
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

# The suite in parts run at once, each in a process of its own: the guest
# has two CPUs and one run of the suite keeps one busy (on the debug
# kernel a test the device cannot run still costs its second of setUp:
# the device opened, its GID table read, "ip" run for each address). A
# part is a list of whole modules, balanced by their counts of tests.
# rdma_cm's tests all listen on port 7471: one part has every module of
# them. Two parts, one a CPU: three took longer on both kernels (193 s
# against 185 on the debug kernel).
PYVERBS_PARTS=2

# pyverbs_parts: the parts, one a line.
pyverbs_parts() {
	python3 - "$PYV/tests" "$PYVERBS_PARTS" <<'EOF'
import os, re, sys
d, nparts = sys.argv[1], int(sys.argv[2])
mods = []
for fn in sorted(os.listdir(d)):
    if fn.startswith("test_") and fn.endswith(".py"):
        text = open(os.path.join(d, fn), errors="replace").read()
        mods.append((fn[:-3], len(re.findall(r"^\s+def test_", text, re.M))))
parts, load = [[] for _ in range(nparts)], [0] * nparts
for m, n in sorted(mods, key=lambda x: ("rdmacm" not in x[0], -x[1], x[0])):
    i = 0 if "rdmacm" in m else load.index(min(load))
    parts[i].append("tests." + m)
    load[i] += n
for p in parts:
    print(" ".join(p))
EOF
}

# pyverbs_run <dev> <log>: each part's output follows a line "=== part N:
# <modules>" in <log>, then "exit N": 0 when every part exited 0, else
# the first other status.
pyverbs_run() {
	local dev=$1 log=$2 parts i s rc=0 pids=()
	mapfile -t parts < <(pyverbs_parts)
	for i in "${!parts[@]}"; do
		# one module name per word
		(cd $PYV && timeout 540 python3 tests/run_tests.py --dev "$dev" \
			-v ${parts[$i]}) > "$log.part$i" 2>&1 &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}"
		s=$?
		[ $rc -eq 0 ] && rc=$s
	done
	: > "$log"
	for i in "${!parts[@]}"; do
		echo "=== part $i: ${parts[$i]}" >> "$log"
		cat "$log.part$i" >> "$log"
		rm -f "$log.part$i"
	done
	echo "exit $rc" >> "$log"
}

# pyverbs_summary <log> <dev>: the counts of a run, and its skips by reason.
pyverbs_summary() {
	python3 - "$1" "$2" <<'EOF'
import collections, re, sys
log, dev = sys.argv[1], sys.argv[2]
text = open(log, errors="replace").read()
# one summary per part (pyverbs_run), the counts added up
parts = len(re.findall(r"^=== part \d+: ", text, re.M))
ran = re.findall(r"^Ran (\d+) tests? in", text, re.M)
end = re.findall(r"^(OK|FAILED)(?: \((.*)\))?$", text, re.M)
if not parts or len(ran) != parts or len(end) != parts:
    print(f"{dev}: {len(ran)} unittest summaries for {parts} parts in {log}")
    sys.exit(1)
n = sum(int(r) for r in ran)
c = collections.Counter()
for _, counts in end:
    for kv in (counts or "").split(", "):
        if "=" in kv:
            k, v = kv.split("=")
            c[k.strip()] += int(v)
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
