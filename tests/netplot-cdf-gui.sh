#!/bin/sh
# netplot-cdf-gui.sh — the CDF window (View > CDF of the inputs, key c)
# under Xvfb, on two real captures open in the viewer (an xterm typed
# into, a VNC session).
#
# Key c must open a window titled for response time over both runs, log
# the metric and the number of values (the inputs with a response, as
# xcapanalyse --responses counts them), and show a curve in the colour of
# each run (the palette netplot --cdf --export uses); key 3 must switch to
# pixels per input, where only the VNC run has values (X11 counts no
# pixels): its colour stays, the other's curve goes.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need netplot xcapanalyse xdotool xprop import convert
caps=$top_srcdir/tests/captures
x11=$caps/xterm-input.pcap rfb=$caps/rfb-xvnc.pcap
blue='#0072B2' vermillion='#D55E00'	# the palette's first two curves

# responded FILE: inputs with a response, as xcapanalyse finds them.
responded() {
	xcapanalyse --responses-summary --format csv "$1" |
		awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "responded") c = i }
			 NR > 1 && ($1 == "All" || n == "") { n = $c } END { print n }'
}
# inputs FILE: all inputs (for pixels: every RFB input has a count).
inputs() {
	xcapanalyse --responses-summary --format csv "$1" |
		awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "inputs") c = i }
			 NR > 1 && ($1 == "All" || n == "") { n = $c } END { print n }'
}
want_response=$(( $(responded "$x11") + $(responded "$rfb") ))
want_pixels=$(inputs "$rfb")

xvfb_first=48 xvfb_last=53
start_xvfb
(cd "$workdir" && HOME=$workdir NO_AT_BRIDGE=1 NETPLOT_LOG=1 exec netplot "$x11" "$rfb" \
	2>"$workdir/log") &
pids="$pids $!"
log=$workdir/log
wait_for sh -c "[ \$(grep -c '^netplot: view ' '$log') -ge 2 ]" ||
	fail "netplot did not show both captures: $(cat "$log")"
sleep 0.5

# title REGEX: netplot's windows whose title (_NET_WM_NAME: in the tests'
# C locale GTK sets no WM_NAME for a title with dashes, and xprop shows
# them as octal escapes) matches.
title() {
	_found=1
	for _w in $(xdotool search --class netplot); do
		xprop -id "$_w" _NET_WM_NAME | grep -q "= \"$1\"\$" && { echo "$_w"; _found=0; }
	done
	return $_found
}

# count PNG COLOUR: pixels of that colour.
count() {
	convert "$1" -format %c histogram:info:- | grep -i "$2" | awk '{ s += $1 } END { print s + 0 }'
}
# shot NAME: the CDF window alone.
shot() { import -window "$cdfwin" "$workdir/$1.png" || fail "no screenshot of the CDF window"; }

xdotool key c
wait_for grep -q '^netplot: cdf metric=response-time' "$log" ||
	fail "key c opened no CDF window: $(tail -3 "$log")"
grep -q "^netplot: cdf metric=response-time runs=2 values=$want_response\$" "$log" ||
	fail "not the $want_response response times of both runs: $(grep '^netplot: cdf' "$log")"
wait_for title 'CDF: Response time per input .* 2 runs .* netplot' ||
	fail "no window titled for response time over two runs"
cdfwin=$(title 'CDF: Response time per input.*' | head -1)
sleep 0.5
shot response
b=$(count "$workdir/response.png" "$blue") v=$(count "$workdir/response.png" "$vermillion")
say "response time: $b pixels of the first run's colour, $v of the second's"
# A curve is hundreds of pixels; the legend's sample line alone is tens.
[ "$b" -gt 150 ] || fail "no curve of the first run ($b pixels of $blue)"
[ "$v" -gt 150 ] || fail "no curve of the second run ($v pixels of $vermillion)"

# Keys go where the pointer is (no window manager): into the CDF window.
xdotool mousemove --window "$cdfwin" 200 200
xdotool key 3
wait_for grep -q "^netplot: cdf metric=pixels runs=2 values=$want_pixels\$" "$log" ||
	fail "key 3 did not show the $want_pixels pixel counts: $(grep '^netplot: cdf' "$log" | tail -1)"
wait_for title 'CDF: Pixels per input .* 2 runs .* netplot' ||
	fail "the title does not follow the metric"
sleep 0.5
shot pixels
b2=$(count "$workdir/pixels.png" "$blue") v2=$(count "$workdir/pixels.png" "$vermillion")
say "pixels: $b2 pixels of the first run's colour, $v2 of the second's"
# Which run is first depends on which window had the key; the X11 run
# must have lost its curve, the VNC run kept it.
if [ "$b2" -gt 150 ]; then keep=$b2 gone=$v2; else keep=$v2 gone=$b2; fi
[ "$keep" -gt 150 ] || fail "no curve of the VNC run in pixels"
[ "$gone" -lt 60 ] || fail "a curve of the X11 run in pixels ($gone pixels)"
cmp -s "$workdir/response.png" "$workdir/pixels.png" && fail "the picture did not change"
say "the CDF window draws both runs and switches metric"
