#!/bin/sh
# bench-analyse.sh — the full analysis (reassembly, X11 decoding, the state
# model) beside tcptrace -n on the same capture, which only reassembles
# and counts.
#
# x11perf and xdpyinfo run for BENCH_SECONDS (default 20, or until
# BENCH_PACKETS, default 3 million, are captured) against Xvfb in a
# namespace whose loopback has a 1500-byte MTU, so segments are as on a
# real network; tcpdump captures them.  Then, from the page cache:
#   tcptrace -n capture             connection statistics
#   xcapanalyse capture             the delay table, straight from pcap
#   xcap -r capture -w trace        the trace, once
#   xcapanalyse trace               the delay table from the trace
# and the same analysis of the first half of the capture, to show that
# memory does not grow with its length.  Printed: seconds, packets/s and
# peak memory (max RSS).  Figures only; nothing passes or fails.
#
#   tests/bench-analyse.sh [BUILD-DIR]      (as root)
set -e
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top_srcdir/build}" && pwd)
py=/usr/bin/python3
[ "$(id -u)" = 0 ] || { echo "bench-analyse: needs root (namespace, capture)" >&2; exit 1; }
for c in tcpdump tcptrace x11perf Xvfb editcap $py; do
	command -v $c >/dev/null || { echo "bench-analyse: needs $c" >&2; exit 1; }
done
w=$(mktemp -d /tmp/xcap-bench-analyse.XXXXXX)
ns=xba$$
cleanup() {
	ip netns pids $ns 2>/dev/null | xargs -r kill 2>/dev/null || true
	sleep 0.2
	ip netns del $ns 2>/dev/null || true
	rm -rf "$w"
}
trap cleanup EXIT INT TERM
ip netns add $ns
ip -n $ns link set lo mtu 1500 up
# ip netns exec directly, not through a shell function: a backgrounded
# function is a subshell that ignores the SIGINT meant for tcpdump.
ip netns exec $ns Xvfb :7 -listen tcp -nolisten unix -noreset -screen 0 1280x1024x24 >/dev/null 2>&1 &
sleep 1
# At most BENCH_PACKETS packets (default 3 million, about 3 GB).
ip netns exec $ns tcpdump -i lo -s 0 -B 524288 -c ${BENCH_PACKETS:-3000000} -w "$w/big.pcap" \
	tcp port 6007 2>"$w/td.err" & tpid=$!
sleep 1
end=$(( $(date +%s) + ${BENCH_SECONDS:-20} ))
while [ "$(date +%s)" -lt "$end" ] && kill -0 $tpid 2>/dev/null; do
	DISPLAY=127.0.0.1:7 ip netns exec $ns x11perf -repeat 1 -reps 200 -putimage10 -putimage100 \
		-rect10 -ftext -seg10 -noop -prop -getimage10 >/dev/null 2>&1 || true
	DISPLAY=127.0.0.1:7 ip netns exec $ns xdpyinfo -ext all >/dev/null 2>&1 || true
done
sleep 1.2
kill -INT $tpid 2>/dev/null; wait $tpid || true
packets=$(tcpdump -r "$w/big.pcap" 2>/dev/null | wc -l)
half=$((packets / 2))
editcap -r "$w/big.pcap" "$w/half.pcap" 1-$half 2>/dev/null

# run LABEL PACKETS CMD...: wall seconds and max RSS of CMD, from the page cache.
run() {
	label=$1 n=$2; shift 2
	cat "$@" >/dev/null 2>&1 || true
	$py - "$label" "$n" "$@" <<'PYEOF'
import resource, subprocess, sys, time
label, n, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
t = time.monotonic()
subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
t = time.monotonic() - t
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print('%-40s %10d %8.3f %12.0f %8.1f' % (label, n, t, n / t, rss))
PYEOF
}
"$build/xcap/xcap" -q -r "$w/big.pcap" -w "$w/big.xcap"
"$build/xcap/xcap" -q -r "$w/half.pcap" -w "$w/half.xcap"
echo "Analysis of $packets packets ($(stat -c %s "$w/big.pcap" | awk '{printf "%.0f", $1 / 1e6}') MB of pcap):"
printf '%-40s %10s %8s %12s %8s\n' command packets seconds packets/s "RSS MB"
run "tcptrace -n" "$packets" tcptrace -n "$w/big.pcap"
run "tcptrace -n (half)" "$half" tcptrace -n "$w/half.pcap"
run "xcapanalyse capture.pcap" "$packets" "$build/xcapanalyse/xcapanalyse" "$w/big.pcap"
run "xcapanalyse capture.pcap (half)" "$half" "$build/xcapanalyse/xcapanalyse" "$w/half.pcap"
run "xcap -r capture.pcap -w trace" "$packets" "$build/xcap/xcap" -q -r "$w/big.pcap" -w "$w/tmp.xcap"
run "xcapanalyse trace.xcap" "$packets" "$build/xcapanalyse/xcapanalyse" "$w/big.xcap"
run "xcapanalyse trace.xcap (half)" "$half" "$build/xcapanalyse/xcapanalyse" "$w/half.xcap"
run "xcapanalyse --round-trips trace.xcap" "$packets" "$build/xcapanalyse/xcapanalyse" --round-trips "$w/big.xcap"
