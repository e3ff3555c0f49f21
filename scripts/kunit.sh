#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Run the softhca KUnit suites (tests/kunit) and report.
#
#   1. build (or reuse) the KUnit kernel: scripts/kunit-kernel.sh
#   2. build tests/kunit as softhca_kunit.ko against it, out of tree, in a
#      mirror of the checkout under .cache/kunit/mod (no objects in kernel/)
#   3. pack a busybox initramfs whose /init insmods it between markers,
#      rmmods it and reboots
#   4. boot it in QEMU (TCG) with kunit.filter_glob=__none__, so no built-in
#      suite runs and the module's suites are numbered from 1
#   5. parse the module's KTAP with the kernel's own kunit.py parse
#   6. check that every suite registered in tests/kunit/*.c reported, and
#      that no case failed, crashed or went unparsed
#
# Exits non-zero on any failed, crashed, missing or unparsed case. With
# SOFTHCA_RESULTS=<file>, appends one line per case to it ("PASS
# kunit.<suite>.<case>", "FAIL ...", "SKIP ..."), and "FAIL kunit.<suite>"
# for a missing (or failed, case-less) suite, "FAIL kunit.parse" when the
# log could not be parsed, "FAIL kunit.build" when nothing could be built,
# "FAIL kunit.vm" when the guest did not run to its end (timeout, insmod or
# rmmod failure) and "FAIL kunit.kernel_log" for a kernel WARNING/BUG/Oops.
#
# Environment: SOFTHCA_KUNIT_TIMEOUT (boot timeout, s; default 300),
# SOFTHCA_KUNIT_SMP (guest CPUs; default 1), SOFTHCA_JOBS (make -j).
set -euo pipefail
. "$(dirname "$0")/config.sh"

kdir=$SOFTHCA_CACHE/kunit
tdir=$SOFTHCA_TOP/tests/kunit
mod=$kdir/mod
timeout_s=${SOFTHCA_KUNIT_TIMEOUT:-300}
smp=${SOFTHCA_KUNIT_SMP:-1}
jobs=${SOFTHCA_JOBS:-$(nproc)}
results=${SOFTHCA_RESULTS:-}
console=$kdir/console.log
ktap=$kdir/ktap.log
json=$kdir/results.json
parsed=$kdir/parse.log
marker=SOFTHCA-KUNIT

# Run from a top-level "make kunit X=Y", make's variables must not leak into
# the kernel build (any change of its command lines rebuilds everything).
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL KCFLAGS KAFLAGS KCPPFLAGS
unset KBUILD_OUTPUT KBUILD_EXTRA_WARN ARCH CROSS_COMPILE LLVM
export PYTHONDONTWRITEBYTECODE=1
export CCACHE_DIR=$SOFTHCA_CACHE/ccache
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-2G}
export KBUILD_BUILD_USER=softhca KBUILD_BUILD_HOST=kunit

now() { date +%s.%N; }
since() { printf '%.1f' "$(echo "$(now) - $1" | bc)"; }
record() { [ -z "$results" ] || printf '%s\n' "$@" >> "$results"; }
fail_build() {
	record "FAIL kunit.build"
	softhca_die "$*"
}

mkdir -p "$kdir"
exec 9>"$kdir/run.lock"
if ! flock -n 9; then
	softhca_log "kunit: waiting for another scripts/kunit.sh run"
	flock 9
fi
t_all=$(now)

# 1. The kernel.
t0=$(now)
build=$("$SOFTHCA_TOP/scripts/kunit-kernel.sh") || fail_build "KUnit kernel build failed"
t_kernel=$(since "$t0")
src=$kdir/linux

# 2. The test module, built in a mirror of the checkout made of symlinks to
# the sources (make follows them for timestamps), so that driver files the
# Kbuild pulls in from ../../kernel get their objects in the mirror.
t0=$(now)
# A new kernel (its stamp changed) gets a module built from scratch.
kstamp=$(cat "$build/.softhca-kunit-stamp")
if [ ! -f "$mod/.kernel-stamp" ] ||
	[ "$(cat "$mod/.kernel-stamp")" != "$kstamp" ]; then
	rm -rf "$mod"
fi
mkdir -p "$mod"
echo "$kstamp" > "$mod/.kernel-stamp"
find "$mod" -type l -delete
(
	cd "$SOFTHCA_TOP"
	find include kernel tests/kunit -type f \( -name '*.[ch]' -o -path \
		'tests/kunit/Kbuild' \) ! -name '*.mod.c' 2>/dev/null
) | while read -r f; do
	mkdir -p "$mod/$(dirname "$f")"
	ln -s "$SOFTHCA_TOP/$f" "$mod/$f"
done
mlog=$kdir/module-build.log
if ! make -C "$build" M="$mod/tests/kunit" "CC=ccache gcc" W=1 \
	-j"$jobs" modules >"$mlog" 2>&1; then
	cat "$mlog" >&2
	fail_build "building softhca_kunit.ko failed (see $mlog)"
fi
if grep -q 'warning:' "$mlog"; then
	softhca_log "kunit: the test module has compiler warnings:"
	grep -A3 'warning:' "$mlog" >&2
fi
ko=$mod/tests/kunit/softhca_kunit.ko
[ -f "$ko" ] || fail_build "no $ko after the module build"
t_module=$(since "$t0")

# 3. The initramfs (gen_init_cpio: device nodes without root).
t0=$(now)
initdir=$kdir/initramfs
rm -rf "$initdir"
mkdir -p "$initdir"
cat > "$initdir/init" <<EOF
#!/bin/sh
bb=/bin/busybox
\$bb mount -t proc proc /proc
\$bb mount -t sysfs sysfs /sys
echo "$marker: begin"
\$bb insmod /softhca_kunit.ko
echo "$marker: insmod rc=\$?"
\$bb rmmod softhca_kunit
echo "$marker: rmmod rc=\$?"
echo "$marker: end"
\$bb reboot -f
EOF
cat > "$initdir/list" <<EOF
dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
dir /bin 0755 0 0
dir /proc 0755 0 0
dir /sys 0755 0 0
file /bin/busybox /bin/busybox 0755 0 0
slink /bin/sh busybox 0777 0 0
file /init $initdir/init 0755 0 0
file /softhca_kunit.ko $ko 0644 0 0
EOF
phdrs=$(readelf -l /bin/busybox 2>/dev/null || true)
if [ ! -x /bin/busybox ] || [[ $phdrs == *"program interpreter"* ]]; then
	fail_build "/bin/busybox is not busybox-static (scripts/deps.sh)"
fi
"$build/usr/gen_init_cpio" "$initdir/list" > "$initdir/initramfs.cpio"
t_initrd=$(since "$t0")

# 4. Boot (one kernel build or VM at a time on the machine).
softhca_heavy_lock
t0=$(now)
# oops=panic: in 6.1 a case that oopses is only noticed by KUnit's 300 s
# per-case timeout; a panic ends the VM at once (the rest shows as crashed).
append="console=ttyS0 oops=panic panic=-1 kunit.filter_glob=__none__"
set +e
timeout -k 10 "$timeout_s" qemu-system-x86_64 -accel tcg -smp "$smp" \
	-m 1024 -nodefaults -no-reboot -nographic -serial stdio \
	-bios /usr/share/qemu/qboot.rom \
	-kernel "$build/arch/x86/boot/bzImage" \
	-initrd "$initdir/initramfs.cpio" -append "$append" \
	</dev/null >"$console" 2>&1
qrc=$?
set -e
t_boot=$(since "$t0")
sed -i 's/\r$//' "$console"
problems=()
if [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then
	problems+=("QEMU timed out after ${timeout_s}s")
elif [ $qrc -ne 0 ]; then
	problems+=("QEMU exited with status $qrc")
fi
grep -q "^$marker: end" "$console" ||
	problems+=("the guest did not reach the end marker")
irc=$(sed -n "s/^$marker: insmod rc=//p" "$console")
[ "$irc" = 0 ] || problems+=("insmod softhca_kunit.ko: rc=${irc:-none}")
rrc=$(sed -n "s/^$marker: rmmod rc=//p" "$console")
[ "$rrc" = 0 ] || problems+=("rmmod softhca_kunit: rc=${rrc:-none}")

# 5. Parse. Only the module's KTAP (from the begin marker to insmod's return)
# is parsed, behind a top-level header for the suites it holds.
t0=$(now)
sed -n "/^$marker: begin/,/^$marker: insmod rc=/p" "$console" |
	sed "/^$marker: /d" > "$ktap.body"
nsuites=$(grep -c '^    # Subtest:' "$ktap.body" || true)
{ printf 'KTAP version 1\n1..%s\n' "$nsuites"; cat "$ktap.body"; } > "$ktap"
rm -f "$ktap.body" "$json"
set +e
(cd "$src" && python3 tools/testing/kunit/kunit.py parse --json="$json" \
	"$ktap") >"$parsed" 2>&1
prc=$?
set -e
cat "$parsed"
t_parse=$(since "$t0")

# Kernel reports while the module was loaded fail the run too.
bad='WARNING:|BUG:|Oops|general protection fault|KASAN|UBSAN|Call Trace:|kernel panic'
kreports=$(sed -n "/^$marker: begin/,/^$marker: end/p" "$console" |
	grep -E "$bad" | head -n 5 || true)

# 6. Check and report.
set +e
python3 - "$tdir" "$json" "$ktap" "$parsed" "$prc" "$results" \
	"$kreports" "${problems[@]+"${problems[@]}"}" <<'EOF'
import glob, json, os, re, sys

tdir, jpath, ktap, parsed, prc, results, kreports = sys.argv[1:8]
problems = sys.argv[8:]
out = []		# lines for SOFTHCA_RESULTS
bad = 0
if problems:
	out.append('FAIL kunit.vm')

# Suites registered in tests/kunit/*.c, and their cases' names (to name
# the cases a crash left unreported).
expected = []
case_names = {}
for path in sorted(glob.glob(os.path.join(tdir, '*.c'))):
	text = open(path, encoding='utf-8', errors='replace').read()
	arrays = {}
	for m in re.finditer(r'struct\s+kunit_case\s+(\w+)\s*\[\s*\]\s*=\s*'
			     r'\{(.*?)\};', text, re.S):
		arrays[m.group(1)] = re.findall(
			r'KUNIT_CASE\w*\s*\(\s*(\w+)', m.group(2))
	for m in re.finditer(r'struct\s+kunit_suite\s+\w+\s*=\s*\{(.*?)\};',
			     text, re.S):
		n = re.search(r'\.name\s*=\s*"([^"]+)"', m.group(1))
		if n:
			expected.append(n.group(1))
			a = re.search(r'\.test_cases\s*=\s*(\w+)', m.group(1))
			if a and a.group(1) in arrays:
				case_names[n.group(1)] = arrays[a.group(1)]

# Suite result lines of the top-level KTAP.
suite_line = {}
for line in open(ktap, encoding='utf-8', errors='replace'):
	m = re.match(r'^(not ok|ok) \d+ (\S+)(.*)$', line.rstrip())
	if m:
		skip = re.search(r'#\s*SKIP', m.group(3), re.I)
		suite_line[m.group(2)] = 'SKIP' if skip else \
			('PASS' if m.group(1) == 'ok' else 'FAIL')

tree = None
try:
	tree = json.load(open(jpath))
except (OSError, ValueError) as e:
	problems.append('kunit.py parse wrote no JSON (%s)' % e)

summary = ''
for line in open(parsed, encoding='utf-8', errors='replace'):
	if 'Testing complete.' in line:
		summary = line.strip()
parse_errors = re.search(r'errors: *[1-9]', summary) is not None
if re.search(r'Ran 0 tests: errors: 1$', summary):
	parse_errors = False	# "1..0": no suite ran; reported as missing
if prc not in ('0', '1'):
	problems.append('kunit.py parse exited with status ' + prc)
if tree is None or not summary or prc not in ('0', '1'):
	out.append('FAIL kunit.parse')
	bad += 1
elif parse_errors:
	problems.append('kunit.py parse reported errors: ' + summary)

# Suites as parsed: a suite with no cases shows up as a bare "test case".
suites = {}
if tree:
	for g in tree.get('sub_groups', []):
		suites[g['name']] = [(c['name'], c['status'])
				     for c in g.get('test_cases', [])]
	for c in tree.get('test_cases', []):
		suites.setdefault(c['name'] or '(unnamed)', [])

total = {'PASS': 0, 'FAIL': 0, 'SKIP': 0, 'ERROR': 0}
print()
print('softhca KUnit results')
for name in expected + sorted(set(suites) - set(expected)):
	if name not in suites:
		print('  %-24s MISSING (not reported)' % name)
		out.append('FAIL kunit.%s' % name)
		bad += 1
		continue
	cases = suites[name]
	counts = {'PASS': 0, 'FAIL': 0, 'SKIP': 0, 'ERROR': 0}
	lines = []
	known = case_names.get(name, [])
	for i, (case, status) in enumerate(cases, 1):
		if not case:
			case = known[i - 1] if len(known) == len(cases) \
				else 'unreported_case_%d' % i
		counts[status] = counts.get(status, 0) + 1
		if status == 'PASS':
			out.append('PASS kunit.%s.%s' % (name, case))
		elif status == 'SKIP':
			out.append('SKIP kunit.%s.%s' % (name, case))
		else:
			out.append('FAIL kunit.%s.%s' % (name, case))
			lines.append('    %s %s' % ('CRASHED' if status == 'ERROR'
						  else 'FAILED ', case))
			bad += 1
	for k in counts:
		total[k] += counts[k]
	verdict = suite_line.get(name, 'NO RESULT LINE')
	if not cases or verdict not in ('PASS', 'SKIP') and not lines:
		# The suite itself failed (or crashed) with no failing case.
		out.append('FAIL kunit.%s' % name)
		lines.append('    suite result: %s' % verdict)
		bad += 1
	if name not in expected:
		lines.append('    (not registered in tests/kunit/*.c)')
	print('  %-24s %d/%d passed, %d failed, %d crashed, %d skipped' %
	      (name, counts['PASS'], len(cases), counts['FAIL'],
	       counts['ERROR'], counts['SKIP']))
	for line in lines:
		print(line)

if parse_errors and not bad:
	# Parser errors no failed, crashed or missing case explains.
	out.append('FAIL kunit.parse')
	bad += 1
if kreports:
	problems.append('kernel reports while the module was loaded:\n    ' +
			kreports.replace('\n', '\n    '))
	out.append('FAIL kunit.kernel_log')
	bad += 1
missing = [s for s in expected if s not in suites]
ncases = sum(total.values())
print('Total: %d suites (%d missing), %d cases: %d passed, %d failed, '
      '%d crashed, %d skipped' %
      (len(expected), len(missing), ncases, total['PASS'], total['FAIL'],
       total['ERROR'], total['SKIP']))
if not expected:
	problems.append('no struct kunit_suite found in %s/*.c' % tdir)
for p in problems:
	print('problem: ' + p)
if results:
	with open(results, 'a') as f:
		f.write(''.join(line + '\n' for line in out))
sys.exit(1 if bad or problems else 0)
EOF
rc=$?
set -e
softhca_log "kunit: kernel ${t_kernel}s, module ${t_module}s, initramfs ${t_initrd}s, boot ${t_boot}s, parse ${t_parse}s, total $(since "$t_all")s"
softhca_log "kunit: console log $console, JSON $json"
if [ $rc -ne 0 ]; then
	softhca_log "kunit: FAILED"
	exit 1
fi
softhca_log "kunit: all suites passed"
