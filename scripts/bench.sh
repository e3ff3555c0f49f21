#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# "make bench": perftest on softhca0 and on rxe (Soft-RoCE) in the same VM
# boot, and the ratio softhca/rxe of each figure (the median of three
# runs); then NVMe over RDMA on each (scripts/bench-guest.sh); then the
# same devices over a wire between two VMs, softhca<->softhca against
# rxe<->rxe (scripts/bench-wire.sh). SOFTHCA_BENCH_PARTS picks the parts:
# "perftest pyverbs nvme wire" by default; every part but wire (perftest,
# pyverbs, nvme) runs in the one VM boot.
# A benchmark, not a test: it asserts nothing.
set -euo pipefail
. "$(dirname "$0")/config.sh"

parts=${SOFTHCA_BENCH_PARTS:-perftest pyverbs nvme wire}
"$SOFTHCA_TOP/scripts/build.sh" >/dev/null
one_vm=$(sed 's/\<wire\>//g; s/^ *//; s/ *$//' <<< "$parts")
if [ -n "$one_vm" ]; then
	out=$SOFTHCA_CACHE/bench
	"$SOFTHCA_TOP/scripts/vm-run.sh" -t 3600 -o "$out" \
		-e "SOFTHCA_BENCH_RUNS=${SOFTHCA_BENCH_RUNS:-3}" \
		-e "SOFTHCA_BENCH_PARTS=$one_vm" \
		-e "SOFTHCA_BENCH_NVME_S=${SOFTHCA_BENCH_NVME_S:-30}" \
		"$SOFTHCA_TOP/scripts/bench-guest.sh"
	cat "$out/bench.txt"
fi
if [[ " $parts " == *" wire "* ]]; then
	"$SOFTHCA_TOP/scripts/bench-wire.sh"
fi
