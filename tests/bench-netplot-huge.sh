#!/bin/sh
# bench-netplot-huge.sh BUILD-DIR — netplot on a trace of a hundred million
# packets (HUGE_PACKETS) made from the real captures of tests/captures by
# tests/trace-stretch (their dialogues repeated over hours, shifted in
# time, with their own sequence numbers, ports and pauses), drawn from its
# index (TRACE.idx): the index's building, then a second opening from the
# cached index — open time, peak memory, redraws at six zoom levels.
# Beside it, the whole trace loaded (netplot --benchmark without --index)
# and xplot on a trace of XPLOT_PACKETS (default ten million, the most
# xplot opens here in a few GB) made the same way (tests/bench-netplot.sh).
# The traces go to a scratch directory (HUGE_DIR, default under /tmp; the
# hundred million take about 8 GB) and are removed after.  Figures only;
# nothing passes or fails.
build=${1:?usage: bench-netplot-huge.sh BUILD-DIR}
top_builddir=$(cd "$build" && pwd)
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
packets=${HUGE_PACKETS:-100000000}
xplot_packets=${XPLOT_PACKETS:-10000000}
stretch=$top_builddir/tests/trace-stretch
[ -x "$stretch" ] || { echo "bench-netplot-huge: tests/trace-stretch is not built"; exit 0; }
dir=$(mktemp -d "${HUGE_DIR:-/tmp}/xcap-bench-huge.XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM
t0=$(date +%s%N)
"$stretch" "$packets" "$dir/huge.xcap" "$top_srcdir"/tests/captures/*.pcap || exit 1
t1=$(date +%s%N)
echo "bench-netplot-huge: $packets packets, $(($(wc -c <"$dir/huge.xcap") / 1000000)) MB, made in $(( (t1 - t0) / 1000000 )) ms"
echo
echo "netplot --benchmark --index, first time (builds huge.xcap.idx):"
"$top_builddir/netplot/netplot" --benchmark "$dir/huge.xcap" --index | sed 's/^/  /'
echo "  index: $(($(wc -c <"$dir/huge.xcap.idx") / 1000000)) MB"
echo "netplot --benchmark --index, again (the cached index):"
"$top_builddir/netplot/netplot" --benchmark "$dir/huge.xcap" --index | sed 's/^/  /'
# The family's other graphs from the index: drawn from the packets, so
# only where the view's span can be read (the window says so elsewhere,
# and offers the time-sequence graph); each in a process of its own.
for g in ${NETPLOT_BENCH_GRAPHS:-rtt tput owin ssize lanes}; do
	echo "netplot --benchmark --index --graph $g:"
	"$top_builddir/netplot/netplot" --benchmark "$dir/huge.xcap" --index --graph $g |
		grep -v '^open\|^text\|^index' | sed 's/^/  /'
done
rm -f "$dir/huge.xcap" "$dir/huge.xcap.idx"
echo
"$stretch" "$xplot_packets" "$dir/xplot.xcap" "$top_srcdir"/tests/captures/*.pcap || exit 1
NETPLOT_BENCH_TRACE="$dir/xplot.xcap" sh "$top_srcdir/tests/bench-netplot.sh" "$top_builddir"
