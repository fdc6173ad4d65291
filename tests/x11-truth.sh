#!/bin/sh
# x11-truth.sh — the decoder against ground truth: xclient.py, the suite's
# own raw-socket X client, provokes every pitfall (both byte orders,
# BIG-REQUESTS, the 16-bit sequence wrap, a Present GenericEvent, XKB,
# SHAPE and DAMAGE events, SendEvent, errors, a refused setup) and logs what
# it sent and received; xcap captures it live and the decoded messages must
# be exactly what the client logged.
#
# Seen on the way: Xvfb 21.1 answers a byte-swapped (msb) Present
# SelectInput with BadIDChoice for an id it accepts from an lsb client, so
# the Present GenericEvent is only provoked in the lsb run; the msb client
# logs the error instead, and the decoder must report that.
#
# Then a short run in each byte order whose unused bytes are not zero
# (xclient.py --unused: the setup's byte 1 is 2, as a Solaris client sends
# it), which the decoder once took for a connection begun mid-stream.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need root /usr/bin/python3
start_xvfb
port=$((6000 + display))

for order in lsb msb; do
	start_capture "cap_$order" xcap -i lo -B 65536 -w "$workdir/$order.xcap" tcp port $port
	/usr/bin/python3 "$top_srcdir/tests/xclient.py" "$display" $order "$workdir/$order.log" ||
		fail "xclient.py ($order) failed"
	/usr/bin/python3 "$top_srcdir/tests/xclient.py" "$display" $order "$workdir/$order-fail.log" \
		--fail-setup || fail "xclient.py --fail-setup ($order) failed"
	sleep 0.3
	stop_capture "cap_$order"
	check_begin "the $order capture lost no packets"
	grep -q ' 0 dropped by kernel' "$workdir/cap_$order.err" ||
		fail "the capture lost packets: $(tail -1 "$workdir/cap_$order.err")"
	check_end
	xcapanalyse --dump "$workdir/$order.xcap" >"$workdir/$order.dump" || fail "cannot dump the trace"
	# one connection each: split the dump by connection id
	awk -v d="$workdir/$order" '/^(conn|msg) / {
		for (i = 2; i <= NF; i++) if ($i ~ /^(id|conn)=/) { split($i, kv, "="); c = kv[2] }
		print > (d "-conn" c ".dump") }' "$workdir/$order.dump"
	check_begin "the decoder reports what the $order client sent and received"
	/usr/bin/python3 "$top_srcdir/tests/x11-truth.py" "$workdir/$order.log" "$workdir/$order-conn1.dump" ||
		fail "decoder and client disagree ($order)"
	check_end
	check_begin "the decoder reports the refused setup as the $order client saw it"
	/usr/bin/python3 "$top_srcdir/tests/x11-truth.py" "$workdir/$order-fail.log" "$workdir/$order-conn2.dump" ||
		fail "decoder and client disagree on the refused setup ($order)"
	check_end
	check_begin "no notes on the clean $order capture"
	grep -q '^note ' "$workdir/$order.dump" && fail "notes on a clean capture: $(grep '^note ' "$workdir/$order.dump" | head -3)"
	check_end
done
start_capture cap_unused xcap -i lo -w "$workdir/unused.xcap" tcp port $port
for order in msb lsb; do
	/usr/bin/python3 "$top_srcdir/tests/xclient.py" "$display" $order "$workdir/unused-$order.log" \
		--unused || fail "xclient.py --unused ($order) failed"
done
sleep 0.3
stop_capture cap_unused
xcapanalyse --dump "$workdir/unused.xcap" >"$workdir/unused.dump" || fail "cannot dump the trace"
awk -v d="$workdir/unused" '/^(conn|msg) / {
	for (i = 2; i <= NF; i++) if ($i ~ /^(id|conn)=/) { split($i, kv, "="); c = kv[2] }
	print > (d "-conn" c ".dump") }' "$workdir/unused.dump"
check_begin "the decoder reports what the msb client with unused bytes not zero sent and received"
/usr/bin/python3 "$top_srcdir/tests/x11-truth.py" "$workdir/unused-msb.log" "$workdir/unused-conn1.dump" ||
	fail "decoder and client disagree (msb, unused bytes not zero)"
check_end
check_begin "the decoder reports what the lsb client with unused bytes not zero sent and received"
/usr/bin/python3 "$top_srcdir/tests/x11-truth.py" "$workdir/unused-lsb.log" "$workdir/unused-conn2.dump" ||
	fail "decoder and client disagree (lsb, unused bytes not zero)"
check_end
check_begin "no notes on the capture with unused bytes not zero"
grep -q '^note ' "$workdir/unused.dump" && fail "notes on a clean capture: $(grep '^note ' "$workdir/unused.dump" | head -3)"
check_end
check_begin "the client saw a Present GenericEvent"
grep -q 'CompleteNotify' "$workdir/lsb.log" || fail "the client saw no Present GenericEvent"
check_end
check_begin "the client saw an XKB event"
grep -q 'StateNotify' "$workdir/lsb.log" || fail "the client saw no XKB event"
check_end
say "the decoder against what the client sent and received, in both byte orders"
