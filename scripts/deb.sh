#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# "make deb": build the Debian packages with the standard tools
# (dpkg-buildpackage, debhelper, dh-dkms) into build/deb/, then check them
# with lintian:
#   softhca-dkms_<v>_all.deb   the module's source and dkms.conf
#   libsofthca_<v>_<arch>.deb  the libibverbs provider
# <v> is VERSION-1~deb<N> for Debian N (one build per target release).
# The tree is staged in build/deb/src (debian/changelog is written there
# from VERSION); logs: build/deb/build.log, build/deb/lintian.log.
# With SOFTHCA_RESULTS set, records PASS/FAIL deb.build and
# deb.lintian.<package> (no error or warning tag).
#
# With SOFTHCA_KSERIES=d13 the same runs inside the Debian 13 root
# (scripts/debian13-root.sh, softhca_in_root): the packages for Debian 13,
# the provider built against rdma-core 56, checked with Debian 13's
# lintian, into build/deb-d13; the checks are deb-d13.*.
set -euo pipefail
. "$(dirname "$0")/config.sh"

if [ "$SOFTHCA_KSERIES" = d13 ] && [ -z "${SOFTHCA_DEB_IN_ROOT:-}" ]; then
	"$SOFTHCA_TOP/scripts/debian13-root.sh"
	# the root has no git: the commit and its time are read here
	softhca_in_root env SOFTHCA_DEB_IN_ROOT=1 SOFTHCA_KSERIES=d13 \
		SOFTHCA_DEB_OUT="$SOFTHCA_TOP/build/deb-d13" SOFTHCA_DEB_TAG=deb-d13 \
		SOFTHCA_RESULTS="${SOFTHCA_RESULTS:-}" \
		SOFTHCA_DEB_WHEN="$(git -C "$SOFTHCA_TOP" log -1 --format=%ct 2>/dev/null || date +%s)" \
		SOFTHCA_DEB_COMMIT="$(git -C "$SOFTHCA_TOP" describe --always --dirty 2>/dev/null || echo unknown)" \
		"$SOFTHCA_TOP/scripts/deb.sh"
	exit 0
fi
out=${SOFTHCA_DEB_OUT:-$SOFTHCA_TOP/build/deb}
tag=${SOFTHCA_DEB_TAG:-deb}
results=${SOFTHCA_RESULTS:-}
record() { [ -z "$results" ] || echo "$1 $tag.$2" >> "$results"; }

version=$(cat "$SOFTHCA_TOP/VERSION")
# shellcheck disable=SC1091
. /etc/os-release
debver=$version-1~deb${VERSION_ID%%.*}
src=$out/src/softhca-$version
log=$out/build.log

for t in dpkg-buildpackage dh dh_dkms cmake lintian; do
	command -v "$t" >/dev/null ||
		softhca_die "deb: no $t; apt install build-essential cmake libibverbs-dev debhelper dh-dkms lintian (or make deps)"
done
rm -rf "$out"
mkdir -p "$src"
softhca_log "deb: building softhca-dkms and libsofthca $debver (dpkg-buildpackage; log $log)"

# The source tree: the module's (as DKMS gets it), the user space, debian/.
"$SOFTHCA_TOP/scripts/dkms-tree.sh" -n "$src"
cp -a "$SOFTHCA_TOP/dkms.conf" "$SOFTHCA_TOP/LICENSE" "$SOFTHCA_TOP/README.md" "$src/"
cp -a "$SOFTHCA_TOP/debian" "$src/debian"
mkdir -p "$src/scripts"
cp -a "$SOFTHCA_TOP/scripts/dkms-tree.sh" "$src/scripts/"
(cd "$SOFTHCA_TOP" && find userspace -type f ! -name '*~' -print0) |
	(cd "$SOFTHCA_TOP" && xargs -0 cp --parents -t "$src")

# debian/changelog, from VERSION; dated by the last commit (reproducible).
when=${SOFTHCA_DEB_WHEN:-$(git -C "$SOFTHCA_TOP" log -1 --format=%ct 2>/dev/null || date +%s)}
commit=${SOFTHCA_DEB_COMMIT:-$(git -C "$SOFTHCA_TOP" describe --always --dirty 2>/dev/null || echo unknown)}
maint=$(sed -n 's/^Maintainer: //p' "$SOFTHCA_TOP/debian/control")
cat > "$src/debian/changelog" <<EOF
softhca ($debver) ${VERSION_CODENAME}; urgency=medium

  * softhca $version for Debian ${VERSION_ID%%.*} (${VERSION_CODENAME}), built by make deb
    from commit $commit.

 -- $maint  $(date -R -u -d "@$when")
EOF

if ! (cd "$src" && SOURCE_DATE_EPOCH=$when dpkg-buildpackage -b -us -uc \
	-j"$(nproc)") >"$log" 2>&1; then
	tail -n 30 "$log" >&2
	record FAIL build
	softhca_die "deb: dpkg-buildpackage failed (see $log)"
fi
mv "$out"/src/*.deb "$out"/src/*.buildinfo "$out"/src/*.changes "$out/"
rm -rf "$out/src"
debs=("$out"/softhca-dkms_*.deb "$out"/libsofthca_*.deb)
[ -f "${debs[0]}" ] && [ -f "${debs[1]}" ] || {
	record FAIL build
	softhca_die "deb: no packages in $out"
}
record PASS build
for d in "${debs[@]}"; do
	softhca_log "deb: $(basename "$d") ($(dpkg-deb -f "$d" Depends))"
done

# lintian: no error and no warning; info tags are shown.
softhca_log "deb: lintian on both packages (log $out/lintian.log)"
status=0
for d in "${debs[@]}"; do
	pkg=$(dpkg-deb -f "$d" Package)
	plog=$out/lintian.$pkg.log
	set +e
	lintian --fail-on error,warning --display-info --tag-display-limit 0 \
		"$d" >"$plog" 2>&1
	rc=$?
	set -e
	grep -v "^running with root privileges" "$plog" >> "$out/lintian.log" || true
	if [ $rc -eq 0 ]; then
		record PASS "lintian.$pkg"
	else
		grep -E '^[EW]: ' "$plog" >&2 || tail -n 5 "$plog" >&2
		softhca_log "deb: lintian $pkg: exit $rc"
		record FAIL "lintian.$pkg"
		status=1
	fi
	grep -E '^[IP]: ' "$plog" | sed 's/^/[softhca]   /' >&2 || true
done
[ $status -eq 0 ] && softhca_log "deb: lintian: no errors or warnings; packages in $out"
exit $status
