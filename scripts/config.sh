# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Shared settings for every softhca script. Source it; do not execute it.
#
# SOFTHCA_KSERIES picks the Debian 12 kernel series: 6.1 (the default,
# what bookworm's linux-image-amd64 depends on) or 6.12 (what its
# linux-image-6.12-amd64 depends on; the series Debian 13 ships); or d13,
# the Debian 13 guest: Debian 13's own kernel, booted with the Debian 13
# root file system (scripts/debian13-root.sh, .cache/debian13/root) as the
# guest's userland instead of the host's, rdma-core 56 in it, and the
# module and the provider built inside that root (softhca_in_root).
# SOFTHCA_KABI is the Debian kernel ABI name (6.1.0-<N>, 6.12.<N>+deb12)
# whose image the test VM boots and whose headers the module is built
# against; the newest of the series is looked up once and kept in
# .cache/kabi (6.1) or .cache/kabi-6.12. Set SOFTHCA_KABI in the
# environment (or KABI= on the make command line) to pin another one of
# the series.
#
# The 6.1 module is built in kernel/ itself; any other series' in a copy
# of it, build/kernel-<kver>/kernel, so both can stay built side by side.
# SOFTHCA_MODSRC is that directory, SOFTHCA_KO the module in it.
# SOFTHCA_VM_TAG ends the VM checks' group names (vm.t30-datapath-k612.*,
# vm.kernel-log-clean-k612; -d13 in the Debian 13 guest) on a kernel other
# than 6.1. SOFTHCA_VM_ROOT is the guest's root file system (/, the host's;
# the Debian 13 root for d13) and SOFTHCA_PROVIDER_DIR the build of the
# provider and the test programs the guest runs (build/userspace; for d13
# build/userspace-d13, built against rdma-core 56).

SOFTHCA_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SOFTHCA_CACHE=${SOFTHCA_CACHE:-$SOFTHCA_TOP/.cache}
# ccache (the debug kernel, the modules built for it, KUnit's, the DKMS
# cache of t90) in depend mode: on a miss it takes the compiler's own
# dependency file (Kbuild's -Wp,-MMD) instead of running the preprocessor
# a second time to hash its output. A cold build through ccache took 40%
# longer than plain gcc here without it, 3% with it; hits are found the
# same way (the direct mode's manifests).
export CCACHE_DEPEND=${CCACHE_DEPEND:-1}
SOFTHCA_KSERIES=${SOFTHCA_KSERIES:-6.1}

SOFTHCA_D13_ROOT=$SOFTHCA_CACHE/debian13/root
SOFTHCA_VM_ROOT=/
SOFTHCA_PROVIDER_DIR=$SOFTHCA_TOP/build/userspace

case $SOFTHCA_KSERIES in
6.1)	softhca_kmeta=linux-image-amd64
	softhca_kabi_file=$SOFTHCA_CACHE/kabi
	SOFTHCA_VM_TAG= ;;
6.12)	softhca_kmeta=linux-image-6.12-amd64
	softhca_kabi_file=$SOFTHCA_CACHE/kabi-6.12
	SOFTHCA_VM_TAG=-k612 ;;
d13)	SOFTHCA_VM_TAG=-d13
	SOFTHCA_VM_ROOT=$SOFTHCA_D13_ROOT
	SOFTHCA_PROVIDER_DIR=$SOFTHCA_TOP/build/userspace-d13 ;;
*)	printf '[softhca] error: SOFTHCA_KSERIES=%s: 6.1, 6.12 or d13\n' \
		"$SOFTHCA_KSERIES" >&2
	exit 1 ;;
esac

# softhca_d13_kver: the release of the kernel in the Debian 13 root (empty
# before it is made)
softhca_d13_kver() {
	local v
	for v in "$SOFTHCA_D13_ROOT"/boot/vmlinuz-*-amd64; do
		[ -f "$v" ] && echo "${v##*/vmlinuz-}"
	done | sort -V | tail -n 1
}

# softhca_in_root <command...>: run a command inside the Debian 13 root
# (chroot, in a mount namespace of its own) with this checkout at the same
# path as here and /proc and /dev mounted, so the paths of both sides are
# the same. Of the root itself only the empty directories the checkout is
# mounted on are added; /tmp there is a tmpfs that ends with the command,
# mounted before the checkout (a checkout under /tmp is on that tmpfs's
# mount point, not hidden by it).
softhca_in_root() {
	local r=$SOFTHCA_D13_ROOT
	[ -d "$r/usr" ] || softhca_die "no Debian 13 root; run scripts/debian13-root.sh"
	unshare -m --propagation private /bin/sh -ec '
		r=$1 top=$2
		shift 2
		mount -t tmpfs tmpfs "$r/tmp"
		mkdir -p "$r$top"
		mount --bind "$top" "$r$top"
		mount -t proc proc "$r/proc"
		mount --rbind /dev "$r/dev"
		exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LANG=C.UTF-8 "$@"' sh "$r" "$SOFTHCA_TOP" "$@"
}

softhca_default_kabi() {
	apt-cache depends "$softhca_kmeta" 2>/dev/null |
		sed -n 's/.*Depends: linux-image-\(.*\)-amd64$/\1/p' | head -n 1
}

if [ "$SOFTHCA_KSERIES" = d13 ]; then
	# Debian 13's kernel is whatever its root holds; its headers are
	# used inside the root (softhca_in_root), so SOFTHCA_KDIR is a path
	# there
	SOFTHCA_KVER=$(softhca_d13_kver)
	SOFTHCA_KABI=${SOFTHCA_KVER%-amd64}
	SOFTHCA_KROOT=$SOFTHCA_D13_ROOT
	SOFTHCA_KDIR=/usr/src/linux-headers-$SOFTHCA_KVER
else
	# A pinned ABI of the other series (make test runs both) is not this one's.
	case ${SOFTHCA_KABI:-} in
	"$SOFTHCA_KSERIES".*) ;;
	*) SOFTHCA_KABI= ;;
	esac
	if [ -z "$SOFTHCA_KABI" ]; then
		if [ -f "$softhca_kabi_file" ]; then
			SOFTHCA_KABI=$(cat "$softhca_kabi_file")
		else
			SOFTHCA_KABI=$(softhca_default_kabi)
		fi
	fi
	SOFTHCA_KVER=$SOFTHCA_KABI-amd64
	SOFTHCA_KROOT=$SOFTHCA_CACHE/kernel/$SOFTHCA_KVER
	SOFTHCA_KDIR=$SOFTHCA_KROOT/usr/src/linux-headers-$SOFTHCA_KVER
fi
SOFTHCA_VMLINUZ=$SOFTHCA_KROOT/boot/vmlinuz-$SOFTHCA_KVER
SOFTHCA_MODDIR=$SOFTHCA_KROOT/lib/modules/$SOFTHCA_KVER
if [ "$SOFTHCA_KSERIES" = 6.1 ]; then
	SOFTHCA_MODSRC=$SOFTHCA_TOP/kernel
else
	SOFTHCA_MODSRC=$SOFTHCA_TOP/build/kernel-$SOFTHCA_KVER/kernel
fi
SOFTHCA_KO=$SOFTHCA_MODSRC/softhca.ko

# The debug kernel (scripts/debug-kernel.sh, tests/debug-kernel.config):
# KUnit runs in it, and so do the VM tests with SOFTHCA_VM_KERNEL=debug.
SOFTHCA_DBG_DIR=$SOFTHCA_CACHE/dbgkernel
SOFTHCA_DBG_BUILD=$SOFTHCA_DBG_DIR/build
SOFTHCA_DBG_KO=$SOFTHCA_DBG_DIR/mod/kernel/softhca.ko	# built against it

# What a guest kernel log must not hold (scripts/vm-run.sh, scripts/kunit.sh):
# warnings, BUGs and oopses (KASAN, UBSAN, sleeping in atomic context, soft
# lockups), lockdep's reports (not the bare word: the boot says "RCU
# lockdep checking is enabled") and its giving up, RCU's (suspicious use,
# stalls), hung tasks, debugobjects', list corruption, leaks kmemleak
# found or kmemleak giving up.
SOFTHCA_KERNEL_REPORT_RE='WARNING:|BUG:|Oops|general protection fault|kernel BUG|Kernel panic|KASAN|UBSAN|possible circular locking|possible recursive locking|inconsistent lock state|possible irq lock inversion|bad unlock balance|held lock freed|lock held when returning to user space|turning off the locking correctness validator|suspicious RCU usage|detected stall|self-detected stall|INFO: task .* blocked|ODEBUG:|list_(add|del) corruption|Call Trace:|unreferenced object 0x|suspected memory leak|memory leak detector disabled|DMA-API:'

# softhca_drop_allowed_reports <allowances> <removed> <count>: the kernel
# log lines on stdin, less the whole WARNING blocks (from "------------[
# cut here ]------------" to "---[ end trace <id> ]---") that an allowance
# of the file <allowances> names, on stdout; the blocks taken out are
# written to the file <removed>, and how many reports they were to
# <count> (a report found in dmesg and on the console, by its time stamp,
# counts once). A line of <allowances> is
#	<caller> <site> <ERE>
# and takes out a block only if all of these hold: a reliable frame of its
# call trace (no "?") is function <caller>; its "WARNING: ... at
# <file>:<line> <site>+0x..." line names function <site>; <ERE> (awk's)
# matches its message (a line between the cut-here line and the WARNING
# line) or the WARNING line itself; and no other line of it matches
# SOFTHCA_KERNEL_REPORT_RE: a block with anything else in it (a second
# WARNING, a BUG, KASAN, lockdep, another cut-here) stays, and so does a
# block that never ends. Lines starting with # and empty ones are skipped;
# a malformed one is reported on stderr and allows nothing.
softhca_drop_allowed_reports() {
	BAD=$SOFTHCA_KERNEL_REPORT_RE awk -v allowf="$1" -v removed="$2" \
		-v countf="$3" '
	function strip(s) {
		sub(/\r$/, "", s)
		sub(/^\[ *[0-9]+\.[0-9]+\] /, "", s)
		return s
	}
	function flush_block(   i) {
		for (i = 1; i <= nb; i++)
			print blk[i]
		nb = 0
	}
	# the block blk[1..nb] (its lines stripped: txt[]) is allowed
	function allowed(   i, a, w, site, nwarn, ntrace, intrace, msg, t) {
		nwarn = 0; ntrace = 0; w = 0
		for (i = 2; i < nb; i++) {
			t = txt[i]
			if (t ~ /^WARNING: /) {
				if (++nwarn > 1) return 0
				w = i
			} else if (t == "Call Trace:") {
				if (++ntrace > 1 || !w) return 0
			} else if (t ~ ENVIRON["BAD"]) {
				return 0
			}
		}
		if (!w || !ntrace) return 0
		# the function the WARNING line names: "<file>:<line> <fn>+0x"
		site = txt[w]
		if (!match(site, / at [^ ]+ [A-Za-z0-9_.]+\+0x/)) return 0
		site = substr(site, RSTART, RLENGTH - 3)
		sub(/^ at [^ ]+ /, "", site)
		for (a = 1; a <= na; a++) {
			if (site != asite[a]) continue
			msg = 0
			for (i = 2; i <= w; i++)
				if (txt[i] ~ aere[a]) msg = 1
			if (!msg) continue
			intrace = 0
			for (i = w + 1; i < nb; i++) {
				if (txt[i] == "Call Trace:") { intrace = 1; continue }
				if (!intrace) continue
				if (txt[i] !~ /^ /) break
				t = txt[i]
				sub(/^ +/, "", t)
				if (index(t, acaller[a] "+0x") == 1) return a
			}
		}
		return 0
	}
	BEGIN {
		na = 0
		while ((getline l < allowf) > 0) {
			if (l ~ /^[ \t]*(#|$)/) continue
			if (match(l, /^[A-Za-z_][A-Za-z0-9_.]*[ \t]+[A-Za-z_][A-Za-z0-9_.]*[ \t]+[^ \t]/)) {
				na++
				split(l, f, /[ \t]+/)
				acaller[na] = f[1]
				asite[na] = f[2]
				aere[na] = substr(l, RLENGTH)
				aline[na] = l
			} else {
				print "allowed-reports: malformed line: " l > "/dev/stderr"
			}
		}
		close(allowf)
		nb = 0; n = 0
	}
	{
		t = strip($0)
		if (t == "------------[ cut here ]------------") {
			flush_block()
			nb = 1; blk[1] = $0; txt[1] = t
			next
		}
		if (!nb) { print; next }
		nb++; blk[nb] = $0; txt[nb] = t
		if (t !~ /^---\[ end trace [0-9a-f]+ \]---$/) next
		a = allowed()
		if (!a) { flush_block(); next }
		key = blk[1]
		sub(/\r$/, "", key)
		if (match(key, /^\[ *[0-9]+\.[0-9]+\]/))
			key = substr(key, RSTART, RLENGTH)
		else
			key = "line " NR
		gsub(/ /, "", key)
		if (!(key in seen)) { seen[key] = 1; n++ }
		print "== allowed by \"" aline[a] "\":" > removed
		for (i = 1; i <= nb; i++)
			print blk[i] > removed
		nb = 0
	}
	END {
		flush_block()
		print n > countf
	}'
}

# softhca_mod_order <moddir> <module...>: the paths (relative to <moddir>)
# of the modules and of what they depend on, in load order, one a line;
# built-in ones (modules.builtin) are left out; an unknown one fails.
softhca_mod_order() {
	local dir=$1 m
	shift
	local -a order=()
	_softhca_mod_add() {
		local path dep
		path=$(awk -F: -v m="/$1.ko" '$1 ~ m"$" {print $1; exit}' "$dir/modules.dep")
		if [ -z "$path" ]; then
			grep -q "/$1\.ko\$" "$dir/modules.builtin" 2>/dev/null && return 0
			softhca_log "module $1 not in $dir"
			return 1
		fi
		for dep in $(grep "^$path:" "$dir/modules.dep" | cut -d: -f2); do
			_softhca_mod_add "$(basename "$dep" .ko)" || return 1
		done
		[[ " ${order[*]} " == *" $path "* ]] || order+=("$path")
	}
	for m in "$@"; do
		_softhca_mod_add "$m" || return 1
	done
	printf '%s\n' "${order[@]}"
}

# On a terminal, a line first clears a progress line (scripts/progress.sh).
softhca_eol() { [ -t 2 ] && printf '\r\033[K' >&2; return 0; }
softhca_log() { softhca_eol; printf '[softhca] %s\n' "$*" >&2; }
softhca_die() { softhca_eol; printf '[softhca] error: %s\n' "$*" >&2; exit 1; }

# softhca_heavy_lock: one kernel build or VM at a time on this machine (it
# has 2 CPUs), across checkouts and sessions. The lock is held on fd 7 until
# the caller and its children exit; nested callers see SOFTHCA_HEAVY_LOCKED.
softhca_heavy_lock() {
	[ -n "${SOFTHCA_HEAVY_LOCKED:-}" ] && return 0
	exec 7>>/tmp/softhca-heavy.lock
	if ! flock -n 7; then
		softhca_log "waiting for another kernel build or VM on this machine"
		flock 7
	fi
	export SOFTHCA_HEAVY_LOCKED=1
}
