#!/bin/sh
# responses-vnc-viewer.sh — xcapanalyse --responses on Debian's default VNC
# viewer, TigerVNC's xtigervncviewer, against what the capture's bytes say.
#
# The viewer runs under an Xvfb of its own and xdotool types into it and
# clicks in it, as a program would (each press and its release in the same
# moment: one input, unless a busy machine delayed the release past
# --release-ms's 50 ms): keys into an xterm on the server's desktop (it
# echoes them), clicks that select and extend a selection in it.  Against Xvnc (TigerVNC:
# QEMU extended key events, cursor updates before the screen's, a repeated
# PointerEvent after each click) and x11vnc serving an Xvfb.  tcpdump
# captures the session; tests/rfbpcap.py frames the pcap's RFB itself
# and gives, per key press and click, the time from the input to the last
# update carrying pixels before 150 ms of quiet.  xcapanalyse's row for
# each press must be there, in order, and at least 95 % of them within
# 2 ms + 10 % of that.  xcap-replay then plays the Xvnc session back and
# must ask for the encodings TigerVNC's viewer asked for.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need root Xvnc x11vnc xtigervncviewer Xvfb xdotool xterm tcpdump xcapanalyse xcap-replay xcap /usr/bin/python3
py=/usr/bin/python3

# session NAME PORT DESKTOP: the viewer on PORT under $viewer_display, the
# capture, the inputs, and the judgement.
session() {
	_n=$1 _port=$2 _desk=$3
	tcpdump -i lo -U -w "$workdir/$_n.pcap" "tcp port $_port" 2>"$workdir/$_n.tcpdump.err" &
	_tpid=$!
	pids="$pids $_tpid"
	wait_for grep -q "listening on" "$workdir/$_n.tcpdump.err" ||
		fail "$_n: tcpdump did not start: $(cat "$workdir/$_n.tcpdump.err")"
	DISPLAY=$viewer_display xtigervncviewer "127.0.0.1::$_port" >"$workdir/$_n.viewer.log" 2>&1 &
	_vpid=$!
	pids="$pids $_vpid"
	_win=$(DISPLAY=$viewer_display timeout 15 xdotool search --sync --onlyvisible --name "$_desk" |
		head -n 1)
	[ -n "$_win" ] || fail "$_n: the viewer's window did not appear: $(cat "$workdir/$_n.viewer.log")"
	sleep 1
	# No window manager: click on the xterm (its desktop gives the focus
	# to what is under the pointer), and give the viewer's window the
	# focus (FLTK takes keys only then).
	DISPLAY=$viewer_display xdotool mousemove --window "$_win" 100 60 click 1
	sleep 0.5
	DISPLAY=$viewer_display xdotool windowfocus --sync "$_win"
	sleep 0.5
	for _k in a s d f g h j k l Return a s d f Return; do
		DISPLAY=$viewer_display xdotool key "$_k"
		sleep 0.4
	done
	# Button 1 at the first line clears the selection, button 3 extends it
	# to where it is (xterm's fixed font is 6x13).
	for _c in "8 20 1" "150 110 3" "8 20 1" "100 50 3" "8 20 1" "200 150 3" "8 20 1"; do
		set -- $_c
		DISPLAY=$viewer_display xdotool mousemove --window "$_win" "$1" "$2"
		sleep 0.4
		DISPLAY=$viewer_display xdotool click "$3"
		sleep 0.5
	done
	kill "$_vpid"
	wait "$_vpid" 2>/dev/null
	sleep 1
	kill -INT "$_tpid"
	wait "$_tpid"
	$py "$top_srcdir/tests/rfbpcap.py" "$workdir/$_n.pcap" "$_port" >"$workdir/$_n.truth" ||
		fail "$_n: the capture's bytes could not be framed"
	xcapanalyse --responses --format csv "$workdir/$_n.pcap" >"$workdir/$_n.csv" ||
		fail "$_n: xcapanalyse failed"
	check_begin "$_n: every key and click is one input, in order"
	$py - "$workdir/$_n.truth" "$workdir/$_n.csv" "$_n" <<'PY' || fail "$_n: the inputs differ"
import csv, sys
truth = [l.split() for l in open(sys.argv[1]) if l.strip()]
rows = [r for r in csv.DictReader(open(sys.argv[2])) if r["kind"].endswith("-press")]
name = sys.argv[3]
keys = sum(t[1] == "key-press" for t in truth)
clicks = len(truth) - keys
print(f"{name}: {keys} key presses and {clicks} clicks in the capture, {len(rows)} presses found")
bad = len(rows) != len(truth) or keys < 15 or clicks < 8
for t, r in zip(truth, rows):
    if t[1] != r["kind"] or t[2] not in r["what"]:
        print(f"{name}: input {t[0]} is {t[1]} {t[2]}, xcapanalyse says {r['kind']} {r['what']}")
        bad = True
# A release is a row of its own only when it came later than
# --release-ms's 50 ms after its press (xdotool's come after 6 ms, or at
# once; a busy machine can delay one).
releases = sum(1 for r in csv.DictReader(open(sys.argv[2])) if r["kind"].endswith("-release"))
late = sum(1 for t in truth if t[6] == "-" or float(t[6]) > 0.050)
gaps = sorted(float(t[6]) * 1e3 for t in truth if t[6] != "-")
print(f"{name}: releases {gaps[0]:.2f} to {gaps[-1]:.2f} ms after their presses; "
      f"{late} later than 50 ms, {releases} rows of their own")
if releases != late:
    bad = True
sys.exit(bad)
PY
	check_end || return 0
	check_begin "$_n: 95 % of the responses within 2 ms + 10 % of the bytes' own"
	$py - "$workdir/$_n.truth" "$workdir/$_n.csv" "$_n" <<'PY' || fail "$_n: xcapanalyse disagrees with the capture's bytes"
import csv, sys
truth = [l.split() for l in open(sys.argv[1]) if l.strip()]
rows = [r for r in csv.DictReader(open(sys.argv[2])) if r["kind"].endswith("-press")]
name = sys.argv[3]
good = 0
for t, r in zip(truth, rows):
    none = "none" in r["flags"].split(",")
    if t[4] == "-":
        ok = none
        say = "no update with pixels"
    else:
        want = float(t[4])
        ok = not none and abs(float(r["response"]) - want) <= 0.002 + 0.10 * want
        say = f"{want * 1e3:.2f} ms in {t[5]} updates"
    got = "none" if none else f"{float(r['response']) * 1e3:.2f} ms"
    print(f"{name}: {t[1]} {t[2]} at {float(t[3]):.3f} s: bytes {say}, xcapanalyse {got}"
          + ("" if ok else "  <-- outside 2 ms + 10 %"))
    good += ok
share = good / len(truth)
print(f"{name}: {good} of {len(truth)} ({share:.0%}) within 2 ms + 10 %")
sys.exit(share < 0.95)
PY
	check_end
}

# The viewer's display.
start_xvfb
viewer_display=$DISPLAY

# 1. Xvnc
start_xvnc responses-vnc-viewer server-xvnc
DISPLAY=:$xvnc_display xterm -geometry 60x15+0+0 -fn fixed -e sh -c 'seq 1000 1010; exec cat' \
	>"$workdir/xterm-xvnc.log" 2>&1 &
pids="$pids $!"
sleep 2
session xvnc "$xvnc_port" responses-vnc-viewer

# xcap-replay plays the session back as a viewer of its own: it asks for
# what TigerVNC's viewer asked for (less Fence and ContinuousUpdates, which
# it would have to answer), not Raw, and frames every update it gets.
check_begin "replay: asks for the recorded viewer's encodings and frames what comes"
xcap-replay record "$workdir/xvnc.pcap" -o "$workdir/xvnc.session" 2>"$workdir/record.err" ||
	fail "cannot record the session: $(cat "$workdir/record.err")"
grep -q '^encodings .*Tight' "$workdir/xvnc.session" ||
	fail "the session does not keep the viewer's encodings: $(grep -v '^[0-9]' "$workdir/xvnc.session")"
xcap-replay --rfb "127.0.0.1:$xvnc_port" --quiet 100 --timeout 1000 --capture "$workdir/replay.xcap" \
	"$workdir/xvnc.session" 2>"$workdir/replay.err"
_st=$?
[ $_st = 0 ] || [ $_st = 3 ] || fail "the replay failed ($_st): $(cat "$workdir/replay.err")"
# The encodings each asked for, by name, as a session keeps them.
xcap-replay record "$workdir/replay.xcap" -o "$workdir/replay.session" 2>"$workdir/record2.err" ||
	fail "cannot record the replay's capture: $(cat "$workdir/record2.err")"
_rec=$(sed -n 's/^encodings //p' "$workdir/xvnc.session" | sed -e 's/ Fence / /' -e 's/ ContinuousUpdates / /')
_rep=$(sed -n 's/^encodings //p' "$workdir/replay.session")
[ -n "$_rep" ] && [ "$_rec" = "$_rep" ] || fail "the replay asked for '$_rep', the viewer for '$_rec'"
xcapanalyse --dump "$workdir/replay.xcap" >"$workdir/replay.dump" || fail "cannot dump the replay's capture"
! grep -E '^note .*(not framed|cannot frame|not decoded)' "$workdir/replay.dump" ||
	fail "the replay's capture has updates the decoder could not frame"
! grep -E '^msg .*name=FramebufferUpdate .*Raw [0-9]+ [0-9]{6,}px' "$workdir/replay.dump" ||
	fail "the replay was sent the screen in Raw"
say "replay: $(grep -c 'name=FramebufferUpdate' "$workdir/replay.dump") updates, the first with pixels:" \
	"$(xcapanalyse --messages "$workdir/replay.xcap" | grep -v no-pixels | grep -m 1 -o 'FramebufferUpdate .*')"
check_end

# 2. x11vnc over an Xvfb of its own
start_xvfb
xterm -geometry 60x15+0+0 -fn fixed -e sh -c 'seq 1000 1010; exec cat' >"$workdir/xterm-x11vnc.log" 2>&1 &
pids="$pids $!"
port2=$((xvnc_port + 1))
x11vnc -display "$DISPLAY" -rfbport "$port2" -localhost -nopw -forever -shared -quiet -noshm \
	-desktop x11vnc-responses >"$workdir/server-x11vnc.log" 2>&1 &
pids="$pids $!"
wait_for $py -c "import socket; socket.create_connection(('127.0.0.1', $port2))" ||
	fail "x11vnc did not start: $(cat "$workdir/server-x11vnc.log")"
sleep 1
session x11vnc "$port2" x11vnc-responses
exit 0
