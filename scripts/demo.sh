#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# "make demo": install what is missing, build, boot the test VM, load the
# module, create softhca0 on a veth, show ibv_devinfo -v and run
# ibv_rc_pingpong over it.
set -euo pipefail
. "$(dirname "$0")/config.sh"

"$SOFTHCA_TOP/scripts/deps.sh"
"$SOFTHCA_TOP/scripts/build.sh"
softhca_log "booting the test VM (QEMU, TCG; about 10 s)"
"$SOFTHCA_TOP/scripts/vm-run.sh" -v -t 600 -o "$SOFTHCA_CACHE/vm/demo" \
	"$SOFTHCA_TOP/scripts/demo-guest.sh"
