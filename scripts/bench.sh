#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# "make bench": perftest on softhca0 and on rxe (Soft-RoCE) in the same VM
# boot, and the ratio softhca/rxe of each figure (the median of three
# runs). A benchmark, not a test: it asserts nothing.
set -euo pipefail
. "$(dirname "$0")/config.sh"

"$SOFTHCA_TOP/scripts/build.sh" >/dev/null
out=$SOFTHCA_CACHE/bench
"$SOFTHCA_TOP/scripts/vm-run.sh" -t 3600 -o "$out" \
	-e "SOFTHCA_BENCH_RUNS=${SOFTHCA_BENCH_RUNS:-3}" \
	-e "SOFTHCA_BENCH_PARTS=${SOFTHCA_BENCH_PARTS:-perftest nvme}" \
	-e "SOFTHCA_BENCH_NVME_S=${SOFTHCA_BENCH_NVME_S:-30}" \
	"$SOFTHCA_TOP/scripts/bench-guest.sh"
cat "$out/bench.txt"
