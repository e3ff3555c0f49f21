#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Unpack Debian's linux-source-6.1 into the cache: checkpatch.pl comes from
# it, and the KUnit kernel is built from it.
set -euo pipefail
. "$(dirname "$0")/config.sh"

tarball=$(ls /usr/src/linux-source-6.1.tar.xz 2>/dev/null || true)
[ -n "$tarball" ] || softhca_die "linux-source-6.1 is not installed (scripts/deps.sh)"
dst=$SOFTHCA_CACHE/linux-source-6.1
if [ -f "$dst/.unpacked" ] && [ ! "$tarball" -nt "$dst/.unpacked" ]; then
	exit 0
fi
softhca_log "unpacking $tarball into $SOFTHCA_CACHE: checkpatch comes from it and the KUnit kernel is built from it"
rm -rf "$dst"
mkdir -p "$SOFTHCA_CACHE"
. "$(dirname "$0")/progress.sh"
# progress: files unpacked (tar -v names each), out of the last run's count
tarlog=$SOFTHCA_CACHE/linux-source-6.1.files
softhca_progress_start progress/linux-source "unpacking linux-source-6.1" files \
	"" "wc -l < '$tarlog'"
tar -xvJf "$tarball" -C "$SOFTHCA_CACHE" > "$tarlog"
softhca_progress_stop ok
rm -f "$tarlog"
touch "$dst/.unpacked"
