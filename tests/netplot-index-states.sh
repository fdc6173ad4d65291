#!/bin/sh
# netplot-index-states.sh — an index written while capturing has no state
# intervals (the state model is the analysis layer's); netplot, opening
# it, makes them in a thread while the window goes on answering, writes
# them into the index on disk, and draws the state band once they are
# there.  The next open reads them from disk instead of making them again.
#
# 1. A real capture through xcap -r: xcap's own index, without states.
# 2. Three million packets made from a real capture (tests/trace-stretch
#    writes the index as xcap does): long enough to make the states that
#    the window is seen to answer a key meanwhile, and the band is seen
#    to be absent before and present after.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need xcap netplot xdotool import convert
stretch="$top_builddir/tests/trace-stretch"
[ -x "$stretch" ] || skip "tests/trace-stretch is not built"
xvfb_first=60 xvfb_last=65
start_xvfb
export NETPLOT_INDEX_MIN=0

# Pixels of the state colours (render.c np_state_colour: Idle, Block
# Send, Block Recv, Block Reply) in the row through the middle of the
# state band at the bottom of the plot of screenshot $1 (the plot's place
# on the screen from the last view line of $log).
band_pixels() {
	plot=$(grep '^netplot: view ' "$log" | tail -1 | sed 's/.*plot=//')
	px=${plot%%,*}; r=${plot#*,}; py=${r%%,*}; r=${r#*,}; pw=${r%%,*}; ph=${r#*,}
	row=$(awk -v y="$py" -v h="$ph" 'BEGIN { printf "%d", y + h - 4 }')
	convert "$1" -crop "$(printf %.0f "$pw")x1+$(printf %.0f "$px")+$row" txt:- |
		awk -F'[(),]' 'NR > 1 {
			r = $3 + 0; g = $4 + 0; b = $5 + 0
			if ((r - 38)^2 + (g - 89)^2 + (b - 217)^2 < 300 ||
			    (r - 255)^2 + (g - 140)^2 + (b - 0)^2 < 300 ||
			    (r - 140)^2 + (g - 51)^2 + (b - 204)^2 < 300 ||
			    (r - 217)^2 + (g - 26)^2 + (b - 26)^2 < 300) n++
		} END { print n + 0 }'
}

# The netplot start_netplot started last, and only it.
# Its log goes too: start_netplot would find the old one's view line
# before the new netplot truncated it.
stop_netplot() {
	np=${pids##* }
	kill "$np"
	wait "$np" 2>/dev/null
	pids=${pids% *}
	rm -f "$log"
}

# 1. xcap's index of a real capture.
t="$workdir/cap.xcap"
xcap -q -r "$top_srcdir/tests/captures/xdpyinfo-xlogo-lossy.pcap" -w "$t" || fail "xcap -r failed"
[ -s "$t.idx" ] || fail "xcap wrote no index"
before=$(stat -c %i "$t.idx")
start_netplot "$t"
grep -q '^netplot: index .* states=computing' "$log" ||
	fail "netplot did not set out to make the states: $(grep '^netplot: index' "$log")"
grep '^netplot: index ' "$log" | grep -q ' built' && fail "netplot built an index though xcap wrote one"
wait_for grep -q '^netplot: states .* intervals=[1-9]' "$log" ||
	fail "no states made: $(tail -3 "$log")"
[ "$(stat -c %i "$t.idx")" != "$before" ] || fail "the index on disk was not replaced"
sleep 0.7
import -window root "$workdir/cap.png" || fail "no screenshot"
n=$(band_pixels "$workdir/cap.png")
[ "$n" -gt 20 ] || fail "no state band once the states were made ($n pixels of its colours)"
stop_netplot
start_netplot "$t"
grep -q '^netplot: index .* states=read' "$log" ||
	fail "the second open did not read the states from disk: $(grep '^netplot: index' "$log")"
sleep 0.7
import -window root "$workdir/cap2.png" || fail "no screenshot"
n2=$(band_pixels "$workdir/cap2.png")
[ "$n2" -gt 20 ] || fail "no state band on the second open ($n2 pixels)"
stop_netplot

# 2. Three million packets: the band absent while the states are made,
# the window answering meanwhile, the band there afterwards.
# A third as many under the sanitizers, which slow the state model down.
npk=3000000
sanitized && npk=1000000
TRACE_STRETCH_INDEX=1 TRACE_STRETCH_LANES=2 "$stretch" $npk "$workdir/big.xcap" \
	"$top_srcdir/tests/captures/xdpyinfo-xlogo.pcap" 2>/dev/null || fail "trace-stretch failed"
[ -s "$workdir/big.xcap.idx" ] || fail "trace-stretch wrote no index"
start_netplot "$workdir/big.xcap"
grep -q '^netplot: index .* states=computing' "$log" || fail "no states to make: $(grep '^netplot: index' "$log")"
answered=
if grep -q '^netplot: states ' "$log"; then
	say "the states of $((npk / 1000000)) M packets were made before the first look; not checking the band's absence"
else
	views=$(grep -c '^netplot: view ' "$log")
	# How far the job was when the key went (its last progress line).
	pct=$(grep '^netplot: loading computing the states' "$log" | tail -1 | sed -n 's/.*(\([0-9]*\)%)$/\1/p')
	# No window manager: the focus given to the window by hand (the
	# window of the first part took it with it when it closed).
	wid=$(xdotool search --name 'big.xcap' | head -1)
	[ -n "$wid" ] && xdotool windowfocus "$wid"
	xdotool key plus
	i=0
	while [ $i -lt 50 ]; do
		i=$((i + 1))
		[ "$(grep -c '^netplot: view ' "$log")" -gt "$views" ] && break
		sleep 0.2
	done
	[ "$(grep -c '^netplot: view ' "$log")" -gt "$views" ] ||
		fail "the window did not answer a key while the states were made"
	# The log in order: the zoomed view must come before the states
	# when the job had most of its way to go (a window held by the
	# job would answer only after it).
	vline=$(grep -n '^netplot: view ' "$log" | sed -n "$((views + 1))p" | cut -d: -f1)
	sline=$(grep -n '^netplot: states ' "$log" | head -1 | cut -d: -f1)
	if [ -z "$sline" ] || [ "$vline" -lt "$sline" ]; then
		answered=" (a key answered meanwhile, at ${pct:-0}%)"
	elif [ "${pct:-0}" -lt 50 ]; then
		fail "the key pressed at ${pct:-0}% of the states was answered only after them"
	else
		say "the key, pressed at $pct%, was answered after the states were made"
	fi
	if ! grep -q '^netplot: states ' "$log"; then
		import -window root "$workdir/before.png" || fail "no screenshot"
		grep -q '^netplot: states ' "$log" ||
			{ nb=$(band_pixels "$workdir/before.png")
			  [ "$nb" -le 2 ] || fail "a state band ($nb pixels) before the states were made"; }
	fi
fi
i=0
while ! grep -q '^netplot: states ' "$log" && [ $i -lt 1200 ]; do
	sleep 0.1
	i=$((i + 1))
done
grep -q '^netplot: states ' "$log" ||
	fail "the states of $((npk / 1000000)) M packets were not made: $(tail -3 "$log")"
grep -q '^netplot: states .* intervals=[1-9]' "$log" || fail "no state intervals: $(grep '^netplot: states' "$log")"
grep -q '^netplot: loading computing the states' "$log" || fail "no progress shown while the states were made"
sleep 0.7
import -window root "$workdir/after.png" || fail "no screenshot"
na=$(band_pixels "$workdir/after.png")
[ "$na" -gt 20 ] || fail "no state band once the states of $((npk / 1000000)) M packets were made ($na pixels)"
made=$(grep '^netplot: states ' "$log" | sed 's/.* made in \([0-9]*\) ms.*/\1/')
stop_netplot
start_netplot "$workdir/big.xcap"
grep -q '^netplot: index .* states=read' "$log" ||
	fail "the second open of $((npk / 1000000)) M packets did not read the states: $(grep '^netplot: index' "$log")"
say "states made in a thread in $made ms for $((npk / 1000000)) M packets$answered, band $na pixels; read from disk the second time"
