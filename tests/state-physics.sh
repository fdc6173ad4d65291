#!/bin/sh
# state-physics.sh — the state model agrees with physics.
#
# An X client whose behaviour is known (tests/xphysics.py) runs in a client
# namespace against Xvfb in a server namespace, joined by xcap-link with a
# configured rate W and one-way delay L; xcap captures beside the client.
#  - N blocking round trips (and the connection setup) show Block Reply
#    within 5 % of (N + 1) * 2L, and exactly N GetInputFocus entries in
#    --round-trips and in --requests;
#  - an upload of B bytes of PutImage shows Block Send within 10 % of the
#    time the rate needs for those bytes and their TCP/IP headers;
#  - the same two clients on loopback show both near zero;
#  - an upload to an Xvfb stopped for a second shows that second as Block
#    Recv: the receiver's window was closed;
#  - every table adds up (tests/delays-check.py), and --requests agrees
#    with a count made from the dump without the state model, here on
#    xdpyinfo over the link as well.
# The expectations come from the configuration, never from an earlier run.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need root ip xcap-link xcap xcapanalyse Xvfb /usr/bin/python3
measures_physics
need tun
. "$top_srcdir/tests/netns.sh"
# At real-time priority: a compiler beside this test once made the 40
# round trips over 20 ms wait 50 ms each.
want_realtime

py=/usr/bin/python3
client=$top_srcdir/tests/xphysics.py
check=$top_srcdir/tests/delays-check.py
tag=xp$$
delay_ms=20			# L, one way
rate=8000000			# W, bits per second, both ways
queue=30000			# bytes the link queues before dropping
trips=40			# N
upload=2097152			# B: 32 PutImage requests of 64 KiB
mss=1448			# MTU 1500 less IPv4, TCP and timestamp headers

# captured NS DEV NAME FILTER CMD...: xcap beside the client, in namespace
# NS ("" for this one) on device DEV, into $workdir/NAME.xcap, while CMD
# runs; then the delay table as CSV.
captured() {
	_ns=$1 _dev=$2 _name=$3 _filter=$4; shift 4
	# shellcheck disable=SC2086
	start_capture "cap_$_name" ${_ns:+ip netns exec "$_ns"} \
		xcap -i "$_dev" -w "$workdir/$_name.xcap" $_filter
	"$@" || fail "$_name: the client failed"
	sleep 0.3	# the last ACKs
	stop_capture "cap_$_name"
	xcapanalyse --format csv "$workdir/$_name.xcap" >"$workdir/$_name.csv" ||
		fail "$_name: xcapanalyse failed"
	$py "$check" "$workdir/$_name.csv" || fail "$_name: the delay table does not add up"
}

# value NAME DIRECTION COLUMN: from the All rows of a capture's table.
value() { $py "$check" "$workdir/$1.csv" all "$2" "$3"; }

# within MEASURED EXPECTED FRACTION
within() {
	$py -c 'import sys; m, e, f = map(float, sys.argv[1:]); sys.exit(abs(m - e) > f * e)' "$@"
}

# ---- across the link ----

make_link "$tag" "$rate" "$rate" "$delay_ms" "$queue"
# Xvfb in the server namespace (lock files are shared with the host).
start_xvfb_ns 640x480x24 "$workdir/xvfb-ns.log" $rt
pids="$pids $xpid"

captured "$link_ns_c" "$link_dev_c" trips "" \
	$rt ip netns exec "$link_ns_c" $py "$client" "$link_addr_s" "$n" trips "$trips"
# The connection setup is a round trip too: N + 1 of them.
expected=$(awk -v n=$trips -v l=$delay_ms 'BEGIN { printf "%.6f", (n + 1) * 2 * l / 1000 }')
measured=$(value trips request block_reply)
say "$trips round trips over ${delay_ms} ms: Block Reply $measured s, expected $expected s"
within "$measured" "$expected" 0.05 || fail "Block Reply $measured s is not within 5 % of $expected s"
count=$(xcapanalyse --round-trips --format csv "$workdir/trips.xcap" | tail -n +2 | grep -c ,GetInputFocus,)
[ "$count" = "$trips" ] || fail "--round-trips lists $count GetInputFocus, not $trips"
count=$(xcapanalyse --requests --format csv "$workdir/trips.xcap" | awk -F, '$2 == "GetInputFocus" { print $3 }')
[ "$count" = "$trips" ] || fail "--requests counts $count GetInputFocus, not $trips"
send=$(value trips total block_send)
$py -c "import sys; sys.exit(float('$send') > 0.05 * $expected)" ||
	fail "round trips alone show Block Send $send s"
trips_link=$expected

captured "$link_ns_c" "$link_dev_c" upload "" \
	$rt ip netns exec "$link_ns_c" $py "$client" "$link_addr_s" "$n" upload "$upload"
# Bytes on the wire: the requests (24 bytes of header each), a header of
# 52 bytes per full segment, at the rate; what is still queued or in flight
# when the last byte leaves the client is not blocked time, and is at most
# the queue plus a round trip's worth.
expected=$($py -c "
import sys
requests = $upload // 65536
payload = requests * (65536 + 24) + 4
wire = payload * ($mss + 52) / $mss
print('%.6f' % (wire * 8 / $rate))")
slack=$($py -c "print('%.6f' % (($queue + $rate / 8 * 2 * $delay_ms / 1000) * 8 / $rate))")
measured=$(value upload request block_send)
recv=$(value upload request block_recv)
say "upload of $upload bytes at $rate bit/s: Block Send $measured s (and Block Recv $recv s), expected $expected s less up to $slack s in flight at the end"
lower=$($py -c "print('%.6f' % ($expected - $slack))")
$py -c "import sys; m = float('$measured'); sys.exit(not (0.9 * $lower <= m <= 1.1 * $expected))" ||
	fail "Block Send $measured s is not within 10 % of $lower..$expected s"
upload_link=$expected

# The same with a congestion control that does not pace (reno): every
# segment now waits for an acknowledgement, and the paper's rule alone
# (--no-backlog) must find the blocked time.
if ip netns exec "$link_ns_c" sysctl -q -w net.ipv4.tcp_congestion_control=reno 2>/dev/null; then
	captured "$link_ns_c" "$link_dev_c" upload_reno "" \
		$rt ip netns exec "$link_ns_c" $py "$client" "$link_addr_s" "$n" upload "$upload"
	xcapanalyse --no-backlog --format csv "$workdir/upload_reno.xcap" >"$workdir/upload_reno.csv"
	measured=$(value upload_reno request block_send)
	say "upload with reno, ACK-elicited data only: Block Send $measured s"
	$py -c "import sys; m = float('$measured'); sys.exit(not (0.9 * $lower <= m <= 1.1 * $expected))" ||
		fail "reno: Block Send $measured s is not within 10 % of $lower..$expected s"
else
	say "cannot choose reno in $link_ns_c: the paper's rule alone is not tried"
fi

# A real client over the link, for the independent count of waits below.
captured "$link_ns_c" "$link_dev_c" xdpyinfo "" \
	$rt ip netns exec "$link_ns_c" xdpyinfo -display "$link_addr_s:$n" -queryExtensions >/dev/null
say "xdpyinfo over the link: Total Network Delay $(value xdpyinfo total total_network_delay) s"

link_down "$tag" || fail "xcap-link did not end cleanly"

# ---- on loopback ----

# Near zero: under 5 % of what the link gave.
start_xvfb
port="tcp port $((6000 + display))"
captured "" lo trips_lo "$port" $py "$client" 127.0.0.1 "$display" trips "$trips"
reply=$(value trips_lo request block_reply)
say "$trips round trips on loopback: Block Reply $reply s"
$py -c "import sys; sys.exit(float('$reply') > 0.05 * $trips_link)" ||
	fail "loopback round trips show Block Reply $reply s"
count=$(xcapanalyse --round-trips --format csv "$workdir/trips_lo.xcap" | tail -n +2 | grep -c ,GetInputFocus,)
[ "$count" = "$trips" ] || fail "loopback: --round-trips lists $count GetInputFocus, not $trips"

captured "" lo upload_lo "$port" $py "$client" 127.0.0.1 "$display" upload "$upload"
send=$(value upload_lo request block_send)
say "upload on loopback: Block Send $send s"
$py -c "import sys; sys.exit(float('$send') > 0.05 * $upload_link)" ||
	fail "loopback upload shows Block Send $send s"
# The receiver blocked: Xvfb stopped (SIGSTOP) for $stop_s s while the
# client uploads; its socket buffer fills, the window closes, and the
# client is blocked by the receiver, not the network, until SIGCONT.
stop_s=1
rm -f "$workdir/ready" "$workdir/go"
start_capture cap_recv xcap -i lo -w "$workdir/recv.xcap" $port
$py "$client" 127.0.0.1 "$display" upload 33554432 "$workdir/ready" "$workdir/go" &
cpid=$!
wait_for test -e "$workdir/ready" || fail "the receiver test client did not connect"
kill -STOP "$xpid"
touch "$workdir/go"
sleep "$stop_s"
kill -CONT "$xpid"
wait "$cpid" || fail "the receiver test client failed"
sleep 0.3
stop_capture cap_recv
xcapanalyse --format csv "$workdir/recv.xcap" >"$workdir/recv.csv" || fail "recv: xcapanalyse failed"
recv=$(value recv request block_recv)
say "Xvfb stopped for $stop_s s during an upload: Block Recv $recv s"
within "$recv" "$stop_s" 0.1 || fail "Block Recv $recv s is not within 10 % of $stop_s s"

# Every trace made here adds up, and its --requests agree with a count
# made without the state model.
STATE_TABLES_EXTRA="$(ls "$workdir"/*.xcap)" sh "$top_srcdir/tests/state-tables.sh" >"$workdir/tables.log" 2>&1 ||
	fail "$(cat "$workdir/tables.log")"
say "the state model agrees with the links"
