#!/bin/sh
# bench-netplot.sh BUILD-DIR — netplot on a large trace, beside xplot.
#
# Makes a synthetic trace of NETPLOT_BENCH_PACKETS packets (default ten
# million; tests/netplot-synth.c), runs `netplot --benchmark` on it (load
# time, memory, redraw per zoom level onto an offscreen image), then
# exports the same graph as .xpl and measures xplot on it under Xvfb: the
# time until it has read the file and drawn its window, its peak memory,
# and the CPU time of a full redraw (a window resize).  Figures only:
# nothing here passes or fails on time.  NETPLOT_BENCH_XPLOT=no skips
# xplot (it needs several GB at ten million packets);
# NETPLOT_BENCH_TRACE=FILE measures FILE instead of a synthetic trace.
build=${1:?usage: bench-netplot.sh BUILD-DIR}
top_builddir=$(cd "$build" && pwd)
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
export top_builddir top_srcdir
. "$top_srcdir/tests/lib.sh"
skip() { echo "bench-netplot: skipped: $*"; exit 0; }
need netplot
packets=${NETPLOT_BENCH_PACKETS:-10000000}
synth="$top_builddir/tests/netplot-synth"
[ -x "$synth" ] || skip "tests/netplot-synth is not built (make tests/netplot-synth)"

if [ -n "$NETPLOT_BENCH_TRACE" ]; then
	# A trace made by the caller (bench-netplot-huge: from real captures).
	echo "bench-netplot: $NETPLOT_BENCH_TRACE"
	ln -s "$(cd "$(dirname "$NETPLOT_BENCH_TRACE")" && pwd)/$(basename "$NETPLOT_BENCH_TRACE")" \
		"$workdir/big.xcap" || fail "no trace: '$NETPLOT_BENCH_TRACE'"
else
	echo "bench-netplot: a synthetic trace of $packets packets"
	"$synth" "$packets" "$workdir/big.xcap" || fail "netplot-synth failed"
fi
echo "bench-netplot: trace $(($(wc -c <"$workdir/big.xcap") / 1000000)) MB"
echo
echo "netplot --benchmark (offscreen 1200x700):"
netplot --benchmark "$workdir/big.xcap" | sed 's/^/  /' || fail "netplot --benchmark failed"
# The family's other graphs (--graph), each in a process of its own: the
# load again, then the series derived once, then the same zoom levels.
for g in ${NETPLOT_BENCH_GRAPHS:-rtt tput owin ssize lanes}; do
	echo "netplot --benchmark --graph $g:"
	netplot --benchmark "$workdir/big.xcap" --graph $g | grep -v '^open\|^memory' | sed 's/^/  /' ||
		fail "netplot --benchmark --graph $g failed"
done

[ "${NETPLOT_BENCH_XPLOT:-yes}" = no ] && exit 0
command -v xplot.org >/dev/null 2>&1 || skip "xplot.org is not installed"
command -v Xvfb >/dev/null 2>&1 || skip "Xvfb is not installed"
need xwininfo xdotool
xvfb_first=36 xvfb_last=41
start_xvfb
cpu() { awk '{ print ($14 + $15) * 10 }' "/proc/$1/stat" 2>/dev/null; }	# ms at 100 Hz
# idle PID: wait until the process has used no CPU for a second; prints
# the wall time (ns) of its last busy moment
idle() {
	last=$(cpu "$1") busy=$(date +%s%N) still=0
	while [ $still -lt 5 ]; do
		sleep 0.2
		kill -0 "$1" 2>/dev/null || return 1
		now=$(cpu "$1")
		if [ "$now" = "$last" ]; then still=$((still + 1)); else still=0 busy=$(date +%s%N) last=$now; fi
	done
	echo "$busy"
}
# xplot_on GRAPH: the graph exported as .xpl, and xplot's open and redraws
xplot_on() {
	t0=$(date +%s%N)
	netplot "$workdir/big.xcap" --graph "$1" --export "$workdir/big-$1.xpl" || fail "xpl export failed"
	t1=$(date +%s%N)
	echo
	echo "xplot.org on the same graph ($1) exported as .xpl ($(($(wc -c <"$workdir/big-$1.xpl") / 1000000)) MB, $(( (t1 - t0) / 1000000 )) ms to write):"
	start=$(date +%s%N)
	xplot.org "$workdir/big-$1.xpl" >"$workdir/xplot.out" 2>&1 &
	xp=$!
	pids="$pids $xp"
	i=0
	until xwininfo -root -tree 2>/dev/null | grep -q '"xplot"'; do
		sleep 0.2
		i=$((i + 1))
		kill -0 $xp 2>/dev/null || fail "xplot exited: $(head -3 "$workdir/xplot.out")"
		[ $i -gt 3000 ] && fail "xplot showed no window in 10 minutes"
	done
	done_at=$(idle $xp) || fail "xplot exited: $(head -3 "$workdir/xplot.out")"
	echo "  open and first draw: $(( (done_at - start) / 1000000 )) ms"
	echo "  memory: $(awk '/VmHWM/ { printf "%d MB", $2 / 1000 }' /proc/$xp/status)"
	wid=$(xdotool search --name '^xplot$' | head -1)
	for size in 800x600 1000x700; do
		before=$(cpu $xp)
		xdotool windowsize "$wid" ${size%x*} ${size#*x}
		idle $xp >/dev/null || fail "xplot exited"
		echo "  redraw 1x (resize to $size): $(( $(cpu $xp) - before )) ms of CPU"
	done
	kill $xp 2>/dev/null
	wait $xp 2>/dev/null
}
for g in tsg ${NETPLOT_BENCH_XPLOT_GRAPHS:-rtt tput owin ssize lanes}; do
	xplot_on $g
done
