#!/bin/sh
# netplot-follow.sh — netplot --follow on a trace xcap is still writing.
#
# An xterm talks to one Xvfb while `xcap -i lo` captures it into a trace;
# netplot --follow shows that trace on a second Xvfb (so its own drawing is
# not in the capture).  While the clients run, the time range netplot
# shows (NETPLOT_LOG's view lines) must grow and the screen change
# (screenshots); once the capture has stopped, netplot must hold every
# packet the finished trace holds (xcapanalyse --connections counts them).
# Then a second piece, live-1.xcap as xcap -C names them after live-0.xcap,
# appears beside the trace: netplot must take it into the same session.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need netplot xcap xcapanalyse import xdpyinfo xterm root
py=/usr/bin/python3
[ -x $py ] || py=python3

xvfb_first=48 xvfb_last=53
start_xvfb
clients=$DISPLAY
port=$((6000 + display))
start_capture live xcap -i lo -w "$workdir/live-0.xcap" "tcp port $port"
# A session that goes on until the capture stops: an xterm printing the
# time three times a second (xcap writes what it has once a second while
# packets come).
DISPLAY=$clients xterm -geometry 80x24+0+0 -e sh -c \
	"while [ ! -e '$workdir/stop' ]; do date +%T.%N; sleep 0.3; done" &
pids="$pids $!"
i=0
until [ -s "$workdir/live-0.xcap" ]; do
	i=$((i + 1))
	[ $i -gt 300 ] && fail "xcap wrote nothing in 30 s"
	sleep 0.1
done
start_xvfb
(cd "$workdir" && HOME=$workdir NO_AT_BRIDGE=1 NETPLOT_LOG=1 exec netplot --follow "$workdir/live-0.xcap" \
	2>"$workdir/log") &
pids="$pids $!"
log="$workdir/log"
# The first view may come before xcap has flushed anything.
wait_for grep -q '^netplot: follow .*packets=[1-9]' "$log" || fail "netplot showed nothing: $(cat "$log")"
sleep 0.5
view() { grep '^netplot: view ' "$log" | tail -1; }
field() { echo "$1" | sed -n "s/.* $2=\([^ ]*\).*/\1/p"; }
v0=$(view)
import -window root "$workdir/s0.png" || fail "no screenshot"

# The xterm goes on: the trace grows and the view with it.
sleep 3
wait_for sh -c "[ \"\$(grep '^netplot: view ' '$log' | tail -1)\" != '$v0' ]" ||
	fail "the view did not change while xcap wrote: $v0"
sleep 1.5
v1=$(view)
import -window root "$workdir/s1.png" || fail "no screenshot"
$py - "$(field "$v0" t1)" "$(field "$v1" t1)" <<'EOF' || fail "the time range did not grow: $v0 -> $v1"
import sys
a, b = float(sys.argv[1]), float(sys.argv[2])
sys.exit(0 if b > a + 1e9 else 1)	# three seconds later
EOF
cmp -s "$workdir/s0.png" "$workdir/s1.png" && fail "the screen did not change"
say "time range grew from $(field "$v0" t1) to $(field "$v1" t1) ns"

# The capture ends: netplot reads the last flush and holds every packet.
touch "$workdir/stop"
sleep 1
stop_capture live
total=$(xcapanalyse --connections --format csv "$workdir/live-0.xcap" |
	awk -F, 'NR > 1 { n += $7 + $8 } END { print n + 0 }')
[ "$total" -gt 0 ] || fail "the finished trace holds no packets"
wait_for grep -q "^netplot: follow files=1 packets=$total " "$log" ||
	fail "netplot does not hold the trace's $total packets: $(grep '^netplot: follow' "$log" | tail -2)"

# A second piece appears: the same session, both pieces' packets.
xcap -q -r "$top_srcdir/tests/captures/xdpyinfo-xlogo.pcap" -w "$workdir/piece.xcap"
more=$(xcapanalyse --connections --format csv "$workdir/piece.xcap" |
	awk -F, 'NR > 1 { n += $7 + $8 } END { print n + 0 }')
mv "$workdir/piece.xcap" "$workdir/live-1.xcap"
wait_for grep -q "^netplot: follow files=2 packets=$((total + more)) " "$log" ||
	fail "the piece live-1.xcap was not taken in: $(grep '^netplot: follow' "$log" | tail -2)"
say "$total packets, then $((total + more)) with the second piece"
