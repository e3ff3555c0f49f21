#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# "make shell": boot the test VM with softhca0 up on a veth (10.9.0.1) and
# give this terminal a root shell in it, for watching the driver and the
# card at work (Documentation/watching.rst). Exit the shell (or Ctrl-D) to
# power the VM off; Ctrl-A x kills it. Not part of "make test".
#
# The VM holds the machine's build/VM lock while it runs (scripts/config.sh,
# softhca_heavy_lock): other builds and VMs on this machine wait for it.
set -euo pipefail
. "$(dirname "$0")/config.sh"

[ -t 0 ] || softhca_log "stdin is not a terminal: the shell reads it as it is"
softhca_log "booting the test VM (TCG: about a minute); exit the shell to leave"
exec "$SOFTHCA_TOP/scripts/vm-run.sh" -i -t "${SOFTHCA_SHELL_TIMEOUT:-86400}" \
	-o "$SOFTHCA_CACHE/vm/shell" "$SOFTHCA_TOP/scripts/shell-guest.sh"
