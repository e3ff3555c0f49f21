#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Boot the test kernel under QEMU (TCG), run a guest script and return its
# exit status. The kernel is Debian's (.cache/kernel), or with
# SOFTHCA_VM_KERNEL=debug the debug kernel (scripts/debug-kernel.sh), with
# its own modules and softhca.ko built against it (scripts/build.sh
# module-debug).
#
#   vm-run.sh [-t timeout_s] [-o outdir] [-n] [-v] [-i] [-e NAME=VALUE]... script.sh
#
# The guest sees the host's root file system read-only (9p) under a tmpfs
# overlay, so it runs this checkout's module, provider and tools and the
# host's rdma-core unchanged. With SOFTHCA_KSERIES=d13 that root is the
# Debian 13 one (scripts/debian13-root.sh: its kernel, rdma-core 56) and
# this checkout is shared on its own, at the same path, so the guest runs
# Debian 13's userland with this checkout's builds for it (the module in
# $SOFTHCA_MODSRC, the provider and tools in $SOFTHCA_PROVIDER_DIR,
# exported). ib_core, ib_uverbs, rdma_ucm and softhca.ko are
# loaded before the script runs (-n: not softhca.ko; the one built for the
# kernel booted, $SOFTHCA_KO, also exported); -e exports a variable
# to it; -v also shows the console; -i connects the console to this
# terminal both ways (an interactive guest script; nothing is captured in
# console.log); SOFTHCA_VM_APPEND adds guest kernel
# parameters for experiments (e.g. mitigations=off). The script's files go
# to outdir (its $SOFTHCA_OUT); console.log and dmesg.txt are kept there.
# Any report in the guest kernel log ($SOFTHCA_KERNEL_REPORT_RE: WARNING,
# BUG, Oops, KASAN, UBSAN, lockdep, RCU, debugobjects...) fails the run,
# but for the WARNING blocks a guest script allowed by name (its caller in
# the call trace, the WARN's function and its text) in
# $SOFTHCA_OUT/allowed-reports: those go to allowed-reports.txt instead,
# and are counted; on a kernel with kmemleak, a leak its scan at the end
# finds (kmemleak.txt) fails it too, but for the kernel's own leaks a
# guest script allowed by the allocating task's name and a function of
# the allocation's backtrace in $SOFTHCA_OUT/allowed-leaks (counted).
#
# Exit status: the guest script's own (0-123), 124 when the VM timed out,
# 125 when it ended without recording the script's status, 126 when the
# guest kernel log has a report, 2 for bad usage; this script's own
# failures before the boot exit 1, which a guest status 1 also uses, so
# outdir/verdict tells them apart: it is written only once the VM ran,
# with the lines "qemu <exit status>", "guest-status <status|none>",
# "timeout yes|no", "kernel-log clean|report|empty" (the log is checked
# in every case, a timed-out VM's console included), "allowed-reports
# <N>" (how many allowed reports were left out of that check) and
# "kmemleak clean|leaks|none" (none: no kmemleak in the kernel, or no
# scan; leaks: one that no group allowed) and "allowed-leaks <N>".
set -euo pipefail
. "$(dirname "$0")/config.sh"

timeout_s=900
out=
load=1
envs=()
verbose=0
interactive=0
while getopts "t:o:ne:vi" o; do
	case $o in
	t) timeout_s=$OPTARG ;;
	o) out=$OPTARG ;;
	n) load=0 ;;
	e) envs+=("$OPTARG") ;;
	v) verbose=1 ;;
	i) interactive=1 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || softhca_die "usage: vm-run.sh [-t s] [-o dir] [-n] script"
script=$(realpath "$1")
case ${SOFTHCA_VM_KERNEL:-debian} in
debian)
	vmlinuz=$SOFTHCA_VMLINUZ
	moddir=$SOFTHCA_MODDIR
	ko=$SOFTHCA_KO
	kappend=
	if [ ! -f "$vmlinuz" ]; then
		[ "$SOFTHCA_KSERIES" = d13 ] &&
			softhca_die "no Debian 13 kernel; run scripts/debian13-root.sh"
		softhca_die "no kernel; run scripts/fetch-kernel.sh"
	fi
	;;
debug)
	krel=$(cat "$SOFTHCA_DBG_BUILD/include/config/kernel.release" 2>/dev/null) ||
		softhca_die "no debug kernel; run scripts/debug-kernel.sh"
	vmlinuz=$SOFTHCA_DBG_BUILD/arch/x86/boot/bzImage
	moddir=$SOFTHCA_DBG_DIR/root/lib/modules/$krel
	ko=$SOFTHCA_DBG_KO
	# No ACPI in it (tests/debug-kernel.config), so no HPET or ACPI PM
	# timer: with the TSC found unsynchronised between the two vCPUs
	# (TCG) the clock was refined-jiffies, 4 ms a tick: no
	# high-resolution timers, gettimeofday() a system call outside the
	# vDSO, and perftest's clock calibration failed ("Correlation
	# coefficient r^2 < 0.9"). TCG's vCPUs read one host clock.
	kappend=" tsc=reliable"
	# Its TSC calibration against the PIT fails when the host is busy
	# ("tsc: Unable to calibrate against PIT", then the TSC is marked
	# unstable and the clock is refined-jiffies again; CI's cold run
	# hit it): the guest's TSC is the host's, so the host measures it
	# (scripts/host-tsc-khz.c) and the guest takes its rate as given.
	tsc=$SOFTHCA_CACHE/host/host-tsc-khz
	if [ ! -x "$tsc" ] || [ "$SOFTHCA_TOP/scripts/host-tsc-khz.c" -nt "$tsc" ]; then
		mkdir -p "$(dirname "$tsc")"
		gcc -O2 -Wall -o "$tsc.$$" "$SOFTHCA_TOP/scripts/host-tsc-khz.c" ||
			softhca_die "cannot build $tsc"
		mv "$tsc.$$" "$tsc"
	fi
	if khz=$("$tsc"); then
		kappend+=" tsc_early_khz=$khz"
	else
		echo "vm-run.sh: no constant host TSC; the guest calibrates its own" >&2
	fi
	[ -f "$vmlinuz" ] && [ -f "$moddir/modules.dep" ] ||
		softhca_die "no debug kernel; run scripts/debug-kernel.sh"
	;;
*) softhca_die "SOFTHCA_VM_KERNEL must be debian or debug" ;;
esac
[ $load -eq 0 ] || [ -f "$ko" ] || softhca_die "no $ko; build it first"
softhca_heavy_lock
out=${out:-$SOFTHCA_CACHE/vm/last}
rm -rf "$out"
mkdir -p "$out"
out=$(realpath "$out")
{
	# the module built for this kernel (scripts/config.sh)
	printf 'export %q\n' "SOFTHCA_KO=$ko"
	printf 'export %q\n' "SOFTHCA_PROVIDER_DIR=$SOFTHCA_PROVIDER_DIR"
	for e in "${envs[@]}"; do
		printf 'export %q\n' "$e"
	done
} > "$out/env"

# The initramfs: busybox and the modules that mount the host root (the
# debug kernel has them built in).
initrd=$SOFTHCA_CACHE/vm/initramfs-$(basename "$moddir").cpio
init=$SOFTHCA_TOP/scripts/vm-initramfs-init.sh
if [ ! -f "$initrd" ] || [ "$init" -nt "$initrd" ] ||
	[ "$moddir/modules.dep" -nt "$initrd" ]; then
	r=$(mktemp -d)
	mkdir -p "$r"/{bin,dev,proc,sys,modules}
	cp /bin/busybox "$r/bin/"
	for a in sh mount insmod mkdir sed switch_root cat echo; do
		ln -s busybox "$r/bin/$a"
	done
	# Copy the boot modules with their dependencies, in load order. 6.12
	# builds virtio_pci in and ships its modules xz-compressed, which
	# busybox's insmod does not read: they are unpacked here.
	order=()
	add_mod() {
		local path dep
		grep -q "/$1\.ko\$" "$moddir/modules.builtin" && return
		path=$(awk -F: -v m="/$1.ko" '$1 ~ m "(\\.xz)?$" {print $1; exit}' "$moddir/modules.dep")
		[ -n "$path" ] || softhca_die "module $1 not in $moddir"
		for dep in $(grep "^$path:" "$moddir/modules.dep" | cut -d: -f2); do
			dep=$(basename "${dep%.xz}")
			add_mod "${dep%.ko}"
		done
		[[ " ${order[*]} " == *" $1 "* ]] && return
		order+=("$1")
		case $path in
		*.xz) xz -dc "$moddir/$path" > "$r/modules/$1.ko" ;;
		*) cp "$moddir/$path" "$r/modules/$1.ko" ;;
		esac
	}
	for m in virtio_pci 9pnet_virtio 9p overlay; do add_mod "$m"; done
	printf '%s\n' "${order[@]}" > "$r/modules/order"
	cp "$init" "$r/init"
	(cd "$r" && find . | cpio -o -H newc --quiet) > "$initrd.tmp"
	mv "$initrd.tmp" "$initrd"
	rm -rf "$r"
fi

append="console=ttyS0 panic=-1 oops=panic softlockup_panic=1 hugepages=48"
append+=" softhcavm.guest=$SOFTHCA_TOP/scripts/vm-guest.sh softhcavm.top=$SOFTHCA_TOP"
append+=" softhcavm.script=$script softhcavm.load=$load softhcavm.ko=$ko$kappend"
# a root other than the host's does not hold this checkout: it is shared
# on its own (vm-initramfs-init.sh mounts it at the same path)
topshare=()
if [ "$SOFTHCA_VM_ROOT" != / ]; then
	[ -x "$SOFTHCA_VM_ROOT/bin/bash" ] ||
		softhca_die "no guest root at $SOFTHCA_VM_ROOT; run scripts/debian13-root.sh"
	append+=" softhcavm.topshare=1"
	topshare=(-virtfs "local,path=$SOFTHCA_TOP,mount_tag=top,security_model=none,readonly=on")
fi
# extra guest kernel parameters for experiments (e.g. mitigations=off)
append+=${SOFTHCA_VM_APPEND:+ $SOFTHCA_VM_APPEND}
console() {
	if [ $verbose -eq 1 ]; then
		tee "$out/console.log" | grep --line-buffered -v '^\[ *[0-9.]*\] '
	else
		cat > "$out/console.log"
	fi
}
# the commas are QEMU's option syntax
# shellcheck disable=SC2054
# -cpu max without la57: TCG's "max" offers 5-level paging, which the
# kernel then uses, and every softmmu TLB miss walks five levels instead
# of four. Measured in one guest: 300 fork+exec of /bin/true 16.7 s with
# it, 12.9 s without; a 1.3 GB dd to /dev/null 3.3 s and 3.0 s.
qemu=(qemu-system-x86_64 -accel tcg
	-cpu max,la57=off -smp 2 -m 4G -nodefaults -no-reboot -nographic
	-serial stdio -bios /usr/share/qemu/qboot.rom
	-kernel "$vmlinuz" -initrd "$initrd" -append "$append"
	-virtfs "local,path=$SOFTHCA_VM_ROOT,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
	"${topshare[@]}"
	-virtfs local,path="$moddir/..",mount_tag=kmods,security_model=none,readonly=on
	-virtfs local,path="$out",mount_tag=out,security_model=none
	-device virtio-rng-pci)
# SOFTHCA_VM_QEMU_EXTRA: more QEMU arguments, split at blanks (the NICs
# of make bench's two VMs, scripts/bench-wire.sh)
read -r -a qemu_extra <<< "${SOFTHCA_VM_QEMU_EXTRA:-}"
qemu+=("${qemu_extra[@]}")
set +e
if [ $interactive -eq 1 ]; then
	timeout --foreground -k 10 "$timeout_s" "${qemu[@]}"
	qrc=$?
else
	timeout --foreground -k 10 "$timeout_s" "${qemu[@]}" </dev/null 2>&1 |
		console
	qrc=${PIPESTATUS[0]}
fi
set -e

status=$(cat "$out/status" 2>/dev/null || echo)
[[ $status =~ ^[0-9]+$ ]] || status=
timedout=no
{ [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; } && timedout=yes
bad=$SOFTHCA_KERNEL_REPORT_RE
# dmesg (the whole ring buffer, if it did not wrap) and the kernel's lines
# on the console (time-stamped; every report reaches it), so neither a
# wrapped ring buffer nor a guest that died before saving dmesg hides one
kernel_lines() {
	cat "$out/dmesg.txt" 2>/dev/null
	grep -aE '^\[ *[0-9]+\.[0-9]+\] ' "$out/console.log" 2>/dev/null
}
# (read once into a variable: with pipefail, "kernel_lines | grep -q"
# fails when grep quits at its first match and the writer gets SIGPIPE,
# which called a full log empty and would have hidden a report)
klines=$(kernel_lines) || true	# no console line is not a failure
# kmemleak's "N new suspected memory leaks" lines: the leaks themselves are
# judged below from the list the last scan left (kmemleak.txt, every object
# still unreferenced), which a group's allowances apply to
if [ -f "$out/kmemleak.txt" ]; then
	klines=$(grep -Ev 'kmemleak: [0-9]+ new suspected memory leaks' <<< "$klines") || true
fi
# A group may allow a warning the kernel itself gives under its test (a
# line "<caller> <site> <ERE>" in $SOFTHCA_OUT/allowed-reports, see
# softhca_drop_allowed_reports in config.sh): only whole WARNING blocks
# that match one of its lines in full, and have no other report in them,
# are left out of the check; they are kept in allowed-reports.txt and
# counted in the verdict.
allowed=0
if [ -n "$klines" ] && [ -s "$out/allowed-reports" ]; then
	if kept=$(softhca_drop_allowed_reports "$out/allowed-reports" \
		"$out/allowed-reports.txt" "$out/allowed-reports.count" \
		<<< "$klines") && allowed=$(cat "$out/allowed-reports.count"); then
		klines=$kept
	else
		softhca_log "the kernel log's allowances failed; none is taken"
		allowed=0
	fi
fi
klog=clean
if [ -z "$klines" ]; then
	klog=empty
elif grep -Eq "$bad" <<< "$klines"; then
	klog=report
fi
# kernel-report.txt: the report lines (a few of each, and of the lines
# after them), for make test's summary, which shows them under the failed
# check: a CI log may be all that is left of a run.
rm -f "$out/kernel-report.txt"
if [ $klog = report ]; then
	grep -E -m 4 -A 3 "$bad" <<< "$klines" > "$out/kernel-report.txt"
elif [ $klog = empty ]; then
	echo "no kernel log: neither dmesg.txt nor the console has a kernel line" \
		> "$out/kernel-report.txt"
fi
# kmemleak.txt: what kmemleak's last scan found (vm-guest.sh); a group may
# allow leaks the kernel itself has under its test (lines "<comm>
# <function>" in $SOFTHCA_OUT/allowed-leaks, scripts/kmemleak-allowed.awk):
# those go to allowed-leaks.txt and are counted, the rest to leaks.txt
leaks=none
allowed_leaks=0
rm -f "$out/leaks.txt" "$out/allowed-leaks.txt"
if [ -f "$out/kmemleak.txt" ]; then
	leaks=clean
	touch "$out/allowed-leaks"
	if ! awk -v allowf="$out/allowed-leaks" -v keptf="$out/allowed-leaks.txt" \
		-f "$SOFTHCA_TOP/scripts/kmemleak-allowed.awk" "$out/kmemleak.txt" \
		> "$out/leaks.txt" 2> "$out/allowed-leaks.count"; then
		softhca_log "kmemleak's allowances failed; none is taken"
		cp "$out/kmemleak.txt" "$out/leaks.txt"
	else
		allowed_leaks=$(sed -n 's/^allowed //p' "$out/allowed-leaks.count")
	fi
	grep -q '^unreferenced object' "$out/leaks.txt" && leaks=leaks
fi
printf 'qemu %s\nguest-status %s\ntimeout %s\nkernel-log %s\nallowed-reports %s\nkmemleak %s\nallowed-leaks %s\n' \
	"$qrc" "${status:-none}" "$timedout" "$klog" "$allowed" "$leaks" "${allowed_leaks:-0}" > "$out/verdict"
if [ "${allowed_leaks:-0}" -gt 0 ]; then
	softhca_log "kmemleak: $allowed_leaks allowed leak(s) not counted (allowances: $out/allowed-leaks; the objects: $out/allowed-leaks.txt)"
fi
if [ "$allowed" -gt 0 ]; then
	softhca_log "guest kernel log: $allowed allowed report(s) not counted (allowances: $out/allowed-reports; the reports: $out/allowed-reports.txt)"
fi
if [ $klog = report ]; then
	softhca_log "guest kernel log has a report (see $out/dmesg.txt, console.log):"
	grep -E "$bad" <<< "$klines" | head -n 5 >&2
fi
if [ $leaks = leaks ]; then
	softhca_log "kmemleak found $(grep -c '^unreferenced object' "$out/leaks.txt") leaks (see $out/leaks.txt)"
fi
if [ $timedout = yes ]; then
	softhca_log "VM timed out after ${timeout_s}s (console: $out/console.log)"
	exit 124
fi
if [ -z "$status" ]; then
	softhca_log "VM ended without a status (console: $out/console.log)"
	exit 125
fi
[ $klog = clean ] && [ $leaks != leaks ] || exit 126
exit "$status"
