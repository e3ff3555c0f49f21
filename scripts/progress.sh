# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# A live progress line for long steps. Source it after config.sh.
#
#   softhca_progress_start KEY LABEL UNIT TOTAL COUNT_COMMAND
#   ... the long step ...
#   softhca_progress_stop [ok [FINAL_COUNT]]
#
# While the step runs, COUNT_COMMAND (a shell command printing a number:
# objects compiled, packages set up, checks done) is sampled and a line
#   [softhca] KUnit kernel: 812/2900 objects, 3:05 elapsed, about 7:50 left
# is shown: rewritten in place every 2 s when stderr is a terminal, printed
# every 30 s otherwise (CI logs; SOFTHCA_PROGRESS_EVERY=<s> for a test's
# sake). TOTAL is a number; or empty, or a command
# printing one (sampled each time), either of which gives way to the last
# run's count when there is one.
# "ok" records this run's time and count (FINAL_COUNT, default the last
# sample) in $SOFTHCA_CACHE/KEY.last for the next run's estimate. "about
# 7:50 left" comes from the rate so far once 5% is done (for totals of 20
# or more), otherwise from the last run's time.

softhca_progress_pid=
softhca_progress_key=
softhca_progress_t0=

softhca_mmss() {
	printf '%d:%02d' $(($1 / 60)) $(($1 % 60))
}

softhca_progress_start() {
	local key=$1 label=$2 unit=$3 total=$4 count=$5
	local last=$SOFTHCA_CACHE/$key.last last_s= last_n=
	softhca_progress_key=$key
	softhca_progress_t0=$SECONDS
	if [ -f "$last" ]; then
		read -r last_s last_n < "$last" || true
	fi
	# a command for the total gives way to the last run's count
	if [[ ! $total =~ ^[0-9]*$ ]] && [ -n "$last_n" ]; then
		total=$last_n
	fi
	total=${total:-$last_n}
	softhca_progress_count=$count
	(
		# Never dies of a sample: the callers run under "set -e
		# -o pipefail", and a find over a tree that a build is
		# writing fails now and then (a file gone between its
		# listing and its stat). A monitor that died made
		# softhca_progress_stop's kill fail, and that ended the
		# caller, its build done (a cold debug-kernel build, once).
		set +e +o pipefail
		trap 'kill $! 2>/dev/null; exit 0' TERM
		tty=0
		[ -t 2 ] && tty=1
		t0=$SECONDS
		every=${SOFTHCA_PROGRESS_EVERY:-30}
		next=$((SECONDS + every))
		while :; do
			sleep 2 &
			wait $!
			e=$((SECONDS - t0))
			if [ $tty -eq 0 ] && [ $SECONDS -lt $next ]; then
				continue
			fi
			next=$((SECONDS + every))
			n=$(eval "$count" 2>/dev/null | head -n 1)
			[[ $n =~ ^[0-9]+$ ]] || n=0
			tn=$total
			if [[ ! $total =~ ^[0-9]*$ ]]; then
				tn=$(eval "$total" 2>/dev/null | head -n 1)
			fi
			[[ $tn =~ ^[0-9]+$ ]] && [ "$tn" -gt 0 ] || tn=
			line="$label: $n"
			[ -n "$tn" ] && line+="/$tn"
			line+=" $unit, $(softhca_mmss $e) elapsed"
			left=
			if [ -n "$tn" ] && [ "$tn" -ge 20 ] && [ "$n" -gt 0 ] &&
				[ $((n * 20)) -ge "$tn" ]; then
				[ "$n" -lt "$tn" ] && left=$((e * (tn - n) / n))
			elif [ -n "$last_s" ] && [ "$last_s" -gt "$e" ]; then
				left=$((last_s - e))
			fi
			[ -n "$left" ] && line+=", about $(softhca_mmss "$left") left"
			[ -n "$last_s" ] && line+=" (last run $(softhca_mmss "$last_s"))"
			if [ $tty -eq 1 ]; then
				printf '\r\033[K[softhca] %s' "$line" >&2
			else
				printf '[softhca] %s\n' "$line" >&2
			fi
		done
	) >/dev/null &
	softhca_progress_pid=$!
	trap softhca_progress_stop EXIT
}

softhca_progress_stop() {
	local n
	[ -n "$softhca_progress_pid" ] || return 0
	# (the monitor may have ended already: that is not the step failing)
	kill "$softhca_progress_pid" 2>/dev/null || true
	wait "$softhca_progress_pid" 2>/dev/null || true
	softhca_progress_pid=
	[ -t 2 ] && printf '\r\033[K' >&2
	if [ "${1:-}" = ok ]; then
		n=${2:-$(eval "$softhca_progress_count" 2>/dev/null | head -n 1 || true)}
		[[ $n =~ ^[0-9]+$ ]] || n=0
		mkdir -p "$(dirname "$SOFTHCA_CACHE/$softhca_progress_key")"
		echo "$((SECONDS - softhca_progress_t0)) $n" \
			> "$SOFTHCA_CACHE/$softhca_progress_key.last"
	fi
	return 0
}
