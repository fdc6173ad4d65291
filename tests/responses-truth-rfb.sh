#!/bin/sh
# responses-truth-rfb.sh — xcapanalyse --responses on RFB against the
# viewer's own clock.
#
# tests/rfbtruth.py is the viewer: it keeps an incremental update request
# outstanding, types keys into an xterm on the server's desktop and
# clicks in it (button 1 starts a selection, button 3 extends it: the
# highlight appears on button 3's press and goes on button 1's), and
# stamps each KeyEvent and PointerEvent as it writes it and the last byte
# of the last update before the next input as its host received it (the
# kernel's receive stamp).  The capture is on loopback, beside the viewer (the
# display, for RFB), so nothing is added for the capture point, and xcapanalyse's response time per input must
# agree with the viewer's within 2 ms + 5 %, for keys and for clicks.  Against Xvnc (TigerVNC) and
# x11vnc serving an Xvfb.  A press whose update came must have a response;
# a release that changed nothing must be flagged "none".
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need root xcap xcapanalyse Xvnc xterm /usr/bin/python3
py=/usr/bin/python3
gap_ms=500
# a s d f g h j k, Return; then select from line 2 to line 9 and clear it
# (xterm's fixed font is 6x13)
inputs="0x61 0x73 0x64 0x66 0x67 0x68 0x6a 0x6b 0xff0d click:1:8,20 click:3:150,110 click:1:8,20"

# judge NAME PORT: capture the viewer's session on PORT and compare.
judge() {
	_n=$1 _port=$2
	start_capture "cap_$_n" xcap -i lo -w "$workdir/$_n.xcap" "tcp port $_port"
	# shellcheck disable=SC2086
	$py "$top_srcdir/tests/rfbtruth.py" 127.0.0.1 "$_port" "$workdir/$_n.truth" "$gap_ms" $inputs \
		2>"$workdir/$_n.viewer.err" || fail "$_n: the viewer failed: $(tail -3 "$workdir/$_n.viewer.err")"
	sleep 0.5
	stop_capture "cap_$_n"
	xcapanalyse --responses --format csv "$workdir/$_n.xcap" >"$workdir/$_n.csv" ||
		fail "$_n: xcapanalyse failed"
	$py - "$workdir/$_n.truth" "$workdir/$_n.csv" "$_n" <<'PY' || fail "$_n: xcapanalyse disagrees with the viewer's clock"
import csv, sys
truth = [l.split() for l in open(sys.argv[1]) if l.strip()]
name = sys.argv[3]
rows = list(csv.DictReader(open(sys.argv[2])))
if len(rows) != len(truth):
    print(f"{name}: {len(truth)} inputs sent, {len(rows)} inputs found")
    sys.exit(1)
bad = compared = clicks = 0
for t, r in zip(truth, rows):
    none = "none" in r["flags"].split(",")
    if t[1] == "motion":
        same = t[2] == f"{r['x']},{r['y']}"
    elif t[1].startswith("button"):
        same = t[2] == r["what"]
    else:
        same = t[2] in r["what"]
    if t[1] != r["kind"] or not same:
        print(f"{name}: input {t[0]} is {t[1]} {t[2]}, xcapanalyse says {r['kind']} {r['what']} "
              f"at {r['x']},{r['y']}")
        bad += 1
        continue
    if t[0] == "1":
        # The pointer put at 50,50 right after the first full-screen
        # update: what is still coming of the desktop drawing itself is
        # not its response.  Found as an input, not timed.
        continue
    if t[4] == "-":
        if not none:
            print(f"{name}: input {t[0]} {t[1]}: no update came, xcapanalyse gives {r['response']} s")
            bad += 1
        continue
    # The KeyEvent left between BEFORE and SENT: the viewer's response
    # time is somewhere in [want, most]; judged by the distance to it.
    want = (int(t[4]) - int(t[3])) / 1e9
    most = (int(t[4]) - int(t[6])) / 1e9
    if none:
        print(f"{name}: input {t[0]} {t[1]}: update after {want * 1e3:.2f} ms, xcapanalyse finds none")
        bad += 1
        continue
    got = float(r["response"])
    off = want - got if got < want else got - most if got > most else 0.0
    ok = off <= 0.002 + 0.05 * want
    compared += 1
    clicks += t[1] == "button-press"
    span = f"{want * 1e3:.2f}" + (f"..{most * 1e3:.2f}" if most - want >= 0.00001 else "")
    print(f"{name}: input {t[0]} {t[1]} {t[2]}: viewer {span} ms, xcapanalyse "
          f"{got * 1e3:.2f} ms, {r['updates']} updates, {r['pixels']} pixels"
          + ("" if ok else "  <-- outside 2 ms + 5 %"))
    bad += not ok
if not compared:
    print(f"{name}: no input had an update to compare")
    bad += 1
if not clicks:
    print(f"{name}: no click had an update to compare")
    bad += 1
sys.exit(bad != 0)
PY
}

start_xvnc responses-truth server-xvnc
DISPLAY=:$xvnc_display xterm -geometry 60x15+0+0 -fn fixed -e sh -c 'seq 1000 1010; exec cat' >"$workdir/xterm-xvnc.log" 2>&1 &
pids="$pids $!"
sleep 2
judge xvnc "$xvnc_port"

if command -v x11vnc >/dev/null && command -v Xvfb >/dev/null; then
	start_xvfb
	xterm -geometry 60x15+0+0 -fn fixed -e sh -c 'seq 1000 1010; exec cat' >"$workdir/xterm-x11vnc.log" 2>&1 &
	pids="$pids $!"
	port2=$((xvnc_port + 1))
	x11vnc -display "$DISPLAY" -rfbport "$port2" -localhost -nopw -forever -shared -quiet -noshm \
		>"$workdir/server-x11vnc.log" 2>&1 &
	pids="$pids $!"
	wait_for $py -c "import socket; socket.create_connection(('127.0.0.1', $port2))" ||
		fail "x11vnc did not start: $(cat "$workdir/server-x11vnc.log")"
	sleep 1
	judge x11vnc "$port2"
else
	say "x11vnc or Xvfb missing: Xvnc only"
fi
say "RFB response times agree with the viewer's clock"
