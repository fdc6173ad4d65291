#!/bin/sh
# netplot-index-gui.sh — the window on a trace opened through its index
# (NETPLOT_INDEX_MIN=0 makes any .xcap count as huge), under Xvfb.
#
# A trace of three million packets in two connections made from a real
# capture (tests/trace-stretch).  netplot must build the index, say how
# many packets it holds (the trace's, as xcapanalyse counts them), draw
# the whole connection from it (the plot not blank), and when zoomed in
# with '+' read a span of the trace into the window's model (logged): a
# middle zoom's span, too dear for one frame, in steps between frames
# while the buckets are drawn (logged as refining, then refined in N
# steps), and draw it (the screen changes).  Another graph of the family
# over the whole trace says it needs the trace's packets.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need netplot xcapanalyse xdotool import convert
stretch="$top_builddir/tests/trace-stretch"
[ -x "$stretch" ] || skip "tests/trace-stretch is not built"
TRACE_STRETCH_LANES=2 "$stretch" 3000000 "$workdir/big.xcap" \
	"$top_srcdir/tests/captures/xdpyinfo-xlogo.pcap" 2>/dev/null || fail "trace-stretch failed"
packets=$(xcapanalyse --connections --format csv "$workdir/big.xcap" |
	awk -F, 'NR > 1 { n += $7 + $8 } END { print n + 0 }')
xvfb_first=54 xvfb_last=59
start_xvfb
export NETPLOT_INDEX_MIN=0
start_netplot "$workdir/big.xcap"
grep -q "^netplot: index .* packets=$packets built" "$log" ||
	fail "the index does not hold the trace's $packets packets: $(grep '^netplot: index' "$log")"
[ -s "$workdir/big.xcap.idx" ] || fail "no index beside the trace"
sleep 0.5
shot() { import -window root "$workdir/$1.png" && convert "$workdir/$1.png" -crop 600x460+100+100 \
	-format '%k' info: >"$workdir/$1.colours"; }
shot coarse
[ "$(cat "$workdir/coarse.colours")" -gt 3 ] || fail "the plot drawn from the index is blank"
grep -q '^netplot: window ' "$log" && fail "a span was read for a view of millions of packets"
# The round-trip graph (key 2) is drawn from packets: over millions the
# window says it needs them and offers the time-sequence graph (key 1).
xdotool key 2
wait_for grep -q '^netplot: needs packets graph=rtt ' "$log" ||
	fail "the rtt graph over the whole trace did not say it needs the packets: $(tail -2 "$log")"
xdotool key 1
wait_for sh -c "tail -1 '$log' | grep -q 'graph=tsg'" || fail "key 1 did not bring back the time-sequence graph"
sleep 0.5
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14; do
	grep -q '^netplot: window ' "$log" && break
	xdotool key plus
	sleep 0.5
done
wait_for grep -q '^netplot: window .*packets=[1-9]' "$log" ||
	fail "zooming in read no span of the trace: $(tail -3 "$log")"
# The first span read was a middle zoom's, too dear for one frame: drawn
# from the buckets at once, then read in steps between frames.
grep -q '^netplot: refining ' "$log" || fail "no middle zoom was read in steps: $(grep '^netplot: window' "$log" | head -1)"
steps=$(sed -n 's/^netplot: refined in \([0-9]*\) steps$/\1/p' "$log" | head -1)
[ "${steps:-0}" -ge 2 ] || fail "the middle zoom was read in ${steps:-no} steps"
first=$(grep -n '^netplot: \(refined\|window\) ' "$log" | head -1)
case $first in *refined*) ;; *) fail "a span was read whole before the middle zoom's steps: $first" ;; esac
sleep 0.5
shot fine
cmp -s "$workdir/coarse.png" "$workdir/fine.png" && fail "the screen did not change"
say "$packets packets indexed; $(grep '^netplot: window ' "$log" | head -1 | sed 's/.*packets=//') read for a zoomed view in $steps steps"
