#!/bin/sh
# bench-wayland.sh — decoding speed per byte of a waypipe capture, beside
# an X11 capture of the same size and tshark's fastest reading of each.
#
# The inputs, made here in one run:
#   waypipe  weston-simple-shm for BENCH_SECONDS (10) seconds through
#            waypipe over TCP on loopback (weston headless beside
#            `waypipe client`, socat between them and `waypipe server`,
#            no compression): buffer diffs and the Wayland messages of
#            each frame
#   x11      x11perf's image and text tests and xdpyinfo on an Xvfb over
#            TCP, cut to the waypipe capture's size (its first packets
#            up to as many bytes)
# Each is read from the page cache by:
#   cat                          just reading the file (best of 5)
#   xcap -r (full decoding)      into a trace thrown away (best of 5)
#   tshark -T fields -e frame.len  tshark's fastest reading: the frame
#                                layer alone, no protocol dissected (best of 5)
# Printed: seconds, MB/s and ns a byte of capture, messages/s (xcap's
# messages, for every reader), and xcap's rate over tshark's.
# Figures only; nothing passes or fails.
#
#   tests/bench-wayland.sh [BUILD-DIR]   (as root: it captures on lo;
#                                         BENCH_KEEP=1 keeps the captures)
set -e
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top_srcdir/build}" && pwd)
secs=${BENCH_SECONDS:-10}
[ "$(id -u)" = 0 ] || { echo "bench-wayland: needs root (capture)" >&2; exit 1; }
for c in tcpdump tshark editcap weston waypipe socat weston-simple-shm Xvfb x11perf xdpyinfo python3; do
	command -v $c >/dev/null || { echo "bench-wayland: needs $c" >&2; exit 1; }
done
w=$(mktemp -d /tmp/xcap-bench-wayland.XXXXXX)
pids=
trap 'kill $pids 2>/dev/null; if [ -n "${BENCH_KEEP:-}" ]; then echo "bench-wayland: kept $w" >&2; else rm -rf "$w"; fi' EXIT INT TERM
chmod 700 "$w"
mkdir -m 700 "$w/comp" "$w/app"

# capture NAME PORT: tcpdump on lo until stop_capture
capture() {
	tcpdump -i lo -s 0 -B 1048576 -w "$w/$1.pcap" tcp port "$2" 2>"$w/$1.err" &
	tpid=$!
	for i in $(seq 100); do grep -q listening "$w/$1.err" && break; sleep 0.1; done
}
stop_capture() {
	sleep 0.5
	kill -INT $tpid; wait $tpid || true
	drops=$(grep -Eo '[0-9]+ packets dropped by kernel' "$w/$1.err" | grep -Eo '^[0-9]+')
	[ "${drops:-0}" = 0 ] || echo "bench-wayland: tcpdump dropped $drops packets of $1" >&2
}

# waypipe: the set-up waypipe documents for TCP (socat with nodelay)
port=$((7400 + $$ % 500))
XDG_RUNTIME_DIR=$w/comp weston --backend=headless-backend.so --socket=wl-bench --idle-time=0 \
	>"$w/weston.log" 2>&1 &
pids="$pids $!"
for i in $(seq 100); do [ -S "$w/comp/wl-bench" ] && break; sleep 0.1; done
XDG_RUNTIME_DIR=$w/comp WAYLAND_DISPLAY=wl-bench waypipe --socket "$w/client.sock" client \
	>"$w/waypipe-client.log" 2>&1 &
pids="$pids $!"
for i in $(seq 100); do [ -S "$w/client.sock" ] && break; sleep 0.1; done
socat TCP-LISTEN:$port,bind=127.0.0.1,reuseaddr,nodelay UNIX-CONNECT:"$w/client.sock" &
pids="$pids $!"
socat UNIX-LISTEN:"$w/app.sock" TCP:127.0.0.1:$port,nodelay &
pids="$pids $!"
for i in $(seq 100); do [ -S "$w/app.sock" ] && break; sleep 0.1; done
capture waypipe $port
XDG_RUNTIME_DIR=$w/app timeout "$secs" waypipe --socket "$w/app.sock" server -- \
	weston-simple-shm >"$w/app.log" 2>&1 || true
stop_capture waypipe

# X11 of the same size
d=57
while [ -e /tmp/.X$d-lock ]; do d=$((d - 1)); done
Xvfb :$d -listen tcp -nolisten unix -noreset -screen 0 1280x1024x24 >/dev/null 2>&1 &
pids="$pids $!"
sleep 1
capture x11-whole $((6000 + d))
DISPLAY=127.0.0.1:$d x11perf -repeat 1 -reps 1000 -putimage10 -putimage100 -rect10 -ftext \
	-polytext16 -seg10 -noop -pointer -prop -getimage10 >/dev/null 2>&1 || true
DISPLAY=127.0.0.1:$d xdpyinfo -ext all >/dev/null 2>&1 || true
stop_capture x11-whole
# the first packets of the X11 capture up to the waypipe capture's size
n=$(python3 - "$w/x11-whole.pcap" "$(stat -c %s "$w/waypipe.pcap")" <<'PY'
import struct, sys
f = open(sys.argv[1], 'rb'); want = int(sys.argv[2])
f.read(24); size, n = 24, 0
while size < want:
    h = f.read(16)
    if len(h) < 16: break
    incl = struct.unpack('<IIII', h)[2]; f.seek(incl, 1); size += 16 + incl; n += 1
print(n)
PY
)
editcap -r "$w/x11-whole.pcap" "$w/x11.pcap" "1-$n"

once() {
	start=$(date +%s.%N)
	"$@" >/dev/null 2>&1 || true
	end=$(date +%s.%N)
	echo "$start $end" | awk '{ print $2 - $1 }'
}
best() {
	for i in 1 2 3 4 5; do once "$@"; done | sort -g | head -1
}
row() {	# row LABEL BYTES SECONDS MESSAGES
	echo "$1 $2 $3 $4" | awk '{ printf "%-32s %8.1f %9.3f %8.0f %10.1f %12.0f\n",
		$1, $2 / 1e6, $3, $2 / 1e6 / $3, $3 * 1e9 / $2, $4 / $3 }' | sed 's/_/ /g'
}
echo "bench-wayland: each capture read from the page cache; xcap's messages for every reader"
printf '%-32s %8s %9s %8s %10s %12s\n' reader MB seconds MB/s ns/byte messages/s
for name in waypipe x11; do
	f=$w/$name.pcap
	cat "$f" >/dev/null
	bytes=$(stat -c %s "$f")
	"$build/xcap/xcap" -q -r "$f" -w "$w/$name.xcap"
	msgs=$("$build/xcapanalyse/xcapanalyse" --dump "$w/$name.xcap" | grep -c '^msg ')
	pkts=$("$build/xcapanalyse/xcapanalyse" --dump "$w/$name.xcap" | grep -c '^pkt ')
	tc=$(best cat "$f")
	tx=$(best "$build/xcap/xcap" -q -r "$f" -w /dev/null --no-index)
	tt=$(best tshark -r "$f" -T fields -e frame.len)
	echo "$name: $pkts packets, $msgs messages"
	row "__cat" "$bytes" "$tc" "$msgs"
	row "__xcap_-r_(full_decoding)" "$bytes" "$tx" "$msgs"
	row "__tshark_-T_fields_-e_frame.len" "$bytes" "$tt" "$msgs"
	echo "$tx $tt" | awk '{ printf "  xcap: %.1f times tshark'"'"'s rate\n", $2 / $1 }'
	echo "$name $tx $bytes" >>"$w/rates"
done
awk '{ ns[$1] = $2 * 1e9 / $3 } END { printf "waypipe: %.2f ns a byte, X11: %.2f ns a byte (%.2f times)\n",
	ns["waypipe"], ns["x11"], ns["waypipe"] / ns["x11"] }' "$w/rates"
