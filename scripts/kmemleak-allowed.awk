# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Splits what kmemleak reported (/sys/kernel/debug/kmemleak: blocks that
# begin "unreferenced object 0x...") into the leaks a test allowed and the
# rest, which it prints. An allowance is a line "<comm> <function>" in the
# file allowf ('#' starts a comment): an object is allowed when the task
# that allocated it had that name (the block's 'comm "<comm>"') and
# <function> is in its allocation's backtrace. Allowed blocks go to the
# file keptf (appended), and their number to stderr as "allowed <N>".
#   awk -v allowf=<file> -v keptf=<file> -f kmemleak-allowed.awk <report>
BEGIN {
	na = 0
	while ((getline line < allowf) > 0) {
		sub(/#.*/, "", line)
		if (split(line, f, " ") != 2)
			continue
		na++
		acomm[na] = f[1]
		afn[na] = f[2]
	}
	close(allowf)
	nb = 0
	nallowed = 0
}
function allowed(   i, a, comm) {
	comm = ""
	for (i = 1; i <= nb; i++)
		if (match(blk[i], /^  comm "[^"]*"/)) {
			comm = substr(blk[i], 9, RLENGTH - 9)
			break
		}
	for (a = 1; a <= na; a++) {
		if (comm != acomm[a])
			continue
		for (i = 1; i <= nb; i++)
			if (index(blk[i], "] " afn[a] "+0x"))
				return 1
	}
	return 0
}
function flush(   i) {
	if (!nb)
		return
	if (allowed()) {
		nallowed++
		for (i = 1; i <= nb; i++)
			print blk[i] >> keptf
	} else {
		for (i = 1; i <= nb; i++)
			print blk[i]
	}
	nb = 0
}
/^unreferenced object 0x/ { flush() }
{ blk[++nb] = $0 }
END {
	flush()
	print "allowed " nallowed > "/dev/stderr"
}
