# predict-lib.sh — what tests/predict-accuracy.sh and tests/predict-ssh.sh
# share: the loopback captures and their predictions, the measured cells,
# and the verdict (sourced after lib.sh and netns.sh, and after
# want_realtime, which sets $rt).
#
# The test sets
#   rates, delays   the matrix (blank-separated: "10M 1M", "10 50")
#   runs            measured runs a cell
#   clients         the clients' command lines, one a line
#   py              the python3 to run tests/predict-compare.py with
# and defines the part of a measured cell that differs between them:
#   cell_up           after the cell's link and Xvfb are up (n and xpid set)
#   cell_capture RUN  start the capture of one run: start_capture cap_RUN ...
#   cell_client CMD   run the client once across the link, its output to
#                     $workdir/$run.client; non-zero when it failed
#   cell_down         before the cell's Xvfb and link are taken down

# The servers reset when their last client leaves, as X servers do by
# default: every run of a client is a start-up on a fresh display, as the
# tables of xcapanalyse(1) measured it (start_xvfb: xvfb_reset).
xvfb_reset=yes

# predict_loopback "XCAP-OPTIONS" "XCAPANALYSE-OPTIONS": each client
# captured three times on loopback (Xvfb listening on TCP, xcap on lo) and
# each capture predicted over the matrix into predictedN_K.csv; the
# comparison takes the median one, as a capture on a busy machine may hold
# a stall of the load's (once seen as 0.2 s in every cell).
predict_loopback() {
	_pl_capture=$1 _pl_predict=$2
	start_xvfb
	[ -z "$rt" ] || chrt -f -p 20 "$xpid" >/dev/null 2>&1 || say "Xvfb on loopback stays at normal priority"
	ci=0
	while read -r cmd <&3; do
		ci=$((ci + 1))
		for k in 1 2 3; do
			# (The capture listens once start_capture returns; on
			# loopback the last packets are there in microseconds.)
			# shellcheck disable=SC2086
			start_capture cap xcap -i lo $_pl_capture -w "$workdir/lo${ci}_$k.xcap" \
				"tcp port $((6000 + display))"
			sleep 0.1
			# shellcheck disable=SC2086
			DISPLAY=127.0.0.1:$display $rt $cmd >/dev/null 2>"$workdir/client.err" ||
				fail "$cmd failed on loopback: $(tail -n 3 "$workdir/client.err")"
			sleep 0.1
			stop_capture cap
		done
	done 3<<CLIENTS
$clients
CLIENTS
	kill "$xpid" 2>/dev/null; wait "$xpid" 2>/dev/null
	predict_captures $_pl_predict
}

# predict_captures XCAPANALYSE-OPTIONS...: each loopback capture
# $workdir/loN_K.xcap (client N, K = 1 to 3) predicted over the matrix
# into predictedN_K.csv, with this machine's wake-up time.  Client N's
# predictions also get the options in $predict_opts_N, when set.
predict_captures() {
	# What waking after a millisecond's wait costs a process on this
	# machine (tests/link-echo.py wake), measured once, as a user would,
	# and given to every prediction (--wake-time).
	_pc_wake=$($rt $py "$top_srcdir/tests/link-echo.py" wake 300 1) ||
		fail "the echo on loopback failed"
	say "a process that waited 1 ms wakes $_pc_wake us late here (--wake-time)"
	_pc_opts="$* --wake-time $(awk -v w="$_pc_wake" 'BEGIN { printf "%.3f", w / 1000 }')"
	predict_each "$(echo $rates | tr ' ' ,)" "$(echo $delays | tr ' ' ,)" predicted ""
}

# predict_each RATES DELAYS NAME SUFFIX: each loopback capture of each
# client predicted with predict_captures' options and the client's own
# ($predict_opts_N) into NAME{N}_{K}SUFFIX.csv.
predict_each() {
	ci=0
	while read -r cmd <&3; do
		ci=$((ci + 1))
		eval "_pe_more=\${predict_opts_$ci:-}"
		for k in 1 2 3; do
			# shellcheck disable=SC2086
			xcapanalyse --predict $_pc_opts $_pe_more --rates "$1" --latencies "$2" --format csv \
				"$workdir/lo${ci}_$k.xcap" >"$workdir/$3${ci}_$k$4.csv" 2>"$workdir/predict.err" ||
				fail "xcapanalyse --predict $_pc_opts failed: $(cat "$workdir/predict.err")"
		done
	done 3<<CLIENTS
$clients
CLIENTS
}

# link_probe RATE DELAY: what the link just made adds to a round trip
# beyond its configuration, the emulator's own time (tests/link-echo.py):
# a TCP echo across it, less twice the delay and the echo's serialisation,
# less the same echo on the client's loopback pausing as long as the
# link's round trip (so that its processes sleep as long and wake as
# slowly).  Appends "0 RATE DELAY echo US LINK LO HOT" to
# $workdir/measured: the emulator's own time, the echo across the link,
# on loopback with the pause and without (all in microseconds).  Only
# from 10 Mbit/s up: slower, the echo's own serialisation is most of it,
# and what the emulator adds is lost in the cell's length anyway.
# echo_probe ADDRESS PAUSE_MS: the median round trip, in microseconds, of
# $_lp_n echoes from the client's namespace to ADDRESS:7.
echo_probe() {
	$rt ip netns exec "$link_ns_c" $py "$top_srcdir/tests/link-echo.py" probe "$1" 7 "$_lp_n" "$2"
}

link_probe() {
	case $1 in
	*G | [1-9][0-9]M | [1-9][0-9][0-9]M) ;;
	*) return 0 ;;
	esac
	_lp_rate=$(echo "$1" | sed 's/G$/000000000/; s/M$/000000/')
	# Some two seconds of round trips, 20 to 200.
	_lp_n=$(awk -v d="$2" 'BEGIN { n = int(1000 / d); print (n < 20 ? 20 : (n > 200 ? 200 : n)) }')
	$rt ip netns exec "$link_ns_s" $py "$top_srcdir/tests/link-echo.py" serve "$link_addr_s" 7 &
	_lp_far=$!
	$rt ip netns exec "$link_ns_c" $py "$top_srcdir/tests/link-echo.py" serve 127.0.0.1 7 &
	_lp_near=$!
	pids="$pids $_lp_far $_lp_near"
	wait_for ip netns exec "$link_ns_s" sh -c "ss -ltn | grep -q '$link_addr_s:7 '" ||
		fail "the echo did not listen across the link"
	wait_for ip netns exec "$link_ns_c" sh -c "ss -ltn | grep -q '127.0.0.1:7 '" ||
		fail "the echo did not listen on loopback"
	_lp_link=$(echo_probe "$link_addr_s" 0) || fail "the echo across the link failed"
	_lp_lo=$(echo_probe 127.0.0.1 "$(awk -v d="$2" 'BEGIN { print 2 * d }')") ||
		fail "the echo on loopback failed"
	# The same without the pause: what waking after that sleep costs the
	# two processes, which the model does not know either (a capture on
	# loopback has its processes wake from short sleeps).
	_lp_hot=$(echo_probe 127.0.0.1 0) || fail "the echo on loopback failed"
	kill "$_lp_far" "$_lp_near" 2>/dev/null; wait "$_lp_far" "$_lp_near" 2>/dev/null
	awk -v r="$1" -v d="$2" -v rate="$_lp_rate" -v link="$_lp_link" -v lo="$_lp_lo" -v hot="$_lp_hot" 'BEGIN {
		printf "0 %s %s echo %.0f %s %s %s\n", r, d, link - 2000 * d - 2 * 53 * 8 / rate * 1e6 - lo, link, lo, hot
	}' >>"$workdir/measured"
}

# predict_built: each probed cell (link_probe) predicted again for the
# link as it was, its one-way delay longer by half the emulator's time,
# from each loopback capture, with the options predict_captures had, into
# builtN_K_RATE_DELAY.csv.
predict_built() {
	grep ' echo ' "$workdir/measured" >"$workdir/echoes"
	while read -r _ r d _ x _; do
		eff=$(awk -v d="$d" -v x="$x" 'BEGIN { printf "%.4f", d + (x > 0 ? x : 0) / 2000 }')
		predict_each "$r" "$eff" built "_${r}_$d"
	done <"$workdir/echoes"
}

# predict_measure TAG: every cell of the matrix measured as xcap-sweep
# measures it: make_link (xcap-link between the client's namespace and
# the server's), Xvfb in the server's at $rt, then the test's cell_up,
# and $runs runs of each client, each captured (cell_capture) and its
# Total Network Delay taken.  Writes $workdir/measured: a line per run,
# "CLIENT RATE DELAY TOTAL_NETWORK_DELAY", and per cell
# "0 RATE DELAY late US", how late the link released packets on average
# over the cell (from xcap-link's summary at exit).
predict_measure() {
	: >"$workdir/measured"
	_pm_cell=0
	for r in $rates; do
		for d in $delays; do
			_pm_cell=$((_pm_cell + 1))
			tag=$1$$$_pm_cell
			make_link "$tag" "$r" "$r" "$d"
			link_probe "$r" "$d"
			# shellcheck disable=SC2086
			start_xvfb_ns 1024x768x24 "$workdir/xvfb-$tag.log" $rt
			pids="$pids $xpid"
			cell_up
			# Not a pipe: the captures' pids are this shell's.  (ci, as
			# lib.sh's helpers use i.)
			ci=0
			while read -r cmd <&3; do
				ci=$((ci + 1))
				k=1
				while [ "$k" -le "$runs" ]; do
					run=${tag}_${ci}_$k
					# (The capture listens once cell_capture returns; the
					# last packets, a FIN across the link, take longer.)
					cell_capture "$run"
					sleep 0.1
					cell_client "$cmd" ||
						fail "$cmd failed over the link ($r, $d ms): $(tail -n 3 "$workdir/$run.client")"
					sleep 0.3
					stop_capture "cap_$run"
					xcapanalyse --format csv "$workdir/$run.xcap" >"$workdir/$run.csv" ||
						fail "xcapanalyse failed on $run"
					tnd=$($py "$top_srcdir/tests/delays-check.py" "$workdir/$run.csv" all total \
						total_network_delay)
					echo "$ci $r $d $tnd" >>"$workdir/measured"
					k=$((k + 1))
				done
			done 3<<CLIENTS
$clients
CLIENTS
			cell_down
			kill "$xpid" 2>/dev/null; wait "$xpid" 2>/dev/null
			link_down "$tag" || fail "xcap-link did not end cleanly"
			late=$(sed -n 's/.*released \([0-9.]*\) us late on average.*/\1/p' "$link_log" | tail -n 1)
			echo "0 $r $d late ${late:-0}" >>"$workdir/measured"
		done
	done
}

# predict_verdict WHAT: each cell's prediction beside its measurement
# (tests/predict-compare.py); passes when every cell is within 15 % or
# 20 ms, whichever is larger, skips when the only cells off were not the
# link asked for: released 0.5 ms or more late on average (a busy
# machine), or slower by the emulator's own time a round trip
# (link_probe) and within the tolerance of the prediction for the link
# as it was (predict_built); fails otherwise.  WHAT says what was
# predicted ("" or "through ssh -X -C ").
predict_verdict() {
	echo "$clients" >"$workdir/clients"
	predict_built
	$py "$top_srcdir/tests/predict-compare.py" "$workdir" "$workdir/measured"
	_pv_status=$?
	[ $_pv_status = 3 ] && skip "the emulated link was not the link asked for in the cells the prediction missed: $(cat "$workdir/measured.late")"
	[ $_pv_status = 0 ] || fail "the prediction ${1}is off"
	say "the prediction of $($py "$top_srcdir/tests/predict-compare.py" --names "$workdir/clients" | tr "\n" " ")${1}agrees with the emulated links within 15 % or 20 ms in every cell"
}
