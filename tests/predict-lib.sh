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
# into predictedN_K.csv.  Client N's predictions also get the options in
# $predict_opts_N, when set.
predict_captures() {
	ci=0
	while read -r cmd <&3; do
		ci=$((ci + 1))
		eval "_pc_more=\${predict_opts_$ci:-}"
		for k in 1 2 3; do
			# shellcheck disable=SC2086
			xcapanalyse --predict "$@" $_pc_more --rates "$(echo $rates | tr ' ' ,)" \
				--latencies "$(echo $delays | tr ' ' ,)" --format csv "$workdir/lo${ci}_$k.xcap" \
				>"$workdir/predicted${ci}_$k.csv" 2>"$workdir/predict.err" ||
				fail "xcapanalyse --predict $* failed: $(cat "$workdir/predict.err")"
		done
	done 3<<CLIENTS
$clients
CLIENTS
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
# 20 ms, whichever is larger, skips when the only cells off were on a link
# released 0.5 ms or more late on average (not the link asked for: a busy
# machine), fails otherwise.  WHAT says what was predicted ("" or
# "through ssh -X -C ").
predict_verdict() {
	echo "$clients" >"$workdir/clients"
	$py "$top_srcdir/tests/predict-compare.py" "$workdir" "$workdir/measured"
	_pv_status=$?
	[ $_pv_status = 3 ] && skip "xcap-link released packets 0.5 ms or more late on average (a busy machine) in cells the prediction missed: $(cat "$workdir/measured.late")"
	[ $_pv_status = 0 ] || fail "the prediction ${1}is off"
	say "the prediction of $($py "$top_srcdir/tests/predict-compare.py" --names "$workdir/clients" | tr "\n" " ")${1}agrees with the emulated links within 15 % or 20 ms in every cell"
}
