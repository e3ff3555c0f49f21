#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Install the Debian 12 packages softhca needs to build and test. Runs
# apt-get only when something is missing, so reruns cost nothing.
set -euo pipefail
. "$(dirname "$0")/config.sh"

pkgs=(
	build-essential gcc-12 make bc flex bison cpio kmod libelf-dev libssl-dev
	ccache sparse xz-utils python3
	cmake g++ googletest libgtest-dev clang-format clang-tidy
	qemu-system-x86 qemu-system-data busybox-static iproute2 strace
	rdma-core ibverbs-utils ibverbs-providers libibverbs-dev rdmacm-utils
	perftest python3-pyverbs linux-source-6.1
	python3-sphinx
	tcpdump tshark iputils-ping
	nvme-cli fio
)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

[ "$(id -u)" -eq 0 ] || softhca_die "need root to install: ${missing[*]}"
softhca_log "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
stamp=/var/lib/apt/periodic/softhca-update-stamp
if [ ! -f "$stamp" ] || [ -n "$(find "$stamp" -mmin +720 2>/dev/null)" ]; then
	apt-get update -q
	mkdir -p "$(dirname "$stamp")" && touch "$stamp"
fi
apt-get install -y -q --no-install-recommends "${missing[@]}"
