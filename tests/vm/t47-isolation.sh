#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-kernels: debug
# Isolation (issue 12): two unprivileged users on one device
# (softhca-isolation). The victim, uid 1001, streams checked traffic and
# holds a target MR and QP; the attacker, uid 1002 with RLIMIT_MEMLOCK of
# 8 MiB, knows their numbers and keys and cannot open the victim's files,
# map its UAR, read its keys from "rdma resource" or debugfs, reach its
# memory through a QP not connected to its own, use its keys through its
# own QPs, nor pin past its limit; then it floods the card while the
# victim's traffic keeps flowing and its target stays untouched. Nothing
# is left afterwards and kmemleak finds no leak.
. "$SOFTHCA_TOP/tests/vm/lib.sh"

I=$BIN/softhca-isolation
make_veth veth47 veth48 10.47.0.1/24
check link-add rdma link add softhca0 type softhca netdev veth47
gid=$(ibv_devinfo -v -d softhca0 |
	sed -n 's/.*GID\[ *\([0-9]*\)\].*::ffff:10.47.0.1, RoCE v2.*/\1/p')
check rocev2-gid-found test -n "$gid"

# what udev does on a distribution: everyone may open the verbs devices
chmod 0666 /dev/infiniband/uverbs* /dev/infiniband/rdma_cm 2>/dev/null
dir=$(mktemp -d /tmp/softhca-iso.XXXXXX)
chmod 0777 "$dir"
as_user() {
	local uid=$1 memlock=$2
	shift 2
	sh -c "ulimit -l $memlock && exec setpriv --reuid=$uid --regid=$uid --clear-groups --inh-caps=-all \"\$@\"" as_user "$@"
}

# tool_results <log> <exit status> <name>: a background tool's lines
tool_results() {
	local line c
	logmap "$3" "$1"
	while read -r line; do
		case $line in
		PASS\ *) logmap "${line#PASS }" "$1"; pass "${line#PASS }" ;;
		FAIL\ *) c=${line#FAIL }; logmap "${c%%:*}" "$1"; fail "${c%%:*}" "${c#*: }" ;;
		esac
	done < "$1"
	if [ "$2" -gt 1 ] || ! grep -qE '^(PASS|FAIL) ' "$1"; then
		fail "$3-exit-$2" "$(tail -n 1 "$1")"
	fi
}

vlog=$LOGS/$GROUP.victim.log
alog=$LOGS/$GROUP.attacker.log
# 30 s of flood: on the debug kernel about 7000 WRITEs of 1 MiB and 2900
# object rounds (60 s made 14502 and 5205), each the victim's stream
# checked across; what one found once came as the flood ended
# (testing.rst), and every flood ends.
as_user 1001 65536 "$I" victim softhca0 "$gid" "$dir" 30 >"$vlog" 2>&1 &
victim=$!
if check victim-ready wait_line $victim "$vlog" '^READY'; then
	# what the attacker looks for is there for root: its check can fail
	rkey=$(printf '0x%x' "$(sed -n 's/^target_rkey //p' "$dir/victim.info")")
	check root-sees-victim-rkey sh -c "rdma resource show mr | tee /dev/stderr | grep -q 'rkey $rkey '"
	as_user 1002 8192 timeout 900 "$I" attacker softhca0 "$gid" "$dir" 30 >"$alog" 2>&1
	arc=$?
	[ -e "$dir/attacker.done" ] || touch "$dir/attacker.done"
	tool_results "$alog" $arc attacker
fi
wait $victim
tool_results "$vlog" $? victim
rm -rf "$dir"

no_restrack_objects() {
	local t n
	for t in pd cq qp mr; do
		n=$(restrack_count $t softhca0) || { echo "rdma resource show $t failed"; return 1; }
		echo "$t: $n"
		[ "$n" -eq 0 ] || return 1
	done
}
check no-restrack-objects wait_for 30 no_restrack_objects
check link-delete rdma link delete softhca0
check kmemleak-clean kmemleak_clean
ip link del veth47
