#!/bin/sh
# wayland-decode.sh — xcap --decode NAME:PORT: a waypipe capture begun
# after the connection's first bytes (tests/captures/decode/waypipe-trips-midstream.pcap,
# waypipe-trips.pcap without its first eleven packets: the handshake, the
# token and the first round trip) has no token to be known by; given its
# port, its messages are decoded and its round trips paired: 4 of its 5,
# the first one's messages having ended in packets before the ones that
# confirmed where waypipe's headers are (protocols/waypipe.c: a message is
# not reported at a later packet's time).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need xcap xcapanalyse
cap=$top_srcdir/tests/captures/decode/waypipe-trips-midstream.pcap

check_begin "without --decode the connection is not decoded, and xcap says so (status 1)"
st=0
xcap -q -r "$cap" -w "$workdir/plain.xcap" 2>"$workdir/plain.err" || st=$?
[ "$st" = 1 ] && grep -q 'none of them decoded' "$workdir/plain.err" ||
	fail "xcap exited $st: $(cat "$workdir/plain.err")"
xcapanalyse --dump "$workdir/plain.xcap" >"$workdir/plain.dump"
grep -q 'proto=-' "$workdir/plain.dump" && ! grep -q '^msg ' "$workdir/plain.dump" ||
	fail "a connection begun before the capture was decoded without being named"
check_end

check_begin "with --decode waypipe:7998 its messages are named and its last 4 round trips paired"
xcap -q -r "$cap" --decode waypipe:7998 -w "$workdir/named.xcap" || fail "xcap --decode failed"
xcapanalyse --dump "$workdir/named.xcap" >"$workdir/named.dump"
grep -q 'proto=waypipe' "$workdir/named.dump" || fail "not decoded as waypipe"
n=$(xcapanalyse --round-trips --format csv "$workdir/named.xcap" | grep -c ',wl_display,sync,reply,')
[ "$n" = 4 ] || fail "$n round trips paired, not 4"
check_end

check "--decode refuses a name no decoder has" sh -c \
	'! xcap -q -r "$1" --decode ssh:22 -w "$2/x.xcap" 2>/dev/null' sh "$cap" "$workdir"
check "--decode refuses a port out of range" sh -c \
	'! xcap -q -r "$1" --decode waypipe:70000 -w "$2/x.xcap" 2>/dev/null' sh "$cap" "$workdir"
