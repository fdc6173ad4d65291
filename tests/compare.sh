#!/bin/sh
# compare.sh — xcapanalyse --compare and its gate on real captures.
#
# The same client (xdpyinfo -queryExtensions, which makes a few dozen
# blocking round trips) runs three times in a client namespace against
# Xvfb in a server namespace, across xcap-link, captured beside the
# client: A and A2 over a link of $fast_ms ms one way, B over $slow_ms ms.
#  - A against A2 (a repeat of one configuration): the gate passes (0);
#  - A against B (the deliberately slowed run): the gate fails (3), and
#    says B is worse on network-delay and block-reply; B against A passes;
#  - the comparison shows what each run's own delay table shows, the same
#    round trips in A and B, and the links' difference: per round trip B
#    waits 2 x (slow - fast) longer (median, within 2 ms + 10 %);
#  - CSV, JSON and markdown carry the same rows;
#  - the same for what a person feels: an xterm over each link gets ten
#    keys typed through XTEST on the server's side (after one key that
#    warms xterm's keyboard maps); --compare matches all
#    its inputs in order and by kind, the gate on response-p50 passes the
#    repeat and fails the slowed run, and the matched inputs' response
#    shifts by at least the extra round trip, 2 x (slow - fast), less 10 %;
#    netplot --cdf draws the three runs' response times, a curve each.
# The expectations come from the links' configuration, not a former run.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need root ip xcap-link xcap xcapanalyse Xvfb xdpyinfo xterm xdotool /usr/bin/python3
# The gate's "passes a repeat" holds the two runs' round trips to the
# link's delay: a loaded machine, not the link, made a repeat on a 5 ms
# link wait 0.96 s where the first waited 0.34 s.  So this test takes its
# turn with the other timing tests, and the link, the X server and the
# clients run at real-time priority where the machine allows it.
measures_physics
need tun
. "$top_srcdir/tests/netns.sh"
want_realtime

py=/usr/bin/python3
fast_ms=5
slow_ms=50
# Round trips each run waits on unsplit (one per silence of the client):
# a burst of pipelined replies split or not by the server's pace under
# load is not a difference between the links.
model="--split-fraction 0"
gate="--fail-if-worse 50%+50ms"

# over_link TAG DELAY_MS NAME...: a link of DELAY_MS one way, Xvfb on its
# server side, and one capture of xdpyinfo for each NAME into
# $workdir/NAME.xcap.
over_link() {
	_tag=$1 _delay=$2; shift 2
	make_link "$_tag" 0 0 "$_delay"
	start_xvfb_ns 640x480x24 "$workdir/xvfb-$_tag.log" $rt
	for _name in "$@"; do
		start_capture "cap_$_name" ip netns exec "$link_ns_c" \
			xcap -i "$link_dev_c" -w "$workdir/$_name.xcap"
		$rt ip netns exec "$link_ns_c" xdpyinfo -display "$link_addr_s:$n" -queryExtensions \
			>/dev/null || fail "$_name: xdpyinfo failed"
		sleep 0.3	# the last ACKs
		stop_capture "cap_$_name"
		typed "${_name}_x"
	done
	kill "$xpid"; wait "$xpid" 2>/dev/null
	link_down "$_tag" || fail "xcap-link did not end cleanly"
}

# typed NAME: an xterm in the client namespace, ten keys typed into it
# from the server's side (XTEST), captured into $workdir/NAME.xcap.
typed() {
	start_capture "cap_$1" ip netns exec "$link_ns_c" \
		xcap -i "$link_dev_c" -w "$workdir/$1.xcap"
	$rt ip netns exec "$link_ns_c" xterm -display "$link_addr_s:$n" -geometry 40x10+0+0 -e sleep 60 \
		2>"$workdir/$1.xterm.err" &
	_xt=$!
	_wid=
	# Mapped: over a slow link xterm's start-up takes seconds (a round
	# trip per colour it allocates).
	for _i in $(seq 300); do
		_wid=$(ip netns exec "$link_ns_s" env DISPLAY=127.0.0.1:$n \
			xdotool search --onlyvisible --class xterm 2>/dev/null | head -1)
		[ -n "$_wid" ] && break
		sleep 0.1
	done
	if [ -z "$_wid" ]; then
		kill -0 "$_xt" 2>/dev/null && _alive=running || _alive=exited
		fail "$1: no xterm window after 30 s (xterm $_alive; its stderr: $(tail -3 "$workdir/$1.xterm.err"))"
	fi
	sleep 1		# mapped and drawn
	# No window manager: keys go where the pointer is.
	ip netns exec "$link_ns_s" env DISPLAY=127.0.0.1:$n xdotool mousemove --window "$_wid" 20 20 ||
		fail "$1: xdotool mousemove failed"
	sleep 0.5
	# One key first, and time for its answer: xterm's first key makes Xlib
	# fetch the keyboard and modifier maps and XKB's map, several round
	# trips in a row that over the slow link outlast the next keys, whose
	# responses the next input then cuts.  The ten keys measured are
	# typing in steady state.
	ip netns exec "$link_ns_s" env DISPLAY=127.0.0.1:$n xdotool key space ||
		fail "$1: xdotool key failed"
	sleep 1.5
	ip netns exec "$link_ns_s" env DISPLAY=127.0.0.1:$n xdotool type --delay 300 abcdefghij ||
		fail "$1: xdotool type failed"
	sleep 0.5
	kill "$_xt"; wait "$_xt" 2>/dev/null
	sleep 0.3
	stop_capture "cap_$1"
}

over_link "cf$$" "$fast_ms" fast fast2
over_link "cs$$" "$slow_ms" slow

A=$workdir/fast.xcap A2=$workdir/fast2.xcap B=$workdir/slow.xcap

# shellcheck disable=SC2086
xcapanalyse --compare $model $gate "$A" "$A2" >"$workdir/repeat.txt" 2>"$workdir/repeat.err"
status=$?
cat "$workdir/repeat.txt"
[ $status = 0 ] || fail "the gate failed a repeat of one configuration ($status): $(cat "$workdir/repeat.err")"
grep -q '^Gate: passed' "$workdir/repeat.txt" || fail "the repeat's verdict is not 'passed'"

# shellcheck disable=SC2086
xcapanalyse --compare $model $gate "$A" "$B" >"$workdir/slow.txt" 2>"$workdir/slow.err"
status=$?
cat "$workdir/slow.txt"
[ $status = 3 ] || fail "the gate did not fail the slowed run with 3 but $status"
grep -q "worse than the first run.*'$B'" "$workdir/slow.err" ||
	fail "no message names the slowed run: $(cat "$workdir/slow.err")"
for m in network-delay block-reply; do
	grep -q "^$m  *B .* worse\$" "$workdir/slow.txt" || fail "the gate does not call B worse on $m"
done
# shellcheck disable=SC2086
xcapanalyse --compare $model $gate "$B" "$A" >/dev/null 2>&1 || fail "the gate failed a faster run ($?)"

# The comparison shows what each run's own views show, and the difference
# the links make: per round trip, the slowed run waits 2 x (slow - fast)
# longer (the median over the round trips paired in order, within 10 %
# and 2 ms: a loaded machine delays a reply now and then, never speeds
# one up).
xcapanalyse --compare $model --format json "$A" "$B" >"$workdir/slow.json" || fail "--format json failed"
for r in fast slow; do
	xcapanalyse $model --format csv "$workdir/$r.xcap" >"$workdir/$r.delays.csv" &&
	xcapanalyse $model --round-trips --format csv "$workdir/$r.xcap" >"$workdir/$r.trips.csv" ||
		fail "xcapanalyse failed on $r.xcap"
done
$py - "$workdir" "$fast_ms" "$slow_ms" <<'PY' || fail "the comparison disagrees with the runs or the links"
import csv, json, statistics, sys
w = sys.argv[1]
fast, slow = float(sys.argv[2]) / 1e3, float(sys.argv[3]) / 1e3
d = json.load(open(w + "/slow.json"))
rows = {(r["view"], r["row"], r["metric"]): r for r in d["rows"]}
if [r["file"] for r in d["runs"]] != [w + "/fast.xcap", w + "/slow.xcap"]:
    sys.exit("runs: %s" % d["runs"])
for col, run in (("a", "fast"), ("b", "slow")):
    total = [r for r in csv.DictReader(open("%s/%s.delays.csv" % (w, run)))
             if r["conn"] == "all" and r["direction"] == "total"][0]
    for metric, column in (("network_delay", "total_network_delay"), ("block_reply", "block_reply")):
        got = rows[("delays", "all", metric)][col]
        if abs(got - float(total[column])) > 1e-9:
            sys.exit("%s of %s: --compare says %s, the delay table %s" % (metric, run, got, total[column]))
trips = rows[("delays", "all", "round_trips")]
if trips["a"] != trips["b"] or trips["a"] < 10:
    sys.exit("round trips: A %s, B %s" % (trips["a"], trips["b"]))
for (view, row, metric), r in rows.items():
    if view == "requests" and metric == "count" and r["a"] != r["b"]:
        sys.exit("%s waited on %s times in A, %s in B" % (row, r["a"], r["b"]))
waits = [[float(r["wait"]) for r in csv.DictReader(open("%s/%s.trips.csv" % (w, run)))]
         for run in ("fast", "slow")]
shift = statistics.median(b - a for a, b in zip(*waits))
expected = 2 * (slow - fast)
reply = rows[("delays", "all", "block_reply")]
print("compare.sh: %d round trips each; per round trip B waits %.6f s longer (median), "
      "expected %.6f s; Block Reply B-A %.6f s, B/A %.2f"
      % (trips["a"], shift, expected, reply["b_minus_a"], reply["b_over_a"]))
if abs(shift - expected) > 0.002 + 0.1 * expected:
    sys.exit("the median shift %.6f s is not within 2 ms + 10 %% of %.6f s" % (shift, expected))
if abs(reply["b_minus_a"] - (reply["b"] - reply["a"])) > 1e-9:
    sys.exit("B-A is not B minus A")
PY

# The same rows in every format.
xcapanalyse --compare $model --format csv "$A" "$B" >"$workdir/slow.csv" 2>/dev/null || fail "--format csv failed"
xcapanalyse --compare $model --format markdown "$A" "$B" >"$workdir/slow.md" || fail "--format markdown failed"
$py - "$workdir/slow.csv" "$workdir/slow.json" "$workdir/slow.md" <<'PY' || fail "the formats disagree"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
js = json.load(open(sys.argv[2]))["rows"]
if len(rows) != len(js) or not rows:
    sys.exit("CSV has %d rows, JSON %d" % (len(rows), len(js)))
for c, j in zip(rows, js):
    if (c["view"], c["row"], c["metric"]) != (j["view"], j["row"], j["metric"]) or \
       abs(float(c["b"]) - j["b"]) > 1e-9:
        sys.exit("CSV %s differs from JSON %s" % (c, j))
md = [l for l in open(sys.argv[3]) if l.startswith("| ") and "---" not in l]
# Markdown: the runs table (2 rows and a heading), then a table per view.
body = [l for l in md if not l.startswith("| Row") and not l.startswith("| Run")]
if len(body) != len(js) + 2:
    sys.exit("markdown has %d rows, JSON %d (+2 runs)" % (len(body), len(js)))
PY
# What a person feels: the xterm's keys.
X=$workdir/fast_x.xcap X2=$workdir/fast2_x.xcap XB=$workdir/slow_x.xcap
xcapanalyse --compare --fail-if-worse response-p50=30%+20ms "$X" "$X2" >"$workdir/xrepeat.txt" 2>&1 ||
	fail "the response gate failed a repeat ($?): $(cat "$workdir/xrepeat.txt")"
xcapanalyse --compare --fail-if-worse response-p50=30%+20ms "$X" "$XB" >"$workdir/xslow.txt" 2>&1
status=$?
sed -n '/^Response times/,$p' "$workdir/xslow.txt"
[ $status = 3 ] || fail "the response gate did not fail the slowed xterm with 3 but $status"
xcapanalyse --compare --format json "$X" "$XB" >"$workdir/xslow.json" || fail "--format json failed"
$py - "$workdir/xslow.json" "$fast_ms" "$slow_ms" <<'PY' || fail "the responses disagree with the links"
import json, sys
d = json.load(open(sys.argv[1]))
fast, slow = float(sys.argv[2]) / 1e3, float(sys.argv[3]) / 1e3
rows = {(r["view"], r["row"], r["metric"]): r for r in d["rows"]}
keys = rows[("responses", "key-press", "inputs")]
if keys["a"] < 10 or keys["b"] < 10:
    sys.exit("key presses: A %s, B %s, want 10 each" % (keys["a"], keys["b"]))
inputs = rows[("responses", "all", "inputs")]
matched = rows[("matching", "inputs", "matched")]
if matched["b"] != inputs["a"] or inputs["a"] != inputs["b"]:
    sys.exit("%s of A's %s inputs matched in B's %s" % (matched["b"], inputs["a"], inputs["b"]))
shift = rows[("matching", "inputs", "shift_p50")]["b"]
expected = 2 * (slow - fast)
print("compare.sh: %d inputs matched; response shift p50 %.6f s, the links' round trips "
      "differ by %.6f s" % (matched["b"], shift, expected))
# Every response reaches the display a round trip later on the slow link:
# the shift cannot be less.  How much more it is depends on the response
# model's estimate of the round trip it adds (printed, not judged here).
if shift < 0.9 * expected:
    sys.exit("response shift %.6f s is less than the links' %.6f s" % (shift, expected))
PY

# The runs' response times as one picture: a curve per run.
if command -v netplot >/dev/null 2>&1; then
	netplot --cdf response-time --export "$workdir/cdf.png" --size 900x500 "$X" "$X2" "$XB" ||
		fail "netplot --cdf failed"
	file "$workdir/cdf.png" | grep -q 'PNG image data, 900 x 500' || fail "the CDF is not a PNG"
	if command -v convert >/dev/null 2>&1; then
		convert "$workdir/cdf.png" -format %c histogram:info:- >"$workdir/cdf.colours"
		for c in '#0072B2' '#D55E00' '#009E73'; do
			grep -q "$c" "$workdir/cdf.colours" || fail "the CDF lacks the curve coloured $c"
		done
	fi
else
	say "netplot not built: no CDF picture"
fi

say "the gate passes a repeat, fails a run slowed by $((slow_ms - fast_ms)) ms one way, and agrees with the links"
