# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Helpers for the VM integration tests (sourced inside the guest). Each test
# case records "PASS vm.<group>.<case>", "FAIL vm.<group>.<case>" or
# "SKIP vm.<group>.<case>" in $SOFTHCA_OUT/results (on the debug kernel
# "vmdbg." instead of "vm.": $SOFTHCA_PREFIX); a case's output is kept
# in $SOFTHCA_OUT/logs/, and "vm.<group>.<case> <log>" in
# $SOFTHCA_OUT/logs.map says which file. Every case a group can report is
# listed in tests/expected-checks.txt: one that does not report fails.

: "${SOFTHCA_OUT:?}" "${SOFTHCA_TOP:?}"
GROUP=${GROUP:-$(basename "$0" .sh)}
PREFIX=${SOFTHCA_PREFIX:-vm}
# the softhca.ko of the kernel running (vm-guest.sh)
SOFTHCA_KO=${SOFTHCA_KO:-$SOFTHCA_TOP/kernel/softhca.ko}
LOGS=$SOFTHCA_OUT/logs
mkdir -p "$LOGS"
# the provider and test programs built for this guest's rdma-core
# (build/userspace; build/userspace-d13 in the Debian 13 guest: vm-run.sh
# exports it)
SOFTHCA_PROVIDER_DIR=${SOFTHCA_PROVIDER_DIR:-$SOFTHCA_TOP/build/userspace}
export RDMAV_DRIVERS=$SOFTHCA_PROVIDER_DIR/libsofthca
BIN=$SOFTHCA_PROVIDER_DIR
# the module built for the kernel booted (scripts/vm-run.sh exports it)
SOFTHCA_KO=${SOFTHCA_KO:-$SOFTHCA_TOP/kernel/softhca.ko}

# on_debug_kernel: the guest runs the debug kernel (KASAN, lockdep,
# kmemleak, UBSAN: its checks report as vmdbg.*). A group may move less
# data there: what that boot looks for is a report on each path taken,
# which a path gives on its first pass as on its thousandth.
on_debug_kernel() {
	[ "$PREFIX" = vmdbg ]
}

# debug_trim: the debug kernel's boot in "make test" (not "make
# vm-test-debug-all", which sets SOFTHCA_VM_DEBUG_ALL=1 and runs every
# check). A group leaves out there the checks that repeat a path the same
# boot takes in another check (the long runs that wrap the queue counters
# once more per opcode, perftest's opcodes once more over rdma_cm), that
# check user space only (the provider's system calls), or that reach a
# limit only through tens of thousands of objects (65534 PDs); their names
# are not in the manifest's vmdbg part, and Debian's kernels run them all.
# Why: the run's budget (Documentation/testing.rst, "The debug kernel").
debug_trim() {
	on_debug_kernel && [ -z "${SOFTHCA_VM_DEBUG_ALL:-}" ]
}

# logmap <case> <log>: the case's output is in <log>.
logmap() {
	echo "$PREFIX.$GROUP.$1 $2" >> "$SOFTHCA_OUT/logs.map"
}

pass() {
	echo "PASS $PREFIX.$GROUP.$1" >> "$SOFTHCA_OUT/results"
	echo "  ok    $GROUP.$1 (${SECONDS}s)"
}

fail() {
	echo "FAIL $PREFIX.$GROUP.$1" >> "$SOFTHCA_OUT/results"
	echo "  FAIL  $GROUP.$1${2:+: $2} (${SECONDS}s)"
}

skip() {
	echo "SKIP $PREFIX.$GROUP.$1" >> "$SOFTHCA_OUT/results"
	echo "  skip  $GROUP.$1${2:+: $2} (${SECONDS}s)"
}

# check <case> <command...>: the command's exit status decides.
check() {
	local name=$1 log
	shift
	log=$LOGS/$GROUP.$name.log
	logmap "$name" "$log"
	if "$@" >"$log" 2>&1; then
		pass "$name"
	else
		fail "$name" "exit $? ($(tail -n 1 "$log" | cut -c1-160))"
	fi
}

# check_fails <case> <errno text> <command...>: must fail, saying that.
check_fails() {
	local name=$1 want=$2 log
	shift 2
	log=$LOGS/$GROUP.$name.log
	logmap "$name" "$log"
	if "$@" >"$log" 2>&1; then
		fail "$name" "succeeded, expected failure ($want)"
	elif grep -q "$want" "$log"; then
		pass "$name"
	else
		fail "$name" "expected '$want', got: $(tail -n 1 "$log" | cut -c1-160)"
	fi
}

# expect_eq <case> <actual> <expected>
expect_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "got '$2', expected '$3'"
	fi
}

# A veth pair, both ends up; the first end gets an IPv4 address.
make_veth() {
	ip link add "$1" type veth peer name "$2" &&
		ip link set "$1" up && ip link set "$2" up &&
		ip addr add "$3" dev "$1"
}

# The node GUID a card derives from a MAC (EUI-64), as ibv_devinfo prints it.
mac_to_guid() {
	local IFS=: m
	read -ra m <<< "$1"
	printf '%02x%s:%sff:fe%s:%s%s\n' $((0x${m[0]} ^ 2)) "${m[1]}" "${m[2]}" \
		"${m[3]}" "${m[4]}" "${m[5]}"
}

# devinfo_pick <field>: the field's value in the ibv_devinfo -v output on
# stdin.
devinfo_pick() {
	sed -n "s/^[[:space:]]*$1:[[:space:]]*//p" | head -n 1
}

# devinfo_field <dev> <field>: a value from ibv_devinfo -v.
devinfo_field() {
	ibv_devinfo -v -d "$1" | devinfo_pick "$2"
}

# wait_for <seconds> <command...>: poll until the command succeeds.
wait_for() {
	local t=$1 i
	shift
	for ((i = 0; i < t * 10; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

# Readiness, never time: wait for the condition, with a generous timeout,
# and give up at once when the process that should bring it about is gone.
READY_TIMEOUT=${READY_TIMEOUT:-120}

# listens <net dir> <port> [tcp|udp]: a socket of the namespace whose
# /proc net directory that is (/proc/net: the caller's; /proc/<pid>/net:
# that process's) listens on <port> (TCP), or is bound to it unconnected
# (UDP), over IPv4 or IPv6: what "ss -l 'sport = :<port>'" lists. Read
# with the shell's own read, no process started (on the debug kernel an
# ss took 0.8 s, a poll of its own).
listens() {
	local dir=$1 hex proto=${3:-tcp} want=0A f sl addr peer st rest
	printf -v hex '%04X' "$2"
	[ "$proto" = udp ] && want=07
	for f in "$dir/$proto" "$dir/${proto}6"; do
		[ -r "$f" ] || continue
		while read -r sl addr peer st rest; do
			[ "${addr##*:}" = "$hex" ] && [ "$st" = "$want" ] && return 0
		done < "$f"
	done
	return 1
}

# wait_listen <pid> <port> [tcp|udp]: until something listens on <port>.
wait_listen() {
	local pid=$1 port=$2 proto=${3:-tcp} i
	for ((i = 0; i < READY_TIMEOUT * 10; i++)); do
		listens /proc/net "$port" "$proto" && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "wait_listen: nothing listens on $proto port $port (pid $pid $(kill -0 "$pid" 2>/dev/null && echo alive || echo gone))" >&2
	return 1
}

# wait_cm_listen <pid> <port>: until rdma_cm lists a listener on <port>
# (an rdma_cm server listens on no socket: "rdma resource show cm_id"
# shows its ID in state LISTEN, on its device or on all, "link <dev>/-").
wait_cm_listen() {
	local pid=$1 port=$2 i
	for ((i = 0; i < READY_TIMEOUT * 10; i++)); do
		rdma resource show cm_id 2>/dev/null |
			grep -Eq " state LISTEN .* src-addr [^ ]*:$port( |\$)" && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "wait_cm_listen: no rdma_cm listener on port $port (pid $pid $(kill -0 "$pid" 2>/dev/null && echo alive || echo gone)):" >&2
	rdma resource show cm_id >&2
	return 1
}

# wait_line <pid> <file> <ERE>: until a line of <file> matches.
wait_line() {
	local pid=$1 file=$2 re=$3 i
	for ((i = 0; i < READY_TIMEOUT * 10; i++)); do
		grep -Eq "$re" "$file" 2>/dev/null && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	grep -Eq "$re" "$file" 2>/dev/null && return 0
	echo "wait_line: no line /$re/ in $file (pid $pid $(kill -0 "$pid" 2>/dev/null && echo alive || echo gone)):" >&2
	cat "$file" >&2
	return 1
}

# lacks <ERE> <command...>: the command succeeds and no line of its
# output matches (a listing that failed proves no absence).
lacks() {
	local re=$1 out
	shift
	out=$("$@" 2>&1) || { echo "$* failed: $out"; return 1; }
	if printf '%s\n' "$out" | grep -Eq -- "$re"; then
		printf '%s\n' "$out"
		return 1
	fi
}

# debugfs_empty <file>: the card's listing exists, reads and is empty.
# debugfs_baseline <file>: remember the first field of each record of a
# card listing (the MAD layer's objects, there from rdma link add on);
# debugfs_as_baseline <file>: the listing holds those records and no other.
debugfs_baseline() {
	awk '{print $1, $2}' "$1" > "$SOFTHCA_OUT/baseline.$GROUP.$(basename "$1")"
}
debugfs_as_baseline() {
	local base=$SOFTHCA_OUT/baseline.$GROUP.$(basename "$1") now
	[ -f "$1" ] || { echo "no $1"; return 1; }
	[ -f "$base" ] || { echo "no baseline of $1"; return 1; }
	now=$(awk '{print $1, $2}' "$1") || { echo "cannot read $1"; return 1; }
	[ "$now" = "$(cat "$base")" ] ||
		{ echo "$1 (before: $(cat "$base" | tr '\n' ' ')):"; cat "$1"; return 1; }
}

debugfs_empty() {
	local out
	[ -f "$1" ] || { echo "no $1"; return 1; }
	out=$(cat "$1") || { echo "cannot read $1"; return 1; }
	[ -z "$out" ] || { echo "$1:"; echo "$out"; return 1; }
}

# kmemleak_clean: a kmemleak scan finds no leak. It reports objects older
# than its min_age (5 s) that nothing references; what it suspected before
# the VM's script ran was set aside (vm-guest.sh), and a leak once
# reported stays listed (every later check fails too). Leaks of the kernel
# itself that a group allowed in $SOFTHCA_OUT/allowed-leaks (by the
# allocating task's name and a function of the backtrace: see t45) are
# listed but do not count.
kmemleak_clean() {
	local k=/sys/kernel/debug/kmemleak kept=$SOFTHCA_OUT/allowed-leaks.now left
	[ -w $k ] || { echo "no kmemleak ($k)"; return 1; }
	sleep 5
	echo scan > $k || return 1
	# the kernel's own leaks a group allowed (scripts/vm-run.sh) are shown
	# but not counted
	touch "$SOFTHCA_OUT/allowed-leaks"
	: > "$kept"
	left=$(awk -v allowf="$SOFTHCA_OUT/allowed-leaks" -v keptf="$kept" \
		-f "$SOFTHCA_TOP/scripts/kmemleak-allowed.awk" $k 2>/dev/null) ||
		return 1
	if [ -s "$kept" ]; then
		echo "kmemleak: the kernel's own leaks, allowed ($SOFTHCA_OUT/allowed-leaks):"
		cat "$kept"
	fi
	if grep -q '^unreferenced object' <<< "$left"; then
		echo "$left"
		return 1
	fi
	echo "kmemleak: no leak"
}

# restrack_count <qp|cq|pd|mr> <ibdev>: how many objects of that type
# ib_core's resource tracking holds for <ibdev> (fails if rdma does).
restrack_count() {
	local out n
	out=$(rdma resource show "$1") || return 1
	# not ib_core's own clients' (the MAD layer's GSI QP, its CQ and PD):
	# rdma names a kernel owner in brackets
	n=$(printf '%s\n' "$out" | grep -E "^(link|dev) $2[/ ]" |
		grep -c -v ' comm \[')
	echo "$n"
}

# Every group starts with the build tree's module loaded (by vm-guest.sh,
# or by an earlier group); a failed load here is a failure of the group.
if ! grep -q '^softhca ' /proc/modules; then
	insmod "$SOFTHCA_KO" > "$LOGS/$GROUP.module-insmod.log" 2>&1 ||
		fail module-insmod "insmod $SOFTHCA_KO failed"
fi

# check_tool <command...>: a test program printing "PASS <case>" and
# "FAIL <case>: <why>" lines; each becomes a result of this group.
# Exit status 0 with no FAIL line, or 1 with one; anything else (a crash,
# a setup failure, no result at all) is a failure of its own.
TOOL_RUN=0
check_tool() {
	local log rc line c nfail
	TOOL_RUN=$((TOOL_RUN + 1))
	log=$LOGS/$GROUP.tool-$TOOL_RUN.log
	echo "+ $*" > "$log"
	"$@" >>"$log" 2>&1
	rc=$?
	nfail=0
	while read -r line; do
		case $line in
		PASS\ *) logmap "${line#PASS }" "$log"; pass "${line#PASS }" ;;
		SKIP\ *) logmap "${line#SKIP }" "$log"; skip "${line#SKIP }" ;;
		FAIL\ *)
			c=${line#FAIL }
			logmap "${c%%:*}" "$log"
			fail "${c%%:*}" "${c#*: }"
			nfail=$((nfail + 1))
			;;
		esac
	done < "$log"
	if [ $rc -gt 1 ] || ! grep -qE '^(PASS|FAIL|SKIP) ' "$log" ||
	   { [ $rc -eq 1 ] && [ $nfail -eq 0 ]; }; then
		c="tool-$TOOL_RUN-exit-$rc"
		logmap "$c" "$log"
		fail "$c" "$* ($(tail -n 1 "$log" | cut -c1-160))"
	fi
}
