#!/bin/sh
# state-server-side.sh — a capture taken beside the server counts the
# client's waits as the client's own clock does.
#
# An X client that times its own waits (tests/xphysics.py trips N THINK
# WAITED) runs in a client namespace against Xvfb in a server namespace,
# joined by xcap-link with one-way delay L; xcap captures beside the
# server.  There a request arrives, its answer leaves at once, and the
# client's next request comes a round trip plus its own work later: the
# wait is what the client's clock says, the work (THINK ms after each
# answer) is not.
#  - Block Reply within 10 % of the sum of the client's own waits (the
#    setup's and the N requests'), whether the side is inferred from the
#    handshake or said with --capture-side server; and the client's work
#    left in Idle;
#  - --round-trips lists N GetInputFocus whose waits sum within 10 % of
#    the client's own for them;
#  - --predict for the link the trace crossed gives back the trace's span
#    and the client's waits within 10 % (a client that also counted the
#    trace's round trip as its own work would take a round trip longer a
#    request).
# The expectations come from the client's clock and the configuration.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need root ip xcap-link xcap xcapanalyse Xvfb /usr/bin/python3
measures_physics
need tun
. "$top_srcdir/tests/netns.sh"
want_realtime

py=/usr/bin/python3
client=$top_srcdir/tests/xphysics.py
check=$top_srcdir/tests/delays-check.py
tag=xs$$
delay_ms=50			# L, one way: a round trip of 100 ms
rate=8000000
trips=12			# N
think_ms=30			# the client's own work after each answer

make_link "$tag" "$rate" "$rate" "$delay_ms"
start_xvfb_ns 640x480x24 "$workdir/xvfb-ns.log" $rt
pids="$pids $xpid"

# Beside the server: xcap in the server's namespace, on its device.
start_capture cap ip netns exec "$link_ns_s" xcap -i "$link_dev_s" -w "$workdir/server.xcap" \
	"tcp port $((6000 + n))"
$rt ip netns exec "$link_ns_c" $py "$client" "$link_addr_s" "$n" trips "$trips" "$think_ms" \
	"$workdir/waited" || fail "the client failed"
sleep 0.3	# the last ACKs
stop_capture cap
link_down "$tag" || fail "xcap-link did not end cleanly"

# sum FILE [SKIP]: the client's waits, less the first SKIP lines.
sum() { tail -n "+$((${2:-0} + 1))" "$1" | awk '{ s += $1 } END { printf "%.6f", s }'; }
within() {
	$py -c 'import sys; m, e, f = map(float, sys.argv[1:]); sys.exit(abs(m - e) > f * e)' "$@"
}
waited=$(sum "$workdir/waited")
trips_waited=$(sum "$workdir/waited" 1)
think=$(awk -v n=$trips -v t=$think_ms 'BEGIN { printf "%.6f", n * t / 1000 }')
say "the client's clock: $waited s waited (the setup and $trips requests), $think s of its own work"

# all_value CSV DIRECTION COLUMN
all_value() { $py "$check" "$1" all "$2" "$3"; }

for side in "" "--capture-side server"; do
	check_begin "beside the server ${side:-(inferred)}: Block Reply is the client's waits, its work Idle"
	# shellcheck disable=SC2086
	xcapanalyse $side --format csv "$workdir/server.xcap" >"$workdir/delays.csv" ||
		fail "xcapanalyse $side failed"
	$py "$check" "$workdir/delays.csv" || fail "the delay table does not add up"
	reply=$(all_value "$workdir/delays.csv" request block_reply)
	idle=$(all_value "$workdir/delays.csv" request idle)
	say "Block Reply $reply s, request Idle $idle s"
	within "$reply" "$waited" 0.10 ||
		fail "Block Reply $reply s is not within 10 % of the client's $waited s"
	$py -c "import sys; sys.exit(float('$idle') < 0.9 * $think)" ||
		fail "request Idle $idle s holds less than the client's own $think s"
	check_end
done
check "the delay table says the capture was beside the server" \
	sh -c "xcapanalyse --delays '$workdir/server.xcap' | grep -q 'captured beside the server'"

check_begin "--round-trips: the client's waits, request by request"
xcapanalyse --round-trips --format csv "$workdir/server.xcap" >"$workdir/trips.csv"
count=$(grep -c ,GetInputFocus, "$workdir/trips.csv")
[ "$count" = "$trips" ] || fail "--round-trips lists $count GetInputFocus, not $trips"
listed=$($py -c "
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r['request'] == 'GetInputFocus']
print('%.6f' % sum(float(r['wait']) for r in rows))" "$workdir/trips.csv")
say "$count GetInputFocus waited $listed s, the client's clock $trips_waited s"
within "$listed" "$trips_waited" 0.10 ||
	fail "--round-trips' waits $listed s are not within 10 % of the client's $trips_waited s"
check_end

check_begin "--predict for the trace's own link gives the trace back"
span=$($py -c "
import csv, sys
r = [r for r in csv.DictReader(open(sys.argv[1])) if r['conn'] == 'all' and r['direction'] == 'request'][0]
print('%.6f' % sum(float(r[c] or 0) for c in ('idle', 'block_send', 'block_recv', 'block_reply')))" \
	"$workdir/delays.csv")
xcapanalyse --predict --rates "$rate" --latencies "${delay_ms}ms" --format csv \
	"$workdir/server.xcap" >"$workdir/predict.csv" || fail "--predict failed"
pspan=$(awk -F, 'NR == 2 { print $5 }' "$workdir/predict.csv")
preply=$(awk -F, 'NR == 2 { print $8 }' "$workdir/predict.csv")
say "at ${delay_ms} ms: span $pspan s (the trace's $span s), Block Reply $preply s"
within "$pspan" "$span" 0.10 || fail "the predicted span $pspan s is not within 10 % of the trace's $span s"
within "$preply" "$waited" 0.10 ||
	fail "the predicted Block Reply $preply s is not within 10 % of the client's $waited s"
check_end
cp "$workdir/server.xcap" "${KEEP_CAPTURE:-/dev/null}" 2>/dev/null || :
