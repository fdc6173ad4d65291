#!/bin/sh
# bench-rfb.sh — RFB decoding speed, xcap beside tshark.
#
# Real captures of xtigervncviewer (under an Xvfb) viewing an Xvnc on
# which an xterm scrolls random text over most of the screen while
# x11perf draws images (the screen changes all the time, as under video),
# over TCP loopback, one session per encoding the viewer prefers (Xvnc
# still sends solid areas in Tight's fill when the viewer takes Tight):
#   tight    the viewer's own choice (Tight with JPEG, as people run it)
#   zrle     -PreferredEncoding ZRLE -AutoSelect=0
#   raw      -PreferredEncoding Raw -AutoSelect=0, served by x11vnc over an
#            Xvfb: the most bytes
# Each is read from the page cache by:
#   cat                      just reading the file (best of 5)
#   xcap -r                  full RFB framing into a trace (best of 5)
#   tshark -Y vnc -T fields  the same facts: client and server message
#                            types, rectangles and encodings of updates
# Printed: messages/s and MB/s, and how xcap compares with each.  The
# messages are those xcap's trace holds, for every reader (tshark loses
# the framing early in TigerVNC sessions, so its own count is no measure;
# it still reads and dissects every packet).  Figures only; nothing
# passes or fails.
#
#   tests/bench-rfb.sh [BUILD-DIR] [SECONDS]   (as root; BENCH_KEEP=1 keeps the captures)
set -e
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top_srcdir/build}" && pwd)
secs=${2:-20}
[ "$(id -u)" = 0 ] || { echo "bench-rfb: needs root (capture)" >&2; exit 1; }
for c in tcpdump tshark x11perf xterm Xvnc Xvfb x11vnc xtigervncviewer; do
	command -v $c >/dev/null || { echo "bench-rfb: needs $c" >&2; exit 1; }
done
w=$(mktemp -d /tmp/xcap-bench-rfb.XXXXXX)
pids=
trap 'for p in $pids; do kill $p 2>/dev/null; done
	if [ -n "${BENCH_KEEP:-}" ]; then echo "bench-rfb: kept $w" >&2; else rm -rf "$w"; fi' EXIT INT TERM
free_display() {	# free_display N: the first display from N down with no lock
	n=$1
	while [ -e /tmp/.X$n-lock ]; do n=$((n - 1)); done
	echo $n
}
vd=$(free_display 57)
port=$((5900 + vd))
Xvnc :$vd -noreset -SecurityTypes None -localhost -rfbport $port -geometry 1024x768 -desktop bench \
	-nolisten tcp >"$w/xvnc.log" 2>&1 & pids="$pids $!"
sleep 1.5
xd=$(free_display $((vd - 1)))
Xvfb :$xd -nolisten tcp -noreset -screen 0 1280x1024x24 >/dev/null 2>&1 & pids="$pids $!"
# x11vnc over a third display: libvncserver sends what the viewer prefers,
# Raw included (Xvnc answers a preference for Raw with ZRLE and Tight).
sd=$(free_display $((xd - 1)))
Xvfb :$sd -nolisten tcp -noreset -screen 0 1024x768x24 >/dev/null 2>&1 & pids="$pids $!"
sleep 1
port2=$((port + 1))
x11vnc -display :$sd -rfbport $port2 -localhost -nopw -forever -shared -quiet -noshm \
	>"$w/x11vnc.log" 2>&1 & pids="$pids $!"
sleep 2

# capture NAME PORT DISPLAY VIEWER-OPTIONS...: one viewer session of the
# server on PORT while DISPLAY changes
capture() {
	name=$1 cport=$2 draw=$3; shift 3
	tcpdump -i lo -s 0 -B 1048576 -w "$w/$name.pcap" tcp port $cport 2>"$w/$name.err" &
	tpid=$!
	for i in $(seq 100); do grep -q listening "$w/$name.err" && break; sleep 0.1; done
	DISPLAY=:$xd xtigervncviewer "$@" 127.0.0.1::$cport >"$w/$name-viewer.log" 2>&1 &
	vpid=$!
	sleep 1
	# Whole-screen changes: random hexadecimal scrolling through a large
	# xterm (Xvnc sends only pixels that changed: x11perf's repeated
	# drawing changes too few), beside x11perf's image tests.
	DISPLAY=:$draw timeout "$dur" xterm -geometry 170x56+0+0 -e od -An -tx1 /dev/urandom \
		>/dev/null 2>&1 &
	DISPLAY=:$draw timeout "$dur" x11perf -repeat 1000 -time 1 -putimage100 -scroll500 \
		>/dev/null 2>&1 || true
	wait $! 2>/dev/null || true
	kill $vpid; wait $vpid 2>/dev/null || true
	sleep 1.2
	kill -INT $tpid; wait $tpid || true
	drops=$(grep -Eo '[0-9]+ packets dropped by kernel' "$w/$name.err" | grep -Eo '^[0-9]+')
	[ "${drops:-0}" = 0 ] || echo "bench-rfb: tcpdump dropped $drops packets of $name" >&2
}
dur=$secs
capture tight $port $vd
capture zrle $port $vd -PreferredEncoding ZRLE -AutoSelect=0
# Raw moves about 5 MB/s here, which tshark takes a second a MB to read:
# a shorter session keeps its run to minutes.
dur=$(( secs > 8 ? 8 : secs ))
capture raw $port2 $sd -PreferredEncoding Raw -AutoSelect=0

# once CMD...: the wall time of one run, in seconds
once() {
	start=$(date +%s.%N)
	"$@" >/dev/null 2>&1 || true
	end=$(date +%s.%N)
	echo "$start $end" | awk '{ print $2 - $1 }'
}
# best CMD...: the shortest of 5 runs (the files are read in tens of ms)
best() {
	for i in 1 2 3 4 5; do once "$@"; done | sort -g | head -1
}
row() {	# row LABEL MB SECONDS MESSAGES
	echo "$1 $2 $3 $4" | awk '{ printf "%-26s %8.0f %9.3f %10d %12.0f %9.0f\n",
		$1, $2, $3, $4, $4 / $3, $2 / $3 }' | sed 's/_/ /g'
}
# What a run costs before any packet: starting xcap, on the suite's 71 kB
# RFB capture.
ts=$(best "$build/xcap/xcap" -q -r "$top_srcdir/tests/captures/rfb-xvnc.pcap" -w /dev/null)
tcs=$(best cat "$top_srcdir/tests/captures/rfb-xvnc.pcap")
echo "start-up: xcap -r of a 71 kB capture $ts s, cat of it $tcs s"
for name in tight zrle raw; do
	f=$w/$name.pcap
	cat "$f" >/dev/null
	mb=$(stat -c %s "$f" | awk '{print $1 / 1e6}')
	"$build/xcap/xcap" -q -r "$f" -w "$w/$name.xcap"
	"$build/xcapanalyse/xcapanalyse" --dump "$w/$name.xcap" >"$w/$name.dump"
	msgs=$(grep -c '^msg ' "$w/$name.dump")
	pkts=$(grep -c '^pkt ' "$w/$name.dump")
	encs=$(awk '$1 == "msg" && / name=FramebufferUpdate / { sub(/.*detail="/, ""); n = split($0, p, "; ")
		for (i = 2; i <= n; i++) { split(p[i], q, " "); e[q[1]] += q[2] } }
		END { for (k in e) printf "%s:%d ", k, e[k] }' "$w/$name.dump")
	notes=$(grep -c '^note ' "$w/$name.dump" || true)
	tc=$(best cat "$f")
	tx=$(best "$build/xcap/xcap" -q -r "$f" -w /dev/null)
	tt=$(once tshark -r "$f" -d tcp.port==$port,vnc -d tcp.port==$port2,vnc -Y vnc -T fields -e frame.number \
		-e vnc.client_message_type -e vnc.server_message_type -e vnc.fb_update_num_rects \
		-e vnc.fb_update_encoding_type)
	echo
	echo "$name: $pkts packets, $msgs RFB messages ($notes decoder notes), rectangles: $encs"
	printf '%-26s %8s %9s %10s %12s %9s\n' reader MB seconds messages messages/s MB/s
	row cat "$mb" "$tc" "$msgs"
	row "xcap_-r_(full_framing)" "$mb" "$tx" "$msgs"
	row "tshark_-Y_vnc_-T_fields" "$mb" "$tt" "$msgs"
	echo "$tx $tt $tc" | awk '{ printf "xcap: %.0f times tshark'"'"'s rate (reading the file alone: %.0f times), %.2f times the time of reading the file\n", $2 / $1, $2 / $3, $1 / $3 }'
done
