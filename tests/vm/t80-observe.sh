#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-kernels: debian debug
# Watching it work: the tracepoints of the driver (softhca) and the card
# (softhca_hw) during ibv_rc_pingpong -e, every completion event followed
# from the arm to the comp_handler (tests/vm/tracecheck.py); the rdma tool's
# views of the pingpong's CQ and QP with the driver's attributes; tracing
# turned off records nothing. Documentation/watching.rst shows the same.
. "$SOFTHCA_TOP/tests/vm/lib.sh"

T=/sys/kernel/tracing
D=/sys/kernel/debug/softhca/softhca0
PORT=18515
ITERS=100

[ -d $T/events ] || mount -t tracefs tracefs $T

# The kernel's own verbs at link add: ib_mad creates the GSI QP (QP1) on
# a kernel CQ, posts its receive buffers and arms the CQ; the kernel
# doorbells and the commands are in the trace.
echo 0 > $T/tracing_on
echo > $T/trace
for e in softhca_kqp_doorbell softhca_kcq_arm softhca_cmd_issue \
	softhca_cmd_done; do
	echo 1 > $T/events/softhca/$e/enable
done
echo 1 > $T/tracing_on
make_veth veth80 veth81 10.8.0.1/24
check link-add rdma link add softhca0 type softhca netdev veth80
for e in softhca_kqp_doorbell softhca_kcq_arm softhca_cmd_issue \
	softhca_cmd_done; do
	echo 0 > $T/events/softhca/$e/enable
done
cat $T/trace > "$LOGS/$GROUP.link-add.trace.txt"
check trace-link-add-qp1-rq-doorbell grep -Eq \
	'softhca_kqp_doorbell: softhca0 qpn 1 rq_pi [1-9]' \
	"$LOGS/$GROUP.link-add.trace.txt"
check trace-link-add-kernel-cq-armed grep -q 'softhca_kcq_arm: softhca0 cqn ' \
	"$LOGS/$GROUP.link-add.trace.txt"
check trace-link-add-create-qp-command grep -Eq \
	'softhca_cmd_done: softhca0 slot [0-9]+ CREATE_QP status 0x0 ' \
	"$LOGS/$GROUP.link-add.trace.txt"

gid=$(ibv_devinfo -v -d softhca0 | sed -n 's/.*GID\[ *\([0-9]*\)\].*::ffff:10.8.0.1, RoCE v2.*/\1/p')
check rocev2-gid-found test -n "$gid"
trace_events() {
	local e
	for e in softhca/softhca_cmd_issue softhca/softhca_cmd_done \
		softhca/softhca_eq_doorbell softhca/softhca_eq_irq \
		softhca/softhca_eqe softhca/softhca_eq_tasklet \
		softhca/softhca_cq_comp softhca/softhca_cq_doorbell \
		softhca/softhca_kcq_arm softhca/softhca_kqp_doorbell \
		softhca/softhca_engine_doorbell softhca_hw/softhca_hw_cmd \
		softhca_hw/softhca_hw_wqe softhca_hw/softhca_hw_cqe \
		softhca_hw/softhca_hw_cq_arm softhca_hw/softhca_hw_cq_event \
		softhca_hw/softhca_hw_eqe softhca_hw/softhca_hw_irq \
		softhca_hw/softhca_hw_engine_state \
		softhca_hw/softhca_hw_engine_wake \
		softhca_hw/softhca_hw_cq_resize; do
		[ -f $T/events/$e/format ] || { echo "no event $e"; return 1; }
	done
	echo "all there"
}
check trace-events-exist trace_events

# The trace clock is "counter", one atomic count for all CPUs: the merged
# trace is then the order in which the events were recorded, even for an
# event whose steps ran on two CPUs (the line raised on one, its handler
# on the other), where per-CPU time stamps can swap two of them.
trace_on() {
	echo 0 > $T/tracing_on
	echo counter > $T/trace_clock
	echo > $T/trace
	echo 16384 > $T/buffer_size_kb
	echo 1 > $T/events/softhca/enable
	echo 1 > $T/events/softhca_hw/enable
	echo 1 > $T/tracing_on
}
trace_off() {
	echo 0 > $T/events/softhca/enable
	echo 0 > $T/events/softhca_hw/enable
	echo 0 > $T/tracing_on
}

# pingpong_e <name>: server and client of ibv_rc_pingpong -e, $ITERS
# iterations; while the server waits for its client, its CQ and QP are
# there for the views.
VIEWS=
pingpong_e() {
	local name=$1 slog=$LOGS/$GROUP.$1.server.log clog=$LOGS/$GROUP.$1.client.log
	local srv rc src
	logmap "$name" "$clog"
	timeout 300 ibv_rc_pingpong -d softhca0 -g "$gid" -e -n $ITERS \
		>"$slog" 2>&1 &
	srv=$!
	if ! wait_listen $srv $PORT 2>>"$clog"; then
		kill $srv 2>/dev/null
		wait $srv
		fail "$name" "the server never listened: $(tail -n 1 "$slog")"
		return
	fi
	[ -n "$VIEWS" ] && $VIEWS
	timeout 300 ibv_rc_pingpong -d softhca0 -g "$gid" -e -n $ITERS \
		127.0.0.1 >>"$clog" 2>&1
	rc=$?
	wait $srv
	src=$?
	if [ $rc -eq 0 ] && [ $src -eq 0 ] && grep -q 'iters in' "$clog"; then
		pass "$name"
	else
		fail "$name" "client exit $rc, server exit $src: $(tail -n 1 "$clog")"
	fi
}

# The server's CQ (its only one) as "rdma resource show cq -dd" shows it:
# the driver's attributes, the card's context behind them.
cq_view() {
	local out line
	out=$(rdma -dd resource show cq dev softhca0) || return 1
	echo "$out"
	line=$(printf '%s\n' "$out" | grep ' comm ibv_rc_pingpong' | head -n 1)
	[ -n "$line" ] || { echo "no CQ of ibv_rc_pingpong"; return 1; }
	for a in hw_cqn log_size cqe_size block_size pas_entries page_offset \
		dbrec_slot eqn vector uar pi ci arm_sn armed solicited_only \
		events state ignore_overrun mod_count mod_period_us; do
		printf '%s\n' "$line" | grep -Eq " drv_$a [^ ]+" ||
			{ echo "no attribute $a"; return 1; }
	done
	# its EQ is the completion EQ of its vector, in the card's listing
	local eqn vec
	eqn=$(printf '%s\n' "$line" | sed -n 's/.* drv_eqn \([0-9]*\) .*/\1/p')
	vec=$(printf '%s\n' "$line" | sed -n 's/.* drv_vector \([0-9]*\) .*/\1/p')
	grep -q "^eqn $eqn name softhca0-ceq$vec " $D/eqs ||
		{ echo "eqn $eqn is not softhca0-ceq$vec:"; cat $D/eqs; return 1; }
}
qp_view() {
	local out line a
	out=$(rdma_res admin qp -dd) || return 1
	echo "$out"
	line=$(printf '%s\n' "$out" | grep ' comm ibv_rc_pingpong' | head -n 1)
	[ -n "$line" ] || { echo "no QP of ibv_rc_pingpong"; return 1; }
	for a in hw_pdn send_cqn recv_cqn uar sq_bbs rq_wqes rq_stride block_size \
		pas_entries dbrec_slot sq_pi sq_next sq_ci rq_pi rq_ci; do
		printf '%s\n' "$line" | grep -Eq " drv_$a [^ ]+" ||
			{ echo "no attribute $a"; return 1; }
	done
}
mr_view() {
	local out line a
	out=$(rdma -dd resource show mr dev softhca0) || return 1
	echo "$out"
	line=$(printf '%s\n' "$out" | grep ' comm ibv_rc_pingpong' | head -n 1)
	[ -n "$line" ] || { echo "no MR of ibv_rc_pingpong"; return 1; }
	for a in kind hw_pdn access block_size pas_entries; do
		printf '%s\n' "$line" | grep -Eq " drv_$a [^ ]+" ||
			{ echo "no attribute $a"; return 1; }
	done
}

# What a user without CAP_NET_ADMIN sees (nobody, its capabilities gone
# with root's uid): ib_core's fields and the driver's attributes, but no
# key and no address. ib_core shows an MR's lkey/rkey and a PD's
# local_dma_lkey to an admin only, the driver names no key or address
# and puts no value wider than 32 bits (a DMA address or an IOVA would
# be), and the raw contexts (-r, the card's QUERY answers with the DMA
# addresses) are refused.
# (rdma prints the driver's attributes with a drv_ prefix)
KEYS=' (drv_)?(lkey|rkey|mkey|local_dma_lkey|unsafe_global_rkey|iova|dbrec|[a-z_]*addr[a-z_]*) '
# rdma_res <admin|nobody> <type> [rdma options]: softhca0's objects of
# that type (QPs are chosen by link), as root or as nobody
rdma_res() {
	local who=$1 t=$2 run=()
	shift 2
	[ "$who" = nobody ] &&
		run=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	if [ "$t" = qp ]; then
		"${run[@]}" rdma "$@" resource show qp link softhca0/1
	else
		"${run[@]}" rdma "$@" resource show "$t" dev softhca0
	fi
}
as_admin_and_nobody() {
	local t=$1 admin user
	admin=$(rdma_res admin "$t" -dd) || return 1
	user=$(rdma_res nobody "$t" -dd) ||
		{ echo "nobody cannot list $t"; return 1; }
	echo "admin: $admin"
	echo "nobody: $user"
	printf '%s\n' "$user" | grep -q ' comm ibv_rc_pingpong' ||
		{ echo "nobody sees no $t of ibv_rc_pingpong"; return 1; }
	if printf '%s\n' "$user" | grep -Eq "$KEYS"; then
		echo "nobody sees a key or an address"
		return 1
	fi
	if printf '%s\n' "$user" | grep -Eq ' (0x[0-9a-f]{9,}|[0-9]{11,})( |$)'; then
		echo "nobody sees a value wider than 32 bits"
		return 1
	fi
	printf '%s\n' "$admin" | grep -q ' comm ibv_rc_pingpong'
}
# the admin's view of an MR has its keys (so their absence above means
# something), nobody's the same MR without them
mr_keys_admin_only() {
	as_admin_and_nobody mr || return 1
	local line
	line=$(rdma resource show mr dev softhca0 | grep ' comm ibv_rc_pingpong')
	if ! printf '%s\n' "$line" | grep -q ' lkey 0x[0-9a-f]* ' ||
	   ! printf '%s\n' "$line" | grep -q ' rkey 0x[0-9a-f]* '; then
		echo "the admin sees no lkey/rkey"
		return 1
	fi
}
pd_key_admin_only() {
	as_admin_and_nobody pd || return 1
	rdma resource show pd dev softhca0 | grep ' comm ibv_rc_pingpong' |
		grep -q ' local_dma_lkey 0x' ||
		{ echo "the admin sees no local_dma_lkey"; return 1; }
}
raw_admin_only() {
	local t out
	for t in cq qp mr; do
		out=$(rdma_res admin "$t" -j -r) ||
			{ echo "admin: rdma -r $t failed"; return 1; }
		printf '%s\n' "$out" | grep -q '"data":\[' ||
			{ echo "admin: no raw $t context: $out"; return 1; }
		out=$(rdma_res nobody "$t" -j -r 2>&1)
		echo "nobody, rdma -r $t: exit $?: $out"
		if printf '%s\n' "$out" | grep -q '"data":\['; then
			echo "nobody read the raw $t contexts"
			return 1
		fi
	done
}
views() {
	check rdma-cq-view-driver-attributes cq_view
	check rdma-qp-view-driver-attributes qp_view
	check rdma-mr-view-driver-attributes mr_view
	check rdma-unprivileged-cq-no-keys-or-addresses as_admin_and_nobody cq
	check rdma-unprivileged-qp-no-keys-or-addresses as_admin_and_nobody qp
	check rdma-unprivileged-mr-keys-admin-only mr_keys_admin_only
	check rdma-unprivileged-pd-key-admin-only pd_key_admin_only
	check rdma-raw-contexts-admin-only raw_admin_only
	VIEWS=
}

# An SRQ's view: ibv_srq_pingpong's server, waiting for its client, holds
# one SRQ. ib_core asks drivers for SRQ attributes from 6.5 on
# (fill_res_srq_entry; softhca_compat.h): there the view has the driver's
# attributes of the card's SRQ context; 6.1 lists the SRQ with ib_core's
# fields only, and no driver attribute. Which of the two this module is
# comes from its own build, as kernel/Kbuild decided it from the headers
# (-DSOFTHCA_HAVE_RES_SRQ in softhca_device.o's command line), not from
# the kernel's version: a kernel with the operation backported has it
# under any number.
srq_ops_cmd=$(dirname "$SOFTHCA_KO")/.softhca_device.o.cmd
srq_view() {
	local out line a raw k pid
	out=$(rdma -dd resource show srq dev softhca0) || return 1
	echo "$out"
	# (iproute2 6.1 prints an SRQ's QP list where its comm should be:
	# the server's SRQ is the one of its pid)
	pid=$(pgrep -f '^ibv_srq_pingpong ' | head -n 1)
	line=$(printf '%s\n' "$out" | grep " pid ${pid:-none} " | head -n 1)
	[ -n "$line" ] || { echo "no SRQ of ibv_srq_pingpong (pid ${pid:-none})"; return 1; }
	[ -f "$srq_ops_cmd" ] || { echo "no $srq_ops_cmd: how was $SOFTHCA_KO built?"; return 1; }
	if ! grep -q -- '-DSOFTHCA_HAVE_RES_SRQ' "$srq_ops_cmd"; then
		echo "$SOFTHCA_KO built without fill_res_srq_entry (ib_core has none)"
		if printf '%s\n' "$line" | grep -q ' drv_'; then
			echo "driver attributes on a kernel that cannot ask for them?"
			return 1
		fi
		return 0
	fi
	for a in hw_srqn hw_pdn uar wqes stride block_size pas_entries \
		dbrec_slot limit posted taken head; do
		printf '%s\n' "$line" | grep -Eq " drv_$a [^ ]+" ||
			{ echo "no attribute $a"; return 1; }
	done
	# 16 QPs' receives come from its 500 WQEs (the default -r)
	printf '%s\n' "$line" | grep -Eq ' drv_wqes (512|1024) ' ||
		{ echo "not the SRQ of 500 WQEs"; return 1; }
	# (Debian 12's iproute2 6.1 asks for no raw SRQ context: shown only)
	raw=$(rdma -j -r resource show srq dev softhca0 2>&1)
	echo "rdma -r srq: $raw"
}
slog=$LOGS/$GROUP.srq-view.server.log
clog=$LOGS/$GROUP.srq-view.client.log
logmap srq-pingpong-after-view "$clog"
timeout 120 ibv_srq_pingpong -d softhca0 -g "$gid" -n 20 >"$slog" 2>&1 &
srv=$!
if wait_listen $srv $PORT 2>"$clog"; then
	check rdma-srq-view srq_view
	timeout 120 ibv_srq_pingpong -d softhca0 -g "$gid" -n 20 127.0.0.1 >>"$clog" 2>&1
	crc=$?
else
	fail rdma-srq-view "the server never listened: $(tail -n 1 "$slog")"
	kill $srv 2>/dev/null
	crc=125
fi
wait $srv
expect_eq srq-pingpong-after-view "$crc $? $(grep -c 'iters in' "$clog" "$slog" | cut -d: -f2 | tr '\n' ' ')" "0 0 1 1 "

trace_on
VIEWS=views
pingpong_e rc-pingpong-events-traced
trace_off
cat $T/trace > "$LOGS/$GROUP.trace.txt"
echo local > $T/trace_clock
echo 1 > $T/tracing_on
cat $D/eqs > "$LOGS/$GROUP.eqs.txt"
check_tool python3 "$SOFTHCA_TOP/tests/vm/tracecheck.py" \
	"$LOGS/$GROUP.trace.txt" "$LOGS/$GROUP.eqs.txt" $ITERS

# Off means off: a run with the events disabled adds nothing.
echo > $T/trace
pingpong_e rc-pingpong-events-untraced
check trace-off-records-nothing lacks 'softhca' cat $T/trace

check link-delete rdma link delete softhca0
ip link del veth80
