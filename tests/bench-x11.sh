#!/bin/sh
# bench-x11.sh — X11 decoding speed, xcap beside tshark.
#
# Two real captures, each one session of real clients on an Xvfb over
# TCP loopback, hundreds of MB each:
#   images   x11perf's image and text tests (PutImage, GetImage, PolyText)
#            with xdpyinfo -ext all and an xterm listing files: few, large
#            messages, where reading the file is most of xcap's time
#   session  the same, then x11perf's small-request tests (NoOperation,
#            PolySegment, PolyPoint, GetProperty, QueryPointer,
#            InternAtom) and the clients again: "x11perf and application
#            traffic", mostly small messages
# Each is read from the page cache by:
#   cat                      just reading the file (median of BENCH_RUNS, 5)
#   xcap -r                  full X11 decoding into a trace (median of 5;
#                            BENCH_OLD=XCAP adds another build's)
#   tshark -Y x11 -T fields  the same facts: opcode, reply and event
#                            sequence numbers, event and error codes
# Printed: messages/s and MB/s, how xcap compares with each, and whether
# it meets the goal: 200 times tshark's rate, 1.5 times cat's time.  The
# messages are those xcap's trace holds, for every reader.  No copies of a
# capture are pasted together: tshark and xcap both take a repeated TCP
# stream for retransmissions and skip it, which flatters both.
# Figures only; nothing passes or fails.
#
#   tests/bench-x11.sh [BUILD-DIR]      (as root; BENCH_KEEP=1 keeps the captures)
set -e
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top_srcdir/build}" && pwd)
[ "$(id -u)" = 0 ] || { echo "bench-x11: needs root (capture)" >&2; exit 1; }
for c in tcpdump tshark x11perf xterm xdpyinfo Xvfb; do
	command -v $c >/dev/null || { echo "bench-x11: needs $c" >&2; exit 1; }
done
w=$(mktemp -d /tmp/xcap-bench-x11.XXXXXX)
trap 'kill $xpid 2>/dev/null; if [ -n "${BENCH_KEEP:-}" ]; then echo "bench-x11: kept $w" >&2; else rm -rf "$w"; fi' EXIT INT TERM
d=58
while [ -e /tmp/.X$d-lock ]; do d=$((d - 1)); done
Xvfb :$d -listen tcp -nolisten unix -noreset -screen 0 1280x1024x24 >/dev/null 2>&1 & xpid=$!
sleep 1
export DISPLAY=127.0.0.1:$d

images="-reps 2000 -putimage10 -putimage100 -rect10 -ftext -f8text -polytext16 -seg10 -noop
	-pointer -prop -getimage10"
requests="-reps 40000 -noop -seg10 -dot -rect1 -prop -pointer -atom -ftext"
clients() {
	xdpyinfo -ext all >/dev/null 2>&1
	(xterm -e sh -c 'ls -lR /usr/share | head -20000' 2>/dev/null) || true
}
# capture NAME X11PERF-ARGS...: one session, each X11PERF-ARGS a run of
# x11perf followed by the clients
capture() {
	name=$1; shift
	tcpdump -i lo -s 0 -B 1048576 -w "$w/$name.pcap" tcp port $((6000 + d)) 2>"$w/$name.err" &
	tpid=$!
	for i in $(seq 100); do grep -q listening "$w/$name.err" && break; sleep 0.1; done
	for run in "$@"; do
		x11perf -repeat 1 $run >/dev/null 2>&1
		clients
	done
	sleep 1.2
	kill -INT $tpid; wait $tpid || true
	drops=$(grep -Eo '[0-9]+ packets dropped by kernel' "$w/$name.err" | grep -Eo '^[0-9]+')
	[ "${drops:-0}" = 0 ] || echo "bench-x11: tcpdump dropped $drops packets of $name" >&2
}
capture images "$images"
capture session "$images" "$requests"

# once CMD...: the wall time of one run, in seconds
once() {
	start=$(date +%s.%N)
	"$@" >/dev/null 2>&1 || true
	end=$(date +%s.%N)
	echo "$start $end" | awk '{ print $2 - $1 }'
}
# median CMD...: the median wall time of BENCH_RUNS (5) runs
median() {
	for i in $(seq "${BENCH_RUNS:-5}"); do once "$@"; done | sort -g |
		awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
row() {	# row LABEL MB SECONDS MESSAGES
	echo "$1 $2 $3 $4" | awk '{ printf "%-26s %8.0f %9.3f %10d %12.0f %9.0f\n",
		$1, $2, $3, $4, $4 / $3, $2 / $3 }' | sed 's/_/ /g'
}
for name in images session; do
	f=$w/$name.pcap
	cat "$f" >/dev/null
	mb=$(stat -c %s "$f" | awk '{print $1 / 1e6}')
	"$build/xcap/xcap" -q -r "$f" -w "$w/$name.xcap"
	msgs=$("$build/xcapanalyse/xcapanalyse" --dump "$w/$name.xcap" | grep -c '^msg ')
	pkts=$("$build/xcapanalyse/xcapanalyse" --dump "$w/$name.xcap" | grep -c '^pkt ')
	tc=$(median cat "$f")
	tx=$(median "$build/xcap/xcap" -q -r "$f" -w /dev/null)
	[ -z "${BENCH_OLD:-}" ] || to=$(median "$BENCH_OLD" -q -r "$f" -w /dev/null)
	tt=$(once tshark -r "$f" -Y x11 -T fields -e frame.number -e x11.opcode \
		-e x11.reply-sequencenumber -e x11.eventcode -e x11.event-sequencenumber \
		-e x11.errorcode)
	echo
	echo "$name: $pkts packets, $msgs X11 messages; median of ${BENCH_RUNS:-5} runs (tshark: once);" \
		"load $(cut -d' ' -f1-3 /proc/loadavg)"
	printf '%-26s %8s %9s %10s %12s %9s\n' reader MB seconds messages messages/s MB/s
	row cat "$mb" "$tc" "$msgs"
	row "xcap_-r_(full_decoding)" "$mb" "$tx" "$msgs"
	[ -z "${BENCH_OLD:-}" ] || row "(old)_xcap_-r" "$mb" "$to" "$msgs"
	row "tshark_-Y_x11_-T_fields" "$mb" "$tt" "$msgs"
	echo "$tx $tt $tc" | awk '{ printf "xcap: %.0f times tshark'"'"'s rate (reading the file alone: %.0f times), %.2f times the time of reading the file\n", $2 / $1, $2 / $3, $1 / $3 }'
	# The issue's goal beside the figures.  Where reading the file alone
	# is less than 200 times tshark's time, no decoder can meet the first.
	echo "$tx $tt $tc" | awk '{ printf "goal (>= 200 x tshark, <= 1.5 x cat): %.0f x tshark: %s; %.2f x cat: %s\n",
		$2 / $1, ($2 / $1 >= 200) ? "met" : (($2 / $3 < 200) ? "not met (cat itself is " sprintf("%.0f", $2 / $3) " x)" : "not met"),
		$1 / $3, ($1 / $3 <= 1.5) ? "met" : "not met" }'
done
