#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Boot the Debian test kernel under QEMU (TCG), run a guest script and return
# its exit status.
#
#   vm-run.sh [-t timeout_s] [-o outdir] [-n] [-v] [-e NAME=VALUE]... script.sh
#
# The guest sees the host's root file system read-only (9p) under a tmpfs
# overlay, so it runs this checkout's module, provider and tools and the
# host's rdma-core unchanged. ib_core, ib_uverbs, rdma_ucm and softhca.ko are
# loaded before the script runs (-n: not softhca.ko; the one built for the
# kernel booted, $SOFTHCA_KO, also exported); -e exports a variable
# to it; -v also shows the console; SOFTHCA_VM_APPEND adds guest kernel
# parameters for experiments (e.g. mitigations=off). The script's files go
# to outdir (its $SOFTHCA_OUT); console.log and dmesg.txt are kept there.
# Any WARNING, BUG, Oops, GPF, KASAN or lockdep report in the guest kernel
# log fails the run.
#
# Exit status: the guest script's own (0-123), 124 when the VM timed out,
# 125 when it ended without recording the script's status, 126 when the
# guest kernel log has a report, 2 for bad usage; this script's own
# failures before the boot exit 1, which a guest status 1 also uses, so
# outdir/verdict tells them apart: it is written only once the VM ran,
# with the lines "qemu <exit status>", "guest-status <status|none>",
# "timeout yes|no" and "kernel-log clean|report|empty" (the log is
# checked in every case, a timed-out VM's console included).
set -euo pipefail
. "$(dirname "$0")/config.sh"

timeout_s=900
out=
load=1
envs=()
verbose=0
while getopts "t:o:ne:v" o; do
	case $o in
	t) timeout_s=$OPTARG ;;
	o) out=$OPTARG ;;
	n) load=0 ;;
	e) envs+=("$OPTARG") ;;
	v) verbose=1 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || softhca_die "usage: vm-run.sh [-t s] [-o dir] [-n] script"
script=$(realpath "$1")
[ -f "$SOFTHCA_VMLINUZ" ] || softhca_die "no kernel; run scripts/fetch-kernel.sh"
softhca_heavy_lock
out=${out:-$SOFTHCA_CACHE/vm/last}
rm -rf "$out"
mkdir -p "$out"
out=$(realpath "$out")
{
	# the module built for this kernel (scripts/config.sh)
	printf 'export %q\n' "SOFTHCA_KO=$SOFTHCA_KO"
	for e in "${envs[@]}"; do
		printf 'export %q\n' "$e"
	done
} > "$out/env"

# The initramfs: busybox and the modules that mount the host root.
initrd=$SOFTHCA_CACHE/vm/initramfs-$SOFTHCA_KVER.cpio
init=$SOFTHCA_TOP/scripts/vm-initramfs-init.sh
if [ ! -f "$initrd" ] || [ "$init" -nt "$initrd" ]; then
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
		grep -q "/$1\.ko\$" "$SOFTHCA_MODDIR/modules.builtin" && return
		path=$(awk -F: -v m="/$1.ko" '$1 ~ m "(\\.xz)?$" {print $1; exit}' "$SOFTHCA_MODDIR/modules.dep")
		[ -n "$path" ] || softhca_die "module $1 not in $SOFTHCA_MODDIR"
		for dep in $(grep "^$path:" "$SOFTHCA_MODDIR/modules.dep" | cut -d: -f2); do
			dep=$(basename "${dep%.xz}")
			add_mod "${dep%.ko}"
		done
		[[ " ${order[*]} " == *" $1 "* ]] && return
		order+=("$1")
		case $path in
		*.xz) xz -dc "$SOFTHCA_MODDIR/$path" > "$r/modules/$1.ko" ;;
		*) cp "$SOFTHCA_MODDIR/$path" "$r/modules/$1.ko" ;;
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
append+=" softhca.guest=$SOFTHCA_TOP/scripts/vm-guest.sh softhca.top=$SOFTHCA_TOP"
append+=" softhca.script=$script softhca.load=$load"
# extra guest kernel parameters for experiments (e.g. mitigations=off)
append+=${SOFTHCA_VM_APPEND:+ $SOFTHCA_VM_APPEND}
console() {
	if [ $verbose -eq 1 ]; then
		tee "$out/console.log" | grep --line-buffered -v '^\[ *[0-9.]*\] '
	else
		cat > "$out/console.log"
	fi
}
set +e
timeout --foreground -k 10 "$timeout_s" qemu-system-x86_64 -accel tcg \
	-cpu max -smp 2 -m 4G -nodefaults -no-reboot -nographic \
	-serial stdio -bios /usr/share/qemu/qboot.rom \
	-kernel "$SOFTHCA_VMLINUZ" -initrd "$initrd" -append "$append" \
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
	-virtfs local,path="$SOFTHCA_MODDIR/..",mount_tag=kmods,security_model=none,readonly=on \
	-virtfs local,path="$out",mount_tag=out,security_model=none \
	-device virtio-rng-pci </dev/null 2>&1 | console
qrc=${PIPESTATUS[0]}
set -e

status=$(cat "$out/status" 2>/dev/null || echo)
[[ $status =~ ^[0-9]+$ ]] || status=
timedout=no
{ [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; } && timedout=yes
bad='WARNING:|BUG:|Oops|general protection fault|KASAN|possible circular locking|INFO: task .* blocked|lockdep|Call Trace:|UBSAN'
log=$out/dmesg.txt
[ -s "$log" ] || log=$out/console.log
klog=clean
if [ ! -s "$log" ]; then
	klog=empty
elif grep -Eq "$bad" "$log"; then
	klog=report
fi
printf 'qemu %s\nguest-status %s\ntimeout %s\nkernel-log %s\n' \
	"$qrc" "${status:-none}" "$timedout" "$klog" > "$out/verdict"
if [ $klog = report ]; then
	softhca_log "guest kernel log has a report (see $log):"
	grep -E "$bad" "$log" | head -n 5 >&2
fi
if [ $timedout = yes ]; then
	softhca_log "VM timed out after ${timeout_s}s (console: $out/console.log)"
	exit 124
fi
if [ -z "$status" ]; then
	softhca_log "VM ended without a status (console: $out/console.log)"
	exit 125
fi
[ $klog = clean ] || exit 126
exit "$status"
