#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Install the Debian 12 packages softhca needs to build and test. Runs
# apt-get only when something is missing, so reruns cost nothing. apt's
# own output goes to .cache/apt.log; the terminal gets one line per group
# of packages saying why they are needed, and a progress line.
set -euo pipefail
. "$(dirname "$0")/config.sh"
. "$(dirname "$0")/progress.sh"

# why<TAB>packages, one group a line
groups="to build the module and the provider	build-essential gcc-12 make bc flex bison cpio kmod libelf-dev libssl-dev ccache xz-utils python3 cmake g++ libibverbs-dev
to build the module for Debian 12's 6.12 kernel (its kbuild runs pahole)	pahole
to build the KUnit kernel and run checkpatch	linux-source-6.1 patch
for lint and the provider's unit tests	sparse clang-format clang-tidy googletest libgtest-dev
to build the HTML documentation (make htmldocs)	python3-sphinx
to make the Debian 13 guest's root file system (trixie)	mmdebstrap debian-archive-keyring
to boot the test VM and run verbs tools in it	qemu-system-x86 qemu-system-data busybox-static iproute2 strace rdma-core ibverbs-utils ibverbs-providers rdmacm-utils perftest python3-pyverbs
to capture and decode RoCEv2 on the test VM's wire	tcpdump tshark iputils-ping
to measure make bench's wire links themselves (TCP, UDP)	qperf
to build and check the Debian packages (make deb) and install them in the VM	dkms dh-dkms debhelper lintian
for NVMe over RDMA in the test VM (nvme-rdma, nvmet-rdma, fio verify)	nvme-cli fio"

missing=()
lines=()
while IFS=$'\t' read -r why pkgs; do
	m=()
	for p in $pkgs; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			m+=("$p")
	done
	[ ${#m[@]} -eq 0 ] && continue
	missing+=("${m[@]}")
	lines+=("  $why: ${m[*]}")
done <<< "$groups"
[ ${#missing[@]} -eq 0 ] && exit 0

[ "$(id -u)" -eq 0 ] || softhca_die "need root to install: ${missing[*]}"
log=$SOFTHCA_CACHE/apt.log
mkdir -p "$SOFTHCA_CACHE"
: > "$log"
softhca_log "installing ${#missing[@]} Debian packages with apt (log: $log)"
printf '[softhca] %s\n' "${lines[@]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt_get() {
	if ! apt-get -qq -o=Dpkg::Use-Pty=0 "$@" >>"$log" 2>&1; then
		tail -n 20 "$log" >&2
		softhca_die "apt-get $1 failed (see $log)"
	fi
}
stamp=/var/lib/apt/periodic/softhca-update-stamp
if [ ! -f "$stamp" ] || [ -n "$(find "$stamp" -mmin +720 2>/dev/null)" ]; then
	softhca_log "apt-get update: refreshing the package lists (older than 12 h)"
	apt_get update
	mkdir -p "$(dirname "$stamp")" && touch "$stamp"
fi
# Every package apt will set up, dependencies included, for the progress line.
total=$(apt-get -s install --no-install-recommends "${missing[@]}" 2>/dev/null |
	grep -c '^Inst ' || true)
softhca_progress_start progress/apt "apt: installing" "packages set up" \
	"$total" "grep -c '^Setting up ' '$log'"
apt_get install -y --no-install-recommends "${missing[@]}"
softhca_progress_stop ok
softhca_log "apt: installed $total packages"
