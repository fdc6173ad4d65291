#!/bin/sh
# bench-x11.sh — X11 decoding speed, xcap beside tshark.
#
# A capture of x11perf and application traffic (BENCH_COPIES copies of it
# appended, so it is hundreds of MB) is read from the page cache by:
#   cat                    just reading the file
#   xcap -r                full X11 decoding into a trace
#   tshark -Y x11 -T fields  the same facts (opcode, reply and event
#                          sequence numbers, event and error codes), on a
#                          slice of the file since it is slow
# Printed: messages/s and MB/s.  Figures only; nothing passes or fails.
#
#   tests/bench-x11.sh [BUILD-DIR]      (as root)
set -e
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top_srcdir/build}" && pwd)
[ "$(id -u)" = 0 ] || { echo "bench-x11: needs root (capture)" >&2; exit 1; }
for c in tcpdump tshark editcap mergecap x11perf Xvfb; do
	command -v $c >/dev/null || { echo "bench-x11: needs $c" >&2; exit 1; }
done
w=$(mktemp -d /tmp/xcap-bench-x11.XXXXXX)
trap 'kill $xpid 2>/dev/null; rm -rf "$w"' EXIT INT TERM
d=58
while [ -e /tmp/.X$d-lock ]; do d=$((d - 1)); done
Xvfb :$d -listen tcp -nolisten unix -screen 0 1280x1024x24 >/dev/null 2>&1 & xpid=$!
sleep 1
export DISPLAY=127.0.0.1:$d
tcpdump -i lo -s 0 -B 524288 -w "$w/one.pcap" tcp port $((6000 + d)) 2>"$w/td.err" & tpid=$!
sleep 1
x11perf -repeat 1 -reps 2000 -putimage10 -putimage100 -rect10 -ftext -f8text -polytext16 \
	-seg10 -noop -pointer -prop -getimage10 >/dev/null 2>&1
xdpyinfo -ext all >/dev/null 2>&1
(xterm -e sh -c 'ls -lR /usr/share | head -3000' 2>/dev/null) || true
sleep 1.2
kill -INT $tpid; wait $tpid || true
files=; for i in $(seq ${BENCH_COPIES:-20}); do files="$files $w/one.pcap"; done
mergecap -a -w "$w/big.pcap" $files
editcap -r "$w/big.pcap" "$w/slice.pcap" 1-200000 2>/dev/null

timed() {	# timed CMD...: wall seconds, output to $w/out
	start=$(date +%s.%N)
	"$@" >"$w/out" 2>/dev/null || true
	end=$(date +%s.%N)
	echo "$start $end" | awk '{printf "%.3f", $2 - $1}'
}
rate() {	# rate LABEL FILE SECONDS MESSAGES
	mb=$(stat -c %s "$2" | awk '{print $1 / 1e6}')
	echo "$1 $mb $3 $4" | awk '{ printf "%-34s %9.0f %8.3f %12d %14.0f %10.0f\n",
		$1, $2, $3, $4, $4 / $3, $2 / $3 }' | sed 's/_/ /g'
}
cat "$w/big.pcap" "$w/slice.pcap" >/dev/null
echo "X11 decoding, $(tcpdump -r "$w/one.pcap" 2>/dev/null | wc -l) packets x ${BENCH_COPIES:-20} copies:"
printf '%-34s %9s %8s %12s %14s %10s\n' reader MB seconds messages messages/s MB/s
t=$(timed cat "$w/big.pcap")
rate "cat" "$w/big.pcap" "$t" 0
t=$(timed "$build/xcap/xcap" -q -r "$w/big.pcap" -w "$w/big.xcap")
msgs=$("$build/xcapanalyse/xcapanalyse" --dump "$w/big.xcap" | grep -c '^msg ')
rate "xcap_-r_(full_decoding)" "$w/big.pcap" "$t" "$msgs"
t=$(timed "$build/xcap/xcap" -q -r "$w/slice.pcap" -w "$w/slice.xcap")
smsgs=$("$build/xcapanalyse/xcapanalyse" --dump "$w/slice.xcap" | grep -c '^msg ')
rate "xcap_-r_(slice)" "$w/slice.pcap" "$t" "$smsgs"
t=$(timed tshark -r "$w/slice.pcap" -Y x11 -T fields -e frame.number -e x11.opcode \
	-e x11.reply-sequencenumber -e x11.eventcode -e x11.event-sequencenumber -e x11.errorcode)
rate "tshark_-Y_x11_-T_fields_(slice)" "$w/slice.pcap" "$t" "$smsgs"
