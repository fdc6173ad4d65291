#!/bin/sh
# demo.sh BUILD-DIR OUT-DIR — the README's first command ends here.
#
# Starts an Xvfb display listening on TCP, captures real X clients with
# xcap on loopback, and shows what the suite can tell about them.  The
# trace and the reports stay in OUT-DIR.
build=${1:?usage: demo.sh BUILD-DIR OUT-DIR}
out=${2:?usage: demo.sh BUILD-DIR OUT-DIR}
top_builddir=$(cd "$build" && pwd)
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
export top_builddir top_srcdir
mkdir -p "$out"
out=$(cd "$out" && pwd)
. "$top_srcdir/tests/lib.sh"
skip() { echo "demo: cannot run: $*" >&2; exit 1; }
fail() { echo "demo: $*" >&2; exit 1; }

need root
start_xvfb
port=$((6000 + display))
echo "demo: Xvfb on display :$display, listening on TCP port $port"

start_capture xcap xcap -i lo -w "$out/demo.xcap" tcp port $port
echo "demo: capturing with: xcap -i lo -w $out/demo.xcap tcp port $port"

echo "demo: running xdpyinfo -ext all, xlogo, xterm"
# Xlib's complaints about extensions Xvfb lacks are xdpyinfo's, not ours.
xdpyinfo -ext all >"$out/xdpyinfo.txt" 2>&1
xlogo -geometry 300x300 & c=$!; sleep 1; kill $c; wait $c 2>/dev/null
xterm -geometry 100x30 -e sh -c 'ls -lR /usr/share/X11 | head -300; sleep 1'
sleep 0.5
stop_capture xcap
sed 's/^/demo: /' "$workdir/xcap.err"

xcapanalyse --dump "$out/demo.xcap" >"$out/demo.dump"
xcapanalyse --connections "$out/demo.xcap" >"$out/connections.txt"
xcapanalyse --messages "$out/demo.xcap" >"$out/messages.txt"
echo
echo "Connections in the trace (> client to server, < server to client):"
cat "$out/connections.txt"
echo
echo "Where the time went (xcapanalyse; Idle, Block Send, Block Recv, Block Reply in milliseconds):"
xcapanalyse "$out/demo.xcap" | tee "$out/delays.txt"
xcapanalyse --format markdown "$out/demo.xcap" >"$out/delays.md"
echo
echo "Requests the clients waited on (xcapanalyse --requests):"
xcapanalyse --requests "$out/demo.xcap" | tee "$out/requests.txt" | head -12
echo
echo "The longest blocking round trips (xcapanalyse --round-trips --sort wait --top 8):"
xcapanalyse --round-trips "$out/demo.xcap" >"$out/round-trips.txt"
xcapanalyse --round-trips --sort wait --top 8 "$out/demo.xcap" | sed '/^$/,$d'
echo
echo "demo: files in $out:"
echo "  demo.xcap        the trace (see man/xcap.5)"
echo "  demo.dump        every record as text (xcapanalyse --dump)"
echo "  connections.txt  the connections (xcapanalyse --connections)"
echo "  delays.txt       the delay table, and delays.md the same in Markdown"
echo "  requests.txt     the requests waited on (xcapanalyse --requests)"
echo "  round-trips.txt  every blocking round trip (xcapanalyse --round-trips)"
echo "  messages.txt     every X message, xtrace-style (xcapanalyse --messages)"

# The picture: the busiest connection's requests, drawn by netplot.
if command -v netplot >/dev/null 2>&1; then
	netplot "$out/demo.xcap" --size 1400x800 --export "$out/demo.png" ||
		fail "netplot could not draw the trace"
	echo "  demo.png         the busiest connection's requests over time (netplot --export)"
	# The path it was found at: the build tree's is not on the user's PATH.
	echo "demo: open the trace in the viewer with: $(command -v netplot) $out/demo.xcap"
else
	echo "demo: netplot is not built (it needs GTK 3): no demo.png"
fi
