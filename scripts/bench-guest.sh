#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The benchmark, inside the VM: softhca0 on one veth, rxe0 on another.
# perftest over RC (as before), over UD (-c UD) and through rdma_cm (-R),
# then NVMe over RDMA: an nvmet-rdma target on each device's address and
# the nvme-rdma host connected to it, fio 4 KiB random reads at iodepth 16
# for $SOFTHCA_BENCH_NVME_S seconds (IOPS and p99 completion latency; the
# devices take turns, the medians of $SOFTHCA_BENCH_RUNS runs each).
# SOFTHCA_BENCH_PARTS picks the parts ("perftest nvme" when run alone;
# scripts/bench.sh also asks for "pyverbs": rdma-core's pyverbs suite on
# both devices, side by side).
export RDMAV_DRIVERS=$SOFTHCA_TOP/build/userspace/libsofthca
runs=${SOFTHCA_BENCH_RUNS:-3}
nvme_s=${SOFTHCA_BENCH_NVME_S:-30}
res=$SOFTHCA_OUT/bench.txt

ip link add vethb0 type veth peer name vethb1
ip link add vethb2 type veth peer name vethb3
for l in vethb0 vethb1 vethb2 vethb3; do ip link set $l up; done
declare -A addr=([softhca0]=10.7.0.1 [rxe0]=10.7.1.1)
ip addr add ${addr[softhca0]}/24 dev vethb0
ip addr add ${addr[rxe0]}/24 dev vethb2
modprobe rdma_rxe
rdma link add softhca0 type softhca netdev vethb0
rdma link add rxe0 type rxe netdev vethb2

gid_of() {
	ibv_devinfo -v -d "$1" | sed -n "s/.*GID\[ *\([0-9]*\)\].*::ffff:$2, RoCE v2.*/\1/p"
}
declare -A gid
for dev in softhca0 rxe0; do
	for ((i = 0; i < 100; i++)); do
		gid[$dev]=$(gid_of $dev "${addr[$dev]}")
		[ -n "${gid[$dev]}" ] && break
		sleep 0.1
	done
done

# one <dev> <tool> <column> <args...>: one client figure. The server gets
# the device's address; with -R (rdma_cm) no GID index is given, rdma_cm
# finds the device from the address. A run whose clock calibration failed
# ("Correlation coefficient", no or infinite figures) is repeated, up to
# three times.
one() {
	local dev=$1 tool=$2 col=$3 out try i dx=()
	shift 3
	[[ " $* " == *" -R "* ]] || dx=(-x "${gid[$dev]}")
	for try in 1 2 3; do
		timeout 300 "$tool" -d "$dev" "${dx[@]}" "$@" >/dev/null 2>&1 &
		# the server listens on TCP (or, with -R, through rdma_cm)
		for ((i = 0; i < 100; i++)); do
			if [[ " $* " == *" -R "* ]]; then
				rdma resource show cm_id 2>/dev/null | grep -q "state LISTEN .*src-addr [^ ]*:18515" && break
			else
				ss -Hltn "sport = :18515" 2>/dev/null | grep -q . && break
			fi
			sleep 0.1
		done
		out=$(timeout 300 "$tool" -d "$dev" "${dx[@]}" "$@" "${addr[$dev]}" 2>&1)
		wait
		grep -q "Correlation coefficient" <<<"$out" || break
	done
	awk -v c="$col" '/^ *[0-9]+ +[0-9]+ +[0-9.]+/ {v=$c} END {print v}' <<<"$out"
}

median() {
	sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

# row <label> <softhca> <rxe> <unit> <better>: one line of the table.
row() {
	printf '%-34s %10s %10s %-6s %8s  (%s is better)\n' "$1" "$2" "$3" "$4" \
		"$(awk -v a="$2" -v b="$3" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "-"}')" \
		"$5" | tee -a "$res"
}

# bench <label> <column> <unit> <better: lower|higher> <tool> <args...>
bench() {
	local label=$1 col=$2 unit=$3 better=$4 tool=$5 s r i
	shift 5
	s=$(for ((i = 0; i < runs; i++)); do one softhca0 "$tool" "$col" "$@"; done | median)
	r=$(for ((i = 0; i < runs; i++)); do one rxe0 "$tool" "$col" "$@"; done | median)
	row "$label" "$s" "$r" "$unit" "$better"
}

parts=${SOFTHCA_BENCH_PARTS:-perftest nvme}
{
	echo "softhca vs rxe, same VM boot ($(nproc) vCPUs, QEMU TCG), median of $runs runs"
	printf '%-34s %10s %10s %-6s %8s\n' test softhca rxe unit ratio
} | tee "$res"
if [[ " $parts " == *" perftest "* ]]; then
bench "ib_send_lat 2B typical" 5 usec lower ib_send_lat -n 5000
bench "ib_send_lat 2B average" 6 usec lower ib_send_lat -n 5000
bench "ib_write_lat 2B typical" 5 usec lower ib_write_lat -n 5000
bench "ib_write_lat 2B average" 6 usec lower ib_write_lat -n 5000
bench "ib_read_lat 2B typical" 5 usec lower ib_read_lat -n 5000
bench "ib_write_bw 64KiB average" 4 MB/s higher ib_write_bw -s 65536 -n 5000
bench "ib_read_bw 64KiB average" 4 MB/s higher ib_read_bw -s 65536 -n 5000
bench "ib_send_bw 64KiB average" 4 MB/s higher ib_send_bw -s 65536 -n 5000
bench "UD ib_send_lat 2B typical" 5 usec lower ib_send_lat -c UD -n 5000
bench "UD ib_send_lat 2B average" 6 usec lower ib_send_lat -c UD -n 5000
bench "UD ib_send_bw 1KiB average" 4 MB/s higher ib_send_bw -c UD -s 1024 -n 20000
bench "rdma_cm ib_write_lat 2B typical" 5 usec lower ib_write_lat -R -n 5000
bench "rdma_cm ib_write_lat 2B average" 6 usec lower ib_write_lat -R -n 5000
fi

# rdma-core's pyverbs suite on both devices (t85-pyverbs runs it on
# softhca0 in make test): the counts side by side, and every test whose
# outcome differs, in pyverbs.txt.
if [[ " $parts " == *" pyverbs "* ]]; then
	. "$SOFTHCA_TOP/tests/vm/pyverbs-lib.sh"
	pyverbs_copy
	pv=$SOFTHCA_OUT/pyverbs.txt
	: > "$pv"
	for dev in softhca0 rxe0; do
		pyverbs_run $dev "$SOFTHCA_OUT/pyverbs-$dev.log"
		pyverbs_summary "$SOFTHCA_OUT/pyverbs-$dev.log" $dev >> "$pv" || true
	done
	pyverbs_outcomes "$SOFTHCA_OUT/pyverbs-softhca0.log" \
		"$SOFTHCA_OUT/pyverbs-rxe0.log" softhca0 rxe0 >> "$pv"
	grep -E '^[a-z0-9]+: ran|differs:' "$pv" | tee -a "$res"
fi
[[ " $parts " == *" nvme "* ]] || exit 0

# NVMe over RDMA: one subsystem per device, each with a null_blk namespace
# of its own (no backing memory: the transport is what is measured). The
# same fio on a third null_blk device, local, gives what the block layer
# and fio alone cost in this VM (Debian's kernel has no nvme-loop, which
# would show the NVMe-oF stack without a transport).
CFS=/sys/kernel/config/nvmet
modprobe -a nvmet nvmet-rdma nvme-rdma
modprobe null_blk nr_devices=3 gb=1
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
port=1
declare -A nqn nsdev
for dev in softhca0 rxe0; do
	nqn[$dev]=nqn.2024-01.io.softhca:bench-$dev
	s=$CFS/subsystems/${nqn[$dev]}
	mkdir "$s"
	echo 1 > "$s/attr_allow_any_host"
	mkdir "$s/namespaces/1"
	echo -n /dev/nullb$((port - 1)) > "$s/namespaces/1/device_path"
	echo 1 > "$s/namespaces/1/enable"
	mkdir "$CFS/ports/$port"
	echo rdma > "$CFS/ports/$port/addr_trtype"
	echo ipv4 > "$CFS/ports/$port/addr_adrfam"
	echo "${addr[$dev]}" > "$CFS/ports/$port/addr_traddr"
	echo 4420 > "$CFS/ports/$port/addr_trsvcid"
	ln -s "$s" "$CFS/ports/$port/subsystems/${nqn[$dev]}"
	port=$((port + 1))
	nvme connect -t rdma -n "${nqn[$dev]}" -a "${addr[$dev]}" -s 4420 -i 2 >/dev/null
	for ((i = 0; i < 300; i++)); do
		for c in /sys/class/nvme/nvme*; do
			[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "${nqn[$dev]}" ] || continue
			# nvmeXnY, or with native multipath the subsystem's
			# /dev/nvmeXnY beside the controller's hidden nvmeXcYnZ
			for n in "$c"/nvme*n1 /sys/block/"${c##*/}"n1; do
				[ -b "/dev/${n##*/}" ] && nsdev[$dev]=/dev/${n##*/}
			done
		done
		[ -n "${nsdev[$dev]:-}" ] && break
		sleep 0.1
	done
done

# fio_run <dev> <json>: 4 KiB random reads, iodepth 16; fio_fig <json>:
# its IOPS and p99 completion latency (us). The two devices take turns,
# $runs runs each, and the medians are reported (as for perftest); the
# local null_blk runs once.
fio_run() {
	timeout $((nvme_s + 120)) fio --name=bench-$1 \
		--filename="${nsdev[$1]}" --direct=1 --ioengine=libaio \
		--rw=randread --bs=4k --iodepth=16 --time_based \
		--runtime="$nvme_s" --ramp_time=2 --output-format=json \
		> "$2" 2>"${2%.json}.err"
}
fio_fig() {
	python3 - "$1" <<'EOF'
import json, sys
try:
    r = json.load(open(sys.argv[1]))["jobs"][0]["read"]
    p99 = r["clat_ns"]["percentile"]["99.000000"] / 1000.0
    print(f"{r['iops']:.0f} {p99:.1f}")
except Exception:
    print("- -")
EOF
}
# Where the two CPUs go during a run, per I/O: cpu_snap keeps each
# thread's run time (schedstat, ns) and name, /proc/stat's total line and
# the shell's children's times; cpu_per_io <dev> <before> <after> <fio
# json> adds a line to fio-cpu-runs.txt: microseconds of CPU per I/O by
# thread (fio; the kworkers; softhca's engine thread; ksoftirqd; the rest)
# and the CPUs' idle time. fio has exited by the second snapshot: its time
# is what the shell's children took meanwhile (the times builtin). The
# kworkers are one class: the high-priority pool's workers run
# nvmet-rdma's CQ polling (ib-comp-wq) and kblockd's work alike. The I/Os
# of the window are fio's IOPS times its length, ramp included (the
# multipath disk keeps no statistics). Debian's kernel has no IRQ time
# accounting: an interrupt, and the softirqs run on its way out, count to
# the thread they interrupted.
cpu_tasks() {
	awk 'FNR == 1 { f = FILENAME; sub(/schedstat$/, "comm", f)
		c = "?"; getline c < f; close(f); gsub(/ /, "_", c)
		split(FILENAME, p, "/"); print "task", p[5], c, $1 }' \
		/proc/[0-9]*/task/[0-9]*/schedstat 2>/dev/null
}
# cpu_snap <file> pre|post: the CPUs' count and the children's times are
# taken nearest the run (the threads' times hardly move outside it)
cpu_snap() {
	if [ "$2" = pre ]; then
		{ cpu_tasks; head -1 /proc/stat; } > "$1"
		times > "$1.times"
	else
		times > "$1.times"
		{ head -1 /proc/stat; cpu_tasks; } > "$1"
	fi
}
cpu_per_io() {
	python3 - "$@" >> "$SOFTHCA_OUT/fio-cpu-runs.txt" <<'PY'
import json, os, re, sys
dev, before, after, fio = sys.argv[1:5]
hz = os.sysconf("SC_CLK_TCK")  # /proc/stat's unit, per CPU
def load(path):
    cpu, tasks = None, {}
    for line in open(path):
        f = line.split()
        if f[0] == "cpu":
            cpu = [int(x) for x in f[1:]]
        elif f[0] == "task" and len(f) == 4:
            tasks[f[1]] = (f[2], int(f[3]))
    return cpu, tasks
def children_us(path):
    # the times builtin's second line: the children's user and system time
    user, system = open(path + ".times").read().split("\n")[1].split()
    m = [re.fullmatch(r"(\d+)m([\d.]+)s", t) for t in (user, system)]
    return sum((int(x[1]) * 60 + float(x[2])) * 1e6 for x in m)
c0, t0 = load(before)
c1, t1 = load(after)
try:
    iops = json.load(open(fio))["jobs"][0]["read"]["iops"]
except Exception:
    sys.exit(0)
# /proc/stat's total line counts the ticks of every CPU
window_s = (sum(c1) - sum(c0)) / hz / os.cpu_count()
ios = iops * window_s
classes = [("kworkers", r"^kworker/"), ("engine", r"^softhca.*engine"),
           ("ksoftirqd", r"^ksoftirqd/")]
us = {"fio": children_us(after) - children_us(before)}
us.update({name: 0.0 for name, _ in classes + [("other", "")]})
for tid, (comm, ns) in t1.items():
    # a thread born in the window ran only in it
    cls = next((n for n, r in classes if re.search(r, comm)), "other")
    us[cls] += (ns - t0.get(tid, (comm, 0))[1]) / 1000.0
# idle is its 4th field
us["idle"] = (c1[3] - c0[3]) * 1e6 / hz
if ios > 0:
    print(dev, f"ios={ios:.0f}", " ".join(f"{k}={v / ios:.0f}" for k, v in us.items()))
PY
}
declare -A fio_iops fio_p99
nsdev[local]=/dev/nullb2
: > "$SOFTHCA_OUT/fio-cpu-runs.txt"
for ((i = 1; i <= runs; i++)); do
	for dev in softhca0 rxe0; do
		[ -n "${nsdev[$dev]:-}" ] || continue
		cpu_snap "$SOFTHCA_OUT/cpu-$dev-$i.0" pre
		fio_run $dev "$SOFTHCA_OUT/fio-$dev-$i.json"
		cpu_snap "$SOFTHCA_OUT/cpu-$dev-$i.1" post
		cpu_per_io $dev "$SOFTHCA_OUT/cpu-$dev-$i.0" \
			"$SOFTHCA_OUT/cpu-$dev-$i.1" "$SOFTHCA_OUT/fio-$dev-$i.json"
	done
done
fio_run local "$SOFTHCA_OUT/fio-local.json"
for dev in softhca0 rxe0 local; do
	figs=$SOFTHCA_OUT/fio-$dev.figs
	: > "$figs"
	for j in "$SOFTHCA_OUT"/fio-$dev*.json; do fio_fig "$j" >> "$figs"; done
	fio_iops[$dev]=$(awk '{print $1}' "$figs" | median)
	fio_p99[$dev]=$(awk '{print $2}' "$figs" | median)
	echo "$dev fio runs (IOPS p99): $(tr '\n' ' ' < "$figs")" >> "$SOFTHCA_OUT/fio-runs.txt"
done
row "NVMe/RDMA 4KiB randread qd16 IOPS" "${fio_iops[softhca0]}" "${fio_iops[rxe0]}" IOPS higher
row "NVMe/RDMA 4KiB randread p99" "${fio_p99[softhca0]}" "${fio_p99[rxe0]}" usec lower
printf '%-34s %10s %10s %-6s %8s  (%s)\n' "local null_blk, no NVMe: IOPS" \
	"${fio_iops[local]}" - IOPS - "fio and the block layer alone" | tee -a "$res"
# the medians of each device's runs
echo "CPU per NVMe I/O (us, median of the runs; idle: both CPUs' idle time):" | tee -a "$res"
python3 - "$SOFTHCA_OUT/fio-cpu-runs.txt" <<'PY' | tee -a "$res"
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    f = line.split()
    runs.setdefault(f[0], []).append(dict(kv.split("=") for kv in f[1:]))
for dev, rs in runs.items():
    keys = [k for k in rs[0] if k != "ios"]
    med = {k: statistics.median(float(r[k]) for r in rs) for k in keys}
    busy = sum(v for k, v in med.items() if k != "idle")
    print(f"  {dev:8s} " + " ".join(f"{k} {med[k]:.0f}" for k in keys) + f" (busy {busy:.0f})")
PY
for dev in softhca0 rxe0; do
	nvme disconnect -n "${nqn[$dev]}" >/dev/null
done
