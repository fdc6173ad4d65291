#!/bin/sh
# bench-run.sh — what recording call sites costs the application: the
# start-up of xterm through xcap-run with the stack recorder
# (libxcapwait.so) and without it (--no-stacks), alternating in the same
# run, and directly on the display for reference.  Start-up is timed to
# the client's exit (xterm -e true), relay and trace included; GUI demos
# that do not end by themselves would time their timeout, so they are left
# out.  Figures only; nothing passes or fails.
#
#   tests/bench-run.sh [BUILD-DIR] [ROUNDS]
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top_srcdir/build}" && pwd)
rounds=${2:-7}
for c in Xvfb xterm xdpyinfo; do
	command -v $c >/dev/null || { echo "bench-run: needs $c" >&2; exit 1; }
done
w=$(mktemp -d /tmp/xcap-bench-run.XXXXXX)
n=$(( ($$ % 20) + 40 ))
while [ -e "/tmp/.X$n-lock" ]; do n=$((n + 1)); done
Xvfb ":$n" -nolisten tcp -noreset -screen 0 1024x768x24 >"$w/xvfb.log" 2>&1 &
xpid=$!
trap 'kill $xpid 2>/dev/null; rm -rf "$w"' EXIT
i=0; while ! xdpyinfo -display ":$n" >/dev/null 2>&1; do sleep 0.1; i=$((i+1)); [ $i -gt 100 ] && exit 1; done
export DISPLAY=":$n" XCAP_WAIT_LIB="$build/xcap/libxcapwait.so" XCAP_BINDIR="$build/xcapanalyse"
secs() { date +%s.%N; }
# one MODE: seconds for xterm -e true to start and end.
one() {
	t0=$(secs)
	case $1 in
	direct) xterm -e true ;;
	nostacks) "$build/xcap/xcap-run" -q --no-stacks -w "$w/t.xcap" -- xterm -e true >/dev/null ;;
	stacks) "$build/xcap/xcap-run" -q -w "$w/t.xcap" -- xterm -e true >/dev/null ;;
	esac
	t1=$(secs)
	echo "$t0 $t1" | awk '{ printf "%.4f\n", $2 - $1 }'
}
for r in $(seq "$rounds"); do
	for m in direct nostacks stacks; do echo "$m $(one $m)"; done
done >"$w/times"
waits=$(grep -c "^wait " "$w/t.xcap.sites")
echo "xterm -e true start-up, median of $rounds rounds (seconds; $waits blocking calls recorded with their stacks):"
for m in direct nostacks stacks; do
	awk -v m=$m '$1 == m { print $2 }' "$w/times" | sort -n |
		awk -v m=$m '{ v[NR] = $1 } END { printf "  %-9s %.4f  (min %.4f, max %.4f)\n", m, v[int((NR + 1) / 2)], v[1], v[NR] }'
done
