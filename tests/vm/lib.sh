# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Helpers for the VM integration tests (sourced inside the guest). Each test
# case records "PASS vm.<group>.<case>" or "FAIL vm.<group>.<case>" in
# $SOFTHCA_OUT/results; a case's output is kept in $SOFTHCA_OUT/logs/.

: "${SOFTHCA_OUT:?}" "${SOFTHCA_TOP:?}"
GROUP=${GROUP:-$(basename "$0" .sh)}
LOGS=$SOFTHCA_OUT/logs
mkdir -p "$LOGS"
export RDMAV_DRIVERS=$SOFTHCA_TOP/build/userspace/libsofthca
BIN=$SOFTHCA_TOP/build/userspace

pass() {
	echo "PASS vm.$GROUP.$1" >> "$SOFTHCA_OUT/results"
	echo "  ok    $GROUP.$1 (${SECONDS}s)"
}

fail() {
	echo "FAIL vm.$GROUP.$1" >> "$SOFTHCA_OUT/results"
	echo "  FAIL  $GROUP.$1${2:+: $2} (${SECONDS}s)"
}

# check <case> <command...>: the command's exit status decides.
check() {
	local name=$1 log
	shift
	log=$LOGS/$GROUP.$name.log
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

# devinfo_field <dev> <field> [port-section-only]: a value from ibv_devinfo -v.
devinfo_field() {
	ibv_devinfo -v -d "$1" | sed -n "s/^[[:space:]]*$2:[[:space:]]*//p" |
		head -n 1
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

# Every group starts with the build tree's module loaded.
grep -q '^softhca ' /proc/modules || insmod "$SOFTHCA_TOP/kernel/softhca.ko"

# check_tool <command...>: a test program printing "PASS <case>" and
# "FAIL <case>: <why>" lines; each becomes a result of this group.
check_tool() {
	local log=$LOGS/$GROUP.tool.$$.$RANDOM.log rc line
	"$@" >"$log" 2>&1
	rc=$?
	while read -r line; do
		case $line in
		PASS\ *) pass "${line#PASS }" ;;
		FAIL\ *) local c=${line#FAIL }; fail "${c%%:*}" "${c#*: }" ;;
		esac
	done < "$log"
	if [ $rc -gt 1 ] || ! grep -qE '^(PASS|FAIL) ' "$log"; then
		fail "$(basename "$1")-$2-exit-$rc" "$(tail -n 1 "$log")"
	fi
}
