#!/bin/sh
# capture-live.sh — xcap on real X traffic over loopback.
#
# One run of real clients against Xvfb, captured three ways at once:
# `xcap -i lo` live, and tcpdump (which xcap -r then reads).  The live and
# offline traces must hold the same connections and packet records, and
# the packets per connection and direction must agree with tshark's count
# of the same capture.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need root tcpdump tshark xdpyinfo xlogo xterm
start_xvfb
port=$((6000 + display))
filter="tcp port $port"

start_capture live xcap -i lo -w "$workdir/live.xcap" $filter
start_capture ref tcpdump -i lo -s 0 -B 65536 -U --time-stamp-precision=nano -w "$workdir/ref.pcap" $filter

xdpyinfo -ext all >/dev/null
xlogo -geometry 200x200 & c=$!; sleep 1; kill $c; wait $c 2>/dev/null
xterm -geometry 80x24 -e sh -c 'ls -l /usr/bin | head -200; sleep 0.5' ||
	fail "xterm failed"
sleep 1.2	# tcpdump hands over its last ring block after its 1 s timeout
stop_capture live
stop_capture ref

xcap -q -r "$workdir/ref.pcap" -w "$workdir/offline.xcap" || fail "xcap -r failed"
xcapanalyse --dump "$workdir/live.xcap" >"$workdir/live.txt" || fail "cannot dump live trace"
xcapanalyse --dump "$workdir/offline.xcap" >"$workdir/offline.txt" || fail "cannot dump offline trace"
xcapanalyse --dump "$workdir/ref.pcap" >"$workdir/direct.txt" || fail "cannot dump the pcap"

# Connections and packet records: identical but for time stamps, which
# each packet socket takes on its own (they differ by a few microseconds),
# so those only have to be close.  Reading the pcap directly and through
# an xcap -r trace must agree to the nanosecond.
# The live capture kept only the headers of packets inside large messages
# (the server's setup reply, here): those packets are marked truncated,
# which tcpdump's are not, and their missing bytes are gaps of reason
# skipped.  Aside from that mark, records and messages agree.
check_begin "the live capture cut large messages' packets to their headers, the reference none"
check_cut "$workdir/live.txt" "$workdir/offline.txt" "$workdir/live.err"
check_end
grep -E '^(conn|pkt|msg) ' "$workdir/live.txt" | uncut >"$workdir/live.cp"
grep -E '^(conn|pkt|msg) ' "$workdir/offline.txt" >"$workdir/offline.cp"
grep -E '^(conn|pkt|msg) ' "$workdir/direct.txt" >"$workdir/direct.cp"
conns=$(grep -c '^conn ' "$workdir/live.cp")
pkts=$(grep -c '^pkt ' "$workdir/live.cp")
check_begin "the clients made at least 3 connections and 30 packets"
[ "$conns" -ge 3 ] || fail "expected at least 3 connections, saw $conns"
[ "$pkts" -ge 30 ] || fail "expected at least 30 packets, saw $pkts"
check_end
# Only the order within a connection and direction has to agree.
by_conn_dir "$workdir/live.cp" >"$workdir/live.sorted"
by_conn_dir "$workdir/offline.cp" >"$workdir/offline.sorted"
sed 's/ t=[0-9.]*//' "$workdir/live.sorted" >"$workdir/live.not"
sed 's/ t=[0-9.]*//' "$workdir/offline.sorted" >"$workdir/offline.not"
check_begin "live and offline traces hold the same records but for time stamps"
diff -u "$workdir/live.not" "$workdir/offline.not" >"$workdir/diff" ||
	fail "live and offline traces differ: $(head -20 "$workdir/diff")"
check_end && same=yes
# Time stamps are compared line for line: only when the lines are the same records.
if [ -n "${same:-}" ]; then
	check_begin "live and offline time stamps are within 10 ms"
	far=$(paste -d' ' "$workdir/live.sorted" "$workdir/offline.sorted" | awk '
		{ for (i = 1; i <= NF; i++) if ($i ~ /^t=/) { v = substr($i, 3); if (a == "") a = v; else b = v }
		  d = a - b; if (d < 0) d = -d; if (d > 0.01) n++; a = b = "" }
		END { print n + 0 }')
	[ "$far" = 0 ] || fail "$far packets have live and offline time stamps more than 10 ms apart"
	check_end
else
	check_skip "live and offline time stamps are within 10 ms" "the records differ"
fi
check_begin "xcap -r's trace and the pcap read directly agree to the nanosecond"
diff -u "$workdir/offline.cp" "$workdir/direct.cp" >"$workdir/diff" ||
	fail "xcap -r trace and direct pcap reading differ: $(head -20 "$workdir/diff")"
check_end

# Packets per (source port, destination port) against tshark.
tshark -r "$workdir/ref.pcap" -T fields -e tcp.srcport -e tcp.dstport 2>/dev/null |
	sort | uniq -c | awk '{print $2, $3, $1}' | sort >"$workdir/tshark.count"
awk '
	/^conn / { for (i = 2; i <= NF; i++) { split($i, kv, "=");
		if (kv[1] == "id") id = kv[2];
		if (kv[1] == "client") { n = split(kv[2], a, ":"); cport[id] = a[n] }
		if (kv[1] == "server") { n = split(kv[2], a, ":"); sport[id] = a[n] } } }
	/^pkt / { for (i = 2; i <= NF; i++) { split($i, kv, "=");
		if (kv[1] == "conn") c = kv[2]; if (kv[1] == "dir") d = kv[2] }
		if (d == "c2s") k = cport[c] " " sport[c]; else k = sport[c] " " cport[c]
		count[k]++ }
	END { for (k in count) print k, count[k] }' "$workdir/live.txt" | sort >"$workdir/xcap.count"
check_begin "packets per connection and direction agree with tshark"
diff -u "$workdir/tshark.count" "$workdir/xcap.count" >"$workdir/diff" ||
	fail "packet counts differ from tshark: $(cat "$workdir/diff")"
check_end

# The stats record counts what the kernel gave, and nothing was dropped.
check_begin "the stats record says the kernel dropped nothing"
grep -q '^stats .*kernel_drop=0 ' "$workdir/live.txt" || fail "no clean stats record: $(grep '^stats' "$workdir/live.txt")"
check_end
say "$conns connections, $pkts packets: live, offline and tshark compared"
