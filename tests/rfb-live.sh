#!/bin/sh
# rfb-live.sh — RFB on real servers and a real viewer, captured live by xcap:
#   1. tests/rfbclient.py against Xvnc (TigerVNC), asking for each encoding
#      in turn and scripting input: every byte framed, and xcap's messages
#      (direction, name, length, in order) are exactly the ones the client
#      logged sending and receiving;
#   2. the same against x11vnc serving an Xvfb;
#   3. xtigervncviewer under a second Xvfb, driven by xdotool, on a port
#      outside 5900-5999 (so recognised by its banner): every byte framed,
#      the desktop name labels the connection.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need root Xvnc x11vnc xtigervncviewer Xvfb xdotool xterm /usr/bin/python3
client="$top_srcdir/tests/rfbclient.py"

# framed DUMP: fails unless every byte of each direction's stream lies in a
# message and no note says something went unframed.
framed() {
	for d in c2s s2c; do
		# the stream's extent (retransmissions counted once), from the
		# lowest sequence number to the highest end: on a loaded machine
		# the packet socket can see a direction's first segments out of
		# order, so the first one listed is not always the stream's start
		bytes=$(awk -v d="dir=$d" '$1 == "pkt" && index($0, d) {
			for (i = 2; i <= NF; i++) { if ($i ~ /^seq=/) s = substr($i, 5); if ($i ~ /^len=/) l = substr($i, 5) }
			if (l == 0) next
			if (base == "") base = s
			o = (s - base + 4294967296) % 4294967296; if (o >= 2147483648) o -= 4294967296
			if (o < start) start = o
			if (o + l > end) end = o + l }
			END { printf "%.0f\n", end - start }' "$1")
		msgs=$(awk -v d="dir=$d" '$1 == "msg" && index($0, d) {
			for (i = 2; i <= NF; i++) if ($i ~ /^length=/) n += substr($i, 8) }
			END { printf "%.0f\n", n }' "$1")
		[ "$bytes" -gt 0 ] || fail "$1: no $d bytes captured"
		[ "$bytes" = "$msgs" ] || fail "$1: $d has $bytes bytes but messages cover $msgs"
	done
	! grep -E '^note .*(not framed|not decoded|hole|stream ended)' "$1" ||
		fail "$1: the decoder could not frame everything"
}

# same_messages DUMP LOG: xcap's messages equal the client's log, per direction.
same_messages() {
	awk '$1 == "msg" { d = n = l = ""; for (i = 2; i <= NF; i++) {
		if ($i ~ /^dir=/) d = substr($i, 5); if ($i ~ /^name=/) n = substr($i, 6)
		if ($i ~ /^length=/) l = substr($i, 8) } print d, n, l }' "$1" | sort -s -k1,1 >"$workdir/xcap.msgs"
	awk '{ print $1, $2, $3 }' "$2" | sort -s -k1,1 >"$workdir/client.msgs"
	diff "$workdir/client.msgs" "$workdir/xcap.msgs" >"$workdir/msgs.diff" ||
		fail "$1: messages differ from the client's log: $(head -20 "$workdir/msgs.diff")"
	say "$(wc -l <"$workdir/client.msgs") messages agree with the client's log"
}

# run_client NAME PORT: capture the suite's client against a server.
run_client() {
	start_capture "$1" xcap -i lo -k -w "$workdir/$1.xcap" "tcp port $2"
	timeout 120 /usr/bin/python3 "$client" 127.0.0.1 "$2" "$workdir/$1.log" ||
		fail "rfbclient against $1 failed"
	stop_capture "$1"
	xcapanalyse --dump "$workdir/$1.xcap" >"$workdir/$1.dump" || fail "cannot dump $1"
	check_begin "$1: the connection is decoded as RFB"
	grep -q '^conn .*proto=rfb' "$workdir/$1.dump" || fail "$1: connection not decoded as rfb"
	check_end
	check_begin "$1: every byte lies in a message"
	framed "$workdir/$1.dump"
	check_end
	check_begin "$1: xcap's messages are the ones the client logged"
	same_messages "$workdir/$1.dump" "$workdir/$1.log"
	check_end
	say "$1: encodings seen: $(awk '$1 == "s2c" && $2 == "FramebufferUpdate" {
		for (i = 4; i <= NF; i++) { split($i, a, ":"); e[a[1]] = 1 } }
		END { for (k in e) printf "%s ", k }' "$workdir/$1.log")"
}

# Something to look at on a display, so updates carry real pixels.
decorate() {
	DISPLAY=$1 xterm -geometry 60x20+0+0 -e sh -c 'ls -l /usr/bin; sleep 600' >/dev/null 2>&1 &
	pids="$pids $!"
	sleep 1
}

# 1. Xvnc
start_xvnc rfb-live-xvnc server-xvnc
base=$xvnc_port
d1=$xvnc_display
decorate ":$d1"
run_client xvnc "$base"
check_begin "xvnc: the desktop name labels the connection"
grep -q '^name .*source=desktop-name text=rfb-live-xvnc' "$workdir/xvnc.dump" ||
	fail "xvnc: the desktop name does not label the connection"
check_end

# 2. x11vnc over Xvfb
start_xvfb
decorate "$DISPLAY"
port2=$(( base + 1 ))
x11vnc -display "$DISPLAY" -rfbport "$port2" -localhost -nopw -forever -shared -quiet -noshm \
	-noxdamage >"$workdir/server-x11vnc.log" 2>&1 &
pids="$pids $!"
wait_for python3 -c "import socket; socket.create_connection(('127.0.0.1', $port2))" ||
	fail "x11vnc did not start: $(cat "$workdir/server-x11vnc.log")"
run_client x11vnc "$port2"

# 3. xtigervncviewer on a port no table claims: found by its banner.
xvnc_port_offset=15000 start_xvnc rfb-live-viewer server-xvnc3	# ports 20920-20958
port3=$xvnc_port
d3=$xvnc_display
decorate ":$d3"
viewer_display=$DISPLAY	# the Xvfb of step 2
start_capture viewer xcap -i lo -k -w "$workdir/viewer.xcap" "tcp port $port3"
DISPLAY=$viewer_display xtigervncviewer "127.0.0.1::$port3" >"$workdir/viewer.log" 2>&1 &
vpid=$!
pids="$pids $vpid"
# No window manager: the viewer (FLTK) takes keys only once it is given
# the focus (under PointerRoot focus with the pointer in its window it gets
# none), so click into it and give it the focus explicitly.
win=$(DISPLAY=$viewer_display timeout 15 xdotool search --sync --onlyvisible --name 'rfb-live-viewer' | head -n 1)
[ -n "$win" ] || fail "the viewer's window did not appear: $(cat "$workdir/viewer.log")"
sleep 1
DISPLAY=$viewer_display xdotool mousemove --window "$win" 100 100 click 1
DISPLAY=$viewer_display xdotool windowfocus --sync "$win" type --delay 50 "echo hello rfb"
DISPLAY=$viewer_display xdotool key Return mousemove --window "$win" 300 200 mousemove --window "$win" 320 220
sleep 2
kill "$vpid"
wait "$vpid" 2>/dev/null
sleep 0.5
stop_capture viewer
xcapanalyse --dump "$workdir/viewer.xcap" >"$workdir/viewer.dump" || fail "cannot dump viewer"
check_begin "viewer: recognised as RFB by its banner"
grep -q '^conn .*proto=rfb' "$workdir/viewer.dump" || fail "viewer: not recognised by its banner"
check_end
check_begin "viewer: every byte lies in a message"
framed "$workdir/viewer.dump"
check_end
check_begin "viewer: the desktop name labels the connection"
grep -q '^name .*text=rfb-live-viewer' "$workdir/viewer.dump" || fail "viewer: no desktop name"
check_end
# The keys typed, in order: TigerVNC sends them as QEMU ExtendedKeyEvents
# (Xvnc offers the QEMU extended key pseudo-encoding), a plain KeyEvent
# otherwise.  Each press's keysym: "echo hello rfb" then Return.
want="0x65 0x63 0x68 0x6f 0x20 0x68 0x65 0x6c 0x6c 0x6f 0x20 0x72 0x66 0x62 0xff0d"
got=$(sed -n 's/^msg .*name=\(Extended\)\{0,1\}KeyEvent .*detail="down keysym \(0x[0-9a-f]*\).*/\2/p' \
	"$workdir/viewer.dump" | tr '\n' ' ' | sed 's/ $//')
check_begin "viewer: the keys pressed are the ones typed, in order"
[ "$got" = "$want" ] || fail "viewer: keys pressed '$got', typed '$want'"
check_end
check_begin "viewer: each key pressed is released"
ups=$(grep -c '^msg .*KeyEvent .*detail="up keysym' "$workdir/viewer.dump")
[ "$ups" = 15 ] || fail "viewer: $ups key releases for 15 presses"
check_end
check_begin "viewer: the pointer's moves are PointerEvents"
grep -q '^msg .*name=PointerEvent' "$workdir/viewer.dump" || fail "viewer: no PointerEvent seen"
check_end
say "viewer: $(grep -c '^msg' "$workdir/viewer.dump") messages"
exit 0
