# rfb-session.sh — real RFB traffic to a pcap, for the tests that compare
# xcap with a peer or cut the capture (sourced after lib.sh).
#
# rfb_session PCAP: starts Xvnc (TigerVNC) and x11vnc over an Xvfb, each
# with an xterm to show; captures with tcpdump, whole packets, while
#   - tests/rfbclient.py connects once per encoding (each connection asks
#     for the screen in that one encoding first, then scripts input and
#     cut text), logging to $workdir/log-SERVER-ENCODING;
#   - xtigervncviewer under the Xvfb views the Xvnc, moved by xdotool.
# Sets xvnc_port, x11vnc_port.  Fails if tcpdump lost packets.
rfb_encodings_xvnc="Raw CopyRect RRE Hextile Tight ZRLE"
rfb_encodings_x11vnc="Raw RRE CoRRE Hextile Zlib Tight ZRLE TRLE"

rfb_decorate() {
	DISPLAY=$1 xterm -geometry 60x20+0+0 -e sh -c 'ls -l /usr/bin; sleep 600' >/dev/null 2>&1 &
	pids="$pids $!"
}

rfb_session() {
	need Xvnc x11vnc xtigervncviewer Xvfb xdotool xterm tcpdump /usr/bin/python3
	start_xvnc rfb-session-xvnc server-xvnc
	base=$xvnc_port
	rfb_decorate ":$xvnc_display"
	start_xvfb
	rfb_decorate "$DISPLAY"
	x11vnc_port=$(( base + 1 ))
	x11vnc -display "$DISPLAY" -rfbport "$x11vnc_port" -localhost -nopw -forever -shared -quiet \
		-noshm -noxdamage >"$workdir/server-x11vnc.log" 2>&1 &
	pids="$pids $!"
	wait_for python3 -c "import socket; socket.create_connection(('127.0.0.1', $x11vnc_port))" ||
		fail "x11vnc did not start: $(cat "$workdir/server-x11vnc.log")"
	sleep 1
	start_capture rfbcap tcpdump -i lo -s 0 -B 65536 -U -w "$1" \
		"tcp port $xvnc_port or tcp port $x11vnc_port"
	for e in $rfb_encodings_xvnc; do
		timeout 60 /usr/bin/python3 "$top_srcdir/tests/rfbclient.py" 127.0.0.1 "$xvnc_port" \
			"$workdir/log-xvnc-$e" "$e" || fail "rfbclient ($e) against Xvnc failed"
	done
	for e in $rfb_encodings_x11vnc; do
		timeout 60 /usr/bin/python3 "$top_srcdir/tests/rfbclient.py" 127.0.0.1 "$x11vnc_port" \
			"$workdir/log-x11vnc-$e" "$e" || fail "rfbclient ($e) against x11vnc failed"
	done
	xtigervncviewer "127.0.0.1::$xvnc_port" >"$workdir/viewer.log" 2>&1 &
	vpid=$!
	pids="$pids $vpid"
	win=$(timeout 15 xdotool search --sync --onlyvisible --name 'rfb-session-xvnc' | head -n 1)
	[ -n "$win" ] || fail "the viewer's window did not appear: $(cat "$workdir/viewer.log")"
	sleep 1
	for xy in "100 100" "300 200" "320 220" "50 400"; do
		# shellcheck disable=SC2086
		xdotool mousemove --window "$win" $xy click 1
		sleep 0.2
	done
	sleep 1
	kill "$vpid"
	wait "$vpid" 2>/dev/null
	sleep 1.2	# tcpdump hands over its last ring block after its 1 s timeout
	stop_capture rfbcap
	grep -q "^0 packets dropped by kernel" "$workdir/rfbcap.err" ||
		fail "the reference capture lost packets: $(tail -1 "$workdir/rfbcap.err")"
}
