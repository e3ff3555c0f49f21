# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# make test's summary (tests/run.sh): the table of the groups (checks
# passed, failed and skipped, time), then each failed check with the path
# of its log and, for a kernel report (kernel-report.txt, written by
# scripts/vm-run.sh), its first lines under it.
#
#   awk -v logs=<file> -v times=<file> -f tests/summary.awk <results>
#
# results: "PASS|FAIL|SKIP <name>" lines; logs: "<name> <log>" lines (the
# first for a name wins; a check without one takes its group's, then its
# stage's); times: "<group> <seconds>" lines, summed per group, whose
# order is the table's (groups first seen in the results follow).
# host.scripts.summary-report-excerpt (tests/host-tests.sh) checks it.
function group(n,   p, k) {
	k = split(n, p, ".")
	if ((p[1] == "vm" || p[1] == "vmdbg") && k >= 3)
		return p[1] "." p[2]
	return p[1]
}
function logof(n,   g, k, p) {
	if (n in lg)
		return lg[n]
	k = split(n, p, ".")
	if ((p[1] "." p[2]) in lg)
		return lg[p[1] "." p[2]]
	if (p[1] in lg)
		return lg[p[1]]
	return "-"
}
# a kernel report file (scripts/vm-run.sh) is short and what a CI log
# should keep: its first lines, under the check
function excerpt(f,   l, n, r) {
	if (f !~ /kernel-report\.txt$/)
		return ""
	while (n++ < 16 && (getline l < f) > 0)
		r = r sprintf("        %s\n", l)
	close(f)
	return r
}
BEGIN {
	while ((getline l < logs) > 0) {
		split(l, a, " ")
		if (!(a[1] in lg))
			lg[a[1]] = a[2]
	}
	while ((getline l < times) > 0) {
		split(l, a, " ")
		t[a[1]] += a[2]
		if (!(a[1] in order)) { order[a[1]] = ++ng; names[ng] = a[1] }
	}
}
$1 ~ /^(PASS|FAIL|SKIP)$/ {
	g = group($2)
	if (!(g in order)) { order[g] = ++ng; names[ng] = g }
	c[g, $1]++
	if ($1 == "FAIL") {
		nf[g]++
		if (nf[g] <= 25)
			failed[g] = failed[g] sprintf("  %s\n      log: %s\n%s", substr($0, 6), logof($2), excerpt(logof($2)))
	}
}
END {
	printf "%-28s %7s %7s %7s %7s\n", "group", "passed", "failed", "skipped", "time"
	for (i = 1; i <= ng; i++) {
		g = names[i]
		printf "%-28s %7d %7d %7d %6ds\n", g, c[g, "PASS"], c[g, "FAIL"], c[g, "SKIP"], t[g]
		tp += c[g, "PASS"]; tf += c[g, "FAIL"]; ts += c[g, "SKIP"]
	}
	printf "%-28s %7d %7d %7d\n", "total", tp, tf, ts
	if (tf) {
		print "\nFailed checks:"
		for (i = 1; i <= ng; i++) {
			g = names[i]
			if (!(g in failed))
				continue
			printf "%s", failed[g]
			if (nf[g] > 25)
				printf "  ... and %d more in %s\n", nf[g] - 25, g
		}
	}
}
