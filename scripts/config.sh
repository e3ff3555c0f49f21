# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Shared settings for every softhca script. Source it; do not execute it.
#
# SOFTHCA_KABI is the Debian kernel ABI name (6.1.0-<N>) whose image the
# test VM boots and whose headers the module is built against. It defaults
# to what bookworm's linux-image-amd64 meta package depends on; override it
# in the environment (or on the make command line) to pin another one.

SOFTHCA_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SOFTHCA_CACHE=${SOFTHCA_CACHE:-$SOFTHCA_TOP/.cache}

softhca_default_kabi() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/.*Depends: linux-image-\(.*\)-amd64$/\1/p' | head -n 1
}

if [ -z "${SOFTHCA_KABI:-}" ]; then
	if [ -f "$SOFTHCA_CACHE/kabi" ]; then
		SOFTHCA_KABI=$(cat "$SOFTHCA_CACHE/kabi")
	else
		SOFTHCA_KABI=$(softhca_default_kabi)
	fi
fi
SOFTHCA_KVER=$SOFTHCA_KABI-amd64
SOFTHCA_KROOT=$SOFTHCA_CACHE/kernel/$SOFTHCA_KVER
SOFTHCA_KDIR=$SOFTHCA_KROOT/usr/src/linux-headers-$SOFTHCA_KVER
SOFTHCA_VMLINUZ=$SOFTHCA_KROOT/boot/vmlinuz-$SOFTHCA_KVER
SOFTHCA_MODDIR=$SOFTHCA_KROOT/lib/modules/$SOFTHCA_KVER

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
