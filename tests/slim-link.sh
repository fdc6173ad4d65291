#!/bin/sh
# slim-link.sh — SLIM's added delay per input's response against a real
# slower link.  An xterm in a client namespace is typed into (xdotool,
# XTEST, on the server's side, 300 ms apart) with Xvfb in a server
# namespace, across xcap-link, captured beside the X server (the display):
# once with no limit on the link, then at each rate of $SLIM_RATES (one-way
# delay 0).  xcapanalyse --added-delay-responses replays the unlimited run
# (--range from the typing on, so that the start-up's bytes are not
# queued ahead of it) at each rate; each key's response there plus its
# predicted added delay is held to the same key's response measured over
# the link: the medians agree within 0.3 ms + 10 % of the added delay
# (at 1 Mbit/s less than the 0.67 ms the input's own packet gains:
# leaving the input's part out fails).
# The run over the link is the ground truth; nothing here comes from an
# earlier run.  SLIM_RATES defaults to 1M (in the suite); make long-slim
# adds 100k and types a longer text.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need root ip xcap-link xcap xcapanalyse Xvfb xdpyinfo xterm xdotool /usr/bin/python3
measures_physics
need tun
. "$top_srcdir/tests/netns.sh"
want_realtime

rates=${SLIM_RATES:-1M}
text=${SLIM_TEXT:-"the quick brown"}

# typed NAME: the xterm typed into, captured beside the server into
# $workdir/NAME.xcap.  An 8-bit locale and font: a UTF-8 xterm queries
# fonts of 3 MB, minutes at 100 kbit/s before a key can be typed.
typed() {
	start_capture "cap_$1" ip netns exec "$link_ns_s" xcap -i "$link_dev_s" -w "$workdir/$1.xcap"
	$rt ip netns exec "$link_ns_c" env LANG=C LC_ALL=C xterm -fn fixed \
		-display "$link_addr_s:$n" -geometry 40x10+0+0 -e sleep 120 2>"$workdir/$1.xterm.err" &
	_xt=$!
	_wid=
	for _i in $(seq 600); do
		_wid=$(ip netns exec "$link_ns_s" env DISPLAY=127.0.0.1:$n \
			xdotool search --onlyvisible --class xterm 2>/dev/null | head -1)
		[ -n "$_wid" ] && break
		sleep 0.1
	done
	[ -n "$_wid" ] || fail "$1: no xterm window after 60 s: $(tail -3 "$workdir/$1.xterm.err")"
	sleep 2		# drawn, over the slowest link too
	ip netns exec "$link_ns_s" env DISPLAY=127.0.0.1:$n xdotool mousemove --window "$_wid" 20 20 ||
		fail "$1: xdotool mousemove failed"
	sleep 0.5
	# The first key fetches the keyboard's maps: round trips that are
	# not typing.  Then the typing, after time for them to cross.
	ip netns exec "$link_ns_s" env DISPLAY=127.0.0.1:$n xdotool key space ||
		fail "$1: xdotool key failed"
	sleep 3
	ip netns exec "$link_ns_s" env DISPLAY=127.0.0.1:$n xdotool type --delay 300 "$text" ||
		fail "$1: xdotool type failed"
	sleep 1
	kill "$_xt"; wait "$_xt" 2>/dev/null
	sleep 0.3
	stop_capture "cap_$1"
}

# over_link NAME RATE: the typing over a link of RATE (0: no limit).
over_link() {
	make_link "sl$$$1" "$2" "$2" 0
	start_xvfb_ns 640x480x24 "$workdir/xvfb-$1.log" $rt
	typed "$1"
	kill "$xpid"; wait "$xpid" 2>/dev/null
	link_down "sl$$$1" || fail "xcap-link did not end cleanly"
}

# attempt: both runs, and the prediction held to the measurement; 1 when
# a rate disagrees.  The unlimited run is the ground truth of the
# response itself, so a burst of load on it (a neighbour in make check
# on two cores: once its keys took 1.5 ms where they take 0.8) moves
# every prediction; a disagreement is measured once more, from both
# runs, and only a second one fails.
attempt() {
	over_link free 0
	i=0
	for r in $(echo "$rates" | tr , ' '); do
		i=$((i + 1))
		over_link "r$i" "$r"
	done

	side="--capture-side server"
	# shellcheck disable=SC2086
	xcapanalyse --responses $side --format csv "$workdir/free.xcap" >"$workdir/free.csv" ||
		fail "--responses failed"
	# The typing begins at the third input (after the first key's press and
	# release): the replay starts a second before it.
	from=$(awk -F, 'NR == 4 { printf "%.3f", $1 - 1 }' "$workdir/free.csv")
	[ -n "$from" ] || fail "too few inputs in the unlimited run"
	# shellcheck disable=SC2086
	xcapanalyse --added-delay-responses $side --range "$from:" --rates "$rates" --format csv \
		"$workdir/free.xcap" >"$workdir/added.csv" 2>"$workdir/added.err" ||
		fail "--added-delay-responses failed: $(cat "$workdir/added.err")"
	i=0
	for r in $(echo "$rates" | tr , ' '); do
		i=$((i + 1))
		# shellcheck disable=SC2086
		xcapanalyse --responses $side --format csv "$workdir/r$i.xcap" >"$workdir/r$i.csv" ||
			fail "--responses of the $r run failed"
		/usr/bin/python3 - "$r" "$workdir/free.csv" "$workdir/added.csv" "$workdir/r$i.csv" <<'EOF' ||
import csv, statistics, sys
rate, free, added, measured = sys.argv[1:]
def by_input(path):
    return {int(r["input"]): r for r in csv.DictReader(open(path)) if r["response"]}
free, measured = by_input(free), by_input(measured)
pred, meas, add = [], [], []
for a in csv.DictReader(open(added)):
    i = int(a["input"]) if a["rate"] == rate and a["added_s"] else 0
    # The same key in both runs (typed in the same order), answered in both.
    if i in free and i in measured and free[i]["what"] == measured[i]["what"]:
        pred.append(float(free[i]["response"]) + float(a["added_s"]))
        meas.append(float(measured[i]["response"]))
        add.append(float(a["added_s"]))
if len(pred) < 5:
    sys.exit("%s: only %d keys answered in both runs" % (rate, len(pred)))
p, m, d = (statistics.median(v) * 1e3 for v in (pred, meas, add))
tol = 0.3 + 0.1 * d
print("slim-link: %s: %d keys, response predicted %.3f ms (added %.3f), measured %.3f ms, "
      "tolerance %.3f ms" % (rate, len(pred), p, d, m, tol))
sys.exit(0 if abs(p - m) <= tol else "%s: predicted %.3f ms, measured %.3f ms" % (rate, p, m))
EOF
			{ say "the prediction at $r is off the link's measurement"; return 1; }
	done
}
if ! attempt; then
	say "measuring both runs again: a loaded machine can slow the unlimited run"
	attempt || fail "the prediction is off the link's measurement in two attempts"
fi
say "SLIM's added delay per response agrees with a real link at $rates"
