#!/bin/sh
# netplot-open.sh — the window opens where the command line asks
# (--conn, --direction, --range, as an export does), and on a laptop's
# 1366x768 screen it fits: the window inside the screen, the plot and the
# details pane side by side with room for each.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need netplot xdotool
cap="$top_srcdir/tests/captures/x11perf-two-conns.pcap"
xvfb_first=48 xvfb_last=53
start_xvfb -screen 0 1366x768x24

check_begin "--conn 2 --direction reply --range 0.5:1.5 open the window there"
start_netplot "$cap" --conn 2 --direction reply --range 0.5:1.5
v=$(grep '^netplot: view ' "$log" | tail -1)
case $v in
*"conn=2 dir=reply t0=500000000 t1=1500000000 "*) ;;
*) fail "the window did not open where asked: $v" ;;
esac
check_end

check_begin "the window fits a 1366x768 screen"
wid=$(xdotool search --sync --onlyvisible --name 'netplot$' | head -1)
set -- $(xdotool getwindowgeometry "$wid" | sed -n 's/.*Geometry: \([0-9]*\)x\([0-9]*\).*/\1 \2/p')
[ "${1:-0}" -le 1366 ] && [ "${2:-0}" -le 768 ] && [ "${1:-0}" -ge 1000 ] ||
	fail "window ${1}x${2} on a 1366x768 screen"
p=$(echo "$v" | sed 's/.*plot=//')
pw=$(echo "$p" | cut -d, -f3)
[ "${pw%.*}" -ge 700 ] || fail "plot only $pw pixels wide in a ${1}-pixel window"
[ -z "$NETPLOT_SHOTS" ] || import -window root "$NETPLOT_SHOTS/open-1366x768.png"
check_end

check_begin "a connection the trace lacks is said, the window stays"
start_netplot "$cap" --conn 9
wait_for grep -q "no such connection in the trace: .9." "$log" ||
	fail "no word of the missing connection: $(cat "$log")"
check_end

check_begin "an option only an export takes is a usage error"
netplot "$cap" --index >/dev/null 2>"$workdir/err"
[ $? = 2 ] || fail "netplot FILE --index did not exit 2"
grep -q "only for --export" "$workdir/err" || fail "no reason given: $(cat "$workdir/err")"
check_end
