#!/bin/sh
# capture-tun.sh — xcap on the link types a loopback run does not show:
# a tun device (raw IP, no link header) in a network namespace, beside the
# client as the design wants it, and `-i any` (Linux cooked SLL2).
#
# The client namespace reaches Xvfb in the server namespace over
# xcap-link's tun devices.  xcap -i on the client's tun device and tcpdump
# on the same device must give the same connections and packets (time
# stamps aside: each socket takes its own), with per-direction packet
# counts equal to tshark's; the same for `xcap -i any` against
# `tcpdump -i any`.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need root ip tcpdump tshark xdpyinfo xlogo Xvfb xcap-link tun
. "$top_srcdir/tests/netns.sh"
make_link xct$$ 0 0 0.2

# A display number no other server holds (lock files are not per namespace).
display=$(( ($$ % 40) + 20 ))
while [ -e "/tmp/.X$display-lock" ]; do display=$(( display < 63 ? display + 1 : 20 )); done
# -ac: the client is another host as far as the server can tell
ip netns exec "$link_ns_s" Xvfb ":$display" -ac -noreset -listen tcp -nolisten unix -screen 0 800x600x24 \
	>"$workdir/xvfb.log" 2>&1 &
pids="$pids $!"
DISPLAY=$link_addr_s:$display
export DISPLAY
wait_for in_ns "$link_ns_c" xdpyinfo || fail "Xvfb in $link_ns_s not reachable from $link_ns_c"
port=$((6000 + display))

compare() {	# compare NAME-A NAME-B: conn and pkt records, time stamps aside
	xcapanalyse --dump "$workdir/$1" >"$workdir/$1.txt" || fail "cannot read $1"
	xcapanalyse --dump "$workdir/$2" >"$workdir/$2.txt" || fail "cannot read $2"
	# xcap ($1) kept only the headers of packets inside large messages:
	# those are marked truncated, which tcpdump's are not, and each one
	# brought bytes to a gap of reason skipped; the decoded messages are
	# the same.
	check_cut "$workdir/$1.txt" "$workdir/$2.txt" "$workdir/${1%.xcap}.err"
	# compared in a stable order per connection and direction
	for f in "$1" "$2"; do
		grep -E '^(conn|pkt|msg) ' "$workdir/$f.txt" | sed 's/ t=[0-9.]*//' | uncut |
			by_conn_dir >"$workdir/$f.cp"
	done
	[ "$(grep -c '^pkt ' "$workdir/$1.cp")" -ge 30 ] || fail "$1: too few packets"
	diff -u "$workdir/$1.cp" "$workdir/$2.cp" >"$workdir/diff" ||
		fail "$1 and $2 differ: $(head -20 "$workdir/diff")"
	# per direction counts against tshark's on the tcpdump capture
	tshark -r "$workdir/$2" -T fields -e tcp.srcport -e tcp.dstport 2>/dev/null |
		sort | uniq -c | awk '{print $2, $3, $1}' | sort >"$workdir/tshark.count"
	awk '/^conn / { for (i = 2; i <= NF; i++) { split($i, kv, "=");
			if (kv[1] == "id") id = kv[2];
			if (kv[1] == "client") { n = split(kv[2], a, ":"); cp[id] = a[n] }
			if (kv[1] == "server") { n = split(kv[2], a, ":"); sp[id] = a[n] } } }
		/^pkt / { for (i = 2; i <= NF; i++) { split($i, kv, "=");
			if (kv[1] == "conn") c = kv[2]; if (kv[1] == "dir") d = kv[2] }
			n2[d == "c2s" ? cp[c] " " sp[c] : sp[c] " " cp[c]]++ }
		END { for (k in n2) print k, n2[k] }' "$workdir/$1.txt" | sort >"$workdir/xcap.count"
	diff -u "$workdir/tshark.count" "$workdir/xcap.count" >"$workdir/diff" ||
		fail "$1: packet counts differ from tshark: $(cat "$workdir/diff")"
}

# The tun device: raw IP
start_capture tun ip netns exec "$link_ns_c" xcap -i "$link_dev_c" -w "$workdir/tun.xcap" tcp port $port
start_capture tunref ip netns exec "$link_ns_c" tcpdump -i "$link_dev_c" -s 0 -B 65536 -U \
	-w "$workdir/tun.pcap" tcp port $port
in_ns "$link_ns_c" xdpyinfo -ext all >/dev/null 2>&1 || fail "xdpyinfo over the link failed"
ip netns exec "$link_ns_c" xlogo & c=$!; sleep 1; kill $c; wait $c 2>/dev/null
# tcpdump sees a packet only once its ring block is handed over, after at
# most its 1 s timeout; it does not wait for that when stopped.
sleep 1.2
stop_capture tun
stop_capture tunref
grep -q 'link-type RAW' "$workdir/tun.err" || fail "xcap did not open a raw IP link: $(cat "$workdir/tun.err")"
compare tun.xcap tun.pcap
grep -q '^trace .*linktype=RAW' "$workdir/tun.xcap.txt" || fail "the trace does not record the raw IP link type"
grep -q '^msg .*name=QueryExtension' "$workdir/tun.xcap.txt" || fail "no X11 decoded over the tun device"

# -i any: Linux cooked capture v2
start_capture any ip netns exec "$link_ns_c" xcap -i any -w "$workdir/any.xcap" tcp port $port
start_capture anyref ip netns exec "$link_ns_c" tcpdump -i any -s 0 -B 65536 -U \
	-w "$workdir/any.pcap" tcp port $port
in_ns "$link_ns_c" xdpyinfo >/dev/null 2>&1 || fail "xdpyinfo over the link failed"
sleep 1.2
stop_capture any
stop_capture anyref
grep -q 'link-type LINUX_SLL2' "$workdir/any.err" || fail "xcap -i any is not SLL2: $(cat "$workdir/any.err")"
compare any.xcap any.pcap
say "tun (raw IP) and -i any (SLL2) captures agree with tcpdump and tshark, with packets inside large messages cut to their headers"
